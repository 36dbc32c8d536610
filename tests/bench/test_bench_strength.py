"""``unoduo bench strength`` (bench/strength.py): the pairings, figures that do not depend on
``--jobs``, hands counted from the rounds' ends, the rating book over the matches, and the
targets read honestly."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from typer.testing import CliRunner

from bench.strength import TABLES, TWO_SEATS, Figures, Options, _tasks, pairings, run, tables, verdicts
from cli.main import app
from engine.game.rulesets import get_ruleset
from engine.play.selfplay import play_match
from engine.play.tally import Tally

OPTIONS = Options(("random", "rule-v1", "greedy"), ("greedy", "rule-v1"), 4, 2, ("greedy",), 1, 3)


def test_each_bot_meets_each_reference_and_the_next_bot_once() -> None:
    assert pairings(OPTIONS) == [("random", "greedy"), ("random", "rule-v1"), ("rule-v1", "greedy")]
    assert tables(OPTIONS) == [("random", "greedy", "greedy", "greedy"), ("rule-v1", "greedy", "greedy", "greedy")]
    assert tables(replace(OPTIONS, tables_for_top_only=True)) == []  # the top bot is greedy itself
    assert tables(replace(OPTIONS, bots=("random", "rule-v1"), tables_for_top_only=True)) == [
        ("rule-v1", "greedy", "greedy", "greedy")
    ]
    both = replace(OPTIONS, bots=("random", "rule-v1"), table_against=("greedy", "rule-v1"), tables_for_top_only=True)
    assert tables(both) == [("rule-v1", "greedy", "greedy", "greedy")]  # never a table of one bot alone
    assert tables(replace(both, tables_for_top_only=False)) == [
        ("random", "greedy", "greedy", "greedy"),
        ("random", "rule-v1", "rule-v1", "rule-v1"),
        ("rule-v1", "greedy", "greedy", "greedy"),
    ]
    levels = replace(OPTIONS, bots=("random", "rule-v1"), against=("greedy",))
    assert pairings(levels) == [("random", "greedy"), ("rule-v1", "greedy"), ("random", "rule-v1")]


def test_the_figures_do_not_depend_on_the_worker_processes() -> None:
    one, two = run(OPTIONS), run(replace(OPTIONS, jobs=2))
    assert (one.pairings, one.tables, one.ratings) == (two.pairings, two.tables, two.ratings)
    assert [s.matches for s in one.pairings] == [4, 4, 4] and [s.matches for s in one.tables] == [2, 2]
    assert set(one.ratings) == {"random", "rule-v1", "greedy"}
    assert all(games == 8 for _, _, games in one.ratings.values())  # each bot in two pairings of 4


def test_hands_won_are_the_rounds_each_entrant_won() -> None:
    bots = ("rule-v1", "greedy", "greedy", "greedy")
    tally = Tally(bots, "classic", 5)
    winners = [0, 0, 0, 0]
    for index in range(3):
        result = play_match(bots, get_ruleset("classic"), 5, index)
        tally.add(result.without_events())
        for event in result.events:
            if event.type == "round_ended" and event.data["winner"] is not None:
                winners[result.entrants[event.data["winner"]]] += 1
    summary = tally.summary()
    assert [e.hands_won for e in summary.entrants] == winners
    assert sum(winners) <= summary.rounds and summary.hand_interval(0)[0] <= summary.hand_rate(0)


def test_a_missed_target_says_by_how_much() -> None:
    figures = run(replace(OPTIONS, bots=("random",), against=("greedy",)))
    assert isinstance(figures, Figures)
    lines = verdicts(figures)
    assert any("NOT met, short by 65.0% points" in line for line in lines), lines
    assert any("first at tables of four" in line and "NOT met" in line for line in lines), lines


def test_an_unknown_bot_is_refused_before_anything_runs() -> None:
    result = CliRunner().invoke(app, ["bench", "strength", "--bots", "greedy,minimax"])
    assert result.exit_code == 2 and "unknown bot 'minimax'" in result.stderr


def test_a_run_stopped_by_its_minutes_reports_the_balanced_first_matches() -> None:
    """``--minutes``: the matches are ordered match 0 of every pairing and table, then match 1, …,
    so whatever prefix is played by the deadline is balanced, and the report says how many."""
    options = replace(OPTIONS, matches=6, table_matches=4)
    tasks = _tasks(options)
    for played in range(1, len(tasks) + 1):
        counts = Counter((t.ruleset, t.bots) for t in tasks[:played])
        two = [counts[(TWO_SEATS, pair)] for pair in pairings(options)]
        four = [counts[(TABLES, seats)] for seats in tables(options)]
        assert max(two) - min(two) <= 1 and max(four) - min(four) <= 1
    stopped = run(replace(options, minutes=1e-9))  # past its deadline once the first match is over
    assert (stopped.played, stopped.planned) == (1, len(tasks))
    assert [s.matches for s in stopped.pairings] == [1] and stopped.tables == []
