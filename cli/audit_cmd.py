"""``unoduo audit FILE [--challenges] [--at SEQ] [--seat N] [--bots] [--json]``: settle a dispute
from a replay alone.

``--seat N`` takes seat N's perspective (any seat of a table of 2 to 10): the table at ``--at`` as
that seat saw it, and for each challenge whether it saw the challenged hand.

Exit 0: verified and audited; 1: the replay fails verification, or (``--bots``) a house-bot move
is not the one its bot makes with its chance (said in words); 2: unreadable input, or an
``--at`` or ``--seat`` outside the replay.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from cli.replay_input import read_replay
from engine.fairness.audit_report import audit, format_report
from engine.game.errors import ReplayUnreadable


def audit_command(
    file: Path = typer.Argument(..., help="a replay file (.jsonl) of a finished match"),
    challenges: bool = typer.Option(False, "--challenges", help="only the Wild Draw Four challenges"),
    at: int | None = typer.Option(None, "--at", help="also print the whole table just after this event (seq)"),
    seat: int | None = typer.Option(
        None, "--seat", help="seat N's perspective: the table at --at as it saw it, and which challenged hands it saw"
    ),
    bots: bool = typer.Option(
        False, "--bots", help="also re-derive every house-bot move from the revealed seed (docs/FAIRNESS.md)"
    ),
    as_json: bool = typer.Option(False, "--json", help="the report as JSON, for machines"),
) -> None:
    """Verify the replay, then report every Wild Draw Four challenge (the table at --at, the house bots with --bots)."""
    text = read_replay(file, "audit")
    try:
        report = audit(text, str(file), at, bots=bots, seat=seat)
    except ReplayUnreadable as exc:
        typer.echo(f"unoduo audit: {file}: {exc}", err=True)
        raise typer.Exit(2) from None
    except ValueError as exc:
        typer.echo(f"unoduo audit: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        typer.echo(format_report(report, only_challenges=challenges), nl=False)
    if not report.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("audit")(audit_command)
