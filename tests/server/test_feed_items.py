"""Feed items fold their states when asked (``server.services.live_match.feed_items``).

A decision's items are built without folding; the state after the last one is handed over by the
command path. Whatever is asked for, each item's ``state`` must be the match right after its
event (the fold of every event up to it) and ``over`` whether that state's match is over.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from bench.commands import with_color
from engine.game.evolve import evolve
from engine.game.state import INITIAL_STATE, MatchState, Phase
from engine.protocol.views import legal_commands
from server.services.live_match import FeedItem, feed_items
from server.services.matches import MatchService
from server.services.players import Caller, ensure_house_bots, register_human
from server.settings import Settings
from server.store.event_store import EventStore
from server.store.records import StoredEvent
from server.store.streams import match_stream


async def _played(folder: Path) -> list[StoredEvent]:
    """A whole match of a person against bot:random, its stored events."""
    url = f"sqlite:///{folder / 'feed.sqlite3'}"
    store = EventStore.open(url, Settings(database_url=url))
    try:
        ensure_house_bots(store)
        service = MatchService(store, bot_think_seconds=0, move_seconds=3600)
        player = register_human(store, "ada")[0]
        caller = Caller(player=player)
        summary = await service.create(player, "bot:random", None)
        await service.join(summary.id, caller, "a")
        rng = random.Random(5)
        while (live := await service.registry.open(summary.id)).state.phase is not Phase.MATCH_OVER:
            legal = legal_commands(live.state, 0)
            command = with_color(rng.choice(legal))
            await service.command_version(summary.id, caller, f"c{live.state.version}", live.state.version, command)
        await service.stop()
        return store.read(match_stream(summary.id), 1)
    finally:
        await store.aclose()


def test_lazy_items_fold_to_the_state_after_each_event(tmp_path: Path) -> None:
    events = asyncio.run(_played(tmp_path))
    folded: list[MatchState] = []
    state = INITIAL_STATE
    for stored in events:
        state = evolve(state, stored.event())
        folded.append(state)
    rng = random.Random(1)
    before: FeedItem | MatchState = INITIAL_STATE
    items: list[FeedItem] = []
    start = 0
    while start < len(events):  # runs of 1 to 12 events, as appends come; some with the state after them
        end = min(len(events), start + rng.randint(1, 12))
        given = folded[end - 1] if rng.random() < 0.5 else None
        run, _ = feed_items(events[start:end], before, None, None, last_state=given)
        items += run
        before = run[-1] if rng.random() < 0.5 else folded[end - 1]
        start = end
    order = list(range(len(items)))
    rng.shuffle(order)  # asked for in any order
    for i in order:
        assert items[i].state == folded[i], f"item {i} (seq {events[i].seq}) folds to another state"
    assert [item.over for item in items] == [s.phase is Phase.MATCH_OVER for s in folded]
    assert items[-1].over
