"""``unoduo verify FILE [--receipt SEQ:HASH ...]``: audit a replay file. Exit 0 ok, 1 failed, 2 unreadable."""

from __future__ import annotations

from pathlib import Path

import typer

from engine.verify import Receipt, ReplayUnreadable, verify_replay


def verify(
    file: Path = typer.Argument(..., help="a replay file (.jsonl) of a finished match"),
    receipt: list[str] = typer.Option([], "--receipt", help="SEQ:HASH a client kept; repeat for several"),
) -> None:
    """Check the chain, the seed against its commitment, every shuffle and decision, and receipts."""
    try:
        receipts = [Receipt.parse(r) for r in receipt]
    except ValueError as exc:
        typer.echo(f"unoduo verify: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        text = file.read_text(encoding="utf-8")
        report = verify_replay(text, receipts)
    except OSError as exc:
        typer.echo(f"unoduo verify: cannot read {file}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    except UnicodeDecodeError:
        typer.echo(f"unoduo verify: {file} is not UTF-8 text", err=True)
        raise typer.Exit(2) from None
    except ReplayUnreadable as exc:
        typer.echo(f"unoduo verify: {file}: {exc}", err=True)
        raise typer.Exit(2) from None
    for line in report.checks:
        typer.echo(f"ok    {line}")
    if not report.ok:
        where = f"line {report.line}: " if report.line is not None else ""
        typer.echo(f"FAIL  {where}{report.failure}")
        raise typer.Exit(1)
    typer.echo(f"verified: {file}")


def register(app: typer.Typer) -> None:
    app.command("verify")(verify)
