"""Running a command that needs the database: a bad URL exits 2, an unreachable or damaged database 1.

Each problem is one line on stderr, ``command: reason``, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import typer

T = TypeVar("T")


def guarded(command: str, action: Callable[[], T]) -> T:
    """Run ``action``; on a database problem print ``command: reason`` to stderr and exit."""
    # Imported here, not at the top: every ``unoduo`` command loads this module at start.
    from sqlalchemy.exc import DatabaseError, OperationalError

    from server.db import DatabaseURLError
    from server.store.errors import DatabaseDamagedError, damage_reason

    try:
        return action()
    except DatabaseURLError as exc:
        typer.echo(f"{command}: {exc}", err=True)
        raise typer.Exit(2) from None
    except DatabaseDamagedError as exc:
        typer.echo(f"{command}: {exc.for_operator()}", err=True)
        raise typer.Exit(1) from None
    except DatabaseError as exc:
        reason = damage_reason(exc)  # an engine not made by server.db.make_engine
        if reason is not None:
            typer.echo(f"{command}: {DatabaseDamagedError(reason).for_operator()}", err=True)
        elif isinstance(exc, OperationalError):
            typer.echo(f"{command}: cannot use the database: {exc.orig}", err=True)
        else:
            raise
        raise typer.Exit(1) from None
