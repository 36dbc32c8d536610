"""``unoduo play [--server URL] [--name NAME] [--password] [--code CODE] [--sign-out]
[--tournament ID [--director-token T]] [--player NAME]``: play on a server from the terminal (docs/TUI.md).

The first run on a server signs in and keeps the token in the user's config directory (one file
per server, mode 0600); later runs use it. A name the server does not have is registered; a name
it has is never registered twice: the client signs in as that player with ``--code`` (a
director's one-time code) or the password (``--password`` asks for it, or ``UNODUO_PASSWORD``
holds it: never on the command line, where other users can read it), else its sign-in screen
asks. ``--sign-out`` signs the saved token out and forgets it. Exit 0 when the player quits; 2
for arguments that cannot be used (one line on stderr); 1 when signing out fails.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import sys
from pathlib import Path
from typing import NoReturn

import typer

DEFAULT_SERVER = "http://127.0.0.1:8000"
PASSWORD_ENV = "UNODUO_PASSWORD"


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
    ask_password: bool = typer.Option(
        False,
        "--password",
        help=f"ask for your password (or read ${PASSWORD_ENV}): set it when registering, or sign in "
        "with it when your name is taken (on a second device)",
    ),
    code: str | None = typer.Option(
        None, "--code", help="sign in as --name with a one-time code from the director (XXXX-XXXX)"
    ),
    sign_out: bool = typer.Option(
        False, "--sign-out", help="sign the saved token out on the server, forget it, and stop"
    ),
    player: str | None = typer.Option(
        None, "--player", help="open this player's page (ratings, rating chart, match history) instead of the lobby"
    ),
    no_auto_join: bool = typer.Option(
        False,
        "--no-auto-join",
        help="do not take a tournament seat by itself when a round opens: the lobby rings and counts "
        "the join deadline down, Enter takes the seat (a in the lobby turns it back on)",
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
    if player is not None and not player.strip():
        typer.echo("unoduo play: --player must not be empty", err=True)
        raise typer.Exit(2)
    if sign_out:
        raise typer.Exit(sign_out_saved(server, config_dir))
    if code is not None and not code.strip():
        refuse("--code must not be empty")
    if code is not None and not name:
        refuse("--code signs in as a player: give --name too")
    password = read_password(ask_password)
    if code is not None and password is not None:
        refuse(f"--code and a password ({'--password' if ask_password else PASSWORD_ENV}) do not go together")
    # Textual is imported only here: the other commands start without it.
    from tui_client.apps.play_app import make_play_app

    make_play_app(
        server,
        name,
        config_dir=config_dir,
        move_seconds=move_seconds,
        tournament=tournament.strip() if tournament else None,
        director_token=director_token.strip() if director_token else None,
        password=password,
        code=code.strip() if code else None,
        auto_join=not no_auto_join,
        player=player.strip() if player else None,
    ).run()


def refuse(message: str) -> NoReturn:
    typer.echo(f"unoduo play: {message}", err=True)
    raise typer.Exit(2)


def read_password(ask: bool) -> str | None:
    """``$UNODUO_PASSWORD`` if set, else with ``--password`` a prompt that does not echo; else None."""
    from_env = os.environ.get(PASSWORD_ENV)
    if from_env:
        return from_env
    if not ask:
        return None
    if not sys.stdin.isatty():
        refuse(f"--password asks on a terminal; without one, set {PASSWORD_ENV}")
    typed = getpass.getpass("password: ")
    if not typed:
        refuse("the password must not be empty")
    return typed


def sign_out_saved(server: str, config_dir: Path | None) -> int:
    """``--sign-out``: the saved token signed out on the server and forgotten here; the exit status."""
    from tui_client.connection.accounts import Accounts
    from tui_client.connection.api import Api, ApiError
    from tui_client.connection.config import ConfigStore

    async def run() -> int:
        store = ConfigStore(server, config_dir)
        api = Api(store.server)
        try:
            gone = await Accounts(api, store).sign_out()
        except ApiError as error:
            typer.echo(f"unoduo play: could not sign out: {error.words()}", err=True)
            return 1
        finally:
            await api.aclose()
        if gone is None:
            typer.echo(f"not signed in on {store.server}: nothing to sign out")
        else:
            typer.echo(f"signed out of {store.server} ({gone.name}); the token saved here is forgotten")
        return 0

    return asyncio.run(run())


def register(app: typer.Typer) -> None:
    app.command("play")(play_command)
