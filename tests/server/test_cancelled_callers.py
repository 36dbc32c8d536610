"""A caller cancelled while its command lands changes nothing about how it lands (SQLite and PostgreSQL).

A socket's command task ends when its client closes the socket, and a client closes it as soon as
it sees the match end: while the server is still landing that append. Before the fix the live
copy never took the events the store had, and nothing after them ran (the clock, the bots, the
tournament's result): a club evening stalled with a finished match its tournament never heard of.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.services.live_match import LiveMatch
from server.services.matches import MatchService
from server.services.players import authenticate
from server.services.to_the_end import to_the_end
from server.store.streams import match_stream
from tests.server.helpers import ok, register, with_color


def test_a_command_cancelled_after_its_append_still_reaches_the_live_copy(client: TestClient) -> None:
    _, headers = register(client, "ada")
    match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers))
    seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    command = with_color(seen["legal"][0], random.Random(1))
    app: Any = client.app
    matches: MatchService = app.state.matches
    store = app.state.store
    caller = authenticate(store, headers["Authorization"].removeprefix("Bearer "))
    assert caller is not None

    stored = asyncio.Event()  # the store has the append
    go_on = asyncio.Event()
    real_append = store.append_chain_async
    told: list[int] = []
    real_changed = matches.commands._changed

    async def append_then_wait(*args: Any, **kwargs: Any) -> Any:
        outcomes = await real_append(*args, **kwargs)
        stored.set()
        await go_on.wait()
        return outcomes

    def changed(live: LiveMatch) -> None:
        told.append(live.state.version)
        real_changed(live)

    async def cancelled_mid_landing() -> LiveMatch:
        store.append_chain_async = append_then_wait
        matches.commands._changed = changed
        try:
            asking = asyncio.ensure_future(matches.command(match_id, caller, "c1", seen["version"], command))
            await stored.wait()
            asking.cancel()
            await asyncio.sleep(0)  # the cancellation reaches the caller while the append waits
            go_on.set()
            with pytest.raises(asyncio.CancelledError):
                await asking
        finally:
            store.append_chain_async = real_append
            matches.commands._changed = real_changed
        return await matches.registry.open(match_id)

    live = client.portal.call(cancelled_mid_landing)  # type: ignore[union-attr]
    head = store.head(match_stream(match_id))
    assert head > seen["version"]
    assert live.state.version == head, "the live copy took the events the store has"
    assert told and told[-1] == head, "what follows a move (clock, bots, tournament) was told"
    # and the match plays on: the next command lands as usual
    view = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    assert view["version"] == head
    if view["legal"]:
        body = {"command_id": "c2", "expected_version": head, "command": with_color(view["legal"][0], random.Random(2))}
        ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body))


def test_to_the_end_finishes_the_work_then_raises_the_callers_cancellation() -> None:
    async def scenario() -> list[str]:
        steps: list[str] = []
        release = asyncio.Event()

        async def work() -> str:
            steps.append("begun")
            await release.wait()
            steps.append("ended")
            return "done"

        asking = asyncio.ensure_future(to_the_end(work()))
        await asyncio.sleep(0)
        for _ in range(3):  # cancelled again and again while it waits: still to the end
            asking.cancel()
            await asyncio.sleep(0)
        assert not asking.done()
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await asking
        steps.append("raised")
        assert await to_the_end(work_done()) == "quick"
        return steps

    async def work_done() -> str:
        return "quick"

    assert asyncio.run(scenario()) == ["begun", "ended", "raised"]


def test_to_the_end_passes_on_the_works_own_error_and_its_own_cancellation() -> None:
    async def failing() -> None:
        raise ValueError("the work's own")

    async def scenario() -> None:
        with pytest.raises(ValueError, match="the work's own"):
            await to_the_end(failing())
        inner: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def waits() -> None:
            await inner

        asking = asyncio.ensure_future(to_the_end(waits()))
        await asyncio.sleep(0)
        inner.cancel()  # the work itself is cancelled: that ends it
        with pytest.raises(asyncio.CancelledError):
            await asking

    asyncio.run(scenario())
