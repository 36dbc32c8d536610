"""The match leases (server.store.leases) on PostgreSQL: one owner at a time, by the database's clock.

A lease is claimed only if nobody holds a running one (or it is the claimant's own); renewing
returns exactly the leases the server still holds; an expired lease is an orphan anyone may
take, and then the old owner's renewal no longer finds it; leaving gives everything up at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from sqlalchemy import insert

from server.store import leases
from server.store.event_store import EventStore
from server.store.models import match_summaries_table

pytestmark = pytest.mark.parametrize("db_kind", ["postgres"])

LONG = 60.0
SHORT = 0.05  # seconds: a lease that runs out while the test looks
STALL_SECONDS = 60.0


def until(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + STALL_SECONDS
    while not check():
        assert time.monotonic() < deadline, "the lease never ran out"
        time.sleep(0.01)


def live_match(store: EventStore, match_id: str) -> None:
    with store.engine.begin() as conn:
        conn.execute(insert(match_summaries_table).values(id=match_id, status="live", score0=0, score1=0))


def test_one_owner_at_a_time(store: EventStore) -> None:
    engine = store.engine
    leases.register_server(engine, "a", "http://a", LONG)
    leases.register_server(engine, "b", "http://b", LONG)
    assert leases.claim(engine, "m1", "a", LONG)
    assert not leases.claim(engine, "m1", "b", LONG)
    assert leases.claim(engine, "m1", "a", LONG)  # its own: renewed
    assert leases.owner_of(engine, "m1") == leases.Owner("a", "http://a")
    assert leases.owner_of(engine, "m2") is None
    assert leases.renew(engine, "a", LONG) == {"m1"} and leases.renew(engine, "b", LONG) == set()
    assert leases.owned_counts(engine) == {"a": 1, "b": 0}


def test_an_expired_lease_is_an_orphan_and_its_old_owner_loses_it(store: EventStore) -> None:
    engine = store.engine
    live_match(store, "m1")
    live_match(store, "m2")
    leases.register_server(engine, "a", "http://a", LONG)
    leases.register_server(engine, "b", "http://b", LONG)
    assert leases.orphans(engine) == ["m1", "m2"]  # never claimed
    assert leases.claim(engine, "m1", "a", SHORT) and leases.claim(engine, "m2", "a", LONG)
    until(lambda: leases.orphans(engine) == ["m1"])
    assert leases.owner_of(engine, "m1") is None
    assert leases.claim(engine, "m1", "b", LONG)
    assert leases.renew(engine, "a", LONG) == {"m2"}  # m1 is b's now
    assert leases.renew(engine, "b", LONG) == {"m1"}
    assert leases.orphans(engine) == []


def test_release_and_leave(store: EventStore) -> None:
    engine = store.engine
    live_match(store, "m1")
    live_match(store, "m2")
    leases.register_server(engine, "a", "http://a", LONG)
    assert leases.claim(engine, "m1", "a", LONG) and leases.claim(engine, "m2", "a", LONG)
    leases.release(engine, "m1", "b")  # not b's: nothing happens
    assert leases.owner_of(engine, "m1") is not None
    leases.release(engine, "m1", "a")
    assert leases.orphans(engine) == ["m1"]
    leases.leave(engine, "a")
    assert leases.orphans(engine) == ["m1", "m2"] and leases.owned_counts(engine) == {}
