"""Server settings, read from ``UNODUO_*`` environment variables (pydantic-settings).

Only what the server needs to find and tune its database lives here for now; other parts of
the server add their own fields.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite:///./unoduo.sqlite3"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="UNODUO_", extra="ignore")

    database_url: str = Field(
        default=DEFAULT_DATABASE_URL,
        description="SQLAlchemy URL: a SQLite file (default) or postgresql+psycopg://…",
    )
    # 500, not 100: matches are held live in memory, so a snapshot only speeds a first load, and
    # writing one every 100 events cost ~4% of a busy server (profiled).
    snapshot_every: int = Field(default=500, ge=1, le=1_000_000, description="save a match snapshot every N events")
    sqlite_busy_timeout_ms: int = Field(
        default=10_000, ge=0, le=600_000, description="how long a SQLite writer waits for the lock"
    )
    sqlite_synchronous: Literal["OFF", "NORMAL", "FULL", "EXTRA"] = Field(
        default="FULL", description="SQLite PRAGMA synchronous; FULL survives power loss, NORMAL only crashes"
    )
    group_commit: bool = Field(default=True, description="batch waiting appends into one transaction")
    group_commit_max: int = Field(
        default=256, ge=1, le=100_000, description="most commands in one group-commit transaction"
    )
    notify_channel: str = Field(default="unoduo_events", description="PostgreSQL LISTEN/NOTIFY channel")
    follow_poll_seconds: float = Field(
        default=2.0,
        gt=0,
        le=3600,
        description="PostgreSQL: how often each process sweeps the heads of the streams it follows, for notifications lost; also a follower's retry while the database is away",
    )
    db_pool_size: int = Field(default=10, ge=1, le=1000, description="connections kept open per process")
    max_body_bytes: int = Field(
        default=64 * 1024,
        ge=1,
        le=64 * 1024 * 1024,
        description="the largest request body accepted (413 too_large beyond it)",
    )
    move_seconds: int = Field(
        default=60, ge=1, le=86_400, description="a casual match's per-move limit unless its creator sets one"
    )
    bot_think_seconds: float = Field(
        default=0.5,
        ge=0,
        le=60,
        description="how long a house bot waits before it moves (0: at once, inside the request that gave it the move)",
    )
    finished_matches_kept: int = Field(
        default=100, ge=0, le=100_000, description="finished matches kept in memory for quick reads (oldest dropped)"
    )
    open_invitations_per_player: int = Field(
        default=10,
        ge=0,
        description="casual matches one player may have created that have not started yet (409 too_many_open beyond; "
        "0: no limit)",
    )
    invitation_expiry_seconds: int = Field(
        default=3600,
        ge=0,
        le=366 * 86_400,
        description="a casual match that has not started this long after it was created is annulled (0: never)",
    )
    me_matches_listed: int = Field(
        default=100,
        ge=1,
        le=10_000,
        description="the most matches GET /api/me lists (live, then waiting, then the rest)",
    )
    past_views_at_once: int = Field(
        default=1,
        ge=1,
        le=64,
        description="views at a past event (?at=) folded at the same time; others wait their turn",
    )
    open_disputes_per_player: int = Field(
        default=3, ge=1, description="disputes one player may have open (not yet ruled) in one tournament (409 beyond)"
    )
    register_per_minute: int = Field(
        default=60, ge=0, description="registrations one client address may make a minute (0: no limit)"
    )
    bad_tokens_per_minute: int = Field(
        default=30,
        ge=0,
        description="wrong tokens, passwords and sign-in codes one client address may send a minute before 429 "
        "(0: no limit)",
    )
    wrong_passwords_per_name_per_minute: int = Field(
        default=30,
        ge=0,
        description="wrong passwords and sign-in codes one name may be tried with a minute, from all addresses "
        "together, before 429 (0: no limit)",
    )
    trusted_proxies: str = Field(
        default="",
        description="comma-separated addresses of reverse proxies whose X-Forwarded-For / X-Forwarded-Proto are "
        "believed; empty (the default): none, every client is its TCP address",
    )
    request_timeout_seconds: float = Field(
        default=10.0, gt=0, le=3600, description="the time a client has to send a whole request, head and body"
    )
    keep_alive_seconds: int = Field(
        # Longer than the 5 s after which httpx's (the terminal client's) and requests' pools drop
        # an idle connection: at uvicorn's own 5 s both ends let go at once, and a request sent on
        # the connection as the server closed it failed "server disconnected" (a join, in CI).
        default=30,
        ge=1,
        le=3600,
        description="an idle keep-alive connection is closed after",
    )
    max_head_bytes: int = Field(
        default=32 * 1024,
        ge=1024,
        le=1024 * 1024,
        description="the largest request head (request line and headers) accepted (431)",
    )
    connections_per_address: int = Field(
        default=64,
        ge=0,
        description="open connections one client address may hold (503 beyond; 0: no cap; off behind a trusted proxy)",
    )
    max_connections: int = Field(
        default=4096,
        ge=1,
        description="open connections in all; new requests beyond get 503 (also capped by the "
        "process's descriptor limit)",
    )
    ws_send_timeout_seconds: float = Field(
        default=20.0, gt=0, le=3600, description="a socket whose client takes no message for this long is closed (1013)"
    )
    live_pages_max: int = Field(
        default=2000,
        ge=0,
        le=1_000_000,
        description="open live web pages (/live/… event streams) in all; a new one beyond gets 503 and the page "
        "stays as loaded (0: no cap; each also counts as a connection)",
    )
    live_pages_per_address: int = Field(
        default=32,
        ge=0,
        le=1_000_000,
        description="open live web pages one client address may hold (429 beyond; 0: no cap); a club's phones "
        "behind one NAT address share it",
    )
    live_heartbeat_seconds: float = Field(
        default=15.0,
        gt=0,
        le=3600,
        description="a live web page with no new version for this long is sent a comment line, so that proxies "
        "keep it open and a client that went is found",
    )
    rate_casual: bool = Field(
        default=False,
        description="rate casual matches too (docs/RATINGS.md); off: only tournament matches are rated, "
        "as lichess leaves casual games unrated",
    )
    peer_url: str = Field(
        default="",
        max_length=200,
        description="the base URL (http://HOST:PORT) at which the other server processes on the same PostgreSQL "
        "database reach this one, to forward a match's commands and sockets to its owner (docs/SERVER.md "
        '"Several servers"); unoduo serve fills it from --host/--port (or each worker\'s own port) when empty',
    )
    peer_host: str = Field(
        default="127.0.0.1",
        min_length=1,
        max_length=100,
        description="the address on which each worker of unoduo serve --workers N listens for the other servers "
        "(a private port of its own, any free one) and which its peer_url names; with servers on several hosts, an "
        "address of this host that the others reach (0.0.0.0 or ::: every address, named by the host's name)",
    )
    lease_seconds: float = Field(
        default=3.0,
        ge=0.5,
        le=60,
        description="how long a server's ownership of a live match lasts unless renewed (PostgreSQL only): "
        "the owner renews every third of it, and another server takes over a match whose lease ran out",
    )
    director_token: str | None = Field(
        default=None,
        min_length=16,
        description="the tournament director's Bearer token; if unset, one is generated at first start and printed once",
    )

    @field_validator("notify_channel")
    @classmethod
    def _channel_is_identifier(cls, value: str) -> str:
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", value):
            raise ValueError("notify_channel must be a lower-case SQL identifier (letters, digits, _)")
        return value
