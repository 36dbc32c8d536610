"""The time a match service goes by: what time it is, and a timer (injected, so tests need not sleep).

Move clocks, house bots' think delays, invitation expiry and every "try again shortly" of the
match services read the time and arm their timers here only. :class:`SystemClock` is the real
one (``datetime.now(UTC)`` and the running event loop's ``call_later``); a test passes a clock
it advances by hand. The store's event times (``at``) should come from the same clock
(``make_app`` wires ``clock.now`` into the store), since deadlines are computed from them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol


class Timer(Protocol):
    """An armed timer (``asyncio.TimerHandle`` is one)."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """What time it is (aware, UTC), and a timer that calls ``callback`` on the event loop after ``delay`` seconds."""

    def now(self) -> datetime: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer: ...


class SystemClock:
    """The real clock: the wall clock in UTC and the running loop's timers."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)


async def sleep(clock: Clock, seconds: float) -> None:
    """Wait ``seconds`` of ``clock``'s time (asyncio.sleep on the real clock, an advance on a test's)."""
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not future.done():
            future.set_result(None)

    timer = clock.call_later(seconds, wake)
    try:
        await future
    finally:
        timer.cancel()
