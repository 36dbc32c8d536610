"""The director's token: generated once and printed once, or configured; kept hashed only."""

from __future__ import annotations

from sqlalchemy import select

from server.db import make_engine
from server.settings import Settings
from server.store.event_store import EventStore
from server.store.models import server_secrets_table
from server.store.players import hash_token
from server.store.secrets import ensure_director_token, is_director_token


def test_a_generated_director_token_is_shown_once_and_stored_hashed(url: str) -> None:
    store = EventStore(make_engine(url, Settings()))
    try:
        token = ensure_director_token(store, None)
        assert token is not None and len(token) >= 32
        assert ensure_director_token(store, None) is None  # a restart keeps it and prints nothing
        assert is_director_token(store, token) and not is_director_token(store, token + "x")
        with store.engine.connect() as conn:
            stored = conn.execute(select(server_secrets_table.c.value_hash)).scalars().all()
        assert stored == [hash_token(token)]

        configured = "a-configured-director-token"
        assert ensure_director_token(store, configured) is None
        assert is_director_token(store, configured) and not is_director_token(store, token)
        assert ensure_director_token(store, None) is None and is_director_token(store, configured)
    finally:
        store.close()
