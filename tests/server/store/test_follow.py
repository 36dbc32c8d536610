"""follow(): the backlog, then every new event as it is appended, woken by a notification.

The follow poll is set to a minute, so a follower that sees an event within seconds was woken,
not polling. On PostgreSQL the append comes from another process (LISTEN/NOTIFY).
"""

from __future__ import annotations

import asyncio
import time

import pytest

from engine.events import Event
from server.db import make_engine
from server.store.event_store import EventStore
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


def test_another_process_append_wakes_the_follower(url: str, db_kind: str) -> None:
    """PostgreSQL: NOTIFY reaches another process at once. SQLite: no cross-process signal, so
    the follower finds it at its next poll (the documented limit; SQLite serves one process)."""
    poll = 60.0 if db_kind == "postgres" else 0.5

    async def main() -> float:
        store = EventStore(make_engine(url), follow_poll_seconds=poll)
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
    assert latency < (1.0 if db_kind == "postgres" else poll + 1.0)
