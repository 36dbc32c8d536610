"""Is the database file whole? SQLite's ``PRAGMA quick_check``, run before serving and by ``unoduo db verify``.

A damaged page is otherwise found only when something reads it: a request (answered 503, see
:class:`~server.store.errors.DatabaseDamagedError`) or the start-up's recovery of the live
matches, whose failure uvicorn would print as a traceback. ``quick_check`` reads every page
once (about 0.8 s for a 173 MB file, docs/STORE.md) and checks the B-tree structure; it does
not compare indexes with their tables (``integrity_check`` does, far more slowly). PostgreSQL
checks its own pages as it reads them; nothing is done for it here.
"""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.pool import NullPool

from server.db import make_engine
from server.store.errors import DatabaseDamagedError

PROBLEMS_SHOWN = 1  # quick_check stops after this many problems; the first is enough to act on


def check_engine(engine: Engine) -> None:
    """Raise :class:`DatabaseDamagedError` if ``engine``'s SQLite file is damaged; nothing for PostgreSQL."""
    if engine.dialect.name != "sqlite":
        return
    with engine.connect() as connection:
        found = [str(row[0]) for row in connection.exec_driver_sql(f"PRAGMA quick_check({PROBLEMS_SHOWN})")]
    if found != ["ok"]:
        first = " ".join(found[0].replace("*** in database main ***", "").split())  # one line
        raise DatabaseDamagedError(f"SQLite quick_check: {first}", str(engine.url.database))


def check_file(url: str) -> None:
    """:func:`check_engine` on a connection of its own (closed after), for a command about to open ``url``."""
    engine = make_engine(url, poolclass=NullPool)
    try:
        check_engine(engine)
    finally:
        engine.dispose()
