"""Players: a ``player_registered`` event in stream ``players`` plus a row in the players table.

The row holds the token's SHA-256 only (tokens are 256-bit random strings, so a plain hash is
enough: nothing to brute-force). Both are written in one transaction.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import sqlmodel
from sqlalchemy import Table

from server.store.errors import InvalidAppendError
from server.store.event_store import AppendResult, EventStore
from server.store.models import Player, PlayerPublic, players_table
from server.store.server_events import PlayerRegistered
from server.store.streams import PLAYERS_STREAM

PLAYER_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
KINDS = ("human", "bot")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_player_id() -> str:
    return "p_" + secrets.token_hex(8)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def register_player(
    store: EventStore, *, player_id: str, name: str, kind: str, token: str, command_id: str | None = None
) -> AppendResult:
    """Record a new player; the result (and a retry's) is ``{id, name, kind}``."""
    if not isinstance(player_id, str) or not PLAYER_ID_RE.fullmatch(player_id):
        raise InvalidAppendError(f"player id must be 1-64 letters, digits, _ or -, not {player_id!r}")
    clean = name.strip() if isinstance(name, str) else ""
    if not 0 < len(clean) <= 100:
        raise InvalidAppendError("a player's name must be 1-100 characters")
    if kind not in KINDS:
        raise InvalidAppendError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if not isinstance(token, str) or len(token) < 16:
        raise InvalidAppendError("a token must be a string of at least 16 characters")
    info = {"id": player_id, "name": clean, "kind": kind}

    def row(at: str) -> Sequence[tuple[Table, Mapping[str, Any]]]:
        return [(players_table, {**info, "token_hash": hash_token(token), "created_at": at})]

    return store.append(
        PLAYERS_STREAM,
        [PlayerRegistered(player_id, clean, kind).event()],
        expected_seq=None,
        command_id=command_id,
        result=info,
        extra_rows=row,
    )


def player_by_token(store: EventStore, token: str) -> PlayerPublic | None:
    query = sqlmodel.select(Player).where(sqlmodel.col(Player.token_hash) == hash_token(token))
    with sqlmodel.Session(store.engine) as session:
        found = session.exec(query).first()
        return None if found is None else PlayerPublic.model_validate(found)


def get_player(store: EventStore, player_id: str) -> PlayerPublic | None:
    with sqlmodel.Session(store.engine) as session:
        found = session.get(Player, player_id)
        return None if found is None else PlayerPublic.model_validate(found)
