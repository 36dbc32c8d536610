"""Code run in spawned child processes by the race and crash tests (module level, so spawn can import it)."""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import os
import random
import signal
import threading
import time
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Barrier
from typing import Any

from sqlalchemy import event

from engine.game.events import Event
from server.db import make_engine
from server.store.errors import ConcurrencyError
from server.store.event_store import EventStore


def mp_context() -> multiprocessing.context.ForkServerContext:
    """Child processes fork from a server that has imported the store once (spawn-safe, and fast)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["tests.server.store.workers"])
    return ctx


def race_worker(url: str, name: str, barrier: Barrier, conn: Connection) -> None:
    """For each (mode, stream, expected, command_id) received: wait at the barrier, append, report."""
    stores = {"group": EventStore(make_engine(url)), "direct": EventStore(make_engine(url), group_commit=False)}
    conn.send("ready")
    try:
        while (task := conn.recv()) is not None:
            mode, stream, expected, command_id = task
            barrier.wait(timeout=30)
            try:
                result = stores[mode].append(
                    stream, [Event("raced", {"by": name})], expected_seq=expected, command_id=command_id
                )
                conn.send(("ok", result.duplicate, [e["hash"] for e in result.events]))
            except ConcurrencyError as exc:
                conn.send(("stale", exc.expected, exc.actual))
            except Exception as exc:  # noqa: BLE001 - anything else is a failure the test reports
                conn.send(("error", repr(exc), None))
    finally:
        for store in stores.values():
            store.close()


def command_events(k: int, parts: int) -> list[Event]:
    """Command k's events: each says which command it belongs to and how many it has."""
    return [Event("part", {"cmd": k, "part": j, "of": parts, "pad": "x" * 300}) for j in range(parts)]


def crash_worker(url: str, streams: list[str], ready: Any, kill_at_commit: int | None, base: int = 0) -> None:
    """Append multi-event commands (numbered from ``base``) to ``streams``, one thread each, until killed.

    With ``kill_at_commit``, the process SIGKILLs itself at the moment that transaction
    number is about to commit: its rows are written, the COMMIT never happens.
    """
    engine = make_engine(url)
    if kill_at_commit is not None:
        commits = [0]

        @event.listens_for(engine, "commit")
        def _die(_conn: Any) -> None:
            commits[0] += 1
            if commits[0] >= kill_at_commit:
                os.kill(os.getpid(), signal.SIGKILL)

    store = EventStore(engine)

    def writer(stream: str, seed: int) -> None:
        rng = random.Random(seed)
        k = base
        while True:
            store.append(stream, command_events(k, rng.randint(2, 40)), expected_seq=None, command_id=f"c{k}")
            k += 1
            if k == base + 3:
                ready.set()

    threads = [threading.Thread(target=writer, args=(s, base + i), daemon=True) for i, s in enumerate(streams)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def append_later(url: str, stream: str, expected: int, delay: float) -> None:
    """Another process's append (for the follow test); its data says when it was sent."""
    time.sleep(delay)
    store = EventStore(make_engine(url))
    try:
        store.append(stream, [Event("from_afar", {"pid": os.getpid(), "sent": time.time()})], expected_seq=expected)
    finally:
        store.close()
