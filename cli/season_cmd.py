"""``unoduo season …``: seasons on a running server (docs/TOURNAMENTS.md "Seasons").

Over HTTP through ``cli.tournament_cmd.call`` (the CLI's one HTTP path): the same ``--url`` and
``--token``, a refusal on one line (exit 1), a director command without the director's token
stopped before sending (exit 2). ``show`` fits 80 columns: the settings, the events by number,
each division's table (the events that count by number), and the moves once finished.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

import typer

from cli.tournament_cmd import (
    DEFAULT_URL,
    AsJson,
    Server,
    Token,
    Url,
    call_list,
    call_object,
    console,
    director,
    fail,
    print_json,
    shaped,
    table,
)
from tui_client.models.season_view import (
    LEGEND,
    STANDING_COLUMNS,
    divisions_of,
    move_lines,
    season_lines,
    standing_cells,
)

season_app = typer.Typer(
    help="Seasons on a running server: tournaments grouped into one table (points by place, the best N "
    "events count), with divisions, promotion and relegation.",
    no_args_is_help=True,
)

SeasonArg = Annotated[str, typer.Argument(help="a season id (s_…)", show_default=False)]


def print_season(season: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(season)
        return
    out = console()
    for line in season_lines(season):
        out.print(line, markup=False, highlight=False)
    for division in divisions_of(season):
        cells = [[int(c) if c.isdigit() else c for c in row] for row in standing_cells(season, division)]
        if cells:
            out.print(table(division or "Standings", STANDING_COLUMNS, cells))
        else:
            out.print(f"{division or 'Standings'}: nobody yet", markup=False, highlight=False)
    moves = move_lines(season)
    if moves:
        out.print("At the end:", markup=False)
        for line in moves:
            out.print(f"  {line}", markup=False, highlight=False)
    out.print(LEGEND, markup=False, highlight=False)


def division_specs(entries: list[str]) -> list[dict[str, Any]]:
    """``--division "A=ann,bob"``: a division's name, then its players by id or name (none: ``--division B``)."""
    out: list[dict[str, Any]] = []
    for entry in entries:
        name, _, players = entry.partition("=")
        if not name.strip():
            fail(f"--division takes NAME or NAME=player,player,…, not {entry!r}", 2)
        out.append({"name": name.strip(), "players": [p.strip() for p in players.split(",") if p.strip()]})
    return out


def points_of(text: str) -> list[int]:
    """``--points 25,18,15``: the points for 1st, 2nd, …"""
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        fail(f"--points takes whole numbers for 1st, 2nd, … separated by commas (25,18,15), not {text!r}", 2)


@season_app.command("create")
@shaped
def create(
    name: Annotated[str, typer.Argument(help="the season's name", show_default=False)],
    best_of: Annotated[int | None, typer.Option("--best-of", help="a player's best N events count")] = None,
    points: Annotated[
        str | None, typer.Option("--points", help="points for 1st, 2nd, …: 25,18,15,12,10,8,6,4,2,1 unless given")
    ] = None,
    divisions: Annotated[
        list[str] | None,
        typer.Option("--division", help="a division, best first: NAME or NAME=player,player (repeat it)"),
    ] = None,
    division_count: Annotated[
        int | None, typer.Option("--divisions", help="this many divisions, everyone starting in the lowest")
    ] = None,
    promote: Annotated[int | None, typer.Option("--promote", help="how many of a division go up (2)")] = None,
    relegate: Annotated[int | None, typer.Option("--relegate", help="how many of a division go down (2)")] = None,
    follows: Annotated[
        str | None, typer.Option("--follows", help="a finished season: start from its divisions after the moves")
    ] = None,
    as_json: AsJson = False,
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """Make a season (the director)."""
    server = director(url, token)
    if divisions and division_count is not None:
        fail("give --division NAME=… or --divisions N, not both", 2)
    body: dict[str, Any] = {"name": name}
    for key, value in (("best_of", best_of), ("promote", promote), ("relegate", relegate), ("follows", follows)):
        if value is not None:
            body[key] = value
    if points is not None:
        body["points_by_place"] = points_of(points)
    if divisions:
        body["divisions"] = division_specs(divisions)
    elif division_count is not None:
        body["divisions"] = division_count
    season = call_object(server, "POST", "/api/seasons", body)
    if not as_json:
        typer.echo(f"created season {season['id']}: {season['name']}")
    print_season(season, as_json)


@season_app.command("add")
@shaped
def add(
    season: SeasonArg,
    tournaments: Annotated[list[str], typer.Argument(help="tournament ids (t_…)", show_default=False)],
    url: Url = DEFAULT_URL,
    token: Token = None,
) -> None:
    """Add tournaments to a season (the director); each is in one season at most."""
    server = director(url, token)
    for tournament in tournaments:
        call_object(server, "POST", f"/api/seasons/{quote(season, safe='')}/tournaments", {"tournament": tournament})
        typer.echo(f"added {tournament} to season {season}")


@season_app.command("show")
@shaped
def show(season: SeasonArg, as_json: AsJson = False, url: Url = DEFAULT_URL, token: Token = None) -> None:
    """The season: its events (finished or in play), the table by division, the moves once finished."""
    print_season(call_object(Server(url, token), "GET", f"/api/seasons/{quote(season, safe='')}"), as_json)


@season_app.command("list")
@shaped
def list_(as_json: AsJson = False, url: Url = DEFAULT_URL, token: Token = None) -> None:
    """Every season on the server, newest first."""
    seasons = call_list(Server(url, token), "/api/seasons")
    if as_json:
        print_json(seasons)
    elif not seasons:
        typer.echo("no seasons")
    else:
        columns = ["id", "name", "status", "tournaments"]
        console().print(table("Seasons", columns, [[s[c] for c in columns] for s in seasons]))


@season_app.command("finish")
@shaped
def finish(season: SeasonArg, as_json: AsJson = False, url: Url = DEFAULT_URL, token: Token = None) -> None:
    """End the season (the director): the table is final, and with divisions the top go up and the bottom down."""
    ended = call_object(director(url, token), "POST", f"/api/seasons/{quote(season, safe='')}/finish")
    if not as_json:
        typer.echo(f"finished season {ended['id']}")
    print_season(ended, as_json)
