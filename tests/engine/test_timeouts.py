"""Move clocks (docs/RULES.md "Move clocks and timeouts"): the server's ``TimeOut`` applies the
pending decision's default action, headed by ``timed_out``; three in a row forfeit the match.

Decks are stacked as in test_refusals.py: in ``uno-duo`` with every draft step kept, seat 0
(Player 1) keeps deck cards 0, 4, 8, ..., seat 1 keeps 2, 6, 10, ..., the odd ones go to the
draft pile, card 28 is the starter, and seat 1 (Player 2) moves first.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine import (
    UNO_DUO,
    CommandRefused,
    Dealer,
    ErrorCode,
    Event,
    LocalMatch,
    PendingKind,
    Phase,
    TimeOut,
    decide,
    evolve,
    fold,
    view,
)
from engine.fairness.audit import command_of, rerun
from engine.fairness.verify import verify_replay
from engine.game.rules import TIMEOUTS_TO_FORFEIT
from engine.play.scenario import DEFAULT_SEED, build_dealer, parse_spec
from engine.play.selfplay import _result
from engine.play.tally import Tally
from engine.record.replay import replay_text
from tests.engine.playing import play_match, reseal, short

SEAT0 = ["R5", "W", "W+4", "B3", "R+2", "G7", "YS"]
SEAT1 = ["R7", "B+2", "GR", "Y9", "Y1", "RS", "B1"]
FILLER = ["G1", "G2", "G3", "G4", "G5", "G6", "G8", "G9", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]


def top_of(seat0: list[str], seat1: list[str], starter: str) -> list[str]:
    top: list[str] = []
    for i in range(7):
        top += [seat0[i], FILLER[2 * i], seat1[i], FILLER[2 * i + 1]]
    return [*top, starter]


def stacked(top: list[str]) -> LocalMatch:
    dealer = build_dealer(parse_spec({"decks": [top], "first_drafter": 0}), UNO_DUO)
    return LocalMatch.start(DEFAULT_SEED, UNO_DUO, dealer=dealer)


def drafted(seat0: list[str] = SEAT0, seat1: list[str] = SEAT1, starter: str = "R9") -> LocalMatch:
    match = stacked(top_of(seat0, seat1, starter))
    for step in range(14):
        match.act(step % 2, {"type": "draft", "keep": True})
    return match


def twin(match: LocalMatch) -> LocalMatch:
    return LocalMatch(dealer=match.dealer, state=match.state, events=list(match.events))


def times_out_as(match: LocalMatch, seat: int, commands: list[dict[str, Any]]) -> list[Event]:
    """Time ``seat`` out, and check its batch is exactly what ``commands`` give, heads aside."""
    other = twin(match)
    expected: list[Event] = []
    for command in commands:
        batch = other.act(seat, command)
        assert batch[0].type == "command"
        expected += batch[1:]
    got = match.apply(TimeOut(seat))
    assert got[0].type == "timed_out"
    assert "command" not in [e.type for e in got], "a timeout records no command of the seat's"
    assert got[1:] == expected
    assert got[0].data["action"] == commands[0]
    return got


def timed_out(events: list[Event]) -> dict[str, Any]:
    assert events[0].type == "timed_out"
    return events[0].data


# ---------------------------------------------------------------- the default action of each decision


def test_a_draft_step_keeps_the_card() -> None:
    match = stacked(top_of(SEAT0, SEAT1, "R9"))
    assert match.state.pending.kind is PendingKind.DRAFT
    events = times_out_as(match, 0, [{"type": "draft", "keep": True}])
    assert timed_out(events) == {"seat": 0, "kind": "draft", "action": {"type": "draft", "keep": True}, "count": 1}
    assert events[1].data["hand_code"] == "R5"
    assert match.state.timeouts == (1, 0)
    assert match.state.pending.seat == 1


def test_a_turn_draws_and_keeps_the_drawn_card() -> None:
    match = drafted()
    assert match.state.pending.kind is PendingKind.TURN and match.state.pending.seat == 1
    before = len(match.state.hands[1])
    events = times_out_as(match, 1, [{"type": "draw"}, {"type": "pass"}])
    assert [e.type for e in events] == ["timed_out", "cards_drawn", "awaiting", "awaiting"]
    assert timed_out(events)["kind"] == "turn"
    assert len(match.state.hands[1]) == before + 1
    assert match.state.pending.kind is PendingKind.TURN and match.state.pending.seat == 0


def test_a_drawn_card_is_kept() -> None:
    match = drafted()
    match.act(1, {"type": "draw"})
    assert match.state.pending.kind is PendingKind.DRAWN
    events = times_out_as(match, 1, [{"type": "pass"}])
    assert timed_out(events)["kind"] == "drawn"
    assert match.state.pending.seat == 0


def test_a_volley_draws_the_total() -> None:
    match = drafted()
    match.act(1, {"type": "play", "card": "R7"})
    match.act(0, {"type": "play", "card": "R+2"})
    assert match.state.pending.kind is PendingKind.VOLLEY and match.state.pending.seat == 1
    before = len(match.state.hands[1])
    events = times_out_as(match, 1, [{"type": "draw"}])
    assert timed_out(events)["kind"] == "volley"
    assert len(match.state.hands[1]) == before + 2
    assert match.state.pending.kind is PendingKind.TURN and match.state.pending.seat == 0


def test_a_wild_draw_four_is_accepted() -> None:
    match = drafted()
    match.act(1, {"type": "play", "card": "R7"})
    match.act(0, {"type": "play", "card": "W+4", "color": "blue"})
    assert match.state.pending.kind is PendingKind.WILD_DRAW_FOUR
    before = len(match.state.hands[1])
    events = times_out_as(match, 1, [{"type": "accept"}])
    assert timed_out(events)["kind"] == "wild_draw_four"
    assert len(match.state.hands[1]) == before + 4
    assert match.state.pending.seat == 0


@pytest.mark.parametrize(
    ("hand", "colour"),
    [
        (SEAT0, "red"),  # two red, one each of the others
        (["B1", "B2", "B3", "R1", "Y1", "G1", "W"], "blue"),
        (["Y1", "Y2", "G1", "G2", "B1", "W", "W+4"], "yellow"),  # a tie: the first in R, Y, G, B
        (["G1", "G2", "B1", "B2", "W", "W", "W"], "green"),
        (["W", "W", "W", "W", "W+4", "W+4", "W+4"], "red"),  # no coloured card at all
    ],
)
def test_a_wild_starter_takes_the_colour_the_seat_holds_most_of(hand: list[str], colour: str) -> None:
    match = drafted(seat0=hand, starter="W")
    assert match.state.pending.kind is PendingKind.COLOR and match.state.pending.seat == 0
    events = times_out_as(match, 0, [{"type": "color", "color": colour}])
    assert timed_out(events)["kind"] == "color"
    assert match.state.color is not None and match.state.color.value == colour


def test_a_reverse_starters_dump_is_declined_and_the_turn_is_a_new_decision() -> None:
    match = drafted(starter="RR")
    pending = match.state.pending
    assert pending.kind is PendingKind.DUMP and pending.starter and pending.seat == 1
    events = times_out_as(match, 1, [{"type": "pass"}])
    assert [e.type for e in events] == ["timed_out", "awaiting"]  # not chained into the turn
    assert match.state.pending.kind is PendingKind.TURN and match.state.pending.seat == 1
    assert match.state.timeouts == (0, 1)


def test_a_reverse_dump_is_declined() -> None:
    match = drafted(seat0=["RR", "R5", "R+2", "B3", "G7", "YS", "W"])
    match.act(1, {"type": "play", "card": "R7"})
    match.act(0, {"type": "play", "card": "RR"})
    assert match.state.pending.kind is PendingKind.DUMP and match.state.pending.seat == 0
    times_out_as(match, 0, [{"type": "pass"}])
    assert match.state.pending.kind is PendingKind.TURN and match.state.pending.seat == 1


def test_a_default_draw_opens_the_seats_turn_so_closes_the_opponents_uno_window() -> None:
    """D14: like a seat's own ``draw``, the default draw begins its turn (the window was seat 0's)."""
    state = drafted().state
    assert state.pending.seat == 1
    open_window = replace(state, uno_open=(True, False))
    events = decide(open_window, TimeOut(1), Dealer(DEFAULT_SEED))
    assert fold(events, open_window).uno_open == (False, False)
    assert evolve(open_window, events[0]).uno_open == (False, False)


# ---------------------------------------------------------------- the count


def test_only_the_seats_own_command_resets_its_count() -> None:
    match = stacked(top_of(SEAT0, SEAT1, "R9"))
    match.apply(TimeOut(0))
    match.act(1, {"type": "draft", "keep": True})  # the opponent's command: seat 0's run goes on
    assert match.state.timeouts == (1, 0)
    events = match.apply(TimeOut(0, expected_version=None))
    assert timed_out(events)["count"] == 2
    match.apply(TimeOut(1))
    assert match.state.timeouts == (2, 1)
    match.act(0, {"type": "draft", "keep": False})
    assert match.state.timeouts == (0, 1)
    assert view(match.state, 0)["timeouts"] == [0, 1]
    assert view(match.state, "spectator")["timeouts"] == [0, 1]


def test_a_uno_command_resets_the_count_too() -> None:
    state = replace(stacked(top_of(SEAT0, SEAT1, "R9")).state, timeouts=(2, 1))
    after = evolve(state, Event("command", {"seat": 1, "command": {"type": "uno"}}))
    assert after.timeouts == (2, 0)


def test_three_timeouts_in_a_row_forfeit_the_match() -> None:
    assert TIMEOUTS_TO_FORFEIT == 3
    match = stacked(top_of(SEAT0, SEAT1, "R9"))
    for seat in (0, 1, 0, 1):
        assert timed_out(match.apply(TimeOut(seat)))["action"] is not None
    events = match.apply(TimeOut(0))
    assert [e.type for e in events] == ["timed_out", "match_forfeited", "match_ended", "seed_revealed"]
    assert events[0].data == {"seat": 0, "kind": "draft", "action": None, "count": 3}
    assert events[1].data == {"seat": 0, "reason": "timeouts"}
    assert events[2].data == {"winner": 1, "loser": 0, "scores": [0, 0], "rounds": 1}
    assert events[3].data["server_seed"] == DEFAULT_SEED.hex()
    state = match.state
    assert state.phase is Phase.MATCH_OVER and state.winner == 1
    assert state.server_seed == DEFAULT_SEED.hex()
    assert state.pending.kind is PendingKind.NONE
    assert state.timeouts == (3, 2)
    assert fold(match.events) == state
    seen = view(state, 1)
    assert seen["winner"] == 1 and seen["phase"] == "match_over" and seen["timeouts"] == [3, 2]


def test_a_forfeited_match_counts_its_winner_like_any_finished_match() -> None:
    match = stacked(top_of(SEAT0, SEAT1, "R9"))
    while match.state.phase is not Phase.MATCH_OVER:
        seat = match.state.pending.seat
        assert seat is not None
        match.apply(TimeOut(seat))
    result = _result("1", 0, UNO_DUO, ("greedy", "random"), (0, 1), DEFAULT_SEED, match.state, match.events, 5)
    tally = Tally(["greedy", "random"], "uno-duo", 1)
    tally.add(result)
    assert result.winner == 1 and tally.summary().entrants[1].wins == 1


# ---------------------------------------------------------------- refusals


def refused(match: LocalMatch, command: TimeOut) -> ErrorCode:
    with pytest.raises(CommandRefused) as info:
        decide(match.state, command, match.dealer)
    return info.value.code


def test_a_timeout_is_refused_for_the_wrong_seat_a_stale_version_or_a_finished_match() -> None:
    match = drafted()
    assert refused(match, TimeOut(0)) is ErrorCode.NOT_YOUR_TURN
    assert refused(match, TimeOut(2)) is ErrorCode.NOT_A_PLAYER
    assert refused(match, TimeOut(1, expected_version=match.state.version - 1)) is ErrorCode.STALE_VERSION
    match.apply(TimeOut(1, expected_version=match.state.version))
    for seat in (0, 1, 0, 1):
        match.apply(TimeOut(seat))
    assert match.state.phase is Phase.MATCH_OVER and match.state.winner == 0
    assert refused(match, TimeOut(0)) is ErrorCode.MATCH_OVER
    assert refused(match, TimeOut(1)) is ErrorCode.MATCH_OVER


def test_a_timeout_before_the_match_starts_is_refused() -> None:
    waiting = LocalMatch(dealer=Dealer(DEFAULT_SEED))
    assert refused(waiting, TimeOut(0)) is ErrorCode.NOT_NOW
    match = LocalMatch.start(DEFAULT_SEED)
    half = LocalMatch(dealer=match.dealer)
    for event in match.events[:2]:  # created, seat 0 joined
        half.state = evolve(half.state, event)
    assert refused(half, TimeOut(0)) is ErrorCode.NOT_NOW


# ---------------------------------------------------------------- audit, replay and verify


def test_the_audit_rebuilds_a_timeout_from_its_head() -> None:
    head = Event("timed_out", {"seat": 1, "kind": "turn", "action": {"type": "draw"}, "count": 2})
    assert command_of(head) == TimeOut(1)


def forfeited_match() -> tuple[int, LocalMatch]:
    """A random match with timeouts that ends by forfeit after at least one whole round."""
    for seed in range(200):
        match = play_match(seed, short(UNO_DUO, 200), 0.8, timeout_rate=0.25)
        types = [e.type for e in match.events]
        defaults = [e for e in match.events if e.type == "timed_out" and e.data["action"] is not None]
        if "match_forfeited" in types and "round_ended" in types and len(defaults) >= 3:
            return seed, match
    raise AssertionError("no seed gave a forfeit after a round")


@pytest.fixture(scope="module")
def forfeited() -> tuple[int, LocalMatch]:
    return forfeited_match()


def test_a_forfeit_ends_with_the_scores_and_round_of_the_moment(forfeited: tuple[int, LocalMatch]) -> None:
    seed, match = forfeited
    ended = next(e for e in match.events if e.type == "match_ended")
    forfeit = next(e for e in match.events if e.type == "match_forfeited")
    assert ended.data["loser"] == forfeit.data["seat"] and ended.data["winner"] == 1 - forfeit.data["seat"]
    assert ended.data["scores"] == list(match.state.scores) and ended.data["rounds"] == match.state.round
    assert rerun(match.events, Dealer(seed.to_bytes(32, "big"))) is None


def replay_of(match: LocalMatch) -> list[dict[str, Any]]:
    text = replay_text("t", "uno-duo", ["a", "b"], match.events)
    return [json.loads(line) for line in text.splitlines()[1:]]


def as_text(lines: list[dict[str, Any]]) -> str:
    header = {"format": "unoduo-replay", "version": 2, "match": "t", "ruleset": "uno-duo", "players": ["a", "b"]}
    return "\n".join(json.dumps(x) for x in [{**header, "engine": "test"}, *lines]) + "\n"


def test_a_replay_with_timeouts_and_a_forfeit_verifies(forfeited: tuple[int, LocalMatch]) -> None:
    _seed, match = forfeited
    report = verify_replay(as_text(replay_of(match)))
    assert report.ok, report.failure


@pytest.mark.parametrize("tamper", ["action", "count", "forfeit"])
def test_a_tampered_timeout_fails_verification(forfeited: tuple[int, LocalMatch], tamper: str) -> None:
    seed, match = forfeited
    lines = replay_of(match)
    defaults = [i for i, e in enumerate(lines) if e["type"] == "timed_out" and e["data"]["action"] is not None]
    index = random.Random(tamper).choice(defaults)
    data = lines[index]["data"]
    if tamper == "action":  # a turn that drew recorded as a pass, or any default as another
        data["action"] = {"type": "pass"} if data["action"]["type"] != "pass" else {"type": "draw"}
    elif tamper == "count":
        data["count"] += 1
    else:  # the forfeiting seat's third timeout told as its second
        index = next(i for i, e in enumerate(lines) if e["type"] == "timed_out" and e["data"]["action"] is None)
        lines[index]["data"]["count"] = 2
    report = verify_replay(as_text(reseal(lines, seed.to_bytes(32, "big"))))
    assert not report.ok
    assert report.line == index + 2, report.failure
    assert "timed_out" in (report.failure or "")


def test_a_last_card_wild_draw_four_is_accepted_in_the_round_over_phase() -> None:
    """D15: the round is over but its last Wild Draw Four is still to settle; that decision is on
    the clock too (else a seat could stall the match for ever), and its default ends the round."""
    spec = json.loads((Path(__file__).resolve().parents[2] / "docs/scenarios/d15_round_over_phase.json").read_text())
    match = LocalMatch.start(DEFAULT_SEED, UNO_DUO, dealer=build_dealer(parse_spec(spec), UNO_DUO))
    for seat, command in spec["commands"][:18]:
        match.act(seat, command)
    assert match.state.phase is Phase.ROUND_OVER and match.state.pending.kind is PendingKind.WILD_DRAW_FOUR
    events = times_out_as(match, 0, [{"type": "accept"}])
    assert "round_ended" in [e.type for e in events]
    assert match.state.round == 2
