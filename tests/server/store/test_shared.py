"""Whether other processes may append to the store (``EventStore.shared``): only PostgreSQL's is
shared, so only there does anything sweep for what a lost notification would have said."""

from __future__ import annotations

from server.db import make_engine
from server.settings import Settings
from server.store.event_store import EventStore


def test_only_a_postgresql_store_is_shared(url: str) -> None:
    store = EventStore(make_engine(url, Settings()))
    try:
        assert store.shared is url.startswith("postgresql")
    finally:
        store.close()
