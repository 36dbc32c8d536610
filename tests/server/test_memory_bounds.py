"""The server's bounded in-memory caches are bounded in bytes too, not only in entries.

The 30-minute soak (docs/RELIABILITY.md) grew RSS by 12.2% without a leak: memray showed the
malloc'd heap flat, and the growth was caches filling after the soak's baseline. Two of them
could hold as much as the soak's whole 10% bar: the finished matches kept for quick reads
(about 8 KB each, 1,000 by default: up to 8 MB) and ``format_deadline``'s cache (4,096 entries
of about 270 bytes: 1.1 MB). Each test measures what one entry costs and checks that the cache,
full at its default size, stays within a budget.
"""

from __future__ import annotations

import asyncio
import enum
import gc
import random
import sys
import tracemalloc
import types
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

from engine.game.rulesets import Ruleset
from server.app import make_app
from server.services.live_match import format_deadline
from server.services.matches import MatchService
from server.settings import Settings
from tests.server.helpers import ok, play_to_end, register

FINISHED_CACHE_BUDGET = 2 * 1024 * 1024  # bytes: the finished matches kept, when the cache is full
DEADLINE_CACHE_BUDGET = 256 * 1024  # bytes: format_deadline's cache, full
# Not the match's own: code, shared constants, and the event loop's machinery a live copy points at.
SHARED = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    enum.Enum,
    Ruleset,
    asyncio.AbstractEventLoop,
    asyncio.Future,
    asyncio.Handle,
    asyncio.Lock,
    asyncio.Event,
    asyncio.Queue,
)


def owned_bytes(root: Any) -> int:
    """The bytes of everything reachable from ``root`` but what it shares with every match (SHARED)."""
    seen: set[int] = set()
    stack = [root]
    total = 0
    while stack:
        found = stack.pop()
        if id(found) in seen or isinstance(found, SHARED):
            continue
        seen.add(id(found))
        total += sys.getsizeof(found)
        stack.extend(gc.get_referents(found))
    return total


def test_format_deadline_cache_full_holds_little_memory() -> None:
    maxsize = format_deadline.cache_info().maxsize
    assert maxsize is not None
    format_deadline.cache_clear()
    start = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(maxsize):
            format_deadline(start + timedelta(seconds=i, microseconds=i))
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
        format_deadline.cache_clear()
    assert format_deadline.cache_info().currsize == 0
    assert held <= DEADLINE_CACHE_BUDGET, f"{maxsize} deadlines held {held} bytes"


def test_finished_matches_kept_at_the_default_hold_little_memory(url: str) -> None:
    """One finished match held for quick reads (what it alone points at), times the default bound."""
    settings = Settings(database_url=url, sqlite_synchronous="NORMAL", bot_think_seconds=0)
    kept = settings.finished_matches_kept
    app = make_app(settings)
    with TestClient(app, raise_server_exceptions=False) as client:
        _, headers = register(client, "ada")
        match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
        ok(client.post(f"/api/matches/{match_id}/join", headers=headers))
        final, _ = play_to_end(client, match_id, headers, 0, random.Random(7))
        assert final["phase"] == "match_over"
        service: MatchService = app.state.matches
        held = service.registry.live[match_id]
        assert held.closed  # held, finished, for quick reads
        one = owned_bytes(held)
    assert one > 1000  # a whole match's final state at least
    assert kept * one <= FINISHED_CACHE_BUDGET, f"{kept} finished matches of {one} bytes each"


def test_players_kept_for_summaries_are_bounded(url: str, monkeypatch: Any) -> None:
    """The players a server keeps for match summaries: at most ``PLAYERS_KEPT``, the least recently
    used dropped (read from the store again when asked for), so a stream of new players does not grow it."""
    from server.services import match_registry

    monkeypatch.setattr(match_registry, "PLAYERS_KEPT", 3)
    app = make_app(Settings(database_url=url))
    with TestClient(app, raise_server_exceptions=False) as client:
        ids = [register(client, name)[0] for name in ("ada", "bea", "cy", "dot", "eve")]
        registry = app.state.matches.registry
        for player_id in ids:
            assert registry.player(player_id).id == player_id
        assert list(registry._players) == ids[-3:]
        assert registry.player(ids[0]).name == "ada"  # dropped, read again
        assert len(registry._players) == 3
