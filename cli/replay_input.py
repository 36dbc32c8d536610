"""Reading a replay file for a command: one place for the errors a person can make."""

from __future__ import annotations

from pathlib import Path

import typer


def read_replay(file: Path, command: str) -> str:
    """The file's text; a missing, unreadable or non-UTF-8 file exits 2 with one line saying so."""
    try:
        return file.read_text(encoding="utf-8")
    except OSError as exc:
        typer.echo(f"unoduo {command}: cannot read {file}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    except UnicodeDecodeError:
        typer.echo(f"unoduo {command}: {file} is not UTF-8 text", err=True)
        raise typer.Exit(2) from None
