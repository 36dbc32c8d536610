"""``unoduo web [--host 127.0.0.1] [--port 8001] [--server URL]``: the ``unoduo play`` client in a
browser, through textual-serve (docs/TUI.md "In a browser").

Each browser tab that opens the page starts its own ``unoduo play`` process on this machine,
as this user: with the token saved in this user's config directory. So it listens on loopback
by default; another ``--host`` is served only with a warning on stderr. Exit 2 for arguments
that cannot be used (one line on stderr).
"""

from __future__ import annotations

import ipaddress
import shlex
import sys
from pathlib import Path

import typer

from cli.play_cmd import DEFAULT_SERVER

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8001


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def play_command_line(
    server: str,
    name: str | None = None,
    config_dir: Path | None = None,
    tournament: str | None = None,
    player: str | None = None,
) -> str:
    """The shell command textual-serve runs per browser session: ``unoduo play`` with these options."""
    argv = [sys.executable, "-m", "cli.main", "play", "--server", server]
    if name:
        argv += ["--name", name]
    if config_dir is not None:
        argv += ["--config-dir", str(config_dir)]
    if tournament:
        argv += ["--tournament", tournament]
    if player:
        argv += ["--player", player]
    return shlex.join(argv)


def web_command(
    host: str = typer.Option(DEFAULT_HOST, "--host", help="the address to listen on (loopback by default)"),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=1, max=65_535, help="the port to listen on"),
    server: str = typer.Option(DEFAULT_SERVER, "--server", help="the unoduo server the client plays on"),
    name: str | None = typer.Option(None, "--name", help="your name there (as for unoduo play)"),
    config_dir: Path | None = typer.Option(None, "--config-dir", help="where the token and receipts are kept"),
    tournament: str | None = typer.Option(None, "--tournament", help="open this tournament's screen"),
    player: str | None = typer.Option(None, "--player", help="open this player's page (ratings, history)"),
    public_url: str | None = typer.Option(
        None, "--public-url", help="the address browsers reach the page at (behind a proxy)"
    ),
) -> None:
    """The same client as ``unoduo play``, in a browser (textual-serve): open the address it
    prints. Every tab runs its own client, signed in with your saved token."""
    if not server.strip():
        typer.echo("unoduo web: --server must not be empty", err=True)
        raise typer.Exit(2)
    if not host.strip():
        typer.echo("unoduo web: --host must not be empty", err=True)
        raise typer.Exit(2)
    if not is_loopback(host):
        typer.echo(
            f"unoduo web: warning: listening on {host}: anyone who reaches it plays with your saved token",
            err=True,
        )
    from textual_serve.server import Server  # imported only here: the other commands start without it

    command = play_command_line(server.strip(), name, config_dir, tournament, player.strip() if player else None)
    Server(command, host=host, port=port, title="unoduo play", public_url=public_url).serve()


def register(app: typer.Typer) -> None:
    app.command("web")(web_command)
