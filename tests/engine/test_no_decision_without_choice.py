"""RULES.md D25, "No decision without a choice" (issue 32, point 7).

Without ``draw_two_stacking`` a Draw Two's next player draws 2 at once and loses the turn: no
``awaiting`` for it, so no move clock and no ``draw`` command of its own, exactly as a Wild Draw
Four under ``wd4_check = enforced`` and a Draw Two starter (D4, D19). A seat that loses its turn
so (or to a Skip, or to a Wild Draw Four drawn at once) has not begun a turn: a UNO window open
then stays open until the next seat that does begin one acts (D14, D22). With stacking the
decision stays, Draw Two in hand or not (D8). The ruleset switch is ``draw_two_at_once``; a
match recorded before it existed (its ``match_created`` ruleset without the key) is read, re-run
and verified as it was played: the seat was asked.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine.bots.greedy import rules_of
from engine.fairness.audit_report import full_events
from engine.fairness.verify import verify_replay
from engine.game.commands import TimeOut
from engine.game.errors import CommandRefused, ErrorCode
from engine.game.events import Event, EventType
from engine.game.evolve import fold
from engine.game.rulesets import CLASSIC, CLASSIC_2P, UNO_DUO, Ruleset
from engine.game.state import MatchState, PendingKinds
from engine.play.match import LocalMatch
from engine.play.scenario import build_dealer, parse_spec
from engine.play.selfplay import play_match
from engine.protocol.views import legal_commands, view
from engine.record.replay import parse_replay, replay_text
from engine.record.snapshot_codec import decode_state, encode_state
from tests.engine.playing import reseal

ROOT = Path(__file__).resolve().parents[2]
OLD_CLASSIC_REPLAY = ROOT / "replays" / "sim-2026-classic-2p-7-random-vs-greedy.jsonl"
PRE_D25_CLASSIC_2P = replace(CLASSIC_2P, draw_two_at_once=False)  # how a match recorded before D25 reads

# classic-2p, dealer seat 0, dealt one at a time from seat 1 (docs/RULES.md "Reading a worked
# example"): seat 1 holds R+2 B6 G5 Y2 G3 Y9 B1, seat 0 G+2 R7 W Y4 G8 Y1 B3; starter R3; then Y5 Y6.
TWO_SEATS = ["R+2", "G+2", "B6", "R7", "G5", "W", "Y2", "Y4", "G3", "G8", "Y9", "Y1", "B1", "B3", "R3", "Y5", "Y6"]
# The same with two-card hands: seat 1 R+2 B6, seat 0 G+2 R7; starter R3; then Y5 Y6.
TWO_SEATS_SHORT = ["R+2", "G+2", "B6", "R7", "R3", "Y5", "Y6"]


def four_seats(card: str, seat2: str = "G+2") -> list[str]:
    """A table of four, two cards each, dealer seat 0 (dealt from seat 1): seat 1 holds ``card``
    and B1, seat 2 ``seat2`` and Y1, seat 3 R2 and Y5, seat 0 R4 and B3; starter R5; then B7 B8 G1 G2."""
    return [card, seat2, "R2", "R4", "B1", "Y1", "Y5", "B3", "R5", "B7", "B8", "G1", "G2"]


def table(ruleset: Ruleset, deck: list[str], seats: int | None = None) -> LocalMatch:
    spec = parse_spec({"ruleset": ruleset.name, "seats": seats, "dealer": 0, "decks": [deck]})
    dealer = build_dealer(spec, ruleset)
    return LocalMatch.start(dealer.server_seed, ruleset, spec.entropies, dealer, spec.seats)


def kinds(events: list[Event]) -> list[tuple[str, dict[str, Any]]]:
    return [(e.type, e.data) for e in events]


def awaited(events: list[Event]) -> list[tuple[int, str]]:
    return [(e.data["seat"], e.data["kind"]) for e in events if e.type == EventType.AWAITING]


def refused(match: LocalMatch, seat: int, command: dict[str, Any]) -> ErrorCode:
    with pytest.raises(CommandRefused) as caught:
        match.act(seat, command)
    return caught.value.code


# ---------------------------------------------------------------- the ruleset switch


def test_the_stock_rulesets_draw_a_draw_two_at_once_where_they_do_not_stack() -> None:
    assert CLASSIC_2P.draw_two_at_once and CLASSIC.draw_two_at_once
    assert CLASSIC_2P.to_dict()["draw_two_at_once"] is True and CLASSIC.to_dict()["draw_two_at_once"] is True
    # uno-duo stacks (the decision stays, D25): its record is what it was before the switch existed.
    assert "draw_two_at_once" not in UNO_DUO.to_dict()
    assert Ruleset.from_dict({"name": "classic", "target": 300}).draw_two_at_once
    # A ruleset without stacking built over uno-duo's switches is "a ruleset without
    # draw_two_stacking" too: D25 holds there as well.
    assert Ruleset.from_dict({"name": "uno-duo", "draw_two_stacking": False}).draw_two_at_once


def test_a_recorded_ruleset_without_the_key_reads_as_played_before_d25() -> None:
    old = {k: v for k, v in CLASSIC_2P.to_dict().items() if k != "draw_two_at_once"}
    assert Ruleset.from_record(old) == PRE_D25_CLASSIC_2P
    assert PRE_D25_CLASSIC_2P.to_dict() == old  # and it records (and hashes) exactly as before
    assert Ruleset.from_record(UNO_DUO.to_dict()) == UNO_DUO
    # Every combination survives the round trip through a record.
    for stacking in (False, True):
        for at_once in (False, True):
            ruleset = replace(CLASSIC, draw_two_stacking=stacking, draw_two_at_once=at_once)
            assert Ruleset.from_record(ruleset.to_dict()) == ruleset


def test_the_switch_is_a_boolean() -> None:
    with pytest.raises(ValueError, match="draw_two_at_once"):
        Ruleset.from_dict({"name": "classic", "draw_two_at_once": "yes"})


# ---------------------------------------------------------------- no decision without a choice


def test_classic_2p_draw_two_is_drawn_at_once_and_the_turn_is_lost() -> None:
    match = table(CLASSIC_2P, TWO_SEATS)
    events = match.act(1, {"type": "play", "card": "R+2"})
    assert [t for t, _ in kinds(events)] == ["command", "card_played", "cards_drawn", "awaiting"]
    drawn = events[2].data
    assert (drawn["seat"], drawn["count"], drawn["codes"], drawn["reason"]) == (0, 2, ["Y5", "Y6"], "volley")
    assert awaited(events) == [(1, "turn")]  # seat 0 was never asked: the Draw Two's player goes again
    state = match.state
    assert (state.pending.seat, state.pending.kind) == (1, PendingKinds.TURN)
    assert [len(h) for h in state.hands] == [9, 6]
    assert legal_commands(state, 0) == []  # nothing to send, nothing on a clock
    assert refused(match, 0, {"type": "draw"}) is ErrorCode.NOT_YOUR_TURN
    with pytest.raises(CommandRefused) as caught:
        match.apply(TimeOut(0, expected_version=state.version))
    assert caught.value.code is ErrorCode.NOT_YOUR_TURN


def test_before_d25_the_seat_was_asked_and_a_match_so_recorded_replays_so() -> None:
    match = table(PRE_D25_CLASSIC_2P, TWO_SEATS)
    events = match.act(1, {"type": "play", "card": "R+2"})
    assert awaited(events) == [(0, "volley")]
    assert legal_commands(match.state, 0) == [{"type": "draw"}]
    assert "draw_two_at_once" not in match.events[0].data["ruleset"]
    assert fold(match.events).ruleset == PRE_D25_CLASSIC_2P


def test_at_a_table_the_next_player_draws_at_once_and_the_one_after_plays() -> None:
    match = table(replace(CLASSIC, hand_size=2), four_seats("R+2"), seats=4)
    events = match.act(1, {"type": "play", "card": "R+2"})
    drawn = next(e.data for e in events if e.type == EventType.CARDS_DRAWN)
    assert (drawn["seat"], drawn["codes"], drawn["reason"]) == (2, ["B7", "B8"], "volley")
    assert awaited(events) == [(3, "turn")]
    assert not any(e.type == EventType.COMMAND and e.data["seat"] == 2 for e in match.events)
    assert refused(match, 2, {"type": "play", "card": "G+2"}) is ErrorCode.NOT_YOUR_TURN  # no stacking


def test_a_dump_ending_in_a_draw_two_without_stacking_draws_at_once() -> None:
    # uno-duo's switches with stacking turned off: the dump's last Draw Two hits at once too.
    rules = Ruleset.from_dict({"name": "uno-duo", "draw_two_stacking": False, "hand_size": 4})
    # A draft where every step keeps: a step takes the top card into the hand and puts the next
    # on the draft pile, seat 0 first. Seat 1 (Player 2) moves first on the starter Y5.
    deck = ["R1", "G1", "YR", "G2", "B1", "G3", "Y3", "B3", "B2", "R3", "Y+2", "R4", "R5", "G4", "B4", "G5", "Y5"]
    spec = parse_spec({"ruleset": "uno-duo", "first_drafter": 0, "decks": [deck]})
    dealer = build_dealer(spec, rules)
    match = LocalMatch.start(dealer.server_seed, rules, spec.entropies, dealer)
    for step in range(8):
        match.act(step % 2, {"type": "draft", "keep": True})
    assert [match.state.card(i).code for i in match.state.hands[1]] == ["Y3", "YR", "Y+2", "B4"]
    match.act(1, {"type": "play", "card": "YR"})
    events = match.act(1, {"type": "dump", "cards": ["Y3", "Y+2"], "uno": True})
    drawn = next(e.data for e in events if e.type == EventType.CARDS_DRAWN)
    assert (drawn["seat"], drawn["count"], drawn["reason"]) == (0, 2, "volley")
    assert awaited(events) == [(1, "turn")]


def test_with_stacking_the_decision_stays_even_without_a_draw_two_in_hand() -> None:
    stacking = replace(CLASSIC, draw_two_stacking=True)
    for ruleset in (stacking, replace(stacking, draw_two_at_once=False)):
        match = table(ruleset, four_seats("R+2", seat2="G7"), seats=4)
        assert not any(match.state.card(i).code.endswith("+2") for i in match.state.hands[2])
        events = match.act(1, {"type": "play", "card": "R+2"})
        assert awaited(events) == [(2, "volley")]
        assert legal_commands(match.state, 2) == [{"type": "draw"}]  # the flow does not tell
        assert not any(e.type == EventType.CARDS_DRAWN for e in events)


def test_a_last_card_draw_two_is_drawn_first_as_before() -> None:
    match = table(replace(CLASSIC_2P, hand_size=1), ["R+2", "G+2", "R3", "Y5", "Y6"])
    events = match.act(1, {"type": "play", "card": "R+2"})
    types = [e.type for e in events]
    assert types.index(EventType.CARDS_DRAWN) < types.index(EventType.ROUND_ENDED)  # D15, D23
    assert events[types.index(EventType.CARDS_DRAWN)].data["seat"] == 0


# ---------------------------------------------------------------- the UNO window stays open


def test_two_seats_a_draw_two_drawn_at_once_leaves_the_window_open() -> None:
    match = table(replace(CLASSIC_2P, hand_size=2), TWO_SEATS_SHORT)
    match.act(1, {"type": "play", "card": "R+2"})  # one card left, UNO not said
    assert match.state.uno_open[1] and match.state.pending.seat == 1
    events = match.act(0, {"type": "uno"})  # seat 0 never began a turn: it still catches
    assert [(e.type, e.data.get("seat")) for e in events][1:3] == [("uno_caught", 1), ("cards_drawn", 1)]


def test_before_d25_the_forced_draw_closed_the_window() -> None:
    match = table(replace(PRE_D25_CLASSIC_2P, hand_size=2), TWO_SEATS_SHORT)
    match.act(1, {"type": "play", "card": "R+2"})
    match.act(0, {"type": "draw"})
    assert refused(match, 0, {"type": "uno"}) is ErrorCode.UNO_NOT_OPEN


@pytest.mark.parametrize(
    ("card", "command"),
    [
        ("R+2", {"type": "play", "card": "R+2"}),  # D25: drawn at once
        ("RS", {"type": "play", "card": "RS"}),  # D20: skipped
        ("W+4", {"type": "play", "card": "W+4", "color": "green"}),  # D13c: drawn at once
    ],
)
def test_a_seat_that_loses_its_turn_has_not_begun_one(card: str, command: dict[str, Any]) -> None:
    match = table(replace(CLASSIC, hand_size=2), four_seats(card), seats=4)
    events = match.act(1, command)  # seat 1 is left with B1, UNO not said
    assert awaited(events) == [(3, "turn")]  # seat 2 lost its turn
    assert match.state.uno_open[1]
    # Seat 2, who lost the turn, may still catch; so may seat 0 ...
    caught = table(replace(CLASSIC, hand_size=2), four_seats(card), seats=4)
    caught.act(1, command)
    assert any(e.type == EventType.UNO_CAUGHT for e in caught.act(2, {"type": "uno"}))
    # ... until seat 3, the next seat that begins a turn, acts.
    match.act(3, {"type": "draw"})
    assert not match.state.uno_open[1]
    assert refused(match, 2, {"type": "uno"}) is ErrorCode.UNO_NOT_OPEN


# ---------------------------------------------------------------- recorded matches verify as recorded


def test_a_match_recorded_before_d25_verifies_and_replays_as_it_was_played() -> None:
    text = OLD_CLASSIC_REPLAY.read_text(encoding="utf-8")
    _header, lines = parse_replay(text)
    ruleset = lines[0]["data"]["ruleset"]
    assert ruleset["name"] == "classic-2p" and "draw_two_at_once" not in ruleset
    volleys = [x for x in lines if x["type"] == "awaiting" and x["data"]["kind"] == "volley"]
    assert volleys  # seat asked to draw its Draw Two: the behaviour before D25
    assert verify_replay(text).ok
    assert fold(full_events(lines)).ruleset == PRE_D25_CLASSIC_2P


def test_a_new_classic_match_verifies_and_its_switch_cannot_be_dropped() -> None:
    result = play_match(["greedy", "random"], CLASSIC_2P, "d25", 0)
    assert result.events[0].data["ruleset"]["draw_two_at_once"] is True
    assert not any(e.type == EventType.AWAITING and e.data["kind"] == "volley" for e in result.events)
    assert any(e.type == EventType.CARDS_DRAWN and e.data["reason"] == "volley" for e in result.events)
    text = replay_text("d25", "classic-2p", ["a", "b"], result.events)
    assert verify_replay(text).ok
    # A rewrite that drops the switch (every seal and hash recomputed) no longer re-runs: read
    # as recorded before D25, the Draw Two's victim would have been asked.
    header, *rows = text.splitlines()
    lines = [json.loads(row) for row in rows]
    del lines[0]["data"]["ruleset"]["draw_two_at_once"]
    forged = "\n".join([header, *(json.dumps(x) for x in reseal(lines, result.server_seed))]) + "\n"
    assert not verify_replay(forged).ok


def test_a_snapshot_keeps_the_switch_and_one_made_before_it_is_refused() -> None:
    old = fold(full_events(parse_replay(OLD_CLASSIC_REPLAY.read_text(encoding="utf-8"))[1])[:40])
    assert roundtrip(old).ruleset == PRE_D25_CLASSIC_2P
    before = encode_state(old)
    del before["ruleset"]["draw_two_at_once"]  # as a snapshot of format 5 holds it
    before["format"] = 5
    with pytest.raises(ValueError, match="format"):
        decode_state(before)  # refused: the store folds the match from its events instead


def test_a_bot_reads_the_rules_a_view_gives_as_recorded() -> None:
    old = fold(full_events(parse_replay(OLD_CLASSIC_REPLAY.read_text(encoding="utf-8"))[1])[:40])
    assert rules_of(view(old, 0)) == PRE_D25_CLASSIC_2P
    assert rules_of(view(table(CLASSIC_2P, TWO_SEATS).state, 0)) == CLASSIC_2P


def roundtrip(state: MatchState) -> MatchState:
    return decode_state(json.loads(json.dumps(encode_state(state))))
