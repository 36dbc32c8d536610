"""``unoduo web [--server URL] [--host 0.0.0.0] [--port 8001]``: the ``unoduo play`` client in a
browser, through textual-serve (docs/TUI.md "In a browser"), for every player on their own device.

Each browser signs in as itself (:mod:`cli.web_server`): a browser id in a cookie selects a
config directory of its own on this machine (:mod:`cli.web_browsers`), the client opens on its
sign-in screen until that browser has signed in, and a reload keeps the sign-in. The host's own
token is never used, so it listens on every address by default: players open
``http://<this machine>:8001/`` on their laptops, tablets and phones.

``--single-user`` is the old mode: every tab plays as this user, with the token saved in this
user's config directory (``--name``, ``--config-dir`` as for ``unoduo play``); it listens on
loopback by default, and another ``--host`` is served only with a warning on stderr. Exit 2 for
arguments that cannot be used (one line on stderr).
"""

from __future__ import annotations

import ipaddress
import shlex
import socket
import sys
from pathlib import Path

import typer

from cli.play_cmd import DEFAULT_SERVER
from cli.web_browsers import (
    DEFAULT_MAX_BROWSERS,
    DEFAULT_MAX_PER_BROWSER,
    DEFAULT_MAX_SESSIONS,
    BrowserDirs,
    default_browsers_dir,
)

DEFAULT_HOST = "0.0.0.0"  # every browser signs in as itself: players' own devices reach it
SINGLE_USER_HOST = "127.0.0.1"  # the host's token in every tab: this machine only
DEFAULT_PORT = 8001


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address() -> str | None:
    """This machine's address on its network, as another device would use it (a UDP socket
    "connected" to a documentation address: no packet is sent); None when there is no network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            address: str = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("0.") else address


def play_command_line(
    server: str,
    name: str | None = None,
    config_dir: Path | None = None,
    tournament: str | None = None,
    player: str | None = None,
) -> str:
    """The shell command textual-serve runs per browser session in ``--single-user`` mode:
    ``unoduo play`` with these options."""
    argv = [sys.executable, "-m", "cli.main", "play", "--server", server]
    if name:
        argv += ["--name", name]
    if config_dir is not None:
        argv += ["--config-dir", str(config_dir)]
    return shlex.join(argv + screen_options(tournament, player))


def screen_options(tournament: str | None, player: str | None) -> list[str]:
    """``unoduo play``'s options for the screen it opens on."""
    out: list[str] = []
    if tournament:
        out += ["--tournament", tournament]
    if player:
        out += ["--player", player]
    return out


def refuse(message: str) -> None:
    typer.echo(f"unoduo web: {message}", err=True)
    raise typer.Exit(2)


def web_command(
    host: str | None = typer.Option(
        None,
        "--host",
        help=f"the address to listen on (default {DEFAULT_HOST}: every address; {SINGLE_USER_HOST} with --single-user)",
    ),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=1, max=65_535, help="the port to listen on"),
    server: str = typer.Option(DEFAULT_SERVER, "--server", help="the unoduo server the clients play on"),
    tournament: str | None = typer.Option(None, "--tournament", help="open this tournament's screen"),
    player: str | None = typer.Option(None, "--player", help="open this player's page (ratings, history)"),
    public_url: str | None = typer.Option(
        None, "--public-url", help="the address browsers reach the page at (behind a proxy; default: the one they used)"
    ),
    browsers_dir: Path | None = typer.Option(
        None, "--browsers-dir", help="where each browser's sign-in is kept (default: the user's state directory)"
    ),
    max_sessions: int = typer.Option(
        DEFAULT_MAX_SESSIONS, "--max-sessions", min=1, help="clients running at once, in all"
    ),
    max_per_browser: int = typer.Option(
        DEFAULT_MAX_PER_BROWSER, "--max-per-browser", min=1, help="clients running at once per browser"
    ),
    max_browsers: int = typer.Option(
        DEFAULT_MAX_BROWSERS, "--max-browsers", min=1, help="browsers' sign-ins kept (the least recently used go first)"
    ),
    single_user: bool = typer.Option(
        False, "--single-user", help="every tab plays as you, with your saved token (loopback by default)"
    ),
    name: str | None = typer.Option(None, "--name", help="with --single-user: your name there (as for unoduo play)"),
    config_dir: Path | None = typer.Option(
        None, "--config-dir", help="with --single-user: where your token and receipts are kept"
    ),
) -> None:
    """The same client as ``unoduo play``, in a browser (textual-serve): players open the address
    it prints on their own devices, and each browser signs in as its player."""
    if not server.strip():
        refuse("--server must not be empty")
    if host is not None and not host.strip():
        refuse("--host must not be empty")
    if not single_user and (name is not None or config_dir is not None):
        refuse("--name and --config-dir go with --single-user: otherwise each browser signs in as itself")
    player = player.strip() if player else None
    if single_user:
        command = play_command_line(server.strip(), name, config_dir, tournament, player)
        serve_single_user(host or SINGLE_USER_HOST, port, command, public_url)
        return
    from cli.web_server import PlayServer, Sessions  # only here: the other commands start without textual-serve

    listen = host or DEFAULT_HOST
    browsers = BrowserDirs(browsers_dir or default_browsers_dir(), max_browsers)
    shown = public_url or (f"http://{lan_address() or listen}:{port}" if listen == DEFAULT_HOST else None)
    play_server = PlayServer(
        server.strip(),
        browsers,
        Sessions(max_sessions, max_per_browser),
        options=screen_options(tournament, player),
        host=listen,
        port=port,
        public_url=public_url,
        shown_url=shown,
    )
    play_server.serve()


def serve_single_user(host: str, port: int, command: str, public_url: str | None) -> None:
    """``--single-user``: textual-serve running ``command`` (``unoduo play`` with this user's saved
    token) in every tab."""
    if not is_loopback(host):
        typer.echo(
            f"unoduo web: warning: listening on {host}: anyone who reaches it plays with your saved token",
            err=True,
        )
    from textual_serve.server import Server  # imported only here: the other commands start without it

    Server(command, host=host, port=port, title="unoduo play", public_url=public_url).serve()


def register(app: typer.Typer) -> None:
    app.command("web")(web_command)
