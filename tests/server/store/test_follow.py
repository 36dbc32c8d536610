"""follow(): the backlog, then every new event as it is appended, woken by a notification.

The follow poll is set to a minute, so a follower that sees an event within seconds was woken,
not swept. On PostgreSQL the append comes from another process (LISTEN/NOTIFY). A follower never
reads on a timer of its own: on SQLite it is woken by this process's appends only, on PostgreSQL
also by the one sweep of the process, which catches a lost notification.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from bench.progress import STALL_SECONDS
from engine.game.events import Event
from server.db import make_engine
from server.store import event_store
from server.store.event_store import EventStore, StoredEvent
from tests.server.store.workers import append_later, mp_context


def test_follow_gives_the_backlog_then_live_events(url: str) -> None:
    async def main() -> list[tuple[int, float]]:
        store = EventStore(make_engine(url), follow_poll_seconds=60)
        try:
            await store.append_async("match-f", [Event("a", {}), Event("b", {})], expected_seq=0)
            got: list[tuple[int, float]] = []

            async def follower() -> None:
                async for event in store.follow("match-f", after_seq=1):
                    got.append((event.seq, time.perf_counter()))
                    if event.seq == 4:
                        return

            task = asyncio.create_task(follower())
            await asyncio.sleep(0.3)
            sent = time.perf_counter()
            await store.append_async("match-f", [Event("c", {})], expected_seq=2)
            await asyncio.sleep(0.1)
            store.append("match-f", [Event("d", {})], expected_seq=3)  # from a plain call too
            await asyncio.wait_for(task, 10)
            assert store.notifier.waiting == 0  # the follower cleaned up after itself
            return [(seq, at - sent) for seq, at in got]
        finally:
            await store.aclose()

    got = asyncio.run(main())
    assert [seq for seq, _ in got] == [2, 3, 4]
    assert got[1][1] < 5 and got[2][1] < 5


def test_a_follower_of_one_stream_ignores_others(store: EventStore) -> None:
    async def main() -> list[int]:
        seen: list[int] = []

        async def follower() -> None:
            async for event in store.follow("match-1"):
                seen.append(event.seq)

        task = asyncio.create_task(follower())
        await asyncio.sleep(0.2)
        await store.append_async("match-2", [Event("x", {})], expected_seq=0)
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return seen

    assert asyncio.run(main()) == []


@pytest.mark.parametrize("db_kind", ["postgres"])
def test_another_process_append_wakes_the_follower(url: str) -> None:
    """PostgreSQL: NOTIFY reaches another process at once. (SQLite has no cross-process signal:
    one server process owns the file, and ``unoduo serve --workers`` refuses it.)"""

    async def main() -> float:
        store = EventStore(make_engine(url), follow_poll_seconds=60)
        try:
            store.append("match-x", [Event("first", {})], expected_seq=0)
            ctx = mp_context()
            child = ctx.Process(target=append_later, args=(url, "match-x", 1, 0.5))
            child.start()
            async for event in store.follow("match-x", after_seq=1):
                assert event.type == "from_afar"
                latency: float = time.time() - event.data["sent"]
                break
            child.join(30)
            assert child.exitcode == 0
            return latency
        finally:
            await store.aclose()

    latency = asyncio.run(asyncio.wait_for(main(), 60))
    assert latency < 1.0


class CountedReads:
    """``store.read`` and ``store.heads`` wrapped: the reads of each stream, and each sweep's query."""

    def __init__(self, store: EventStore) -> None:
        self.reads: Counter[str] = Counter()
        self.sweeps = 0
        read, heads = store.read, store.heads

        def counted_read(stream: str, *args: Any, **kwargs: Any) -> list[StoredEvent]:
            self.reads[stream] += 1
            return read(stream, *args, **kwargs)

        def counted_heads(streams: Sequence[str]) -> dict[str, int]:
            found = heads(streams)
            self.sweeps += 1
            return found

        store.read = counted_read  # type: ignore[method-assign]
        store.heads = counted_heads  # type: ignore[method-assign]


def test_an_idle_follower_reads_nothing(url: str, db_kind: str) -> None:
    """With the poll at 50 ms, a follower of a stream nobody appends to reads its backlog once and
    then nothing, while another stream's appends are delivered one after the other until many polls
    have passed (SQLite) or the process's sweep has run three times (PostgreSQL)."""
    poll = 0.05

    async def main() -> tuple[int, int]:
        store = EventStore(make_engine(url), follow_poll_seconds=poll)
        counted = CountedReads(store)
        try:
            await store.append_async("match-idle", [Event("a", {})], expected_seq=0)
            delivered: asyncio.Queue[int] = asyncio.Queue()

            async def idle() -> None:
                async for _event in store.follow("match-idle", after_seq=1):
                    pass

            async def busy() -> None:
                async for event in store.follow("match-busy"):
                    delivered.put_nowait(event.seq)

            tasks = [asyncio.create_task(idle()), asyncio.create_task(busy())]
            began, seq = time.monotonic(), 0
            while (db_kind == "sqlite" and time.monotonic() - began < 20 * poll) or (
                db_kind == "postgres" and counted.sweeps < 3
            ):
                seq += 1
                await store.append_async("match-busy", [Event("x", {})], expected_seq=seq - 1)
                assert await asyncio.wait_for(delivered.get(), STALL_SECONDS) == seq
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            return counted.reads["match-idle"], seq
        finally:
            await store.aclose()

    reads, appended = asyncio.run(main())
    assert appended > 0
    assert reads == 1  # its backlog; no timed re-read


@pytest.mark.parametrize("db_kind", ["postgres"])
def test_a_lost_notification_is_delivered_by_the_one_sweep(url: str) -> None:
    """Appends whose NOTIFY nobody hears (sent on another channel) still reach every follower,
    through the process's one sweep: one sweep task however many followers, and no follower
    reads before the sweep has found its stream's head moved."""
    streams = [f"match-lost{i}" for i in range(5)]

    async def main() -> tuple[list[int], list[str], int]:
        store = EventStore(make_engine(url), follow_poll_seconds=0.1)
        muted = EventStore(make_engine(url), channel="unoduo_nobody_listens")
        counted = CountedReads(store)
        try:
            got: asyncio.Queue[int] = asyncio.Queue()

            async def follower(stream: str) -> None:
                async for event in store.follow(stream):
                    got.put_nowait(event.seq)
                    return

            tasks = [asyncio.create_task(follower(stream)) for stream in streams]
            while store.notifier.waiting < len(streams):
                await asyncio.sleep(0.01)
            sweepers = [t.get_name() for t in asyncio.all_tasks() if t.get_name().startswith("unoduo-sweep")]
            for stream in streams:
                await muted.append_async(stream, [Event("quiet", {})], expected_seq=0)
            seqs = [await asyncio.wait_for(got.get(), STALL_SECONDS) for _ in streams]
            await asyncio.gather(*tasks)
            return seqs, sweepers, max(counted.reads[s] for s in streams)
        finally:
            await muted.aclose()
            await store.aclose()

    seqs, sweepers, most_reads = asyncio.run(main())
    assert seqs == [1] * len(streams)
    assert len(sweepers) == 1
    assert most_reads == 2  # its (empty) backlog, then once when the sweep found the append


def test_heads_names_the_last_seq_of_each_stream(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(event_store, "HEADS_CHUNK", 2)  # several queries
    for i, count in enumerate([1, 3, 2]):
        store.append(f"match-h{i}", [Event("x", {})] * count, expected_seq=0)
    wanted = ["match-h0", "match-none", "match-h1", "match-h2", "other-stream"]
    assert store.heads(wanted) == {"match-h0": 1, "match-h1": 3, "match-h2": 2}
    assert store.heads([]) == {}
