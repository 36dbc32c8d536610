"""Fair-play signals (server/tournaments/fairplay.py, docs/TOURNAMENTS.md "Fair-play signals").

Hand-built logs whose every figure is worked out by hand, one rule of the move-time definition
each, then properties over random logs: the figures stay inside the moves' range, and neither the
order of the matches nor how the moves are split between matches changes them.
"""

from __future__ import annotations

import math
import statistics
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.record.jsonfmt import AT_FORMAT
from server.tournaments.fairplay import MatchTimes, SeatTimes, match_times, micros_of, signals

BASE = datetime(2026, 12, 2, 19, 0, tzinfo=UTC)


def at(seconds: float) -> str:
    return (BASE + timedelta(microseconds=round(seconds * 1_000_000))).strftime(AT_FORMAT)


def ev(type_: str, seconds: float, **data: Any) -> dict[str, Any]:
    return {"type": type_, "data": data, "at": at(seconds), "sealed": {}}


def awaiting(seconds: float, seat: int, kind: str = "turn") -> dict[str, Any]:
    return ev("awaiting", seconds, seat=seat, kind=kind)


def command(seconds: float, seat: int, kind: str = "draw") -> dict[str, Any]:
    return ev("command", seconds, seat=seat, command={"type": kind})


def timed_out(seconds: float, seat: int, count: int = 1) -> dict[str, Any]:
    return ev("timed_out", seconds, seat=seat, kind="turn", action={"type": "draw"}, count=count)


# --- one match, by hand ---------------------------------------------------------------------------

MATCH_ONE = [
    ev("match_created", 0.0, ruleset={}, commitment="c"),
    ev("seat_joined", 1.0, seat=0),
    ev("seat_joined", 9.0, seat=1),  # a join is no move: 8 s here count for nobody
    awaiting(9.0, 0, "draft"),
    command(11.5, 0, "draft"),  # seat 0: 2.5 s
    awaiting(11.5, 1, "draft"),
    command(12.0, 1, "draft"),  # seat 1: 0.5 s
    awaiting(12.0, 0),
    command(13.0, 1, "uno"),  # seat 1 calls uno while seat 0 decides: not a move, nothing closes
    command(14.0, 0, "uno"),  # seat 0's own uno: not a move either, its decision runs on
    command(16.0, 0, "draw"),  # seat 0: 4 s from its awaiting
    ev("cards_drawn", 16.0, seat=0, count=1, reason="draw"),
    awaiting(16.0, 0, "drawn"),
    command(17.25, 0, "pass"),  # seat 0: 1.25 s
    awaiting(17.25, 1),
    timed_out(77.25, 1),  # seat 1's clock ran out: a timeout, not a 60 s move
    awaiting(77.25, 1, "drawn"),  # inside the timeout's batch, replaced at once
    awaiting(77.25, 0),
    command(78.25, 1, "draw"),  # seat 1 answers nothing it was asked: not counted
    command(80.25, 0, "draw"),  # seat 0: 3 s
]


def test_a_hand_built_match_gives_each_seat_its_move_times_and_timeouts() -> None:
    times = match_times(MATCH_ONE)
    assert times.of(0) == SeatTimes(moves=(2_500_000, 4_000_000, 1_250_000, 3_000_000))
    assert times.of(1) == SeatTimes(moves=(500_000,), timeouts=1)
    assert times.of(7) == SeatTimes()


def test_the_figures_of_a_hand_built_tournament() -> None:
    second = [
        awaiting(0.0, 1),
        command(10.0, 1, "draw"),  # ann (seat 1 here): 10 s
        awaiting(10.0, 0),
        timed_out(70.0, 0, 1),
        awaiting(70.0, 0),
        timed_out(130.0, 0, 2),
        awaiting(130.0, 0),
        timed_out(190.0, 0, 3),
        ev("match_forfeited", 190.0, seat=0, reason="timeouts"),
        ev("match_ended", 190.0, winner=1, loser=0, scores=[0, 0], rounds=1),
    ]
    rows = signals(
        ["ann", "bob", "cat"],
        [(["ann", "bob"], match_times(MATCH_ONE)), (["bob", "ann"], match_times(second))],
    )
    ann, bob, cat = rows
    # ann: 2.5, 4, 1.25, 3 and 10 s: sum 20.75, mean 4.15
    assert (ann.player, ann.matches, ann.moves, ann.timeouts, ann.timeout_forfeits) == ("ann", 2, 5, 0, 0)
    assert ann.mean == pytest.approx(4.15, abs=1e-12)
    assert ann.stdev == pytest.approx(math.sqrt((1.65**2 + 0.15**2 + 2.9**2 + 1.15**2 + 5.85**2) / 5), abs=1e-12)
    assert (ann.median, ann.p90, ann.fastest, ann.slowest) == (3.0, 10.0, 1.25, 10.0)
    # bob: one 0.5 s move, a timeout in match one and three (the last one a forfeit) in match two
    assert (bob.moves, bob.mean, bob.stdev, bob.median, bob.p90) == (1, 0.5, 0.0, 0.5, 0.5)
    assert (bob.timeouts, bob.timeout_forfeits, bob.matches) == (4, 1, 2)
    # cat never sat: a row of nothing
    assert (cat.matches, cat.moves, cat.mean, cat.stdev, cat.median, cat.p90, cat.timeouts) == (
        0,
        0,
        None,
        None,
        None,
        None,
        0,
    )


def test_the_median_of_an_even_count_is_the_mean_of_the_middle_two_and_p90_is_by_nearest_rank() -> None:
    log: list[dict[str, Any]] = []
    clock = 0.0
    for taken in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12):
        log += [awaiting(clock, 0), command(clock + taken, 0)]
        clock += taken
    (row,) = signals(["ann"], [(["ann", None], match_times(log))])
    assert (row.moves, row.median, row.fastest, row.slowest) == (12, 6.5, 1.0, 12.0)
    assert row.p90 == 11.0  # ceil(0.9 * 12) = 11th of 12
    assert row.mean == 6.5 and row.stdev == pytest.approx(statistics.pstdev(range(1, 13)), abs=1e-12)


def test_a_forfeit_declared_closes_its_seats_decision_only() -> None:
    log = [
        awaiting(0.0, 1),
        ev("forfeit_declared", 5.0, seat=2, reason="withdrawal"),  # another seat leaves the table
        command(6.0, 1),  # seat 1: 6 s, its decision stayed open
        awaiting(6.0, 2),
        ev("forfeit_declared", 7.0, seat=2, reason="ruling"),
        ev("match_forfeited", 7.0, seat=2, reason="ruling"),  # not a timeout forfeit
        command(8.0, 2),  # seat 2's decision went with its forfeit
    ]
    times = match_times(log)
    assert times.of(1) == SeatTimes(moves=(6_000_000,)) and times.of(2) == SeatTimes()


def test_an_answer_stamped_before_its_question_counts_as_no_time() -> None:
    times = match_times([awaiting(5.0, 0), command(4.0, 0)])
    assert times.of(0).moves == (0,)


def test_times_are_read_with_their_offset_to_the_microsecond() -> None:
    assert micros_of("1970-01-01T00:00:01.000001Z") == 1_000_001
    assert micros_of("1970-01-01T01:00:00.000000+01:00") == 0
    with pytest.raises(ValueError, match="offset"):
        micros_of("2026-12-02T19:00:00.000000")


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "awaiting", "data": {"seat": "0", "kind": "turn"}, "at": at(0)},
        {"type": "awaiting", "data": {"seat": True, "kind": "turn"}, "at": at(0)},
        {"type": "command", "data": {"seat": -1, "command": {"type": "draw"}}, "at": at(0)},
        {"type": "awaiting", "data": [], "at": at(0)},
        {"type": "awaiting", "data": {"seat": 0, "kind": "turn"}, "at": "yesterday"},
    ],
)
def test_a_malformed_envelope_is_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        match_times([bad])


# --- properties -----------------------------------------------------------------------------------

# A step: (seat whose decision opens, what happens, seconds it takes). What happens: 0 the seat
# answers, 1 it times out, 2 a uno from the seat then its answer, 3 another seat answers first.
STEP = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 120_000_000))
MATCH = st.lists(STEP, max_size=30)


def build(steps: list[tuple[int, int, int]]) -> tuple[list[dict[str, Any]], dict[int, list[int]], dict[int, int]]:
    """The envelopes of ``steps``, with the move times (µs) and timeouts each seat should get."""
    log: list[dict[str, Any]] = []
    moves: dict[int, list[int]] = {}
    timeouts: dict[int, int] = {}
    clock = 0
    for seat, happens, taken in steps:
        log.append(awaiting(clock / 1e6, seat))
        if happens == 1:
            log.append(timed_out((clock + taken) / 1e6, seat))
            timeouts[seat] = timeouts.get(seat, 0) + 1
        else:
            if happens == 2:
                log.append(command((clock + taken // 2) / 1e6, seat, "uno"))
            if happens == 3:
                log.append(command((clock + taken // 2) / 1e6, (seat + 1) % 4))
            log.append(command((clock + taken) / 1e6, seat))
            moves.setdefault(seat, []).append(taken)
        clock += taken
    return log, moves, timeouts


@given(MATCH)
def test_every_answer_is_timed_exactly_and_every_timeout_counted(steps: list[tuple[int, int, int]]) -> None:
    log, moves, timeouts = build(steps)
    times = match_times(log)
    for seat in range(4):
        assert times.of(seat) == SeatTimes(tuple(moves.get(seat, ())), timeouts.get(seat, 0), 0)


@given(st.lists(MATCH, max_size=6), st.randoms())
def test_the_figures_stay_in_range_and_do_not_depend_on_the_order_of_the_matches(
    matches: list[list[tuple[int, int, int]]], rng: Any
) -> None:
    players = ["p0", "p1", "p2", "p3", "p4"]
    logged = [(["p0", "p1", "p2", f"p{3 + i % 2}"], match_times(build(m)[0])) for i, m in enumerate(matches)]
    rows = signals(players, logged)
    shuffled = list(logged)
    rng.shuffle(shuffled)
    assert signals(players, shuffled) == rows
    for row in rows:
        assert row.moves >= 0 and row.timeouts >= 0 and row.matches <= len(matches)
        if row.moves == 0:
            assert row.mean is row.stdev is row.median is row.p90 is row.fastest is row.slowest is None
            continue
        assert row.fastest is not None and row.slowest is not None
        assert row.mean is not None and row.stdev is not None and row.median is not None and row.p90 is not None
        assert row.fastest <= row.mean <= row.slowest
        assert row.fastest <= row.median <= row.p90 <= row.slowest
        assert 0 <= row.stdev <= (row.slowest - row.fastest) / 2 + 1e-9


@given(st.lists(STEP, max_size=40), st.integers(0, 40))
def test_splitting_a_players_moves_between_two_matches_changes_nothing_but_the_match_count(
    steps: list[tuple[int, int, int]], cut: int
) -> None:
    whole = signals(["a", "b", "c", "d"], [(["a", "b", "c", "d"], match_times(build(steps)[0]))])
    halves = [match_times(build(steps[:cut])[0]), match_times(build(steps[cut:])[0])]
    split = signals(["a", "b", "c", "d"], [(["a", "b", "c", "d"], h) for h in halves])
    for one, two in zip(whole, split, strict=True):
        assert two.matches == 2 * one.matches
        assert (one.moves, one.timeouts, one.median, one.p90, one.fastest, one.slowest) == (
            two.moves,
            two.timeouts,
            two.median,
            two.p90,
            two.fastest,
            two.slowest,
        )
        assert one.mean == two.mean and one.stdev == two.stdev


@given(st.lists(st.integers(0, 10**9), min_size=1, max_size=50))
def test_the_figures_agree_with_the_statistics_module(taken: list[int]) -> None:
    times = MatchTimes({0: SeatTimes(tuple(taken))})
    (row,) = signals(["a"], [(["a"], times)])
    seconds = [t / 1e6 for t in taken]
    assert row.mean == pytest.approx(statistics.fmean(seconds), rel=1e-9, abs=1e-9)
    assert row.stdev == pytest.approx(statistics.pstdev(seconds), rel=1e-6, abs=1e-6)
    assert row.median == pytest.approx(statistics.median(seconds), rel=1e-12, abs=1e-12)
