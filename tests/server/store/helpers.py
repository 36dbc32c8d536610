"""Shared by the store tests (and importable by their spawned worker processes)."""

from __future__ import annotations

import os
import random
import secrets
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from sqlalchemy import make_url

from engine.game.rulesets import UNO_DUO, Ruleset
from engine.game.state import Phase
from engine.play.match import LocalMatch
from engine.protocol.views import legal_commands

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PG_URL = os.environ.get("UNODUO_TEST_POSTGRES_URL", DEFAULT_PG_URL)
COLORS = ("red", "yellow", "green", "blue")


class TickClock:
    """A clock for tests: starts at a fixed instant and moves 1 ms per call (thread-safe)."""

    def __init__(self, start: datetime = datetime(2026, 11, 29, 19, 55, 34, tzinfo=UTC)) -> None:
        self._now = start
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            self._now += timedelta(milliseconds=1)
            return self._now


def pg_conninfo(url: str = PG_URL) -> str:
    """The libpq form of a SQLAlchemy PostgreSQL URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def pg_schema_url(schema: str, url: str = PG_URL) -> str:
    """``url`` with the search_path set to ``schema`` (every connection then lives in it)."""
    with_path = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    return with_path.render_as_string(hide_password=False)


def create_pg_schema(ddl: str = "") -> str:
    """A new schema, with ``ddl`` (e.g. the migrations' SQL) run inside it."""
    schema = f"t_{os.getpid()}_{secrets.token_hex(4)}"
    with psycopg.connect(pg_conninfo(), autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        if ddl:
            with conn.transaction():
                conn.execute(f'SET LOCAL search_path TO "{schema}"')
                conn.execute(ddl.encode())
    return schema


def drop_pg_schemas(schemas: list[str]) -> None:
    with psycopg.connect(pg_conninfo(), autocommit=True, connect_timeout=5) as conn:
        for i in range(0, len(schemas), 10):
            names = ", ".join(f'"{s}"' for s in schemas[i : i + 10])
            conn.execute(f"DROP SCHEMA IF EXISTS {names} CASCADE".encode())


def random_command(match: LocalMatch, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """A random legal command of the seat whose decision it is (plays preferred, so matches end)."""
    seat = match.state.pending.seat
    assert seat is not None
    options = legal_commands(match.state, seat)
    plays = [c for c in options if c["type"] in ("play", "dump")]
    command = dict(rng.choice(plays) if plays and rng.random() < 0.9 else rng.choice(options))
    if command["type"] == "color" or (command["type"] == "play" and command["card"].upper().startswith("W")):
        command["color"] = rng.choice(COLORS)
    return seat, command


def play_random(
    seed: int, ruleset: Ruleset = UNO_DUO, max_commands: int | None = None
) -> Iterator[tuple[LocalMatch, list[Any]]]:
    """Start a match and yield (match, events of that step) for the start and each command."""
    rng = random.Random(seed)
    match = LocalMatch.start(seed.to_bytes(32, "big"), ruleset=ruleset, entropies=(f"e{seed}", "x"))
    yield match, list(match.events)
    steps = 0
    while match.state.phase is not Phase.MATCH_OVER and (max_commands is None or steps < max_commands):
        seat, command = random_command(match, rng)
        yield match, match.act(seat, command)
        steps += 1
