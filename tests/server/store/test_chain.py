"""Chained appends (``EventStore.append_chain_async``): each step only if the one before it was appended."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.game.events import Event
from server.settings import Settings
from server.store.errors import ConcurrencyError
from server.store.event_store import EventStore
from server.store.records import AppendResult, ChainedAppend


def ev(**data: Any) -> Event:
    return Event("thing", data)


def chain(store: EventStore, stream: str, steps: list[ChainedAppend]) -> list[Any]:
    return asyncio.run(store.append_chain_async(stream, steps))


def test_every_step_of_a_chain_is_appended_in_order(store: EventStore) -> None:
    outcomes = chain(
        store,
        "match-c",
        [
            ChainedAppend([ev(n=1), ev(n=2)], 0, "first"),
            ChainedAppend([ev(n=3)], 2, "second"),
            ChainedAppend([ev(n=4)], 3, "third"),
        ],
    )
    assert all(isinstance(o, AppendResult) and not o.duplicate for o in outcomes)
    assert [e.data["n"] for e in (s.event() for s in store.read("match-c", 1))] == [1, 2, 3, 4]
    assert store.verify_chain("match-c") is None


def test_a_step_after_a_refused_one_is_not_appended_even_if_its_own_seq_would_fit(store: EventStore) -> None:
    store.append("match-c", [ev(n=0)], expected_seq=0)  # another writer moved the stream to 1
    outcomes = chain(
        store,
        "match-c",
        [
            ChainedAppend([ev(n=1)], 0, "mine"),  # decided on seq 0: refused
            ChainedAppend([ev(n=2)], 1, "bot-1"),  # would fit the head, but was decided on "mine"
        ],
    )
    assert [type(o) for o in outcomes] == [ConcurrencyError, ConcurrencyError]
    assert store.head("match-c") == 1 and store.processed("match-c", "bot-1") is None


def test_a_step_after_a_retried_command_is_not_appended(store: EventStore) -> None:
    store.append("match-c", [ev(n=1)], expected_seq=0, command_id="once")
    outcomes = chain(store, "match-c", [ChainedAppend([ev(n=1)], 0, "once"), ChainedAppend([ev(n=2)], 1, "bot-1")])
    first, second = outcomes
    assert isinstance(first, AppendResult) and first.duplicate
    assert isinstance(second, ConcurrencyError)
    assert store.head("match-c") == 1


@pytest.mark.parametrize("group_commit", [True, False])
def test_a_chain_holds_with_and_without_the_group_commit_thread(url: str, group_commit: bool) -> None:
    store = EventStore.open(url, Settings(database_url=url), migrate=False, group_commit=group_commit)
    try:
        outcomes = chain(store, "match-d", [ChainedAppend([ev(n=1)], 0, "a"), ChainedAppend([ev(n=2)], 1, "b")])
        assert all(isinstance(o, AppendResult) for o in outcomes)
        assert store.head("match-d") == 2
    finally:
        store.close()
