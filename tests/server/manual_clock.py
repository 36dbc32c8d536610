"""A clock the test moves by hand (``server.services.clock.Clock``): no test sleeps for a deadline.

``call_later`` is called on the server's event loop (the TestClient's portal thread);
:meth:`ManualClock.advance` is called from the test's thread and hands every timer that has
come due to its loop, in due order. Give the same clock to the app (``make_app(settings,
clock)``) so that event times (``at``) and deadlines are on it too.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

TICK = timedelta(microseconds=1)


class ManualTimer:
    def __init__(self, due: datetime, callback: Callable[[], None], loop: asyncio.AbstractEventLoop) -> None:
        self.due = due
        self.callback = callback
        self.loop = loop
        self.cancelled = False
        self.fired = False

    def cancel(self) -> None:
        self.cancelled = True

    def fire(self) -> None:
        if not self.cancelled:
            self.fired = True
            self.callback()


class ManualClock:
    """``now()`` moves only by :meth:`advance` (and a microsecond a look); timers fire when the time they
    wait for is reached."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime.now(UTC)
        self._lock = threading.Lock()
        self._order = itertools.count()
        self._timers: list[tuple[datetime, int, ManualTimer]] = []

    def now(self) -> datetime:
        """The time; each look moves it on by one microsecond, so events keep their order in ``at``."""
        with self._lock:
            self._now += TICK
            return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> ManualTimer:
        loop = asyncio.get_running_loop()
        with self._lock:
            timer = ManualTimer(self._now + timedelta(seconds=max(0.0, delay)), callback, loop)
            if timer.due <= self._now:
                loop.call_soon(timer.fire)
            else:
                heapq.heappush(self._timers, (timer.due, next(self._order), timer))
        return timer

    def advance(self, seconds: float) -> None:
        """Move the time on by ``seconds`` and fire, on their loops, the timers that came due."""
        with self._lock:
            self._now += timedelta(seconds=seconds)
            due: list[ManualTimer] = []
            while self._timers and self._timers[0][0] <= self._now:
                due.append(heapq.heappop(self._timers)[2])
        for timer in due:
            if not timer.cancelled and not timer.loop.is_closed():
                timer.loop.call_soon_threadsafe(timer.fire)

    def pending(self) -> list[ManualTimer]:
        """The timers armed and not yet due (nor cancelled), soonest first."""
        with self._lock:
            return [t for _due, _n, t in sorted(self._timers) if not t.cancelled]
