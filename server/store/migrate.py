"""Alembic, driven from code: ``unoduo db upgrade`` and the server's start both call :func:`upgrade`.

Upgrades run in one transaction holding a lock (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: an
advisory lock per schema), so several server processes starting at once migrate only once.
Every upgrade ends by making sure the players' name keys were made with this server's Unicode and
ICU (``server.store.name_keys``), in the same transaction and lock.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, text
from sqlalchemy.pool import NullPool
from sqlmodel import SQLModel

import server.store.models  # noqa: F401  (registers the tables)
from server.db import make_engine
from server.settings import Settings
from server.store.name_keys import ensure_current_keys

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"
_LOCK_SQL = text("SELECT pg_advisory_xact_lock(hashtext('unoduo-migrate:' || current_schema()))")


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def _run(url: str, settings: Settings | None, action: str, revision: str) -> None:
    engine = make_engine(url, settings, poolclass=NullPool)
    try:
        with engine.connect().execution_options(sqlite_begin="IMMEDIATE") as conn, conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(_LOCK_SQL)
            cfg = alembic_config()
            cfg.attributes["connection"] = conn
            if action == "upgrade":
                command.upgrade(cfg, revision)
                ensure_current_keys(conn)  # keys made with another Unicode / ICU are made again
            else:
                command.downgrade(cfg, revision)
    finally:
        engine.dispose()


def upgrade(url: str, revision: str = "head", *, settings: Settings | None = None) -> None:
    """Bring the database at ``url`` up to ``revision`` (default: the latest)."""
    _run(url, settings, "upgrade", revision)


def downgrade(url: str, revision: str = "base", *, settings: Settings | None = None) -> None:
    _run(url, settings, "downgrade", revision)


def _with_connection(url: str, settings: Settings | None, fn: Any) -> Any:
    engine = make_engine(url, settings, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return fn(conn)
    finally:
        engine.dispose()


def current_revision(url: str, *, settings: Settings | None = None) -> str | None:
    def read(conn: Connection) -> str | None:
        return MigrationContext.configure(conn).get_current_revision()

    result: str | None = _with_connection(url, settings, read)
    return result


def drift(url: str, *, settings: Settings | None = None) -> list[Any]:
    """What autogenerate would change to make the database match the models ([] = no drift)."""

    def compare(conn: Connection) -> list[Any]:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(context, SQLModel.metadata))

    result: list[Any] = _with_connection(url, settings, compare)
    return result
