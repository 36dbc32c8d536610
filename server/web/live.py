"""The live pages' hub: one renderer per watched page, fanned out to every open copy of it.

A *topic* is one page that changes: a tournament (``/live/t/{id}``), a match (``/live/m/{id}``)
or the front page (``/live/front``). It exists while at least one browser has it open. Its
*source* (:class:`LiveSource`) names the store streams whose growth changes it and renders its
live regions (``{region id: HTML}``) with a version. The topic follows those streams with
:meth:`EventStore.follow` — woken by the store's own notifier on this process's appends and by
LISTEN/NOTIFY (with its sweep) on PostgreSQL, never a timer per connection — and, on a wake-up,
waits :data:`COALESCE` seconds for the burst to end, renders ONCE and offers the new
:class:`Snapshot` to every open page. A page keeps only the newest snapshot it has not sent yet
(a slow reader skips versions, it never queues them) and each snapshot encodes its SSE frame
at most twice (the regions that changed since the version before, for the pages that had it,
and all regions, for any other) whoever reads it.

Bounds: ``max_pages`` open pages in all (503 beyond) and ``pages_per_address`` per client
address (429 beyond); 0 means no cap. :meth:`LiveHub.stop` ends every page (the server is
stopping): browsers reconnect after the ``retry:`` the stream set, with ``Last-Event-ID``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import orjson

from server.store.errors import UNAVAILABLE
from server.store.event_store import EventStore

log = logging.getLogger(__name__)

COALESCE: Final = 0.1  # seconds a topic waits after a wake-up, so that one burst of appends is one render
RETRY_RENDER_SECONDS: Final = 2.0  # after a render failed (the database away), the next try
STOP_SECONDS: Final = 5.0
RESTARTING: Final = "The server is restarting: this page reconnects by itself in a few seconds."


@dataclass(frozen=True, slots=True)
class Rendered:
    """A page's live regions at one version: ``regions`` maps an element id to its outer HTML."""

    version: int
    regions: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class LiveSource:
    """One kind of live page: what moves it, and how it is drawn.

    ``streams(key)``: the streams whose every append may change the page; ``prefixes``: any
    stream starting with one of them changes it too (the front page: every tournament);
    ``render(key)``: the regions now, or None if there is no such page (any more).
    """

    streams: Callable[[str], Sequence[str]]
    render: Callable[[str], Awaitable[Rendered | None]]
    prefixes: tuple[str, ...] = ()


class Snapshot:
    """One rendered version of a topic, shared by all its pages; its frames encoded once each."""

    __slots__ = ("_changed_frame", "_full_frame", "changed", "previous", "regions", "version")

    def __init__(self, rendered: Rendered, before: Snapshot | None) -> None:
        self.version = rendered.version
        self.regions = dict(rendered.regions)
        self.previous: int | None = None  # the version ``changed`` is counted from (no reference kept)
        self.changed = self.regions
        if before is not None and before.regions.keys() == self.regions.keys():
            self.previous = before.version
            self.changed = {k: html for k, html in self.regions.items() if before.regions[k] != html}
        self._full_frame: bytes | None = None
        self._changed_frame: bytes | None = None

    def frame(self, had: int | None) -> bytes:
        """The SSE frame for a page that has version ``had`` (None: unknown): nothing it has again."""
        if had == self.version:
            regions: Mapping[str, str] = {}
        elif had is not None and had == self.previous:
            if self._changed_frame is None:
                self._changed_frame = version_frame(self.version, self.changed)
            return self._changed_frame
        else:
            if self._full_frame is None:
                self._full_frame = version_frame(self.version, self.regions)
            return self._full_frame
        return version_frame(self.version, regions)


def version_frame(version: int, regions: Mapping[str, str]) -> bytes:
    """``event: version``: the version (also the event's id, for ``Last-Event-ID``) and the regions' HTML.

    The data is one JSON line: JSON escapes every newline inside the HTML, as SSE needs.
    """
    data = orjson.dumps({"version": version, "html": regions})
    return b"id: %d\nevent: version\ndata: %s\n\n" % (version, data)


class PageClosed(Exception):
    """The page was ended by the server (it is stopping, or the page's subject is gone)."""


@dataclass(eq=False, slots=True)
class LivePage:
    """One open live page (an EventSource): the newest snapshot it has not been sent yet, if any."""

    topic: Topic
    address: str
    had: int | None  # the version the browser has (Last-Event-ID), then the last one sent
    pending: Snapshot | None = None
    closed: bool = False
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def offer(self, snapshot: Snapshot) -> None:
        """Replace what is waiting to be sent by ``snapshot`` (only the newest is ever kept)."""
        self.pending = snapshot
        self.wake.set()

    def end(self) -> None:
        self.closed = True
        self.wake.set()

    async def next_frame(self, heartbeat: float) -> bytes | None:
        """The next frame to send, or None after ``heartbeat`` seconds with nothing (send a comment).
        Raises :class:`PageClosed` once the page was ended."""
        while True:
            if self.closed:
                raise PageClosed
            snapshot = self.pending
            if snapshot is not None:
                self.pending = None
                self.wake.clear()
                frame = snapshot.frame(self.had)
                self.had = snapshot.version
                return frame
            self.wake.clear()
            try:
                async with asyncio.timeout(heartbeat):
                    await self.wake.wait()
            except TimeoutError:
                return None


class LiveRefused(Exception):
    """No live page was opened: ``status`` (404, 429, 503) and a sentence for the body."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(eq=False)
class Topic:
    """One watched page and its open copies; ``snapshot`` is its newest render."""

    kind: str
    key: str
    pages: set[LivePage] = field(default_factory=set)
    snapshot: Snapshot | None = None
    dirty: asyncio.Event = field(default_factory=asyncio.Event)
    ready: asyncio.Future[None] | None = None  # the first render (shared by the pages that open meanwhile)
    task: asyncio.Task[None] | None = None
    renders: int = 0

    def poke(self) -> None:
        self.dirty.set()


class LiveHub:
    """This process's live pages: the topics, their followers, the bounds."""

    def __init__(
        self,
        store: EventStore,
        sources: Mapping[str, LiveSource],
        *,
        max_pages: int,
        pages_per_address: int,
        coalesce: float = COALESCE,
    ) -> None:
        self.store = store
        self.sources = dict(sources)
        self.max_pages = max_pages
        self.pages_per_address = pages_per_address
        self.coalesce = coalesce
        self.topics: dict[tuple[str, str], Topic] = {}
        self.per_address: Counter[str] = Counter()
        self.open_pages = 0
        self.stopping = False

    # ------------------------------------------------------------ pages

    async def open(self, kind: str, key: str, address: str, had: int | None) -> LivePage:
        """A new live page of ``kind``/``key`` for a browser at ``address`` that has version ``had``;
        its first frame (the current version) is already waiting. Raises :class:`LiveRefused`."""
        if kind not in self.sources:
            raise LiveRefused(404, "There is no such page.")
        if self.stopping:
            raise LiveRefused(503, RESTARTING)
        if self.max_pages and self.open_pages >= self.max_pages:
            raise LiveRefused(
                503,
                f"This server has {self.open_pages} live pages open, its most: this page still works, "
                "reload it later to see new results.",
            )
        if self.pages_per_address and self.per_address[address] >= self.pages_per_address:
            raise LiveRefused(
                429,
                f"Your address has {self.per_address[address]} live pages open, the most one address may: "
                "close one (or reload this page later) to follow results live.",
            )
        topic = self.topics.get((kind, key))
        if topic is None:
            topic = self.topics[(kind, key)] = Topic(kind, key)
        page = LivePage(topic, address, had)
        topic.pages.add(page)  # counted before any wait: pages opened together are bounded together
        self.open_pages += 1
        self.per_address[address] += 1
        try:
            await self._started(topic)
        except asyncio.CancelledError:
            self.close(page)
            task = asyncio.current_task()
            if topic.ready is not None and topic.ready.cancelled() and task is not None and not task.cancelling():
                raise LiveRefused(503, RESTARTING) from None  # the server stopped while the page opened
            raise
        except BaseException:
            self.close(page)
            raise
        if topic.snapshot is None:
            self.close(page)
            raise LiveRefused(404, "There is no such page.")
        if page.pending is None:  # not offered a newer one meanwhile
            page.offer(topic.snapshot)
        return page

    def close(self, page: LivePage) -> None:
        """The page has gone: forget it; with a topic's last page, the topic and its followers."""
        topic = page.topic
        if page not in topic.pages:
            return
        topic.pages.discard(page)
        page.closed = True
        self.open_pages -= 1
        self.per_address[page.address] -= 1
        if self.per_address[page.address] <= 0:
            del self.per_address[page.address]
        if not topic.pages and self.topics.get((topic.kind, topic.key)) is topic:
            del self.topics[(topic.kind, topic.key)]
            if topic.task is not None:
                topic.task.cancel()

    # ------------------------------------------------------------ topics

    async def _started(self, topic: Topic) -> None:
        """The topic's first render done and its followers running (one start, shared)."""
        if topic.ready is None:
            topic.ready = asyncio.get_running_loop().create_future()
            topic.task = asyncio.ensure_future(self._run(topic))
            topic.task.add_done_callback(_retrieved)
        await asyncio.shield(topic.ready)

    async def _run(self, topic: Topic) -> None:
        """Follow what moves the topic and render it again after each burst, until it has no page."""
        assert topic.ready is not None
        followers: list[asyncio.Task[None]] = []
        undo: list[Callable[[], None]] = []
        try:
            try:
                source = self.sources[topic.kind]
                streams = source.streams(topic.key)
                heads = [await asyncio.to_thread(self.store.head, s) for s in streams]  # before the render
                await self._render(topic, source)
            except asyncio.CancelledError:
                topic.ready.cancel()  # its last page went (or the server is stopping): nobody waits
                raise
            except Exception as exc:
                if not topic.ready.done():
                    topic.ready.set_exception(exc)
                    topic.ready.exception()  # retrieved: each opener gets it from its own await
                raise
            topic.ready.set_result(None)
            if topic.snapshot is None:
                return
            loop = asyncio.get_running_loop()
            for stream, head in zip(streams, heads, strict=True):
                followers.append(asyncio.ensure_future(self._follow(topic, stream, head)))
            for prefix in source.prefixes:
                undo.append(self.store.notifier.on_prefix(prefix, _poke_from_any_thread(loop, topic)))
            while True:
                await topic.dirty.wait()
                await asyncio.sleep(self.coalesce)
                topic.dirty.clear()
                try:
                    await self._render(topic, source)
                except UNAVAILABLE as exc:
                    log.warning(
                        "live %s %s: the database is unavailable (%s); trying again", topic.kind, topic.key, exc
                    )
                    loop.call_later(RETRY_RENDER_SECONDS, topic.poke)
                except Exception:
                    log.exception("live %s %s could not be rendered", topic.kind, topic.key)
                    loop.call_later(RETRY_RENDER_SECONDS, topic.poke)
                if topic.snapshot is None:  # gone
                    return
        finally:
            for end in undo:
                end()
            for task in followers:
                task.cancel()
            if topic.snapshot is None or self.stopping:
                for page in list(topic.pages):
                    page.end()

    async def _follow(self, topic: Topic, stream: str, after: int) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            async for _event in self.store.follow(stream, after):
                topic.poke()

    async def _render(self, topic: Topic, source: LiveSource) -> None:
        rendered = await source.render(topic.key)
        topic.renders += 1
        if rendered is None:
            topic.snapshot = None
            return
        before = topic.snapshot
        if before is not None and before.version == rendered.version and before.regions == rendered.regions:
            return  # woken by nothing new (the follower's first wake-up can repeat what the render saw)
        snapshot = Snapshot(rendered, before)
        topic.snapshot = snapshot
        for page in topic.pages:
            page.offer(snapshot)

    # ------------------------------------------------------------ stopping

    def stop(self) -> None:
        """The server is stopping: every page ends now (its browser reconnects, to the next server)."""
        self.stopping = True
        for topic in list(self.topics.values()):
            for page in list(topic.pages):
                page.end()
            if topic.task is not None:
                topic.task.cancel()
            if topic.ready is not None and not topic.ready.done():
                topic.ready.cancel()  # a page still opening is refused (503), not left waiting

    async def aclose(self) -> None:
        """:meth:`stop`, and wait (bounded) for the topics' tasks to end."""
        self.stop()
        tasks = [t.task for t in self.topics.values() if t.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_SECONDS)


def _poke_from_any_thread(loop: asyncio.AbstractEventLoop, topic: Topic) -> Callable[[str], None]:
    """A prefix notification's call (from the writer thread or the listener): wake the topic on its loop."""

    def grew(_stream: str) -> None:
        if not topic.dirty.is_set():  # already dirty: the render to come sees this append too
            with contextlib.suppress(RuntimeError):  # the loop has closed: the server has stopped
                loop.call_soon_threadsafe(topic.poke)

    return grew


def _retrieved(task: asyncio.Task[None]) -> None:
    """A topic's task ended: its error (a first render that failed) went to its openers already."""
    if not task.cancelled():
        task.exception()
