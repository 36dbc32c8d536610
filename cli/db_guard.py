"""Running a command that needs the database: a bad URL exits 2, an unreachable database 1."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import typer

T = TypeVar("T")


def guarded(command: str, action: Callable[[], T]) -> T:
    """Run ``action``; on a database problem print ``command: reason`` to stderr and exit."""
    # Imported here, not at the top: every ``unoduo`` command loads this module at start.
    from sqlalchemy.exc import OperationalError

    from server.db import DatabaseURLError

    try:
        return action()
    except DatabaseURLError as exc:
        typer.echo(f"{command}: {exc}", err=True)
        raise typer.Exit(2) from None
    except OperationalError as exc:
        typer.echo(f"{command}: cannot use the database: {exc.orig}", err=True)
        raise typer.Exit(1) from None
