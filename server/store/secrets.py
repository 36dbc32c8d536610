"""Server secrets: each match's hidden server seed, and hashed server-wide secrets.

A match's ``server_seed`` (docs/FAIRNESS.md) is written in the same transaction as the match's
first event (``match_seed_row`` is an ``extra_rows`` for that append), and read back by the
server for every decision that shuffles. It is revealed by the match's last event.

Server-wide secrets (the director's token) are kept as SHA-256 only, like player tokens.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import sqlmodel
from sqlalchemy import Table, insert, select, update
from sqlalchemy.exc import IntegrityError

from server.store.event_store import EventStore, format_at
from server.store.models import MatchSecret, ServerSecret, match_secrets_table, server_secrets_table
from server.store.players import hash_token, new_token

DIRECTOR_TOKEN = "director_token"
SEED_BYTES = 32


def new_server_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def match_seed_rows(match_id: str, seed: bytes, at: str) -> Sequence[tuple[Table, Mapping[str, Any]]]:
    """The ``match_secrets`` row of a new match, for ``EventStore.append(extra_rows=...)``."""
    return [(match_secrets_table, {"match_id": match_id, "seed_hex": seed.hex(), "created_at": at})]


def match_seed(store: EventStore, match_id: str) -> bytes | None:
    with sqlmodel.Session(store.engine) as session:
        found = session.get(MatchSecret, match_id)
        return None if found is None else bytes.fromhex(found.seed_hex)


def _secret_hash(store: EventStore, name: str) -> str | None:
    with sqlmodel.Session(store.engine) as session:
        found = session.get(ServerSecret, name)
        return None if found is None else found.value_hash


def peer_key(store: EventStore) -> str | None:
    """The key servers sharing this database show each other (a match's handoff, issue 24), derived
    from the director token's stored hash: every server reads the same one, and no client can
    make it (None: no director token yet)."""
    stored = _secret_hash(store, DIRECTOR_TOKEN)
    if stored is None:
        return None
    return hmac.new(bytes.fromhex(stored), b"unoduo peers", "sha256").hexdigest()


def ensure_director_token(store: EventStore, configured: str | None) -> str | None:
    """Make the director's token known to the store; returns it only if it was generated now.

    A configured token (``UNODUO_DIRECTOR_TOKEN``) replaces any stored one. Without one, a
    token is generated on the first start only; later starts keep the stored hash.
    """
    wanted = hash_token(configured) if configured else None
    current = _secret_hash(store, DIRECTOR_TOKEN)
    if wanted is not None and current == wanted:
        return None
    if wanted is None and current is not None:
        return None
    generated = None if configured else new_token()
    value_hash = wanted or hash_token(generated or "")
    at = format_at(store.clock())
    try:
        with store.engine.connect().execution_options(sqlite_begin="IMMEDIATE") as conn, conn.begin():
            # Re-read inside the writing transaction: two servers starting together agree.
            is_director = server_secrets_table.c.name == DIRECTOR_TOKEN
            now = conn.execute(select(server_secrets_table.c.value_hash).where(is_director)).scalar()
            if now is None:
                row = {"name": DIRECTOR_TOKEN, "value_hash": value_hash, "created_at": at}
                conn.execute(insert(server_secrets_table), [row])
            elif configured:
                changed = {"value_hash": value_hash, "created_at": at}
                conn.execute(update(server_secrets_table).where(is_director).values(changed))
            else:
                return None  # another process generated one meanwhile
    except IntegrityError:  # PostgreSQL: another server inserted it first
        return None
    return generated


def is_director_token(store: EventStore, token: str) -> bool:
    stored = _secret_hash(store, DIRECTOR_TOKEN)
    return stored is not None and hmac.compare_digest(stored, hash_token(token))
