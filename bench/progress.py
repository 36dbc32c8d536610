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
    stall = Stall(stall_seconds, clock)
    while True:
        if done():
            return True
        stall.moved(progress())
        if stall.stuck:
            return False
        sleep(poll)
