"""Waking followers when a stream grows.

:class:`LocalNotifier` wakes asyncio waiters of this process, from any thread (the group-commit
writer calls it after each commit). :class:`PgListener` adds other processes: every append
transaction on PostgreSQL runs ``NOTIFY <channel>, '<stream>:<seq>'``, delivered at commit,
and the listener (one psycopg async connection per event loop) turns each notification into a
local wake-up. A follower never re-reads on a timer of its own: on SQLite only this process
appends, so its wake-ups are all there is; on PostgreSQL the listener also sweeps, every
``follow_poll_seconds``, the heads of all streams its followers wait on (one query) and wakes
each follower that is behind, so a notification lost while the listener reconnects only delays
them, and the idle cost is one query per process whatever the number of followers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

log = logging.getLogger(__name__)

CLOSE_SECONDS = 3.0


class Waiter:
    """One follower's wake-up flag, bound to the event loop it was made in.

    ``latest`` is the highest head seq a wake-up named (-1: none yet); ``forced`` is set by a
    wake-up that named none (a listener that reconnected, the server stopping), after which the
    follower must read whatever it knows.
    """

    __slots__ = ("event", "forced", "known", "latest", "loop", "seen", "stream")

    def __init__(self, stream: str, known: Callable[[], int] | None = None, seen: int = 0) -> None:
        self.stream = stream
        self.known = known  # the last seq the follower has by other means: a wake-up at or below it is skipped
        self.seen = seen  # the last seq the follower has read: a wake-up at or below it is skipped too
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()
        self.latest = -1
        self.forced = False

    def wake(self, seq: int | None = None) -> None:
        if seq is None:
            self.forced = True
        else:
            if seq <= self.seen or (self.known is not None and seq <= self.known()):
                return  # nothing the follower does not have (read, or its own process's append): let it sleep
            if seq > self.latest:
                self.latest = seq
        try:
            self.loop.call_soon_threadsafe(self.event.set)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            pass

    def clear(self) -> None:
        self.event.clear()

    async def wait(self, timeout: float | None) -> bool:
        """True if woken, False after ``timeout`` seconds (None: no limit)."""
        # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a cancellation that
        # arrives as the event is set, and a cancelled follower would then run on for ever.
        try:
            async with asyncio.timeout(timeout):
                await self.event.wait()
        except TimeoutError:
            return False
        return True


class LocalNotifier:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: defaultdict[str, set[Waiter]] = defaultdict(set)
        self._prefixes: list[tuple[str, Callable[[str], None]]] = []  # (prefix, called with each stream that grew)

    def on_prefix(self, prefix: str, call: Callable[[str], None]) -> Callable[[], None]:
        """Call ``call(stream)`` (from any thread) whenever a stream starting with ``prefix`` grows,
        here or (on PostgreSQL) on another process: how a new stream is found. Returns the undo."""
        entry = (prefix, call)
        with self._lock:
            self._prefixes.append(entry)

        def undo() -> None:
            with self._lock:
                if entry in self._prefixes:
                    self._prefixes.remove(entry)

        return undo

    def waiter(self, stream: str, known: Callable[[], int] | None = None, seen: int = 0) -> Waiter:
        """A new waiter for ``stream``; call from inside the follower's event loop."""
        waiter = Waiter(stream, known, seen)
        with self._lock:
            self._waiters[stream].add(waiter)
        return waiter

    def remove(self, waiter: Waiter) -> None:
        with self._lock:
            waiters = self._waiters.get(waiter.stream)
            if waiters is not None:
                waiters.discard(waiter)
                if not waiters:
                    del self._waiters[waiter.stream]

    def waiters_in(self, loop: asyncio.AbstractEventLoop) -> list[Waiter]:
        """The waiters of followers running in ``loop``."""
        with self._lock:
            return [w for ws in self._waiters.values() for w in ws if w.loop is loop]

    @property
    def waiting(self) -> int:
        """How many followers wait now (a follower that has gone must not be counted)."""
        with self._lock:
            return sum(len(ws) for ws in self._waiters.values())

    def notify(self, stream: str, seq: int | None = None) -> None:
        """``stream`` grew (to head ``seq``, if known)."""
        with self._lock:
            waiters = list(self._waiters.get(stream, ()))
            calls = [call for prefix, call in self._prefixes if stream.startswith(prefix)]
        for waiter in waiters:
            waiter.wake(seq)
        for call in calls:
            call(stream)

    def notify_all(self) -> None:
        with self._lock:
            waiters = [w for ws in self._waiters.values() for w in ws]
        for waiter in waiters:
            waiter.wake()


def parse_payload(payload: str) -> tuple[str, int] | None:
    """The stream and head seq named by a ``<stream>:<seq>`` notification, or None if it is not one of ours."""
    stream, sep, seq = payload.rpartition(":")
    return (stream, int(seq)) if sep and stream and seq.isdigit() and len(seq) < 19 else None


class PgListener:
    """LISTEN on ``channel`` in the current event loop and wake local followers on each NOTIFY.

    With ``heads`` (the head seq of each of some streams, read in one go: a blocking call, run in
    a thread), it also sweeps every ``sweep_seconds``: the heads of the streams this loop's
    followers wait on are read and each follower behind its stream's head is woken. That is what
    catches a notification lost while the connection was down, for every follower at once.
    """

    def __init__(
        self,
        conninfo: str,
        channel: str,
        notifier: LocalNotifier,
        heads: Callable[[Sequence[str]], Mapping[str, int]] | None = None,
        sweep_seconds: float = 2.0,
    ) -> None:
        self._conninfo = conninfo
        self._channel = channel
        self._notifier = notifier
        self._heads = heads
        self._sweep_seconds = sweep_seconds
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self.sweeps = 0  # sweeps done (each one query, or none when nobody waits)
        self.last_error: BaseException | None = None

    async def start(self, timeout: float = 10.0) -> None:
        """Start listening; returns once LISTEN is in force (or raises if it cannot connect)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"unoduo-listen-{self._channel}")
        if self._sweeper is None and self._heads is not None:
            self._sweeper = asyncio.create_task(self._sweep(self._heads), name=f"unoduo-sweep-{self._channel}")
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            raise ConnectionError(f"could not LISTEN on PostgreSQL: {self.last_error!r}") from None

    async def _sweep(self, heads: Callable[[Sequence[str]], Mapping[str, int]]) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self._sweep_seconds)
            waiters = self._notifier.waiters_in(loop)
            if waiters:
                try:
                    found = await asyncio.to_thread(heads, sorted({w.stream for w in waiters}))
                except Exception as exc:  # noqa: BLE001 - the database is away: the next sweep tries again
                    log.warning("sweep of %d followed streams failed (%r); trying again", len(waiters), exc)
                    continue
                for waiter in waiters:
                    head = found.get(waiter.stream)
                    if head:
                        waiter.wake(head)  # skipped unless the follower is behind
            self.sweeps += 1

    async def _run(self) -> None:
        import psycopg  # imported here: SQLite-only installs never need it

        backoff = 0.1
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {self._channel}")
                    self._ready.set()
                    backoff = 0.1
                    self._notifier.notify_all()  # anything appended while we were not listening
                    async for note in conn.notifies():
                        parsed = parse_payload(note.payload)
                        if parsed is not None:
                            self._notifier.notify(*parsed)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - connection lost or refused: retry; the sweep covers the gap
                self.last_error = exc
                log.warning("LISTEN %s failed (%r); retrying in %.1fs", self._channel, exc, backoff)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)

    async def close(self) -> None:
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                # Bounded: psycopg may hold on to a cancelled wait for notifications.
                await asyncio.wait_for(task, CLOSE_SECONDS)
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - closing: nothing left to report
                if not task.done():
                    log.warning("LISTEN %s did not stop within %ss; left behind", self._channel, CLOSE_SECONDS)
