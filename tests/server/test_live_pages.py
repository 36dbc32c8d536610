"""The live pages' hub (``server.web.live``): woken by the store, one render per version for all
pages, the newest version only for a slow one, ``Last-Event-ID`` honoured, bounds kept.

The pages here are fed by a source that draws a stream's head: what moves a real page (a
tournament's stream) moves it, through the store's own follow. On PostgreSQL the appends come
from another ``EventStore`` (another process, as far as the hub's store can tell): they reach
the hub through LISTEN/NOTIFY, its sweep set to a minute so that it cannot be what wakes it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import orjson
import pytest

from bench.progress import STALL_SECONDS
from engine.game.events import Event
from server.db import is_postgres, make_engine
from server.store.event_store import EventStore
from server.web.event_stream import EventStreamResponse
from server.web.live import LiveHub, LivePage, LiveRefused, LiveSource, PageClosed, Rendered

STREAM = "tournament-live1"
HOUR = 3600.0
SQLITE_ONLY = pytest.mark.parametrize(
    "db_kind", ["sqlite"]
)  # the hub's own logic: one database is enough  # no heartbeat within a test: a frame that comes is a version


def regions(head: int) -> dict[str, str]:
    return {"pairings": f'<section id="pairings">{head}</section>', "standings": '<section id="standings"></section>'}


class HeadSource:
    """A page that shows the head of its stream; counts its renders. The key "gone" has no page."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.renders: list[int] = []

    async def render(self, key: str) -> Rendered | None:
        if key == "gone":
            return None
        head = await asyncio.to_thread(self.store.head, f"tournament-{key}")
        self.renders.append(head)
        return Rendered(head, regions(head))

    def source(self) -> LiveSource:
        return LiveSource(streams=lambda key: (f"tournament-{key}",), render=self.render)


def parse(frame: bytes | None) -> dict[str, Any]:
    assert frame is not None, "a heartbeat where a version was due"
    lines = dict(line.split(": ", 1) for line in frame.decode().strip().split("\n"))
    assert lines["event"] == "version" and frame.endswith(b"\n\n")
    data: dict[str, Any] = orjson.loads(lines["data"])
    assert int(lines["id"]) == data["version"]
    return data


async def next_of(page: LivePage) -> dict[str, Any]:
    return parse(await asyncio.wait_for(page.next_frame(HOUR), STALL_SECONDS))


async def until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(STALL_SECONDS):
        while not condition():
            await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def hub_on(url: str, **bounds: int) -> AsyncIterator[tuple[LiveHub, HeadSource, Callable[[], Awaitable[None]]]]:
    """A hub on its own store, its source, and ``append()``: one event more on :data:`STREAM`,
    from another store on PostgreSQL (another process's append), from the hub's own on SQLite."""
    store = EventStore(make_engine(url), follow_poll_seconds=60)
    other = EventStore(make_engine(url), follow_poll_seconds=60) if is_postgres(store.engine) else store
    heads = HeadSource(store)
    hub = LiveHub(
        store,
        {"t": heads.source()},
        max_pages=bounds.get("max_pages", 0),
        pages_per_address=bounds.get("pages_per_address", 0),
    )

    async def append() -> None:
        head = await asyncio.to_thread(other.head, STREAM)
        await other.append_async(STREAM, [Event("moved", {})], expected_seq=head)

    try:
        await append()
        yield hub, heads, append
    finally:
        await hub.aclose()
        await store.aclose()
        if other is not store:
            await other.aclose()


def test_each_version_is_rendered_once_and_reaches_every_open_page(url: str) -> None:
    async def main() -> None:
        async with hub_on(url) as (hub, heads, append):
            pages = [await hub.open("t", "live1", f"10.0.0.{i}", None) for i in range(20)]
            assert [await next_of(p) for p in pages] == [{"version": 1, "html": regions(1)}] * 20
            assert heads.renders == [1]  # twenty pages, one render

            await append()  # woken by the store (another process's NOTIFY on PostgreSQL), not by a timer
            frames = [await asyncio.wait_for(p.next_frame(HOUR), STALL_SECONDS) for p in pages]
            assert parse(frames[0]) == {"version": 2, "html": {"pairings": regions(2)["pairings"]}}  # what changed
            assert len({id(f) for f in frames}) == 1  # encoded once, the same bytes for every page
            assert heads.renders == [1, 2]

            for page in pages:
                hub.close(page)
            assert hub.topics == {} and hub.open_pages == 0 and not hub.per_address
            await until(lambda: hub.store.notifier.waiting == 0)  # the topic's follower went with its last page

    asyncio.run(main())


@SQLITE_ONLY
def test_a_slow_page_is_sent_only_the_newest_version(url: str) -> None:
    async def main() -> None:
        async with hub_on(url) as (hub, _heads, append):
            slow = await hub.open("t", "live1", "10.0.0.1", None)
            fast = await hub.open("t", "live1", "10.0.0.2", None)
            assert (await next_of(slow))["version"] == (await next_of(fast))["version"] == 1
            for version in (2, 3, 4):
                await append()
                assert (await next_of(fast))["version"] == version
            # Three versions came while the slow page read nothing: it holds one, the newest, sent whole
            # (it has version 1, not 3, the one the newest is counted from).
            assert await next_of(slow) == {"version": 4, "html": regions(4)}
            assert slow.pending is None and fast.pending is None

    asyncio.run(main())


@SQLITE_ONLY
def test_a_page_that_comes_back_is_sent_only_what_changed_since_its_version(url: str) -> None:
    async def main() -> None:
        async with hub_on(url) as (hub, _heads, append):
            first = await hub.open("t", "live1", "10.0.0.1", None)
            assert (await next_of(first))["version"] == 1
            await append()
            assert (await next_of(first))["version"] == 2
            current = await hub.open("t", "live1", "10.0.0.2", 2)  # Last-Event-ID: 2, the current one
            one_behind = await hub.open("t", "live1", "10.0.0.3", 1)
            unknown = await hub.open("t", "live1", "10.0.0.4", 77)  # an id of before a restart, say
            assert await next_of(current) == {"version": 2, "html": {}}
            assert await next_of(one_behind) == {"version": 2, "html": {"pairings": regions(2)["pairings"]}}
            assert await next_of(unknown) == {"version": 2, "html": regions(2)}

    asyncio.run(main())


@SQLITE_ONLY
def test_live_pages_are_bounded_in_all_and_per_address(url: str) -> None:
    async def main() -> None:
        async with hub_on(url, max_pages=3, pages_per_address=2) as (hub, _heads, _append):
            a1 = await hub.open("t", "live1", "10.0.0.1", None)
            await hub.open("t", "live1", "10.0.0.1", None)
            with pytest.raises(LiveRefused) as refused:
                await hub.open("t", "live1", "10.0.0.1", None)
            assert refused.value.status == 429 and "your address has 2 live pages open" in refused.value.message.lower()
            await hub.open("t", "live1", "10.0.0.2", None)
            with pytest.raises(LiveRefused) as refused:
                await hub.open("t", "live1", "10.0.0.3", None)
            assert refused.value.status == 503 and "3 live pages open" in refused.value.message
            assert hub.open_pages == 3 and hub.per_address == {"10.0.0.1": 2, "10.0.0.2": 1}
            hub.close(a1)  # a page that goes frees its place, in all and for its address
            await hub.open("t", "live1", "10.0.0.3", None)
            with pytest.raises(LiveRefused) as refused:
                await hub.open("t", "live1", "10.0.0.1", None)  # under its address's bound, over the whole's
            assert refused.value.status == 503 and hub.open_pages == 3

    asyncio.run(main())


@SQLITE_ONLY
def test_a_page_of_nothing_is_refused_and_a_stop_ends_the_open_ones(url: str) -> None:
    async def main() -> None:
        async with hub_on(url) as (hub, _heads, _append):
            with pytest.raises(LiveRefused) as refused:
                await hub.open("t", "gone", "10.0.0.1", None)
            assert refused.value.status == 404 and hub.open_pages == 0 and hub.topics == {}
            page = await hub.open("t", "live1", "10.0.0.1", None)
            assert (await next_of(page))["version"] == 1
            assert await page.next_frame(0.01) is None  # nothing new: a heartbeat is due, not a version
            hub.stop()  # the server is stopping: the page ends (its browser reconnects to the next one)
            with pytest.raises(PageClosed):
                await asyncio.wait_for(page.next_frame(HOUR), STALL_SECONDS)
            with pytest.raises(LiveRefused) as refused:
                await hub.open("t", "live1", "10.0.0.2", None)
            assert refused.value.status == 503

    asyncio.run(main())


async def _never() -> Any:
    await asyncio.Event().wait()


@SQLITE_ONLY
def test_a_page_whose_client_takes_nothing_is_cut_off_and_gives_its_place_back(url: str) -> None:
    async def main() -> None:
        async with hub_on(url) as (hub, _heads, _append):
            page = await hub.open("t", "live1", "10.0.0.1", None)
            sent: list[bytes] = []

            async def stuck(message: Any) -> None:  # takes the head and retry:, then nothing more
                if message["type"] == "http.response.body":
                    sent.append(message["body"])
                    if len(sent) > 1:
                        await _never()

            response = EventStreamResponse(hub, page, retry_ms=3000, heartbeat=HOUR, write_seconds=0.05)
            await asyncio.wait_for(response({"type": "http"}, _never, stuck), STALL_SECONDS)
            assert sent[0] == b"retry: 3000\n\n" and b"event: version" in sent[1]
            assert hub.open_pages == 0 and hub.topics == {}  # its place, and its topic, are free again

    asyncio.run(main())


@SQLITE_ONLY
def test_a_page_whose_client_went_gives_its_place_back(url: str) -> None:
    async def main() -> None:
        async with hub_on(url) as (hub, _heads, _append):
            page = await hub.open("t", "live1", "10.0.0.1", None)
            gone = asyncio.Event()

            async def send(message: Any) -> None:
                if message["type"] == "http.response.body" and b"event: version" in message["body"]:
                    gone.set()  # the browser got its first version, then the tab closed

            async def receive() -> dict[str, Any]:
                await gone.wait()
                return {"type": "http.disconnect"}

            response = EventStreamResponse(hub, page, retry_ms=3000, heartbeat=HOUR, write_seconds=HOUR)
            await asyncio.wait_for(response({"type": "http"}, receive, send), STALL_SECONDS)
            assert hub.open_pages == 0 and not hub.per_address and hub.topics == {}

    asyncio.run(main())
