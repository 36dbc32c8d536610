"""What the event store raises. Everything derives from :class:`StoreError`."""

from __future__ import annotations

import shlex
import sqlite3

from sqlalchemy import Engine, event
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import InterfaceError, OperationalError


class StoreError(Exception):
    """Base class of every event-store error."""


class ConcurrencyError(StoreError):
    """The stream moved on: the caller expected its head at ``expected``, it is at ``actual``.

    Nothing was appended. ``server/errors.py`` answers ``stale_version``; the client re-reads and decides again.
    """

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(f"stream {stream!r} is at seq {actual}, not at the expected {expected}")
        self.stream = stream
        self.expected = expected
        self.actual = actual

    def __reduce__(self) -> tuple[type[ConcurrencyError], tuple[str, int, int]]:
        return (ConcurrencyError, (self.stream, self.expected, self.actual))


class InvalidAppendError(StoreError, ValueError):
    """An append that is malformed (bad stream name, event type, data or command id). Nothing written."""


class StoreUnavailableError(StoreError):
    """The database could not complete the append (locked too long, connection lost, ...).

    Nothing was appended, unless the failure hid a commit; a retry with the same command id
    is always safe.
    """


class StoreClosedError(StoreError):
    """The store was closed."""


class DatabaseDamagedError(StoreUnavailableError):
    """The database file is damaged: a page the driver read is not one it wrote (SQLite's
    "database disk image is malformed"), or PostgreSQL found a corrupt row or index.

    It is one of :data:`UNAVAILABLE`, so a request answers 503 ``unavailable`` and background
    work tries again later; only a restore from a backup repairs it (docs/STORE.md, "A damaged
    database"). Its message names no file: it may reach a client. :meth:`for_operator` does.
    """

    def __init__(self, reason: str, where: str = "") -> None:
        super().__init__(f"it is damaged ({reason}); the server's operator has to restore it from a backup")
        self.reason = reason
        self.where = where

    def __reduce__(self) -> tuple[type[DatabaseDamagedError], tuple[str, str]]:
        return (DatabaseDamagedError, (self.reason, self.where))

    def for_operator(self) -> str:
        """One line for whoever runs the server: which database, what the driver said, what to do."""
        if not self.reason.startswith("SQLite"):
            database = f"the database {self.where}" if self.where else "the database"
            return f"{database} is damaged ({self.reason}); restore it from a backup"
        file = self.where or "FILE"
        return (
            f"the database file {file} is damaged ({self.reason}); restore it from a backup "
            f"(what is still readable can be copied out with `sqlite3 {shlex.quote(file)} .recover`)"
        )


SQLITE_DAMAGE_CODES = frozenset({11, 26})  # SQLITE_CORRUPT (and its extended codes), SQLITE_NOTADB
POSTGRES_DAMAGE_STATES = frozenset({"XX001", "XX002"})  # data_corrupted, index_corrupted


def damage_reason(error: BaseException) -> str | None:
    """What the driver said, as ``"SQLite: database disk image is malformed"``, if ``error`` (or the
    driver's error it wraps) says that the database is damaged; None for any other error."""
    driver = getattr(error, "orig", None) or error
    if isinstance(driver, sqlite3.DatabaseError):
        code = getattr(driver, "sqlite_errorcode", None)
        if code is not None and code & 0xFF in SQLITE_DAMAGE_CODES:
            return f"SQLite: {driver}"
        return None
    if getattr(driver, "sqlstate", None) in POSTGRES_DAMAGE_STATES:
        return f"PostgreSQL: {str(driver).strip()}"
    return None


def report_damage(engine: Engine) -> None:
    """Make every damaged-database error of ``engine`` a :class:`DatabaseDamagedError` (SQLAlchemy's
    ``handle_error`` hook: statements, fetches, transactions and connects alike)."""
    url = engine.url
    where = str(url.database) if url.get_backend_name() == "sqlite" else f"{url.database} on {url.host}"

    @event.listens_for(engine, "handle_error")
    def _damaged(context: ExceptionContext) -> None:
        reason = damage_reason(context.original_exception)
        if reason is not None:
            raise DatabaseDamagedError(reason, where) from context.sqlalchemy_exception


UNAVAILABLE: tuple[type[Exception], ...] = (StoreUnavailableError, OperationalError, InterfaceError)
"""What a database that has gone away raises: an append (StoreUnavailableError) or a read (the driver's
connection errors). Work that nobody waits for (clocks, bot moves, a tournament's next step) tries
again after such an error instead of ending; a request answers 503 ``unavailable``."""
