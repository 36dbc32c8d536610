"""The seats' names on the chain (``match_created``'s ``names``, docs/EVENTS.md): a replay that
carries them verifies and is read by name; one without them (every sample in replays/, made
before names were recorded) still verifies and is read by the header's players; names cannot
be changed, added or dropped without verification saying so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.fairness.audit_report import audit, format_report, full_events
from engine.fairness.verify import verify_replay
from engine.game.commands import CreateMatch
from engine.game.decide import decide_step
from engine.game.errors import CommandRefused
from engine.game.events import Event, EventType
from engine.game.rulesets import UNO_DUO
from engine.game.seat_names import seat_label, seat_names
from engine.game.shuffle import Dealer, commitment_of
from engine.game.state import INITIAL_STATE
from engine.record.replay import parse_replay, replay_text

ROOT = Path(__file__).resolve().parents[2]
LEGAL_UNO_DUO = ROOT / "replays" / "wd4-legal-challenge-uno-duo.jsonl"
IDS = ["p_b7787254ada7c867", "bot-random-5881ffc868fd36eb-1"]


def renamed(path: Path, names: Any, ids: list[str] = IDS) -> str:
    """The same match as ``path`` as a server would now write it: its first event carrying
    ``names``, the whole chain sealed again (every later event is unchanged)."""
    header, lines = parse_replay(path.read_text(encoding="utf-8"))
    events = full_events(lines)
    first = events[0]
    assert first.type == EventType.MATCH_CREATED
    events[0] = Event(first.type, {**first.data, "names": names})
    return replay_text(str(header["match"]), str(header["ruleset"]), ids, events, header.get("engine"))


def test_the_decider_records_the_names_and_refuses_bad_ones() -> None:
    seed = b"\x01" * 32
    events, _ = decide_step(
        INITIAL_STATE, CreateMatch(UNO_DUO, commitment_of(seed), None, ("ann", "bob")), Dealer(seed)
    )
    assert events[0].type == EventType.MATCH_CREATED and events[0].data["names"] == ["ann", "bob"]
    plain, _ = decide_step(INITIAL_STATE, CreateMatch(UNO_DUO, commitment_of(seed)), Dealer(seed))
    assert "names" not in plain[0].data  # without names the event is as it always was
    for bad in (("ann",), ("ann", ""), ("ann", "x" * 101), ("a", "b", "c")):
        with pytest.raises(CommandRefused, match="names must be two names"):
            decide_step(INITIAL_STATE, CreateMatch(UNO_DUO, commitment_of(seed), None, bad), Dealer(seed))


def test_a_replay_with_names_verifies_and_is_read_by_name() -> None:
    text = renamed(LEGAL_UNO_DUO, ["ann", "random-1"])
    first = json.loads(text.splitlines()[1])
    assert first["data"]["names"] == ["ann", "random-1"]  # public: in the clear, on the chain
    assert "names" not in first["sealed"]
    assert verify_replay(text).ok
    header, lines = parse_replay(text)
    assert seat_names(header, lines) == ["ann", "random-1"]
    report = format_report(audit(text, "named.jsonl"))
    assert "played by:      seat 0 (ann), naming" in report
    assert "challenged by:  seat 1 (random-1)" in report
    assert "p_b7787254ada7c867" not in report and "bot-random-" not in report


def test_an_old_replay_without_names_still_verifies_and_falls_back_to_the_players() -> None:
    text = LEGAL_UNO_DUO.read_text(encoding="utf-8")
    assert "names" not in json.loads(text.splitlines()[1])["data"]
    assert verify_replay(text).ok
    header, lines = parse_replay(text)
    assert seat_names(header, lines) == ["bot:greedy", "bot:random"]
    assert "played by:      seat 0 (bot:greedy)" in format_report(audit(text, "old.jsonl"))


def test_a_name_changed_after_the_fact_breaks_the_chain() -> None:
    text = renamed(LEGAL_UNO_DUO, ["ann", "random-1"])
    forged = text.replace('"names":["ann","random-1"]', '"names":["eve","random-1"]', 1)
    assert forged != text
    report = verify_replay(forged)
    assert not report.ok and report.line == 2 and "chain" in str(report.failure)


@pytest.mark.parametrize("names", [["ann"], ["ann", "bob", "cat"], "ann", ["ann", 7]])
def test_malformed_names_resealed_fail_the_re_run(names: Any) -> None:
    report = verify_replay(renamed(LEGAL_UNO_DUO, names))
    assert not report.ok and report.line == 2, report.failure


def test_names_that_could_be_confused_carry_the_id_or_the_seat() -> None:
    header = {"players": IDS}
    created = [{"type": "match_created", "data": {"names": ["ann", "ANN"]}}]
    assert seat_names(header, created) == ["ann (p_b7787254ada7c867)", "ANN (bot-random-5881ffc868fd36eb-1)"]
    same = {"players": ["bot:greedy", "bot:greedy"]}
    names = seat_names(same, [{"type": "match_created", "data": {}}])
    assert names == ["bot:greedy (seat 0)", "bot:greedy (seat 1)"]
    assert seat_label(names, 1) == "seat 1 (bot:greedy)"
    assert seat_label(["ann", "bob"], 0) == "seat 0 (ann)"


def test_the_audit_says_the_result_winner_first_with_the_rule() -> None:
    text = renamed(LEGAL_UNO_DUO, ["ann", "random-1"])
    report = audit(text, "named.jsonl")
    _header, lines = parse_replay(text)
    ended = next(line["data"] for line in lines if line["type"] == "match_ended")
    winner, scores = ended["winner"], ended["scores"]
    assert scores[winner] < scores[1 - winner]  # uno-duo: the lower total wins
    expected = f"{['ann', 'random-1'][winner]} wins {scores[winner]}–{scores[1 - winner]} (lowest total wins)"
    assert report.result == expected
    assert f"result: {expected}\n" in format_report(report)
    assert report.to_dict()["names"] == ["ann", "random-1"]


def test_unoduo_audit_and_verify_on_a_named_file_and_an_old_one(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app

    named = tmp_path / "named.jsonl"
    named.write_text(renamed(LEGAL_UNO_DUO, ["ann", "random-1"]), encoding="utf-8")
    runner = CliRunner()
    for path in (named, LEGAL_UNO_DUO):
        verified = runner.invoke(app, ["verify", str(path)])
        assert verified.exit_code == 0, verified.output
    out = runner.invoke(app, ["audit", str(named), "--at", "285"])
    assert out.exit_code == 0, out.output
    assert "challenged by:  seat 1 (random-1)" in out.stdout and "hand of seat 0 (ann)" in out.stdout
    assert "scores: ann " in out.stdout and "result: " in out.stdout and "(lowest total wins)" in out.stdout
    old = runner.invoke(app, ["audit", str(LEGAL_UNO_DUO), "--at", "285"])
    assert old.exit_code == 0 and "hand of seat 0 (bot:greedy)" in old.stdout
