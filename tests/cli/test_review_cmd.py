"""``unoduo review --replay FILE`` (issue 37): the review printed at 80 columns, or as JSON; bad input exits 2."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from cli.main import app
from engine.game.rulesets import UNO_DUO
from engine.play.selfplay import play_match
from engine.record.replay import replay_text

runner = CliRunner()


def _replay(tmp_path: Path) -> Path:
    result = play_match(["greedy", "random"], replace(UNO_DUO, target=40), 5, 0)
    path = tmp_path / "m.jsonl"
    path.write_text(replay_text(result.match_id, result.ruleset, result.players, result.events), encoding="utf-8")
    return path


def test_the_review_of_a_replay_prints_its_figures_within_80_columns(tmp_path: Path) -> None:
    path = _replay(tmp_path)
    done = runner.invoke(app, ["review", "--replay", str(path), "--seat", "1", "--samples", "2", "--all"])
    assert done.exit_code == 0, done.output
    assert "Game Review of bot:random, seat 1" in done.output
    assert "Accuracy" in done.output and "Luck by hand" in done.output and "Decisions" in done.output
    assert max(len(line) for line in done.output.splitlines()) <= 80
    as_json = runner.invoke(app, ["review", "--replay", str(path), "--seat", "1", "--samples", "2", "--json"])
    review = json.loads(as_json.output)
    assert review["seat"] == 1 and review["settings"]["samples"] == 2 and review["reviewed"] == len(review["decisions"])


def test_bad_arguments_exit_2_with_one_line(tmp_path: Path) -> None:
    path = _replay(tmp_path)
    for args in (
        ["review"],
        ["review", "m_x", "--replay", str(path)],
        ["review", "--replay", str(path), "--samples", "0"],
    ):
        done = runner.invoke(app, args)
        assert done.exit_code == 2, (args, done.output)
    seat = runner.invoke(app, ["review", "--replay", str(path), "--seat", "2", "--samples", "1"])
    assert seat.exit_code == 2 and "seat 2 is not at this table" in seat.output


def test_a_replay_that_does_not_verify_is_not_reviewed(tmp_path: Path) -> None:
    path = _replay(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[5] = lines[5].replace('"seq":5', '"seq":6')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = runner.invoke(app, ["review", "--replay", str(path), "--samples", "1"])
    assert done.exit_code == 1 and "does not verify" in done.output


def test_a_match_on_a_server_is_printed_as_the_server_reviewed_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.review.replay_events import replay_events
    from engine.review.report import review_dict
    from engine.review.review import ReviewSettings, review_seat

    _, events = replay_events(_replay(tmp_path).read_text(encoding="utf-8"))
    served = review_dict(review_seat(events, 0, ReviewSettings(samples=1)), "m_1", "p_ada")
    asked: list[tuple[str, dict[str, str]]] = []

    def get(url: str, params: dict[str, str], timeout: float) -> httpx.Response:
        asked.append((url, params))
        if params["seat"] == "1":
            body = {"code": "match_live", "message": "a replay is only given for a finished match", "rule": None}
            return httpx.Response(409, json=body, request=httpx.Request("GET", url))
        return httpx.Response(200, json=served, request=httpx.Request("GET", url))

    monkeypatch.setattr(httpx, "get", get)
    done = runner.invoke(app, ["review", "m_1", "--url", "http://127.0.0.1:9", "--samples", "1"])
    assert done.exit_code == 0, done.output
    assert asked[0] == ("http://127.0.0.1:9/api/matches/m_1/review", {"seat": "0", "samples": "1"})
    assert "Game Review of p_ada, seat 0, match m_1" in done.output
    live = runner.invoke(app, ["review", "m_1", "--url", "http://127.0.0.1:9", "--seat", "1"])
    assert live.exit_code == 1 and "409 match_live" in live.output
