"""House bots with no think delay, every seat a bot: their moves go in chains, many moves a commit,
and the match is exactly the one the engine alone plays (bench/tournament.py's reference)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest

from bench.tournament import PlayedMatch, play_alone
from engine.fairness.audit_report import audit
from engine.game.events import EventType
from engine.game.rulesets import get_ruleset
from engine.record.replay import parse_replay
from engine.record.sealing import join
from server.db import make_engine
from server.services.matches import MatchService
from server.services.players import ensure_house_bot
from server.settings import Settings
from server.store.event_store import EventStore
from server.store.streams import match_stream


def whole(line: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A replay line's type and whole data (its public data and its opened values)."""
    return line["type"], join(line["data"], line.get("open") or {})


def server_match(url: str, bots: tuple[str, ...], target: int, think: float) -> tuple[str, int]:
    """A bot-only match the server plays (``think``: the house bots' delay): its replay, and its commits."""
    store = EventStore(make_engine(url, Settings()))  # the real clock: the move clocks run on it
    ruleset = dataclasses.replace(get_ruleset("uno-duo"), target=target)
    seats = [ensure_house_bot(store, f"bot:{name}") for name in bots]

    async def play() -> tuple[str, int]:
        service = MatchService(store, bot_think_seconds=think)
        try:
            before = store.stats["batches"]
            await service.create_scheduled("chain-1", seats, ruleset, 60, "t-chain", 1)
            async for stored in store.follow(match_stream("chain-1")):  # until the match's last event
                if stored.type == EventType.SEED_REVEALED:
                    break
            return service.reads.replay("chain-1"), store.stats["batches"] - before
        finally:
            await service.stop()

    try:
        return asyncio.run(play())
    finally:
        store.close()


def same_as_the_engine_alone(replay: str, bots: tuple[str, ...], target: int) -> int:
    """Checks the server's match is the engine alone's, event for event, and passes ``audit --bots``;
    its number of moves."""
    ruleset = dataclasses.replace(get_ruleset("uno-duo"), target=target)
    _, lines = parse_replay(replay)
    seed = bytes.fromhex(lines[-1]["data"]["server_seed"])
    played = PlayedMatch(
        "chain-1", 1, seed, bots, ruleset, tuple(x["type"] for x in lines), tuple(lines[0]["data"]["names"])
    )
    alone = play_alone(played)
    # Event for event: the same types and the same whole data, in the same order.
    assert [whole(x) for x in lines] == [(str(e.type), json.loads(json.dumps(e.data))) for e in alone.events]
    report = audit(replay, bots=True)
    assert report.ok and report.bots is not None and report.bots.mismatch is None
    assert sorted(report.bots.seats.values()) == sorted(bots) and min(report.bots.checked.values()) > 5
    return sum(1 for x in lines if x["type"] == "command")


@pytest.mark.parametrize(
    ("bots", "target"), [(("random", "greedy"), 100), (("coach-1", "greedy"), 40)], ids=["random-greedy", "coach"]
)
def test_a_bot_only_match_is_the_engine_alones_event_for_event_in_fewer_commits_than_moves(
    url: str, bots: tuple[str, str], target: int
) -> None:
    """With a coach (issue 37): the server's runner gave it exactly its seat's events, as the engine
    alone and ``unoduo audit --bots`` fold them, or the matches would part."""
    replay, commits = server_match(url, bots, target, 0)
    moves = same_as_the_engine_alone(replay, bots, target)
    assert moves > 20
    assert commits < moves / 4, (commits, moves)


def test_a_coach_that_thinks_first_gets_its_seats_events_from_the_live_feed(url: str) -> None:
    """With a think delay each bot move is its own request (``HouseBots.step``): the coach's knowledge
    is the live copy's fold of what it published, and the match is still the engine alone's."""
    bots = ("greedy", "coach-1")
    replay, _ = server_match(url, bots, 30, 0.001)
    assert same_as_the_engine_alone(replay, bots, 30) > 10


def test_a_coach_picks_up_a_match_after_a_restart_from_the_stored_stream(url: str) -> None:
    """A server that stops mid-match and another that recovers it: the new live copy folds the
    coach's seat events from the store (``LiveMatch``'s history), and the match is still the engine
    alone's, every coach move re-derived by ``audit --bots``."""
    bots = ("coach-1", "greedy")
    ruleset = dataclasses.replace(get_ruleset("uno-duo"), target=30)
    store = EventStore(make_engine(url, Settings()))
    seats = [ensure_house_bot(store, f"bot:{name}") for name in bots]

    async def first_part() -> None:
        service = MatchService(store, bot_think_seconds=0.001)
        try:
            await service.create_scheduled("chain-1", seats, ruleset, 60, "t-chain", 1)
            async for stored in store.follow(match_stream("chain-1")):
                if stored.type == EventType.COMMAND and stored.seq > 60:  # well into the match
                    break
        finally:
            await service.stop()

    async def second_part(store: EventStore) -> str:
        service = MatchService(store, bot_think_seconds=0.001)
        try:
            await service.recover()
            async for stored in store.follow(match_stream("chain-1")):
                if stored.type == EventType.SEED_REVEALED:
                    break
            return service.reads.replay("chain-1")
        finally:
            await service.stop()

    try:
        asyncio.run(first_part())
        stopped_at = store.read(match_stream("chain-1"))[-1]
    finally:
        store.close()
    assert stopped_at.type != EventType.SEED_REVEALED, "the first server was to stop mid-match"
    restarted = EventStore(make_engine(url, Settings()))  # a new server process
    try:
        replay = asyncio.run(second_part(restarted))
    finally:
        restarted.close()
    assert same_as_the_engine_alone(replay, bots, 30) > 10
