"""Database engines: SQLite (default, one file) or PostgreSQL (psycopg 3).

SQLite connections get WAL, a busy timeout, foreign keys and the configured ``synchronous``
level on connect. Python's sqlite3 module is told to leave transactions alone, and every
transaction is opened here with an explicit ``BEGIN``: ``BEGIN IMMEDIATE`` for writers (ask for
``execution_options(sqlite_begin="IMMEDIATE")``), so two writers queue on the lock at the
start of their transactions instead of failing half-way with "database is locked".
"""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.engine import URL

from server.settings import Settings

SQLITE_BEGIN_MODES = frozenset({"DEFERRED", "IMMEDIATE", "EXCLUSIVE"})
URL_FORMS = "sqlite:///PATH/TO/FILE.sqlite3 or postgresql+psycopg://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")  # two letters or more: C:\… is a Windows path


class DatabaseURLError(ValueError):
    """A database URL this server cannot use."""


def url_or_path(text: str) -> str:
    """A database URL as given, or a plain file path (no ``scheme:``) as the SQLite URL of that file.

    ``./unoduo.sqlite3`` and ``/srv/unoduo.sqlite3`` become ``sqlite:////abs/path/unoduo.sqlite3``.
    """
    if "://" in text or _SCHEME.match(text):
        return text
    return f"sqlite:///{Path(text).expanduser().resolve()}"


def normalize_url(url: str | URL) -> URL:
    """Parse ``url`` and pick the psycopg 3 driver for PostgreSQL; refuse what cannot work."""
    try:
        parsed = make_url(url)
    except Exception as exc:  # noqa: BLE001 - SQLAlchemy raises several kinds; all mean "not a URL"
        raise DatabaseURLError(f"not a database URL: {url!r} ({exc}); use {URL_FORMS}") from None
    backend = parsed.get_backend_name()
    if backend in ("postgresql", "postgres"):
        if parsed.drivername in ("postgresql", "postgres", "postgresql+psycopg2"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        elif parsed.drivername != "postgresql+psycopg":
            raise DatabaseURLError(f"use the psycopg 3 driver (postgresql+psycopg://…), not {parsed.drivername}")
        return parsed
    if backend == "sqlite":
        if parsed.database in (None, "", ":memory:") or str(parsed.database).startswith("file::memory:"):
            raise DatabaseURLError(
                "an in-memory SQLite database cannot be shared between the store's connections; "
                "use a file, e.g. sqlite:///./unoduo.sqlite3"
            )
        return parsed
    raise DatabaseURLError(f"unsupported database {backend!r}: use sqlite:///FILE or postgresql+psycopg://…")


def is_postgres(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


def make_engine(url: str | URL, settings: Settings | None = None, **kwargs: Any) -> Engine:
    """An engine for ``url`` tuned as the module docstring says; ``kwargs`` go to create_engine."""
    # Imported here: server.store imports this module. A damaged file raises DatabaseDamagedError.
    from server.store.errors import report_damage

    settings = settings or Settings()
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = _sqlite_engine(parsed, settings, **kwargs)
    else:
        options: dict[str, Any] = {"pool_pre_ping": True, **_pool_options(settings, kwargs)}
        options.update(kwargs)
        engine = create_engine(parsed, **options)
    report_damage(engine)
    return engine


def _pool_options(settings: Settings, kwargs: dict[str, Any]) -> dict[str, Any]:
    if "poolclass" in kwargs:  # e.g. NullPool for one-off connections: no pool sizes apply
        return {}
    return {"pool_size": settings.db_pool_size, "max_overflow": 20}


def _use_wal(cursor: Any, busy_ms: int) -> None:
    """Switch the file to WAL (a lasting property of the file, so usually already done).

    SQLite answers a journal-mode change with "database is locked" at once, without waiting
    out the busy timeout, while another connection is opening the same new file; so wait here,
    up to the busy timeout.
    """
    deadline = time.monotonic() + busy_ms / 1000
    while True:
        try:
            if str(cursor.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _sqlite_engine(url: URL, settings: Settings, **kwargs: Any) -> Engine:
    options: dict[str, Any] = {
        "connect_args": {"check_same_thread": False, "timeout": settings.sqlite_busy_timeout_ms / 1000},
        **_pool_options(settings, kwargs),
    }
    options.update(kwargs)
    engine = create_engine(url, **options)
    busy_ms = int(settings.sqlite_busy_timeout_ms)
    synchronous = settings.sqlite_synchronous

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves (see _on_begin)
        cursor = dbapi_connection.cursor()
        try:
            _use_wal(cursor, busy_ms)
            cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA synchronous={synchronous}")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        mode = str(conn.get_execution_options().get("sqlite_begin", "DEFERRED")).upper()
        if mode not in SQLITE_BEGIN_MODES:
            raise ValueError(f"sqlite_begin must be one of {sorted(SQLITE_BEGIN_MODES)}, not {mode!r}")
        conn.exec_driver_sql(f"BEGIN {mode}")

    return engine
