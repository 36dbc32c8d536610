"""``unoduo play [--server URL] [--name NAME] [--tournament ID [--director-token T]]``: play on a
server from the terminal (docs/TUI.md).

The first run on a server registers ``NAME`` there and keeps the token in the user's config
directory (one file per server, mode 0600); later runs sign in with it. Exit 0 when the player
quits; 2 for arguments that cannot be used (one line on stderr).
"""

from __future__ import annotations

from pathlib import Path

import typer

DEFAULT_SERVER = "http://127.0.0.1:8000"


def play_command(
    server: str = typer.Option(DEFAULT_SERVER, "--server", help="the server to play on (http://host:port)"),
    name: str | None = typer.Option(None, "--name", help="your name there (asked for if you have not registered)"),
    config_dir: Path | None = typer.Option(
        None, "--config-dir", help="where the token and receipts are kept (default: the user's config directory)"
    ),
    move_seconds: int | None = typer.Option(
        None, "--move-seconds", min=1, max=86_400, help="the move clock of the house-bot matches you start"
    ),
    tournament: str | None = typer.Option(
        None, "--tournament", help="open this tournament's screen (standings, schedule) instead of the lobby"
    ),
    director_token: str | None = typer.Option(
        None,
        "--director-token",
        envvar="UNODUO_DIRECTOR_TOKEN",
        help="the director's token: the tournament screen then lists the open disputes",
        show_envvar=True,
    ),
) -> None:
    """The lobby (your matches, your next pairing, live matches to watch, a house bot to play
    now) and the table: your hand, the clock, the event log, every command by key or mouse."""
    if not server.strip():
        typer.echo("unoduo play: --server must not be empty", err=True)
        raise typer.Exit(2)
    if name is not None and not name.strip():
        typer.echo("unoduo play: --name must not be empty", err=True)
        raise typer.Exit(2)
    if tournament is not None and not tournament.strip():
        typer.echo("unoduo play: --tournament must not be empty", err=True)
        raise typer.Exit(2)
    # Textual is imported only here: the other commands start without it.
    from tui_client.play_app import make_play_app

    make_play_app(
        server,
        name,
        config_dir=config_dir,
        move_seconds=move_seconds,
        tournament=tournament.strip() if tournament else None,
        director_token=director_token.strip() if director_token else None,
    ).run()


def register(app: typer.Typer) -> None:
    app.command("play")(play_command)
