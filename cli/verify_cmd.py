"""``unoduo verify FILE [--receipt SEQ:HASH ...] [--json]``: audit a replay file.

Exit 0 ok, 1 a check failed (said in words: what was expected, what was found), 2 unreadable.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from cli.replay_input import read_replay
from engine.fairness.verify import Receipt, ReplayUnreadable, verify_replay

STAGES = ("read", "chain", "seed", "seals", "re-run", "receipts")
PROGRESS_FROM_LINES = 5_000  # below this a file verifies in well under a second: no bar


@contextmanager
def _progress(show: bool) -> Iterator[Callable[[str], None] | None]:
    """A rich progress bar over the checks' stages, on standard error, while they run."""
    if not show:
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("verifying", total=len(STAGES))

        def on_stage(name: str) -> None:
            bar.update(task, completed=STAGES.index(name), description=f"verifying: {name}")

        yield on_stage


def verify(
    file: Path = typer.Argument(..., help="a replay file (.jsonl) of a finished match"),
    receipt: list[str] = typer.Option([], "--receipt", help="SEQ:HASH a client kept; repeat for several"),
    as_json: bool = typer.Option(
        False, "--json", help="the result as JSON: {file, ok, checks, failure: {line, message}}"
    ),
    deal_key: str | None = typer.Option(
        None,
        "--deal-key",
        help="a duplicate round's deal key (64 hex, the tournament's duplicate_revealed); "
        "default: the replay header's deal_key",
    ),
) -> None:
    """Check the chain, the seed against its commitment, every shuffle and decision, and receipts."""
    try:
        receipts = [Receipt.parse(r) for r in receipt]
        key = None if deal_key is None else _deal_key(deal_key)
    except ValueError as exc:
        typer.echo(f"unoduo verify: {exc}", err=True)
        raise typer.Exit(2) from None
    text = read_replay(file, "verify")
    long_file = text.count("\n") >= PROGRESS_FROM_LINES and sys.stderr.isatty() and not as_json
    try:
        with _progress(long_file) as on_stage:
            report = verify_replay(text, receipts, on_stage, key)
    except ReplayUnreadable as exc:
        typer.echo(f"unoduo verify: {file}: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        failure = None if report.ok else {"line": report.line, "message": report.failure}
        typer.echo(json.dumps({"file": str(file), "ok": report.ok, "checks": report.checks, "failure": failure}))
    else:
        for line in report.checks:
            typer.echo(f"ok    {line}")
        if not report.ok:
            where = f"line {report.line}: " if report.line is not None else ""
            typer.echo(f"FAIL  {where}{report.failure}")
        else:
            typer.echo(f"verified: {file}")
    if not report.ok:
        raise typer.Exit(1)


def _deal_key(text: str) -> bytes:
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != 32:
        raise ValueError(f"--deal-key is 64 hex digits (32 bytes), not {text!r}")
    return key


def register(app: typer.Typer) -> None:
    app.command("verify")(verify)
