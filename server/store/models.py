"""The tables, and the public shapes derived from them (SQLModel). ``migrations/versions``
creates exactly these tables; a test checks for drift.

Each concept the API hands out is one ladder, as in the FastAPI/SQLModel template: a ``…Base``
with the fields it shares, the ``table=True`` class that adds what only the database keeps,
and a ``…Public`` response model that adds what only clients see:

- events: ``EventBase`` (the docs/FAIRNESS.md envelope) → ``EventRow`` (+ ``position``,
  ``openings``) → ``EventPublic`` (+ ``open``: the openings one viewer may see);
- players: ``PlayerBase`` ``{id, name, kind}`` → ``Player`` (+ name keys, password hash, time) → ``PlayerPublic``;
- match summaries: ``MatchSummaryBase`` → ``MatchSummaryRow`` (the first two seats and scores,
  the winner's seat and the creator as columns) with one ``MatchSeatRow`` per seat (player,
  score, place) → ``MatchSummaryPublic`` (docs/API.md's summary: ``seats`` as players, ``scores``, ``places``);
- standings: ``StandingBase`` → ``StandingRow`` → ``StandingPublic``.

Tables the API never shows (``processed_commands``, ``snapshots``, ``match_secrets``,
``server_secrets``, ``player_tokens``, ``sign_in_codes``) are plain table classes. Core code reaches every table through the
``*_table`` names at the end (``table_of``), never through ``Model.__table__``.

- ``events``: the envelope of every event of every stream (``sealed`` holds the commitments
  of its hidden fields), the ``openings`` of those commitments beside it (never hashed, never
  sent whole), and a global ``position``; unique on (stream, seq). Append-only.
- ``processed_commands``: one row per (stream, command_id) ever applied, with the result the
  first run returned, so a retry returns it and appends nothing.
- ``snapshots``: cached match states (a cache: deleting them changes no result).
- ``players``: registered players, each name's compared form, the password's argon2id hash if any.
- ``player_tokens``: each player's tokens (several: one per device), as SHA-256 hashes.
- ``sign_in_codes``: at most one live one-time sign-in code per player, as an argon2id hash.
- ``match_summaries``, ``match_seats`` and ``standings``: read models, projected from the events
  and rebuildable at any time (``unoduo db rebuild``). ``match_seats`` holds every seat of a
  match (a table has 2 to 10), indexed by player, so a player's matches are found whatever
  their seat; ``match_summaries`` keeps seats 0 and 1 in its own columns as before.
- ``ratings``, ``rating_changes``, ``rated_matches``, ``ratings_state``: the ratings read model
  (``server.services.ratings``), folded from the finished matches and rebuildable at any time
  (``unoduo ratings rebuild``).
- ``match_secrets``: each match's secret ``server_seed`` (hex) until the match reveals it;
  never in an event before ``seed_revealed``.
- ``server_secrets``: server-wide secrets kept hashed (the director token's SHA-256).
- ``servers`` and ``match_leases``: the server processes sharing a PostgreSQL database and which
  of them owns each live match (``server.store.leases``); nothing else reads them.

Times are stored as the exact ISO 8601 UTC strings that were hashed (``2026-11-29T19:55:34.123456Z``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

STREAM_LEN = 200
COMMAND_ID_LEN = 200
TYPE_LEN = 64
HASH_LEN = 64
AT_LEN = 32
ID_LEN = 64
NAME_KEY_LEN = 300  # server.names.MAX_KEY_LENGTH
NAME_KEY_VERSION_LEN = 100  # server.names.KEY_VERSION
SERVER_ID_LEN = 32
URL_LEN = 200
SECRET_HASH_LEN = 255  # an argon2id hash string is about 100 characters
MAX_SEQ = 2**31 - 1  # ``seq`` is a 32-bit INTEGER column: no stream goes further

# An INTEGER PRIMARY KEY is SQLite's auto-incrementing rowid; elsewhere a 64-bit identity.
PositionType = BigInteger().with_variant(Integer(), "sqlite")

PlayerKind = Literal["human", "bot", "bot_account"]  # bot_account: a program someone registered (issue 23)
MatchStatus = Literal["waiting", "live", "finished", "annulled"]


# ---------------------------------------------------------------- events


class EventBase(SQLModel):
    """An event's envelope (docs/FAIRNESS.md): the same for every viewer; ``hash`` chains it to ``prev``."""

    stream: str = Field(sa_type=String(STREAM_LEN))
    seq: int = Field(sa_type=Integer, description="1, 2, … within the stream")
    type: str = Field(sa_type=String(TYPE_LEN))
    data: dict[str, Any] = Field(sa_type=JSON, description="the public fields")
    sealed: dict[str, str] = Field(
        sa_type=JSON,
        sa_column_kwargs={"server_default": "{}"},
        description="each hidden field's salted commitment (hex), by field name",
    )
    at: str = Field(sa_type=String(AT_LEN), description="ISO 8601 UTC, microseconds, Z")
    prev: str = Field(sa_type=String(HASH_LEN), description="the previous event's hash (64 zeros for seq 1)")
    hash: str = Field(sa_type=String(HASH_LEN))


class EventRow(EventBase, table=True):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("stream", "seq", name="uq_events_stream_seq"),)

    position: int | None = Field(
        default=None, primary_key=True, sa_type=PositionType, sa_column_kwargs={"autoincrement": True}
    )
    openings: dict[str, Any] = Field(sa_type=JSON, sa_column_kwargs={"server_default": "{}"})


class OpeningPublic(BaseModel):
    """What opens one commitment: the hidden value and its salt (hex)."""

    value: Any
    salt: str


class EventPublic(EventBase):
    """An envelope as one viewer receives it: ``open`` holds the openings that viewer may see."""

    open: dict[str, OpeningPublic] = Field(description="sealed field name → {value, salt}")


# ---------------------------------------------------------------- players


class PlayerBase(SQLModel):
    id: str = Field(primary_key=True, sa_type=String(ID_LEN))
    name: str = Field(sa_type=String(100))
    kind: PlayerKind = Field(sa_type=String(16))


class Player(PlayerBase, table=True):
    """A player's row. ``name_key`` is the name as names are compared (``server.names.name_key``),
    for every player; ``unique_key`` is the same key for the one human who holds that name (its
    unique constraint is what makes a name unique), null for house bots (``greedy-1`` in every
    tournament) and for a player registered, before names were unique, under a name an older
    player already had (migration 0006)."""

    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("unique_key", name="uq_players_unique_key"),)

    name_key: str = Field(sa_type=String(NAME_KEY_LEN), index=True)
    unique_key: str | None = Field(default=None, sa_type=String(NAME_KEY_LEN))
    password_hash: str | None = Field(default=None, sa_type=String(SECRET_HASH_LEN), description="argon2id, or null")
    created_at: str = Field(sa_type=String(AT_LEN))


class NameKeyVersion(SQLModel, table=True):
    """The one row saying what the players' ``name_key`` and ``unique_key`` were computed with
    (``server.names.KEY_VERSION``: Unicode's and ICU's versions): a server that finds another
    recomputes them at start (``server.store.name_keys``)."""

    __tablename__ = "name_key_version"

    version: str = Field(sa_column=Column(String(NAME_KEY_VERSION_LEN), primary_key=True))


class PlayerPublic(PlayerBase):
    """docs/API.md's player: ``{id, name, kind}``."""


class PlayerToken(SQLModel, table=True):
    """One of a player's tokens, as its SHA-256 (a player has several: one per device signed in)."""

    __tablename__ = "player_tokens"

    token_hash: str = Field(sa_column=Column(String(HASH_LEN), primary_key=True))
    player_id: str = Field(
        sa_column=Column(
            String(ID_LEN), ForeignKey("players.id", name="fk_player_tokens_player_id"), nullable=False, index=True
        )
    )
    created_at: str = Field(sa_column=Column(String(AT_LEN), nullable=False))


class SignInCode(SQLModel, table=True):
    """The one live sign-in code of a player (a director gave it), as an argon2id hash, until it expires."""

    __tablename__ = "sign_in_codes"

    player_id: str = Field(
        sa_column=Column(String(ID_LEN), ForeignKey("players.id", name="fk_sign_in_codes_player_id"), primary_key=True)
    )
    code_hash: str = Field(sa_column=Column(String(SECRET_HASH_LEN), nullable=False))
    expires_at: str = Field(sa_column=Column(String(AT_LEN), nullable=False))
    created_at: str = Field(sa_column=Column(String(AT_LEN), nullable=False))


# ---------------------------------------------------------------- match summaries


class MatchSummaryBase(SQLModel):
    # No defaults: every key is in every summary (and required in /openapi.json).
    id: str = Field(primary_key=True, sa_type=String(ID_LEN))
    status: MatchStatus = Field(sa_type=String(16))
    player1: int | None = Field(
        sa_type=Integer, description="the seat of the current (or last) round's Player 1, its first drafter"
    )
    winner: str | None = Field(sa_type=String(ID_LEN), description="a player id")
    tournament: str | None = Field(sa_type=String(ID_LEN), index=True)
    round: int | None = Field(sa_type=Integer)
    ruleset: str | None = Field(sa_type=String(64))
    move_seconds: int | None = Field(
        sa_type=Integer, description="the per-move limit in seconds (docs/SERVER.md 'Move clocks'); null: no clock"
    )


class MatchSummaryRow(MatchSummaryBase, table=True):
    """The read model's row: the first two seats and the winner as player ids; every seat (a table
    of 2 to 10) is a :class:`MatchSeatRow`. ``creator``: who made a casual match (its invitation
    counts against them), null for a tournament's."""

    __tablename__ = "match_summaries"
    __table_args__ = (Index("ix_match_summaries_status", "status"),)  # live matches, open invitations

    seat0: str | None = Field(default=None, sa_type=String(ID_LEN), index=True)
    seat1: str | None = Field(default=None, sa_type=String(ID_LEN), index=True)
    score0: int = Field(sa_type=Integer)
    score1: int = Field(sa_type=Integer)
    winner_seat: int | None = Field(default=None, sa_type=Integer)
    creator: str | None = Field(default=None, sa_type=String(ID_LEN), index=True)


class MatchSeatRow(SQLModel, table=True):
    """One seat of a match: its player, its score, its final place (null until the match ends
    with places: a ``classic`` match)."""

    __tablename__ = "match_seats"

    match_id: str = Field(primary_key=True, sa_type=String(ID_LEN))
    seat: int = Field(primary_key=True, sa_type=Integer, sa_column_kwargs={"autoincrement": False})
    player_id: str | None = Field(default=None, sa_type=String(ID_LEN), index=True)
    score: int = Field(sa_type=Integer)
    place: int | None = Field(default=None, sa_type=Integer)


class MatchSummaryPublic(MatchSummaryBase):
    """docs/API.md's match summary; a seat nobody holds is null. ``places``: each seat's final
    place (1 = first) once a ``classic`` match has finished, else null."""

    seats: list[PlayerPublic | None]
    scores: list[int]
    places: list[int] | None
    # a knockout's match (docs/TOURNAMENTS.md "Knockouts"): its bracket and the plan's node; else null
    bracket: str | None = None
    node: str | None = None
    # Timed rounds (RULES.md D26): read from the tournament's fold, not stored with the summary.
    round_deadline: str | None = Field(
        default=None, description="a timed tournament round's match: when its round runs out of time; else null"
    )
    time_called: str | None = Field(
        default=None, description="a timed round's match: when time was called in it (RULES.md D26); else null"
    )


# ---------------------------------------------------------------- standings


class StandingBase(SQLModel):
    """A per-player tally over finished matches; ``scope`` is a tournament id, '' for casual matches."""

    scope: str = Field(primary_key=True, sa_type=String(ID_LEN))
    player: str = Field(primary_key=True, sa_type=String(ID_LEN))
    played: int = Field(sa_type=Integer)
    won: int = Field(sa_type=Integer)
    lost: int = Field(sa_type=Integer)
    points_for: int = Field(sa_type=Integer)
    points_against: int = Field(sa_type=Integer)


class StandingRow(StandingBase, table=True):
    __tablename__ = "standings"


class StandingPublic(StandingBase):
    pass


# ---------------------------------------------------------------- ratings


class RatingRow(SQLModel, table=True):
    """One identity's rating in one family (``server.ratings.book.PlayerRating``), a read model
    folded from the finished matches (``unoduo ratings rebuild``)."""

    __tablename__ = "ratings"

    identity: str = Field(sa_column=Column(String(ID_LEN), primary_key=True))
    family: str = Field(sa_column=Column(String(16), primary_key=True))
    rating: float = Field(sa_column=Column(Float, nullable=False))
    deviation: float = Field(sa_column=Column(Float, nullable=False))
    volatility: float = Field(sa_column=Column(Float, nullable=False))
    mu: float | None = Field(default=None, sa_column=Column(Float, nullable=True))
    sigma: float | None = Field(default=None, sa_column=Column(Float, nullable=True))
    games: int = Field(sa_column=Column(Integer, nullable=False))
    last_at: str | None = Field(default=None, sa_column=Column(String(AT_LEN), nullable=True))


class RatingChangeRow(SQLModel, table=True):
    """What one rated match did to one identity's rating; ``position`` orders the fold (the
    global position of the match's ``match_ended``)."""

    __tablename__ = "rating_changes"
    __table_args__ = (Index("ix_rating_changes_identity", "identity", "family", "position"),)

    match_id: str = Field(sa_column=Column(String(ID_LEN), primary_key=True))
    identity: str = Field(sa_column=Column(String(ID_LEN), primary_key=True))
    family: str = Field(sa_column=Column(String(16), nullable=False))
    position: int = Field(sa_column=Column(BigInteger, nullable=False))
    at: str = Field(sa_column=Column(String(AT_LEN), nullable=False))
    before: float = Field(sa_column=Column(Float, nullable=False))
    after: float = Field(sa_column=Column(Float, nullable=False))
    deviation: float = Field(sa_column=Column(Float, nullable=False))


class RatedMatchRow(SQLModel, table=True):
    """Every finished match the ratings have read, rated or not (``unrated``: why not)."""

    __tablename__ = "rated_matches"

    match_id: str = Field(sa_column=Column(String(ID_LEN), primary_key=True))
    position: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))
    unrated: str | None = Field(default=None, sa_column=Column(String(32), nullable=True))


class RatingsStateRow(SQLModel, table=True):
    """The one row (``id`` 1) saying how the ratings were folded: ``settings`` (what a rebuild
    depends on besides the events) and ``stale`` (a ruling changed a result: fold again)."""

    __tablename__ = "ratings_state"

    id: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    settings: str = Field(sa_column=Column(String(64), nullable=False))
    stale: bool = Field(sa_column=Column(Boolean, nullable=False))


# ---------------------------------------------------------------- server-only tables


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


class MatchSecret(SQLModel, table=True):
    """The secret server seed of a match (docs/FAIRNESS.md), hex; only the server reads it."""

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


class ServerRow(SQLModel, table=True):
    """A server process sharing the PostgreSQL database (issue 24), alive until ``expires_at``
    (database time), renewed with its leases; ``peer_url``: where the others forward to it."""

    __tablename__ = "servers"

    id: str = Field(sa_column=Column(String(SERVER_ID_LEN), primary_key=True))
    peer_url: str = Field(sa_column=Column(String(URL_LEN), nullable=False))
    expires_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class MatchLease(SQLModel, table=True):
    """Which server owns a live match (runs its clocks and bots, holds it) until ``expires_at``."""

    __tablename__ = "match_leases"

    match_id: str = Field(sa_column=Column(String(ID_LEN), primary_key=True))
    owner: str = Field(sa_column=Column(String(SERVER_ID_LEN), nullable=False, index=True))
    expires_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


# ---------------------------------------------------------------- Core access


def table_of(model: type[SQLModel]) -> Table:
    """The Core table of a ``table=True`` model, for SQLAlchemy Core statements."""
    name = model.__tablename__
    assert isinstance(name, str), f"{model.__name__} names its table"
    return SQLModel.metadata.tables[name]


events_table = table_of(EventRow)
processed_table = table_of(ProcessedCommand)
snapshots_table = table_of(Snapshot)
players_table = table_of(Player)
name_key_version_table = table_of(NameKeyVersion)
player_tokens_table = table_of(PlayerToken)
sign_in_codes_table = table_of(SignInCode)
match_summaries_table = table_of(MatchSummaryRow)
match_seats_table = table_of(MatchSeatRow)
standings_table = table_of(StandingRow)
match_secrets_table = table_of(MatchSecret)
server_secrets_table = table_of(ServerSecret)
ratings_table = table_of(RatingRow)
rating_changes_table = table_of(RatingChangeRow)
rated_matches_table = table_of(RatedMatchRow)
ratings_state_table = table_of(RatingsStateRow)
servers_table = table_of(ServerRow)
match_leases_table = table_of(MatchLease)

READ_MODEL_TABLES = (match_summaries_table, match_seats_table, standings_table)
