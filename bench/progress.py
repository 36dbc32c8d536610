"""Waiting on progress, not on the clock: how the harness waits for a run to get somewhere.

A loaded machine makes everything slower, so a harness that fails when a tournament "did not
finish within N seconds" fails a correct server by chance. The harness instead watches a reading
of progress (the events in the log, the matches still to move, the pairings decided) and fails
only when that reading has not changed for a whole stall window: a server that is slow keeps
moving and passes; one that is stuck stops moving and fails, whatever the load.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")

STALL_SECONDS = 180.0  # no progress at all for this long: stuck (a loaded machine still moves within it)


class Stall:
    """Notices when a progress reading stops changing: ``moved(reading)`` is called at every look."""

    def __init__(self, seconds: float = STALL_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.last: Hashable = None
        self.since = clock()

    def moved(self, reading: Hashable) -> None:
        """Record this look's reading; a new value restarts the stall window."""
        if reading != self.last:
            self.last = reading
            self.since = self.clock()

    @property
    def stuck(self) -> bool:
        """No new reading for the whole window."""
        return self.clock() - self.since > self.seconds

    @property
    def still_for(self) -> float:
        """How long the reading has held still."""
        return self.clock() - self.since


def _watch(
    read: Callable[[], T],
    ready: Callable[[T], object],
    moving: Callable[[T], Hashable],
    stall_seconds: float,
    poll: float,
    sleep: Callable[[float], object],
    clock: Callable[[], float],
) -> tuple[bool, T]:
    """Read every ``poll`` s until ``ready(reading)``: (True, that reading); (False, the last
    reading) once ``moving(reading)`` has held still for ``stall_seconds``."""
    stall = Stall(stall_seconds, clock)
    while True:
        reading = read()
        if ready(reading):
            return True, reading
        stall.moved(moving(reading))
        if stall.stuck:
            return False, reading
        sleep(poll)


def wait_until(
    done: Callable[[], bool],
    progress: Callable[[], Hashable],
    stall_seconds: float = STALL_SECONDS,
    poll: float = 0.1,
    sleep: Callable[[float], object] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> bool:
    """Look every ``poll`` s until ``done()``: True then; False once ``progress()`` has held still
    for ``stall_seconds`` (nothing moved: stuck). There is no limit on the whole wait."""
    return _watch(done, bool, lambda _done: progress(), stall_seconds, poll, sleep, clock)[0]


def _unmoving(_reading: object) -> None:
    return None


def wait_for(
    read: Callable[[], T],
    what: str,
    until: Callable[[T], object] = bool,
    moving: Callable[[T], Hashable] = _unmoving,
    stall_seconds: float = STALL_SECONDS,
    poll: float = 0.05,
    sleep: Callable[[float], object] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """The tests' one wait: ``read()`` every ``poll`` s until ``until(reading)`` holds (by default:
    the reading is truthy), and that reading. AssertionError naming ``what`` once ``moving(reading)``
    has held still for ``stall_seconds``; without ``moving`` that is a cap on the whole wait,
    whose expiry is a clear failure (it never happens), not a budget: a slow machine passes."""
    done, reading = _watch(read, until, moving, stall_seconds, poll, sleep, clock)
    if not done:
        raise AssertionError(f"{what}: not so, and nothing moved for {stall_seconds:g} s (last: {reading!r:.300})")
    return reading
