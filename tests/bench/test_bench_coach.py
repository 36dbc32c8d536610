"""``unoduo bench coach``: times every decision of a coach level against greedy and prints the quantiles."""

from __future__ import annotations

from dataclasses import replace

from typer.testing import CliRunner

from bench.coach_speed import lines, time_level
from cli.main import app
from engine.game.rulesets import CLASSIC, UNO_DUO


def test_every_decision_of_the_coach_is_timed() -> None:
    timings = time_level(1, replace(UNO_DUO, target=30), 2, 2, 1)
    assert timings.matches == 2 and len(timings.cpu) == len(timings.wall) > 10
    (line,) = lines(1, UNO_DUO, 2, timings)
    assert "coach-1, uno-duo at 2 seats against greedy" in line and "p99" in line


def test_a_table_of_three_is_timed_too() -> None:
    assert len(time_level(1, replace(CLASSIC, target=40), 3, 1, 2).cpu) > 3


def test_bench_coach_refuses_a_table_the_ruleset_does_not_seat() -> None:
    result = CliRunner().invoke(app, ["bench", "coach", "--ruleset", "uno-duo", "--seats", "4"])
    assert result.exit_code == 2 and "unoduo bench coach:" in result.output
