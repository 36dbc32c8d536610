"""Players: a ``player_registered`` event in stream ``players`` plus a row in the players table,
their tokens, and their one-time sign-in codes.

The registration's rows (the player, its first token) are written in the append's transaction
(``extra_rows``), so the unique constraint on ``players.unique_key`` decides a race between two
registrations of one name: the loser's transaction, its event included, is rolled back.

Tokens are kept as SHA-256 only (they are 256-bit random strings, so a plain hash is enough:
nothing to brute-force), several per player, at most :data:`MAX_TOKENS`: making one more drops the
oldest. Passwords and sign-in codes are short secrets; their argon2id hashes are made by
``server.services.passwords``, this module only stores them.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlmodel
from sqlalchemy import Connection, Table, delete, func, insert, select

from server.names import name_key
from server.store.errors import InvalidAppendError
from server.store.event_store import AppendResult, EventStore, format_at
from server.store.models import (
    NAME_KEY_LEN,
    Player,
    PlayerPublic,
    player_tokens_table,
    players_table,
    sign_in_codes_table,
)
from server.store.server_events import PlayerRegistered
from server.store.streams import PLAYERS_STREAM

PLAYER_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
KINDS = ("human", "bot", "bot_account")
UNIQUE_KINDS = ("human", "bot_account")  # the kinds whose names are unique (people register them)
MAX_TOKENS = 20  # tokens a player may hold at once (devices signed in); a 21st drops the oldest


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_player_id() -> str:
    return "p_" + secrets.token_hex(8)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def register_player(
    store: EventStore,
    *,
    player_id: str,
    name: str,
    kind: str,
    token: str,
    password_hash: str | None = None,
    command_id: str | None = None,
) -> AppendResult:
    """Record a new player and its first token; the result (and a retry's) is ``{id, name, kind}``.

    A human or a bot account (someone's program, ``bot_account``) takes its name's key
    (``unique_key``): a name another player holds breaks the unique constraint, and nothing is
    written (the caller sees a store error and asks :func:`holder_of`). House bots share keys.
    """
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
    key = name_key(clean)[:NAME_KEY_LEN]

    def rows(at: str) -> Sequence[tuple[Table, Mapping[str, Any]]]:
        player = {
            **info,
            "name_key": key,
            "unique_key": key if kind in UNIQUE_KINDS else None,
            "password_hash": password_hash,
            "created_at": at,
        }
        token_row = {"token_hash": hash_token(token), "player_id": player_id, "created_at": at}
        return [(players_table, player), (player_tokens_table, token_row)]

    return store.append(
        PLAYERS_STREAM,
        [PlayerRegistered(player_id, clean, kind).event()],
        expected_seq=None,
        command_id=command_id,
        result=info,
        extra_rows=rows,
    )


def _public(row: Any) -> PlayerPublic:
    return PlayerPublic(id=row.id, name=row.name, kind=row.kind)


PUBLIC = (players_table.c.id, players_table.c.name, players_table.c.kind)


def player_by_token(store: EventStore, token: str) -> PlayerPublic | None:
    tokens = player_tokens_table.c
    query = (
        select(*PUBLIC)
        .join(player_tokens_table, tokens.player_id == players_table.c.id)
        .where(tokens.token_hash == hash_token(token))
    )
    with store.engine.connect() as conn:
        row = conn.execute(query).first()
    return None if row is None else _public(row)


def get_player(store: EventStore, player_id: str) -> PlayerPublic | None:
    with sqlmodel.Session(store.engine) as session:
        found = session.get(Player, player_id)
        return None if found is None else PlayerPublic.model_validate(found)


def holder_of(store: EventStore, key: str) -> PlayerPublic | None:
    """The human or bot account who holds the name whose key is ``key`` (``server.names.name_key``), if any."""
    with store.engine.connect() as conn:
        row = conn.execute(select(*PUBLIC).where(players_table.c.unique_key == key)).first()
    return None if row is None else _public(row)


def players_named(store: EventStore, key: str, limit: int = 10) -> list[PlayerPublic]:
    """Every player whose name has the key ``key``, oldest first (bots, and legacy duplicates, share keys)."""
    c = players_table.c
    query = select(*PUBLIC).where(c.name_key == key).order_by(c.created_at, c.id).limit(limit)
    with store.engine.connect() as conn:
        return [_public(r) for r in conn.execute(query)]


def players_starting(store: EventStore, prefix_key: str, limit: int) -> list[PlayerPublic]:
    """Players whose name key starts with ``prefix_key``, in key order, at most ``limit``."""
    c = players_table.c
    query = select(*PUBLIC).order_by(c.name_key, c.created_at, c.id).limit(limit)
    if prefix_key:
        query = query.where(c.name_key.startswith(prefix_key, autoescape=True))
    with store.engine.connect() as conn:
        return [_public(r) for r in conn.execute(query)]


@dataclass(frozen=True, slots=True)
class Account:
    """What signing in checks: the player, and the hashes of its password and live code (if any)."""

    player: PlayerPublic
    password_hash: str | None
    code_hash: str | None
    code_expires: str | None


def account_of(store: EventStore, player_id: str) -> Account | None:
    c, codes = players_table.c, sign_in_codes_table.c
    query = (
        select(*PUBLIC, c.password_hash, codes.code_hash, codes.expires_at)
        .outerjoin(sign_in_codes_table, codes.player_id == c.id)
        .where(c.id == player_id)
    )
    with store.engine.connect() as conn:
        row = conn.execute(query).first()
    if row is None:
        return None
    return Account(_public(row), row.password_hash, row.code_hash, row.expires_at)


def _writing(store: EventStore) -> Connection:
    return store.engine.connect().execution_options(sqlite_begin="IMMEDIATE")


def add_token(store: EventStore, player_id: str, token: str, limit: int = MAX_TOKENS) -> None:
    """Give ``player_id`` one more token; past ``limit`` tokens, the oldest are dropped."""
    t = player_tokens_table.c
    at = format_at(store.clock())
    with _writing(store) as conn, conn.begin():
        conn.execute(
            insert(player_tokens_table), [{"token_hash": hash_token(token), "player_id": player_id, "created_at": at}]
        )
        keep = (
            select(t.token_hash)
            .where(t.player_id == player_id)
            .order_by(t.created_at.desc(), t.token_hash.desc())
            .limit(limit)
            .scalar_subquery()
        )
        conn.execute(delete(player_tokens_table).where(t.player_id == player_id, t.token_hash.not_in(keep)))


def drop_token(store: EventStore, token: str) -> bool:
    """Sign one token out; False if nobody had it."""
    with _writing(store) as conn, conn.begin():
        gone = conn.execute(delete(player_tokens_table).where(player_tokens_table.c.token_hash == hash_token(token)))
    return bool(gone.rowcount)


def tokens_of(store: EventStore, player_id: str) -> int:
    t = player_tokens_table.c
    with store.engine.connect() as conn:
        count: int = conn.execute(select(func.count()).where(t.player_id == player_id)).scalar_one()
    return count


def set_code(store: EventStore, player_id: str, code_hash: str, expires_at: str) -> None:
    """Make ``code_hash`` the player's one live sign-in code (an earlier one is gone)."""
    at = format_at(store.clock())
    row = {"player_id": player_id, "code_hash": code_hash, "expires_at": expires_at, "created_at": at}
    with _writing(store) as conn, conn.begin():
        conn.execute(delete(sign_in_codes_table).where(sign_in_codes_table.c.player_id == player_id))
        conn.execute(insert(sign_in_codes_table), [row])


def use_code(store: EventStore, player_id: str, code_hash: str) -> bool:
    """Take the player's code ``code_hash`` away (it is used); False if it was already gone, used or replaced."""
    c = sign_in_codes_table.c
    with _writing(store) as conn, conn.begin():
        gone = conn.execute(delete(sign_in_codes_table).where(c.player_id == player_id, c.code_hash == code_hash))
    return bool(gone.rowcount)
