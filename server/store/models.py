"""The tables (SQLModel). ``migrations/versions`` creates exactly these; a test checks for drift.

- ``events``: the docs/FAIRNESS.md envelope of every event of every stream (``sealed`` holds
  the commitments of its hidden fields), the ``openings`` of those commitments beside it (never
  hashed, never sent whole), and a global ``position``; unique on (stream, seq). Append-only.
- ``processed_commands``: one row per (stream, command_id) ever applied, with the result the
  first run returned, so a retry returns it and appends nothing.
- ``snapshots``: cached match states (a cache: deleting them changes no result).
- ``players``: registered players; the token only as its SHA-256 hash.
- ``match_summaries`` and ``standings``: read models, projected from the events and
  rebuildable at any time (``unoduo db rebuild``).
- ``match_secrets``: each match's secret ``server_seed`` (hex) until the match reveals it;
  never in an event before ``seed_revealed``.
- ``server_secrets``: server-wide secrets kept hashed (the director token's SHA-256).

Times are stored as the exact ISO 8601 UTC strings that were hashed (``2026-11-29T19:55:34.123456Z``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Integer, String, UniqueConstraint
from sqlmodel import Field, SQLModel

STREAM_LEN = 200
COMMAND_ID_LEN = 200
TYPE_LEN = 64
HASH_LEN = 64
AT_LEN = 32
ID_LEN = 64

# An INTEGER PRIMARY KEY is SQLite's auto-incrementing rowid; elsewhere a 64-bit identity.
PositionType = BigInteger().with_variant(Integer(), "sqlite")


class EventRow(SQLModel, table=True):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("stream", "seq", name="uq_events_stream_seq"),)

    position: int | None = Field(
        default=None, sa_column=Column(PositionType, primary_key=True, autoincrement=True)
    )
    stream: str = Field(sa_column=Column(String(STREAM_LEN), nullable=False))
    seq: int = Field(sa_column=Column(Integer, nullable=False))
    type: str = Field(sa_column=Column(String(TYPE_LEN), nullable=False))
    data: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    at: str = Field(sa_column=Column(String(AT_LEN), nullable=False))
    prev: str = Field(sa_column=Column(String(HASH_LEN), nullable=False))
    hash: str = Field(sa_column=Column(String(HASH_LEN), nullable=False))
    sealed: dict[str, str] = Field(sa_column=Column(JSON, nullable=False, server_default="{}"))
    openings: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False, server_default="{}"))


class ProcessedCommand(SQLModel, table=True):
    __tablename__ = "processed_commands"

    stream: str = Field(sa_column=Column(String(STREAM_LEN), primary_key=True))
    command_id: str = Field(sa_column=Column(String(COMMAND_ID_LEN), primary_key=True))
    first_seq: int = Field(sa_column=Column(Integer, nullable=False))
    count: int = Field(sa_column=Column(Integer, nullable=False))
    result: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    at: str = Field(sa_column=Column(String(AT_LEN), nullable=False))


class Snapshot(SQLModel, table=True):
    __tablename__ = "snapshots"

    stream: str = Field(sa_column=Column(String(STREAM_LEN), primary_key=True))
    seq: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    hash: str = Field(sa_column=Column(String(HASH_LEN), nullable=False))
    format: int = Field(sa_column=Column(Integer, nullable=False))
    state: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    at: str = Field(sa_column=Column(String(AT_LEN), nullable=False))


class Player(SQLModel, table=True):
    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("token_hash", name="uq_players_token_hash"),)

    id: str = Field(sa_column=Column(String(ID_LEN), primary_key=True))
    name: str = Field(sa_column=Column(String(100), nullable=False))
    kind: str = Field(sa_column=Column(String(16), nullable=False))
    token_hash: str = Field(sa_column=Column(String(HASH_LEN), nullable=False))
    created_at: str = Field(sa_column=Column(String(AT_LEN), nullable=False))


class MatchSummaryRow(SQLModel, table=True):
    """API.md's match summary; ``seat0``/``seat1``/``winner`` are player ids."""

    __tablename__ = "match_summaries"

    id: str = Field(sa_column=Column(String(ID_LEN), primary_key=True))
    status: str = Field(sa_column=Column(String(16), nullable=False))
    seat0: str | None = Field(default=None, sa_column=Column(String(ID_LEN), nullable=True, index=True))
    seat1: str | None = Field(default=None, sa_column=Column(String(ID_LEN), nullable=True, index=True))
    player1: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    score0: int = Field(sa_column=Column(Integer, nullable=False))
    score1: int = Field(sa_column=Column(Integer, nullable=False))
    winner: str | None = Field(default=None, sa_column=Column(String(ID_LEN), nullable=True))
    winner_seat: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    tournament: str | None = Field(default=None, sa_column=Column(String(ID_LEN), nullable=True, index=True))
    round: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    ruleset: str | None = Field(default=None, sa_column=Column(String(64), nullable=True))


class StandingRow(SQLModel, table=True):
    """A per-player tally over finished matches; ``scope`` is a tournament id, '' for casual matches."""

    __tablename__ = "standings"

    scope: str = Field(sa_column=Column(String(ID_LEN), primary_key=True))
    player: str = Field(sa_column=Column(String(ID_LEN), primary_key=True))
    played: int = Field(sa_column=Column(Integer, nullable=False))
    won: int = Field(sa_column=Column(Integer, nullable=False))
    lost: int = Field(sa_column=Column(Integer, nullable=False))
    points_for: int = Field(sa_column=Column(Integer, nullable=False))
    points_against: int = Field(sa_column=Column(Integer, nullable=False))


class MatchSecret(SQLModel, table=True):
    """The secret server seed of a match (FAIRNESS.md), hex; only the server reads it."""

    __tablename__ = "match_secrets"

    match_id: str = Field(sa_column=Column(String(ID_LEN), primary_key=True))
    seed_hex: str = Field(sa_column=Column(String(HASH_LEN), nullable=False))
    created_at: str = Field(sa_column=Column(String(AT_LEN), nullable=False))


class ServerSecret(SQLModel, table=True):
    """A named server-wide secret, stored only as its SHA-256 (e.g. ``director_token``)."""

    __tablename__ = "server_secrets"

    name: str = Field(sa_column=Column(String(ID_LEN), primary_key=True))
    value_hash: str = Field(sa_column=Column(String(HASH_LEN), nullable=False))
    created_at: str = Field(sa_column=Column(String(AT_LEN), nullable=False))


events_table = EventRow.__table__  # type: ignore[attr-defined]
processed_table = ProcessedCommand.__table__  # type: ignore[attr-defined]
snapshots_table = Snapshot.__table__  # type: ignore[attr-defined]
players_table = Player.__table__  # type: ignore[attr-defined]
match_summaries_table = MatchSummaryRow.__table__  # type: ignore[attr-defined]
standings_table = StandingRow.__table__  # type: ignore[attr-defined]
match_secrets_table = MatchSecret.__table__  # type: ignore[attr-defined]
server_secrets_table = ServerSecret.__table__  # type: ignore[attr-defined]

READ_MODEL_TABLES = (match_summaries_table, standings_table)
