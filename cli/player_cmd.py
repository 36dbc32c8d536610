"""``unoduo player …``: find players by name, show one, and (the director) a sign-in code.

Over HTTP to a running server, through ``cli.tournament_cmd.call`` (the CLI's one HTTP path): the
same ``--url`` and ``--token`` options, a refusal printed on one line (exit 1), a director command
without the director's token stopped before sending (exit 2). A player is named by id or by name
(names compare case-insensitively, docs/SERVER.md "Accounts").
"""

from __future__ import annotations

import shlex
from typing import Annotated, Any
from urllib.parse import quote

import typer

from cli.tournament_cmd import (
    DEFAULT_URL,
    AsJson,
    Server,
    Token,
    Url,
    call,
    call_list,
    call_object,
    console,
    director,
    fail,
    print_json,
    shaped,
    table,
)
from tui_client.models.player_model import page_lines, versus_lines

player_app = typer.Typer(
    help="Players on a running server: find them by name, show one, a one-time sign-in code (the director).",
    no_args_is_help=True,
)

PlayerArg = Annotated[str, typer.Argument(help="a player's name or id", show_default=False)]


def player_path(entry: str, tail: str = "") -> str:
    return f"/api/players/{quote(entry.strip(), safe='')}{tail}"


def players_table(players: list[dict[str, Any]]) -> Any:
    return table(None, ["name", "id", "kind"], [(p["name"], p["id"], p["kind"]) for p in players])


@player_app.command("find")
@shaped
def find(
    text: Annotated[str, typer.Argument(help="the start of a name (any case)", show_default=False)],
    as_json: AsJson = False,
    url: Url = DEFAULT_URL,
) -> None:
    """Players whose name starts with TEXT (at most 50)."""
    found = call_list(Server(url), "/api/players", params={"name": text})
    if as_json:
        print_json(found)
    elif not found:
        typer.echo(f"no player's name starts with {text!r}")
    else:
        console().print(players_table(found))


SHOW_WIDTH = 80  # the text fits 80 columns


@player_app.command("show")
@shaped
def show(
    player: PlayerArg,
    as_json: AsJson = False,
    url: Url = DEFAULT_URL,
    matches: Annotated[
        int, typer.Option("--matches", min=1, max=200, help="how many of the last matches to list")
    ] = 10,
    versus: Annotated[
        str | None,
        typer.Option(
            "--versus", help="another player (name or id): their games against each other", show_default=False
        ),
    ] = None,
) -> None:
    """One player's page: name, id and kind, the rating in each family (``1500?``: provisional)
    with a sparkline of it over the rated matches, the last matches, head-to-head and
    tournaments (docs/TUI.md "The player screen" shows the same). ``--versus OTHER``: the
    record against OTHER and those matches. ``--json``: the server's page as it is."""
    server = Server(url)
    if versus is not None:
        found = call_object(server, "GET", player_path(player, f"/versus/{quote(versus.strip(), safe='')}"))
        if as_json:
            print_json(found)
        else:
            typer.echo("\n".join(versus_lines(found, SHOW_WIDTH)))
        return
    found = call(server, "GET", player_path(player), params={"limit": str(max(matches, 50))})
    if not isinstance(found, dict):
        fail(f"the server answered GET {player_path(player)} with something other than a JSON object")
    if as_json:
        print_json(found)
    else:
        typer.echo("\n".join(page_lines(found, SHOW_WIDTH, matches)))


@player_app.command("code")
@shaped
def code(player: PlayerArg, as_json: AsJson = False, url: Url = DEFAULT_URL, token: Token = None) -> None:
    """A one-time sign-in code for a player (the director): they type it in `unoduo play` on a new
    device, within 15 minutes. A new code replaces the last."""
    made = call_object(director(url, token), "POST", player_path(player, "/codes"))
    if as_json:
        print_json(made)
        return
    who = made["player"]
    typer.echo(f"sign-in code for {who['name']} ({who['id']}): {made['code']}")
    typer.echo(
        f"it works once, until {made['expires']}: unoduo play --name {shlex.quote(who['name'])} --code {made['code']}"
    )
