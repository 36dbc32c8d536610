"""A process killed (SIGKILL) while appending leaves each command's events all there or not at all."""

from __future__ import annotations

import random
import time
from collections import defaultdict

import pytest
from sqlalchemy import select

from engine.game.events import Event
from server.db import make_engine
from server.store.event_store import EventStore
from server.store.models import processed_table
from tests.server.store.workers import crash_worker, mp_context

STREAMS = ["match-crash-0", "match-crash-1", "match-crash-2"]


def check_all_or_nothing(store: EventStore) -> int:
    """Every stored command is complete and recorded; returns how many commands there are."""
    total = 0
    with store.engine.connect() as conn:
        processed = {
            (r["stream"], r["command_id"]): (r["first_seq"], r["count"])
            for r in conn.execute(select(processed_table)).mappings()
        }
    for stream in STREAMS:
        events = store.read(stream)
        assert store.verify_chain(stream) is None
        by_command: dict[int, list[Event]] = defaultdict(list)
        for e in events:
            by_command[e.data["cmd"]].append(e.event())
        for cmd, parts in by_command.items():
            assert [p.data["part"] for p in parts] == list(range(parts[0].data["of"])), f"{stream} command {cmd}"
        first_seqs = {e.data["cmd"]: e.seq for e in events if e.data["part"] == 0}
        recorded = {int(cid[1:]): v for (s, cid), v in processed.items() if s == stream}
        assert recorded == {cmd: (first_seqs[cmd], len(parts)) for cmd, parts in by_command.items()}
        total += len(by_command)
    return total


def run_and_kill(url: str, kill_at_commit: int | None, delay: float, base: int = 0) -> None:
    ctx = mp_context()
    ready = ctx.Event()
    child = ctx.Process(target=crash_worker, args=(url, STREAMS, ready, kill_at_commit, base), daemon=True)
    child.start()
    try:
        if kill_at_commit is None:
            assert ready.wait(60), "the child never got going"
            time.sleep(delay)
            child.kill()  # SIGKILL
        child.join(60)
    finally:
        if child.is_alive():
            child.kill()
            child.join(10)
    assert child.exitcode == -9


@pytest.mark.slow
def test_sigkill_at_random_moments_never_leaves_half_a_command(url: str) -> None:
    rng = random.Random(20261129)
    before = 0
    for run in range(3):
        run_and_kill(url, None, rng.uniform(0.05, 0.6), base=run * 100_000)
        store = EventStore(make_engine(url), group_commit=False)
        try:
            after = check_all_or_nothing(store)
            assert after > before  # the child got commands in each time
            before = after
        finally:
            store.close()
    # the database is usable afterwards: no lock left behind
    store = EventStore(make_engine(url))
    try:
        store.append(
            STREAMS[0], [Event("part", {"cmd": 10**6, "part": 0, "of": 1})], expected_seq=None, command_id="c1000000"
        )
        assert check_all_or_nothing(store) == before + 1
    finally:
        store.close()


def test_sigkill_after_the_rows_are_written_but_before_commit(url: str) -> None:
    """Killed inside the transaction, its inserts done: none of that transaction's events remain."""
    run_and_kill(url, kill_at_commit=6, delay=0)
    store = EventStore(make_engine(url), group_commit=False)
    try:
        total = check_all_or_nothing(store)
        with store.engine.connect() as conn:
            commands = conn.execute(select(processed_table)).all()
        assert total == len(commands) and 0 < total  # the first five transactions' commands, complete
    finally:
        store.close()
