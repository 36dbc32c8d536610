"""A tournament's match: the schedule's first drafter instead of the cut, and forfeits (docs/TOURNAMENTS.md)."""

from __future__ import annotations

import pytest

from engine import UNO_DUO, LocalMatch, Phase
from engine.fairness.audit import rerun
from engine.game.commands import CreateMatch, Forfeit, JoinSeat
from engine.game.errors import CommandRefused, ErrorCode
from engine.game.events import EventType
from engine.game.shuffle import Dealer, commitment_of
from engine.record.snapshot_codec import decode_state, encode_state

SEED = b"\x07" * 32


def scheduled(first_drafter: int, *, join: tuple[int, ...] = (0, 1)) -> LocalMatch:
    match = LocalMatch(dealer=Dealer(SEED))
    match.apply(CreateMatch(UNO_DUO, commitment_of(SEED), first_drafter=first_drafter))
    for seat in join:
        match.apply(JoinSeat(seat, f"entropy-{seat}"))
    return match


@pytest.mark.parametrize("first_drafter", [0, 1])
def test_the_schedule_names_round_ones_first_drafter_and_there_is_no_cut(first_drafter: int) -> None:
    match = scheduled(first_drafter)
    types = [e.type for e in match.events]
    assert EventType.CUT not in types
    assert match.events[0].data["first_drafter"] == first_drafter
    started = next(e for e in match.events if e.type == EventType.ROUND_STARTED)
    assert started.data["player1"] == first_drafter
    assert match.state.player1 == first_drafter
    assert decode_state(encode_state(match.state)) == match.state


def test_a_casual_match_still_cuts_and_records_no_first_drafter() -> None:
    match = LocalMatch.start(SEED)
    assert "first_drafter" not in match.events[0].data
    assert EventType.CUT in [e.type for e in match.events]


def test_a_first_drafter_other_than_a_seat_is_refused() -> None:
    match = LocalMatch(dealer=Dealer(SEED))
    with pytest.raises(CommandRefused) as refused:
        match.apply(CreateMatch(UNO_DUO, commitment_of(SEED), first_drafter=2))
    assert refused.value.code is ErrorCode.MALFORMED
    assert match.events == []


@pytest.mark.parametrize("joined", [(), (1,), (0, 1)])
def test_a_forfeit_ends_the_match_for_the_other_seat_in_any_phase_and_re_runs(joined: tuple[int, ...]) -> None:
    match = scheduled(0, join=joined)
    match.apply(Forfeit(0, "join_deadline"))
    tail = [(e.type, e.data.get("seat"), e.data.get("reason")) for e in match.events[-4:-2]]
    assert tail == [(EventType.FORFEIT_DECLARED, 0, "join_deadline"), (EventType.MATCH_FORFEITED, 0, "join_deadline")]
    assert match.state.phase is Phase.MATCH_OVER
    assert match.state.winner == 1
    assert match.events[-1].type == EventType.SEED_REVEALED
    assert rerun(match.events, Dealer(SEED)) is None


def test_a_forfeit_is_refused_after_the_end_before_the_start_or_with_an_unknown_reason() -> None:
    match = scheduled(1)
    with pytest.raises(CommandRefused) as refused:
        match.apply(Forfeit(0, "boredom"))
    assert refused.value.code is ErrorCode.MALFORMED
    with pytest.raises(CommandRefused):
        match.apply(Forfeit(2, "ruling"))
    match.apply(Forfeit(1, "ruling"))
    with pytest.raises(CommandRefused) as again:
        match.apply(Forfeit(0, "ruling"))
    assert again.value.code is ErrorCode.NOT_NOW
    fresh = LocalMatch(dealer=Dealer(SEED))
    with pytest.raises(CommandRefused):
        fresh.apply(Forfeit(0, "ruling"))


def test_a_tampered_first_drafter_fails_the_re_run() -> None:
    match = scheduled(0)
    events = list(match.events)
    head = events[0]
    events[0] = type(head)(head.type, {**head.data, "first_drafter": 1})
    assert rerun(events, Dealer(SEED)) is not None
