"""Handing appends' outcomes back to the event loops that wait for them: one wake-up a batch.

An append made from a coroutine waits on an asyncio future of its own loop (``LoopWaiter``).
The writer thread settles every waiter of a batch with ONE ``call_soon_threadsafe`` per loop,
where ``asyncio.wrap_future`` costs one per append (each a write to the loop's self-pipe and a
wake-up of the loop, taken while the writer holds the GIL). A waiter whose coroutine was
cancelled meanwhile (a server stopping cancels its clocks' and bots' tasks) is skipped: its
append stands in the store all the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class LoopWaiter:
    """Where a coroutine waits for one append: its loop and a future of that loop."""

    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]

    @classmethod
    def here(cls) -> LoopWaiter:
        loop = asyncio.get_running_loop()
        return cls(loop, loop.create_future())


class Waited(Protocol):
    @property
    def waiter(self) -> LoopWaiter | None: ...

    @property
    def outcome(self) -> object: ...  # the result, or the error, once the writer has run it


def wake_waiters(requests: Iterable[Waited]) -> None:
    """Hand each request's ``outcome`` to its loop waiter: one call per loop for them all."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], object]]] = {}
    for request in requests:
        if request.waiter is not None:
            by_loop.setdefault(request.waiter.loop, []).append((request.waiter.future, request.outcome))
    for loop, settled in by_loop.items():
        try:
            loop.call_soon_threadsafe(_settle, settled)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            pass


def _settle(settled: list[tuple[asyncio.Future[Any], object]]) -> None:
    for future, outcome in settled:
        if future.done():  # cancelled: the append stands, nobody reads its outcome
            continue
        if outcome is None:
            future.set_exception(RuntimeError("the store's writer stopped before this append was settled"))
        elif isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)
