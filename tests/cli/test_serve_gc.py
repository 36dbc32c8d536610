"""``unoduo serve`` collects reference cycles on a timer, not only at the collector's thresholds.

``tune_garbage_collector`` raises the thresholds for latency, so that the collector itself ran
not once in the soak's first 5 minutes, and closed connections' cycles piled up meanwhile (the
soak's RSS growth, docs/RELIABILITY.md). The server's tick collects every ``COLLECT_SECONDS`` what
is new since the last pass, and every ``DEEP_COLLECT_SECONDS`` everything.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI

from cli.serve_runtime import COLLECT_SECONDS, DEEP_COLLECT_SECONDS, StopRequests, _server, collector_off
from server.settings import Settings

TICKS_A_MINUTE = 600  # uvicorn's main loop ticks every 0.1 s


class Node:
    """A reference cycle: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    """Nothing frozen when a test starts, as in a server's process: the session's freeze
    (tests/conftest.py) is undone for these tests and done again after them."""
    gc.unfreeze()
    yield
    gc.collect()
    gc.freeze()


def _ticks(server: Any, first: int, last: int) -> None:
    async def run() -> None:
        for counter in range(first, last + 1):
            await server.on_tick(counter)

    asyncio.run(run())


def test_a_minute_of_server_ticks_collects_cycles_but_not_on_every_tick() -> None:
    server = _server(FastAPI(), Settings(), StopRequests())
    passes: list[int] = []

    def counted(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            passes.append(info["generation"])

    was_enabled = gc.isenabled()
    gc.disable()  # only the server's own passes may free the cycle
    gc.callbacks.append(counted)
    try:
        cycle = Node()
        gone = weakref.ref(cycle)
        del cycle
        _ticks(server, 1, TICKS_A_MINUTE)
    finally:
        gc.callbacks.remove(counted)
        gc.unfreeze()
        if was_enabled:
            gc.enable()
    assert gone() is None, "a minute of the server's ticks left a reference cycle uncollected"
    assert 1 <= len(passes) <= 6, f"{len(passes)} collections in a minute (each one pauses the event loop)"


def test_a_pass_leaves_the_objects_it_kept_out_of_the_next_passes_until_the_deep_one() -> None:
    """A cycle still held at a timed pass is frozen with the other survivors: the next passes do
    not walk it again. Dropped later, it is freed by the deep pass, within DEEP_COLLECT_SECONDS."""
    server = _server(FastAPI(), Settings(), StopRequests())
    per_pass = COLLECT_SECONDS * TICKS_A_MINUTE // 60
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        held = Node()
        gone = weakref.ref(held)
        _ticks(server, 1, per_pass)  # one pass: ``held`` survives it and is frozen
        assert gc.get_freeze_count() > 0
        del held
        _ticks(server, per_pass + 1, 2 * per_pass)
        assert gone() is not None, "a frozen survivor was walked again by the next pass"
        _ticks(server, 2 * per_pass + 1, DEEP_COLLECT_SECONDS * TICKS_A_MINUTE // 60)
        assert gone() is None, "the deep pass left a dropped cycle uncollected"
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def test_collector_off_turns_it_off_for_the_block_then_back_as_it_was() -> None:
    """Start-up runs with the collector off (``collector_off``); after it, even one that failed,
    the collector is on again, and one that was off before stays off."""
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        with pytest.raises(RuntimeError), collector_off():
            assert not gc.isenabled()
            raise RuntimeError("a start that failed")
        assert gc.isenabled()
        gc.disable()
        with collector_off():
            pass
        assert not gc.isenabled()
    finally:
        if was_enabled:
            gc.enable()
