"""``unoduo serve`` collects reference cycles on a timer, not only at the collector's thresholds.

``tune_garbage_collector`` raises the thresholds for latency, so that the collector itself ran
not once in the soak's first 5 minutes, and closed connections' cycles piled up meanwhile (the
soak's RSS growth, docs/RELIABILITY.md). The server's tick collects every ``COLLECT_SECONDS``.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

from fastapi import FastAPI

from cli.serve_cmd import StopRequests, _server
from server.settings import Settings

TICKS_A_MINUTE = 600  # uvicorn's main loop ticks every 0.1 s


class Node:
    """A reference cycle: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_a_minute_of_server_ticks_collects_cycles_but_not_on_every_tick() -> None:
    server = _server(FastAPI(), Settings(), StopRequests())
    passes: list[int] = []

    def counted(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            passes.append(info["generation"])

    async def a_minute() -> None:
        for counter in range(1, TICKS_A_MINUTE + 1):
            await server.on_tick(counter)

    was_enabled = gc.isenabled()
    gc.disable()  # only the server's own passes may free the cycle
    gc.callbacks.append(counted)
    try:
        cycle = Node()
        gone = weakref.ref(cycle)
        del cycle
        asyncio.run(a_minute())
    finally:
        gc.callbacks.remove(counted)
        if was_enabled:
            gc.enable()
    assert gone() is None, "a minute of the server's ticks left a reference cycle uncollected"
    assert 1 <= len(passes) <= 6, f"{len(passes)} collections in a minute (each one pauses the event loop)"
