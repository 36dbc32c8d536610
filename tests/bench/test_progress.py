"""Waiting on progress, never on a time budget (bench/progress.py): the harness's ``wait_until``
and the tests' one wait, ``wait_for``. In the fast tier: nothing here starts a process."""

from __future__ import annotations

import pytest

from bench.progress import Stall, wait_for, wait_until


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_a_slow_run_that_keeps_moving_is_waited_for_however_long_it_takes() -> None:
    """The chaos flake: a tournament that took longer than a budget on a loaded machine failed.
    A wait now fails only when the progress reading holds still for the stall window."""
    clock = FakeClock()
    events = iter(range(10_000))
    reading = [0]

    def progress() -> int:
        reading[0] = next(events)  # one new event every look, 10 s apart: slow, but moving
        return reading[0]

    assert wait_until(lambda: reading[0] >= 500, progress, stall_seconds=60, poll=10, sleep=clock.sleep, clock=clock)
    assert clock.now >= 4_990  # far past any budget the run used to have (150 s for the quick chaos run)


def test_a_run_that_stops_moving_fails_after_the_stall_window() -> None:
    clock = FakeClock()
    assert not wait_until(lambda: False, lambda: 7, stall_seconds=60, poll=1, sleep=clock.sleep, clock=clock)
    assert 60 < clock.now <= 62


def test_a_stall_window_restarts_at_each_new_reading() -> None:
    clock = FakeClock()
    stall = Stall(30, clock=clock)
    for reading in (1, 1, 2, 2, 3):
        clock.sleep(20)
        stall.moved(reading)
        assert not stall.stuck
    clock.sleep(31)
    assert stall.stuck and stall.still_for == 31


def test_wait_for_gives_the_first_reading_that_is_ready() -> None:
    clock = FakeClock()
    readings = iter([0, None, "", 3, 4])
    assert wait_for(lambda: next(readings), "a reading", sleep=clock.sleep, clock=clock) == 3
    squares = iter(range(100))
    assert (
        wait_for(lambda: next(squares) ** 2, "a big square", until=lambda n: n > 50, sleep=clock.sleep, clock=clock)
        == 64
    )


def test_wait_for_fails_naming_what_it_waited_for_once_nothing_moves() -> None:
    clock = FakeClock()
    with pytest.raises(AssertionError, match="the round's end: not so, and nothing moved for 60 s"):
        wait_for(lambda: False, "the round's end", stall_seconds=60, poll=1, sleep=clock.sleep, clock=clock)
    assert 60 < clock.now <= 62


def test_wait_for_waits_as_long_as_its_reading_moves() -> None:
    clock = FakeClock()
    seen = iter(range(10_000))
    assert (
        wait_for(
            lambda: next(seen),
            "event 500",
            until=lambda n: n >= 500,
            moving=lambda n: n,
            stall_seconds=60,
            poll=10,
            sleep=clock.sleep,
            clock=clock,
        )
        == 500
    )
    assert clock.now >= 4_990
