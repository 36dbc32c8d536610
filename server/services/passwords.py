"""Password and sign-in code hashes: argon2id (``argon2-cffi``), off the event loop, a few at a time,
each source (a client address) taking its turn.

A hash costs about 0.1 s of a core and 64 MiB (argon2-cffi's default, RFC 9106's low-memory
profile). :class:`Hasher` runs them on its own :data:`RUNNING` threads, so a flood of sign-ins
can take at most those cores and never the threads the rest of the server waits on. The hashes
that wait for a thread wait in one queue per **source** (the client address that asked), and
the threads take them in turn, one from each source that has one waiting (round robin): an
address with a hundred hashes waiting delays another address's one hash by one hash, not a
hundred. A source has at most :data:`PER_SOURCE` hashes waiting or running (more are refused at
once, 429); all sources together at most :data:`WAITING` waiting, and when that is full a hash from
a source that has fewer waiting than the source with the most takes the place of that source's
newest one (which is refused, 429): a flood from some addresses cannot keep out another address
(issue 32). Sign-ins are also limited per address and per name before they reach the hasher
(``server.services.sign_in_gate``), and registrations per address (``server.deps``).

:meth:`Hasher.verify` with no stored hash (an unknown name, a player without a password or
without a live code) checks the secret against a dummy hash all the same, so the answer takes
as long whether or not the name exists. Secrets are compared in NFC (RFC 8265's rule for
passwords), so one typed on another keyboard matches.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import unicodedata
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from server.domain_errors import TooManyRequests

RUNNING = 2  # hashes at once: the server's two cores at most
WAITING = 64  # hashes that may wait for a thread, all sources together
PER_SOURCE = 4  # hashes one source (client address) may have waiting or running
T = TypeVar("T")
BUSY = "too many passwords are being checked on this server right now; try again"
SOURCE_BUSY = "your address has too many passwords being checked already; wait for their answers"


class ArgonLike(Protocol):
    """What :class:`Hasher` needs of ``argon2.PasswordHasher`` (a test's slow stand-in has the same)."""

    def hash(self, secret: str) -> str: ...

    def verify(self, stored: str, secret: str) -> bool: ...


def _nfc(secret: str) -> str:
    return unicodedata.normalize("NFC", secret)


@dataclass(eq=False)
class _Job:
    source: str
    work: Callable[[], Any]
    future: Future[Any] = field(default_factory=Future)


class Hasher:
    def __init__(
        self,
        running: int = RUNNING,
        waiting: int = WAITING,
        hasher: ArgonLike | None = None,
        per_source: int = PER_SOURCE,
    ) -> None:
        self.running = running
        self.waiting = waiting
        self.per_source = per_source
        self._hasher: ArgonLike = hasher or PasswordHasher()
        self._pool = ThreadPoolExecutor(max_workers=running, thread_name_prefix="unoduo-argon2")
        self._lock = threading.RLock()
        self._busy = 0  # jobs on a thread now
        self._queues: OrderedDict[str, deque[_Job]] = OrderedDict()  # source -> its waiting jobs, in turn order
        self._queued = 0
        self._held: dict[str, int] = {}  # source -> its jobs waiting or running (no entry at 0)

    @functools.cached_property
    def _dummy(self) -> str:
        return self._hasher.hash("a password nobody has")

    def load(self) -> tuple[int, int, int]:
        """(running, waiting, sources holding a job): for tests and the memory bound."""
        with self._lock:
            return self._busy, self._queued, len(self._held)

    def _submit(self, source: str, work: Callable[[], T]) -> Future[T]:
        job = _Job(source, work)
        with self._lock:
            if self._held.get(source, 0) >= self.per_source:
                raise TooManyRequests(SOURCE_BUSY, 1)
            if self._busy < self.running:
                self._busy += 1
                self._hold(source)
                self._start(job)
                return job.future
            if self._queued >= self.waiting:
                self._make_room(source)  # or TooManyRequests
            self._hold(source)
            self._queues.setdefault(source, deque()).append(job)
            self._queued += 1
        job.future.add_done_callback(functools.partial(self._forget, job))
        return job.future

    def _forget(self, job: _Job, future: Future[Any]) -> None:
        """A waiting job's caller went away (its request was cancelled): it leaves the queue now."""
        if not future.cancelled():
            return
        with self._lock:
            jobs = self._queues.get(job.source)
            if jobs is None or job not in jobs:
                return  # already taken (and skipped) by a thread
            jobs.remove(job)
            if not jobs:
                del self._queues[job.source]
            self._queued -= 1
            self._release(job.source)

    def _hold(self, source: str) -> None:
        self._held[source] = self._held.get(source, 0) + 1

    def _release(self, source: str) -> None:
        left = self._held[source] - 1
        if left:
            self._held[source] = left
        else:
            del self._held[source]

    def _make_room(self, source: str) -> None:
        """The queue is full: the newest job of the source with the most waiting gives up its place,
        if that source has at least two more waiting than ``source``; else ``source`` is refused."""
        mine = len(self._queues.get(source, ()))
        greediest = max(self._queues, key=lambda s: len(self._queues[s]))
        if len(self._queues[greediest]) < mine + 2:
            raise TooManyRequests(BUSY, 1)
        evicted = self._queues[greediest].pop()
        if not self._queues[greediest]:
            del self._queues[greediest]
        self._queued -= 1
        self._release(evicted.source)
        evicted.future.set_exception(TooManyRequests(BUSY, 1))

    def _start(self, job: _Job) -> None:
        """Run ``job`` on a thread (its place in ``_busy`` already taken; called holding the lock)."""
        if not job.future.set_running_or_notify_cancel():  # its caller is gone: the next one instead
            self._release(job.source)
            self._next()
            return
        self._pool.submit(self._run, job)

    def _run(self, job: _Job) -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = job.work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            error = exc
        with self._lock:  # the place is free before the caller hears (so it may ask again at once)
            self._release(job.source)
            self._next()
        if error is not None:
            job.future.set_exception(error)
        else:
            job.future.set_result(result)

    def _next(self) -> None:
        """A thread is free: the first source in turn gives its oldest job and goes to the back."""
        if not self._queues:
            self._busy -= 1
            return
        source, jobs = next(iter(self._queues.items()))
        job = jobs.popleft()
        self._queued -= 1
        if jobs:
            self._queues.move_to_end(source)
        else:
            del self._queues[source]
        self._start(job)

    async def _run_for(self, source: str, work: Callable[[], T]) -> T:
        return await asyncio.wrap_future(self._submit(source, work))

    async def hash(self, secret: str, *, source: str = "") -> str:
        return await self._run_for(source, lambda: self._hasher.hash(_nfc(secret)))

    async def verify(self, stored: str | None, secret: str, *, source: str = "") -> bool:
        """Whether ``secret`` is the one ``stored`` was made from (False, after as long a check, if ``stored`` is None)."""

        def check() -> bool:
            try:
                matched = self._hasher.verify(stored if stored is not None else self._dummy, _nfc(secret))
            except (VerificationError, InvalidHashError):
                return False
            return matched and stored is not None

        return await self._run_for(source, check)


hasher = Hasher()
"""The server's one hasher (the bound is per process)."""
