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
import functools
from collections.abc import Iterable
from concurrent.futures import Future
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
    def future(self) -> Future[Any]: ...

    @property
    def waiter(self) -> LoopWaiter | None: ...


def wake_waiters(requests: Iterable[Waited]) -> None:
    """Settle the loop waiters of ``requests`` from their (concurrent) futures: one call per loop.
    A request whose future is not done yet (the writer failed before settling it) is settled
    when it is."""
    by_loop: dict[asyncio.AbstractEventLoop, list[Waited]] = {}
    for request in requests:
        if request.waiter is not None:
            by_loop.setdefault(request.waiter.loop, []).append(request)
    for loop, waiting in by_loop.items():
        try:
            loop.call_soon_threadsafe(_settle, waiting)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            pass


def _settle(requests: list[Waited]) -> None:
    for request in requests:
        waiter = request.waiter
        assert waiter is not None
        if request.future.done():
            _copy(request.future, waiter.future)
        else:
            request.future.add_done_callback(functools.partial(_copy_later, waiter=waiter))


def _copy_later(source: Future[Any], waiter: LoopWaiter) -> None:
    try:
        waiter.loop.call_soon_threadsafe(_copy, source, waiter.future)
    except RuntimeError:  # the loop is closed: nobody is waiting any more
        pass


def _copy(source: Future[Any], target: asyncio.Future[Any]) -> None:
    if target.done():  # cancelled: the append stands, nobody reads its outcome
        return
    error = source.exception()
    if error is not None:
        target.set_exception(error)
    else:
        target.set_result(source.result())
