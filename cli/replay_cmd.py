"""``unoduo replay FILE`` or ``unoduo replay --server URL --match ID``: the replay scrubber of the
terminal client (docs/TUI.md). ``--seat N`` opens it from seat N's perspective (any seat of a table
of 2 to 10) instead of the auditor's.

Exit 0 after a verified replay; 1 after a replay that fails verification (the app says what
failed and does not scrub it); 2 for an unreadable file or arguments (one line on stderr), or
a replay the server would not give.
"""

from __future__ import annotations

from pathlib import Path

import typer

from cli.replay_input import read_replay
from engine.game.errors import ReplayUnreadable


def replay_command(
    file: Path | None = typer.Argument(None, help="a replay file (.jsonl) of a finished match"),
    server: str | None = typer.Option(None, "--server", help="fetch the replay from this server (http://host:port)"),
    match: str | None = typer.Option(None, "--match", help="with --server: the match whose replay to fetch"),
    seat: int | None = typer.Option(None, "--seat", help="open as seat N saw the table (v still cycles the views)"),
) -> None:
    """Scrub through a replay, event by event: the table as each seat or the auditor saw it,
    every Wild Draw Four challenge audited, the scores by round."""
    if (file is None) == (server is None) or (server is None) != (match is None):
        typer.echo("unoduo replay: give a FILE, or --server URL with --match ID", err=True)
        raise typer.Exit(2)
    # Textual is imported only here: the other commands start without it.
    from tui_client.apps.replay_app import make_app

    if file is not None:
        text = read_replay(file, "replay")
        try:
            app = make_app(text, source=str(file), freeze_gc=True, seat=seat)
        except ReplayUnreadable as exc:
            typer.echo(f"unoduo replay: {file}: {exc}", err=True)
            raise typer.Exit(2) from None
        model = app.model
        if seat is not None and model is not None and seat not in model.perspectives:
            typer.echo(f"unoduo replay: --seat {seat}: this match has seats 0 to {model.seats - 1}", err=True)
            raise typer.Exit(2)
    else:
        app = make_app(server=server, match=match, freeze_gc=True, seat=seat)
    app.run()
    if app.verified is None:
        raise typer.Exit(2)
    if not app.verified:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("replay")(replay_command)
