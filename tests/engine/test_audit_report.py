"""``unoduo audit`` (engine/fairness/audit_report.py): the facts of every challenged Wild Draw Four, checked
against the events and an independent fold, and the table at any event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from engine.fairness.audit_report import audit, format_report, full_events, table_at
from engine.game.cards import Card, Color
from engine.game.events import EventType
from engine.game.evolve import evolve
from engine.game.state import INITIAL_STATE
from engine.record.replay import parse_replay

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "replays" / "sim-2026-uno-duo-16-greedy-vs-random.jsonl"
runner = CliRunner()


def could_follow(card: Card, top: Card, color: Color | None) -> bool:
    """D13's no_playable test, written out again here: a Wild, or the colour, or the top's rank."""
    if card.code == "W+4":
        return False
    return card.code == "W" or card.color is color or card.rank is top.rank


def test_every_challenge_is_reported_with_the_hand_the_rule_and_the_verdict() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    report = audit(text, str(SAMPLE))
    assert report.verification.ok
    _header, lines = parse_replay(text)
    events = full_events(lines)
    resolved = [i for i, e in enumerate(events, start=1) if e.type == EventType.CHALLENGE_RESOLVED]
    assert [c.resolved_seq for c in report.challenges] == resolved and len(resolved) == 4
    for c in report.challenges:
        state = INITIAL_STATE
        for event in events[: c.played_seq - 1]:
            state = evolve(state, event)
        assert state.top is not None
        top = state.card(state.top)
        assert c.top == top.code and c.color == (None if state.color is None else state.color.value)
        after = evolve(state, events[c.played_seq - 1])
        assert c.hand == [after.card(i).code for i in after.hands[c.player]]  # the hand as the W+4 left it
        # Under uno-duo's no_playable rule the play was illegal iff another card could have been played.
        could = [after.card(i).code for i in after.hands[c.player] if could_follow(after.card(i), top, state.color)]
        assert sorted(c.matching) == sorted(could)
        assert c.verdict == ("legal" if not could else "illegal") and c.legal == (not could)
        assert (c.wd4_rule, c.wd4_check, c.rule_id) == ("no_playable", "challenge", "D13")
        loser = c.challenger if c.legal else c.player
        assert [(d.seat, d.count) for d in c.draws] == [(loser, 6 if c.legal else 4)]


def test_the_table_at_an_event_shows_both_hands_the_piles_and_the_pending_decision() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    _header, lines = parse_replay(text)
    events = full_events(lines)
    table = table_at(events, 80)
    assert table.type == "challenge_resolved" and table.pending["kind"] == "wild_draw_four"
    assert len(table.hands[0]) + len(table.hands[1]) + len(table.draw_pile) + len(table.discard) == 112
    with pytest.raises(ValueError):
        table_at(events, len(events) + 1)


def test_the_command_prints_the_report_json_and_refuses_what_it_cannot_audit(tmp_path: Path) -> None:
    result = runner.invoke(app, ["audit", str(SAMPLE), "--challenges", "--at", "80"])
    assert result.exit_code == 0, result.output
    assert "Challenge 1: round 1, W+4 played at seq 77" in result.output
    assert "ILLEGAL: YS could be played" in result.output and "The table just after seq 80" in result.output
    assert "verified:" not in result.output
    as_json = json.loads(runner.invoke(app, ["audit", str(SAMPLE), "--json"]).output)
    assert as_json["verified"] and len(as_json["challenges"]) == 4 and as_json["table"] is None
    assert runner.invoke(app, ["audit", str(SAMPLE), "--at", "100000"]).exit_code == 2
    assert runner.invoke(app, ["audit", str(tmp_path / "missing.jsonl")]).exit_code == 2
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text(SAMPLE.read_text(encoding="utf-8").replace('"verdict":"illegal"', '"verdict":"legal"', 1))
    refused = runner.invoke(app, ["audit", str(tampered)])
    assert refused.exit_code == 1 and "NOT VERIFIED: line" in refused.output and "no audit was made" in refused.output


# ---------------------------------------------------------------- a table of more than two


@pytest.fixture(scope="module")
def table_text() -> str:
    from engine.record.replay import replay_text
    from tests.engine.test_verify import play_table

    return replay_text("t5", "classic", [f"p{s}" for s in range(5)], play_table(5, 5))


def test_a_table_of_five_is_audited_with_every_hand_and_every_place(table_text: str) -> None:
    _header, lines = parse_replay(table_text)
    events = full_events(lines)
    ended = next(e.data for e in events if e.type == EventType.MATCH_ENDED)
    report = audit(table_text, "t5.jsonl", at=40)
    assert report.verification.ok and report.table is not None
    assert len(report.table.hands) == 5 and report.table.dealt and len(report.table.departed) == 5
    assert sum(len(h) for h in report.table.hands) + len(report.table.draw_pile) + len(report.table.discard) == 108
    winner = ended["winner"]
    others = sorted((s for i, s in enumerate(ended["scores"]) if i != winner), reverse=True)
    assert (
        report.result
        == f"p{winner} wins {'–'.join(str(s) for s in [ended['scores'][winner], *others])} (first to 200 wins)"
    )
    assert report.places is not None and report.places.startswith(f"1st p{winner} {ended['scores'][winner]}")
    for seat, place in enumerate(ended["places"]):
        assert f"p{seat}" in report.places and (place == 1) == (seat == winner)
    text = format_report(report)
    assert f"places: {report.places}" in text and "hand of seat 4 (p4)" in text and "direction:" in text
    assert "dealer: seat" in text and "Player 1 (first drafter)" not in text


def test_unoduo_audit_takes_any_seats_perspective(table_text: str, tmp_path: Path) -> None:
    _header, lines = parse_replay(table_text)
    events = full_events(lines)
    resolved = next(i for i, e in enumerate(events, start=1) if e.type == EventType.CHALLENGE_RESOLVED)
    by = events[resolved - 1].data["by"]
    other = (by + 2) % 5
    path = tmp_path / "t5.jsonl"
    path.write_text(table_text, encoding="utf-8")
    for seat, sees in ((by, True), (other, False)):
        report = audit(table_text, "t5.jsonl", at=resolved, seat=seat)
        assert report.table is None and report.seat_table is not None
        seat_view = report.seat_table.view
        assert (seat_view["last_challenge"]["hand"] is not None) is sees
        assert "hands" not in seat_view and len(seat_view["hand_counts"]) == 5
        out = runner.invoke(app, ["audit", str(path), "--at", str(resolved), "--seat", str(seat)])
        assert out.exit_code == 0, out.output
        assert f"as seat {seat} (p{seat}) saw it" in out.output and "own hand (" in out.output
        first = out.output.split("Challenge 2:")[0]  # the one at ``resolved``: the other seat may challenge later
        assert ("saw the hand: yes, as the challenger" in first) is sees
        assert ("not shown to this seat" in out.output) is not sees
    as_json = json.loads(runner.invoke(app, ["audit", str(path), "--seat", "3", "--at", "10", "--json"]).output)
    assert as_json["seat"] == 3 and as_json["seat_table"]["view"]["viewer"] == 3 and as_json["table"] is None
    refused = runner.invoke(app, ["audit", str(path), "--seat", "5"])
    assert refused.exit_code == 2 and "--seat must name a seat of this match: 0 to 4" in refused.output


def test_a_forfeit_decides_a_table_only_when_it_leaves_one_seat_playing() -> None:
    from engine.fairness.audit_report import match_places, match_result
    from engine.game.events import Event
    from engine.game.rulesets import CLASSIC

    names = ["ann", "bob", "cy", "dee"]
    created = Event(EventType.MATCH_CREATED, {"ruleset": CLASSIC.to_dict(), "commitment": "", "seats": 4})
    scores = [510, 0, 120, 40]

    def ended(places: list[int]) -> Event:
        return Event(
            EventType.MATCH_ENDED, {"winner": 0, "loser": None, "scores": scores, "rounds": 3, "places": places}
        )

    def left(seat: int) -> Event:
        return Event(EventType.MATCH_FORFEITED, {"seat": seat, "reason": "timeouts"})

    one_left = [created, left(1), ended([1, 4, 2, 3])]
    assert match_result(one_left, names) == "ann wins 510–120–40–0 (first to 500 wins)"
    assert match_places(one_left, names) == "1st ann 510; 2nd cy 120; 3rd dee 40; 4th bob 0 (left the table)"
    all_left = [created, left(1), left(3), left(2), ended([1, 4, 2, 3])]
    assert match_result(all_left, names) == "ann wins 510–120–40–0 (by forfeit)"
