"""A seat that leaves a table of 3+ (docs/RULES.md "A seat that leaves"): play goes on without
it, its hand is scored for the round, it is dealt out of later rounds, and it places last."""

from __future__ import annotations

import random

import pytest

from engine import CLASSIC, LocalMatch
from engine.game.commands import Forfeit, SeatCommand, TimeOut
from engine.game.errors import CommandRefused, ErrorCode
from engine.game.evolve import fold
from engine.game.legal import legal_actions
from engine.game.rules import hand_points
from engine.game.rulesets import Ruleset
from engine.game.state import MatchState, Phases

SEED = bytes(range(32))


def table(seats: int, target: int = 500) -> LocalMatch:
    rules = Ruleset.from_dict({**CLASSIC.to_dict(), "target": target})
    return LocalMatch.start(SEED, rules, tuple(f"e{i}" for i in range(seats)), seats=seats)


def play_one(match: LocalMatch, rng: random.Random) -> None:
    """One command by the seat to move: a play when there is one (nine times in ten), else anything legal."""
    seat = match.state.pending.seat
    assert seat is not None
    actions = legal_actions(match.state, seat)
    plays = [a for a in actions if a.type.value in ("play", "uno")]
    match.apply(SeatCommand(seat, rng.choice(plays if plays and rng.random() < 0.9 else actions)))


def play_until(match: LocalMatch, done: object, rng: random.Random, limit: int = 5000) -> None:
    for _ in range(limit):
        if callable(done) and done(match.state):
            return
        play_one(match, rng)
    raise AssertionError("the condition never came")


def test_a_forfeit_at_four_seats_leaves_the_table_and_play_goes_on() -> None:
    match = table(4)
    rng = random.Random(1)
    for _ in range(6):
        play_one(match, rng)
    before = match.state
    assert before.phase is Phases.PLAY
    leaver = 2
    hand = before.hands[leaver]
    left_at = len(match.events)
    events = match.apply(Forfeit(leaver, "withdrawal"))
    state = match.state
    assert [e.type for e in events][:2] == ["forfeit_declared", "match_forfeited"]
    assert "match_ended" not in [e.type for e in events]
    assert state.departed == (False, False, True, False) and state.departures == (leaver,)
    assert state.phase is Phases.PLAY and state.pending.seat != leaver
    assert state.hands[leaver] == hand  # set aside, still counted
    assert legal_actions(state, leaver) == []
    with pytest.raises(CommandRefused) as refused:
        match.apply(SeatCommand(leaver, legal_actions(before, before.pending.seat or 0)[0]))
    assert refused.value.code is ErrorCode.NOT_A_PLAYER

    round_now = state.round
    set_aside = hand_points(state, leaver)
    play_until(match, lambda s: s.round != round_now or s.phase is Phases.MATCH_OVER, rng)
    ended = next(e for e in reversed(match.events) if e.type == "round_ended")
    winner = ended.data["winner"]
    assert winner != leaver
    if winner is not None and not ended.data["blocked"]:
        # D23: the winner scored every other hand, the departed seat's set-aside hand included.
        assert ended.data["points"] >= set_aside
        assert ended.data["hands"][leaver] == [match.state.deck[i].code for i in hand]
    after = match.events[left_at:]
    assert all(e.data["seat"] != leaver for e in after if e.type in ("card_played", "cards_drawn", "awaiting"))
    if match.state.phase is not Phases.MATCH_OVER:
        dealt = next(e for e in reversed(match.events) if e.type == "cards_dealt")
        assert dealt.data["counts"][leaver] == 0 and dealt.data["hand2"] == []
        assert sorted(dealt.data["counts"]) == [0, 7, 7, 7]
    assert fold(match.events) == match.state


def test_the_places_put_the_seats_that_left_last_the_first_to_leave_last_of_all() -> None:
    match = table(5, target=60)
    rng = random.Random(7)
    for _ in range(4):
        play_one(match, rng)
    match.apply(Forfeit(4, "withdrawal"))
    for _ in range(4):
        play_one(match, rng)
    match.apply(Forfeit(0, "ruling"))
    play_until(match, lambda s: s.phase is Phases.MATCH_OVER, rng)
    ended = next(e for e in match.events if e.type == "match_ended")
    places = ended.data["places"]
    assert ended.data["loser"] is None
    assert places[4] == 5 and places[0] == 4  # seat 4 left first: last of all
    assert places[ended.data["winner"]] == 1
    staying = [s for s in (1, 2, 3) if s != ended.data["winner"]]
    scores = ended.data["scores"]
    for a in staying:
        for b in staying:
            if scores[a] > scores[b]:
                assert places[a] < places[b]
            if scores[a] == scores[b]:
                assert places[a] == places[b]


def test_the_last_seat_at_the_table_wins_at_once() -> None:
    match = table(3)
    match.apply(Forfeit(0, "withdrawal"))
    assert match.state.phase is not Phases.MATCH_OVER
    events = match.apply(Forfeit(2, "withdrawal"))
    assert [e.type for e in events][-2:] == ["match_ended", "seed_revealed"]
    ended = events[-2].data
    assert ended["winner"] == 1 and ended["places"] == [3, 1, 2]


def test_three_timeouts_in_a_row_take_one_seat_away_not_the_match() -> None:
    match = table(3)

    def time_out_the_seat_to_move() -> int:
        seat = match.state.pending.seat
        assert seat is not None
        match.apply(TimeOut(seat))
        return seat

    victim = match.state.pending.seat
    assert victim is not None
    # Only the victim's clock runs out; the others play (or draw) in between.
    rng = random.Random(3)
    for _ in range(200):
        state: MatchState = match.state
        if state.departed[victim]:
            break
        if state.pending.seat == victim:
            time_out_the_seat_to_move()
        else:
            play_one(match, rng)
    assert match.state.departed[victim]
    assert match.state.phase is not Phases.MATCH_OVER
    forfeited = next(e for e in match.events if e.type == "match_forfeited")
    assert forfeited.data == {"seat": victim, "reason": "timeouts"}


def test_a_seat_forfeited_before_it_joined_is_not_waited_for() -> None:
    from engine.game.commands import CreateMatch, JoinSeat
    from engine.game.shuffle import Dealer, commitment_of

    match = LocalMatch(dealer=Dealer(SEED))
    match.apply(CreateMatch(CLASSIC, commitment_of(SEED), seats=3))
    match.apply(JoinSeat(0, "a"))
    match.apply(JoinSeat(2, "c"))
    assert match.state.phase.value == "waiting"
    events = match.apply(Forfeit(1, "join_deadline"))
    assert match.state.phase is Phases.PLAY  # the two who joined play
    assert "round_started" in [e.type for e in events]
    assert match.state.hands[1] == () and len(match.state.hands[0]) == len(match.state.hands[2]) == 7
    with pytest.raises(CommandRefused):
        match.apply(JoinSeat(1, "late"))
