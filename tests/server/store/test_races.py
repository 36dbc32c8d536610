"""Two writers racing on one stream: exactly one wins, the other is told the stream moved on.

Writers are separate stores (their own engines, so the database settles the race), in threads
of this process and in two spawned processes; also two copies of one command racing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from engine.game.events import Event
from server.db import make_engine
from server.store.errors import ConcurrencyError
from server.store.event_store import EventStore
from server.store.records import AppendResult
from tests.server.store.workers import mp_context, race_worker

TRIALS = 50


def race(stores: list[EventStore], stream: str, expected: int, command_ids: list[str | None]) -> list[Any]:
    start = threading.Barrier(len(stores))
    outcomes: list[Any] = [None] * len(stores)

    def run(i: int) -> None:
        start.wait()
        try:
            outcomes[i] = stores[i].append(
                stream, [Event("raced", {"by": i})], expected_seq=expected, command_id=command_ids[i]
            )
        except ConcurrencyError as exc:
            outcomes[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


@pytest.fixture(params=["group", "direct"])
def two_stores(request: pytest.FixtureRequest, url: str) -> Iterator[list[EventStore]]:
    group = request.param == "group"
    stores = [EventStore(make_engine(url), group_commit=group) for _ in range(2)]
    yield stores
    for s in stores:
        s.close()


def test_two_threads_racing_exactly_one_wins(two_stores: list[EventStore]) -> None:
    for trial in range(TRIALS):
        stream = f"match-t{trial}"
        two_stores[0].append(stream, [Event("first", {})], expected_seq=0)
        outcomes = race(two_stores, stream, 1, [f"a{trial}", f"b{trial}"])
        wins = [o for o in outcomes if isinstance(o, AppendResult)]
        losses = [o for o in outcomes if isinstance(o, ConcurrencyError)]
        assert len(wins) == 1 and len(losses) == 1, outcomes
        assert (losses[0].expected, losses[0].actual) == (1, 2)
        assert two_stores[1].head(stream) == 2
        assert two_stores[1].verify_chain(stream) is None


def test_one_command_racing_itself_is_applied_once(two_stores: list[EventStore]) -> None:
    """A client retrying while its first try is still running: one append, both get its result."""
    for trial in range(TRIALS // 2):
        stream = f"match-d{trial}"
        outcomes = race(two_stores, stream, 0, ["same", "same"])
        assert all(isinstance(o, AppendResult) for o in outcomes), outcomes
        assert sorted(o.duplicate for o in outcomes) == [False, True]
        assert outcomes[0].events == outcomes[1].events
        assert two_stores[0].head(stream) == 1


def test_two_processes_racing_exactly_one_wins(url: str) -> None:
    ctx = mp_context()
    barrier = ctx.Barrier(2)
    pipes = [ctx.Pipe() for _ in range(2)]
    procs = [ctx.Process(target=race_worker, args=(url, f"w{i}", barrier, pipes[i][1]), daemon=True) for i in range(2)]
    for p in procs:
        p.start()
    ours = [parent for parent, _ in pipes]

    def ask(task: tuple[str, str, int, str]) -> list[Any]:
        for conn in ours:
            conn.send((*task[:3], f"{task[3]}-{id(conn)}" if task[3] != "same" else "same"))
        replies = []
        for conn in ours:
            assert conn.poll(60), "worker did not answer"
            replies.append(conn.recv())
        return replies

    setup = EventStore(make_engine(url), group_commit=False)
    try:
        for conn in ours:
            assert conn.poll(60), "worker did not start"
            assert conn.recv() == "ready"
        for mode in ("group", "direct"):
            for trial in range(TRIALS):
                stream = f"match-{mode}-{trial}"
                setup.append(stream, [Event("first", {})], expected_seq=0)
                replies = ask((mode, stream, 1, str(trial)))
                assert sorted(r[0] for r in replies) == ["ok", "stale"], replies
                stale = next(r for r in replies if r[0] == "stale")
                assert stale[1:] == (1, 2)
                assert setup.head(stream) == 2 and setup.verify_chain(stream) is None
            for trial in range(10):  # the same command from both processes: applied once
                stream = f"match-{mode}-same-{trial}"
                replies = ask((mode, stream, 0, "same"))
                assert sorted(r[:2] for r in replies) == [("ok", False), ("ok", True)], replies
                assert replies[0][2] == replies[1][2] and setup.head(stream) == 1
    finally:
        for conn in ours:
            conn.send(None)
        for p in procs:
            p.join(30)
        setup.close()
    assert all(p.exitcode == 0 for p in procs)
