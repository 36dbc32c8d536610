"""Group commit: one writer thread runs every append waiting at that moment in one transaction.

A commit costs one disk sync whatever it holds, so while the writer commits batch *k*, the
appends that arrive queue up and go together in batch *k+1*. With one writer nothing waits;
with many, throughput grows with the batch. ``run_batch`` must settle every request's future.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, Protocol, TypeVar

from server.store.errors import StoreClosedError


class HasFuture(Protocol):
    @property
    def future(self) -> Future[Any] | None: ...  # None: nobody waits on a concurrent future


R = TypeVar("R", bound=HasFuture)


class GroupCommitter(Generic[R]):
    def __init__(
        self,
        run_batch: Callable[[list[R]], None],
        max_batch: int,
        name: str,
        gather_seconds: float = 0.002,
        quiet_seconds: float = 0.0003,
    ) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        self._run_batch = run_batch
        self._max_batch = max_batch
        self._gather = gather_seconds
        self._quiet = quiet_seconds
        self._last_size = 0
        self._queue: deque[R] = deque()
        self._cond = threading.Condition()
        self._closing = False
        self.batches = 0
        self.requests = 0
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def submit(self, request: R) -> None:
        with self._cond:
            if self._closing:
                raise StoreClosedError("the event store is closed")
            self._queue.append(request)
            self._cond.notify()

    def _take(self) -> list[R] | None:
        with self._cond:
            while not self._queue and not self._closing:
                self._cond.wait()
            if not self._queue:
                return None
            if self._last_size > 1 and self._gather > 0:
                self._gather_more()
            count = min(len(self._queue), self._max_batch)
            return [self._queue.popleft() for _ in range(count)]

    def _gather_more(self) -> None:
        """Under load, wait (at most ``gather_seconds``) while appends keep arriving.

        Without this, concurrent writers split into two cohorts that alternate: one commits
        while the other queues. Letting the cohort just released come back first makes one
        batch of both, so one disk sync serves twice the commands. Called with the lock held.
        """
        deadline = time.monotonic() + self._gather
        while len(self._queue) < self._max_batch and not self._closing:
            before = len(self._queue)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            self._cond.wait(min(self._quiet, remaining))
            if len(self._queue) == before:
                return  # a quiet gap: nobody else is about to append

    def _loop(self) -> None:
        while (batch := self._take()) is not None:
            self.batches += 1
            self.requests += len(batch)
            self._last_size = len(batch)
            try:
                self._run_batch(batch)
            except BaseException as exc:  # noqa: BLE001 - a bug in run_batch must not leave callers waiting forever
                for request in batch:
                    if request.future is not None and not request.future.done():
                        request.future.set_exception(exc)

    def close(self, timeout: float | None = 30.0) -> None:
        """Run what is queued, then stop the writer thread."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if threading.current_thread() is not self.thread:
            self.thread.join(timeout)
