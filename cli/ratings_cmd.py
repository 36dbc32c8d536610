"""``unoduo ratings …``: fold the ratings again from the event log, and list them (docs/RATINGS.md)."""

from __future__ import annotations

import typer

from cli.db_cmd import DB_HELP, _require_head, _url
from cli.db_guard import guarded

ratings_app = typer.Typer(help="Ratings: rebuild them from the event log, list them.", no_args_is_help=True)

FAMILY_HELP = "the rating family: uno-duo or classic"


@ratings_app.command("rebuild")
def rebuild(
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    casual: bool | None = typer.Option(
        None, "--casual/--no-casual", help="rate casual matches (default: the server's UNODUO_RATE_CASUAL)"
    ),
) -> None:
    """Empty the ratings and fold every finished match again, in the order they ended."""
    url = _url(db)

    def run() -> str:
        from server.db import make_engine
        from server.services.ratings import Ratings
        from server.services.tournaments import tournament_or_none
        from server.settings import Settings
        from server.store.event_store import EventStore

        _require_head("unoduo ratings rebuild", url)
        store = EventStore(make_engine(url), group_commit=False)
        try:
            rate_casual = Settings().rate_casual if casual is None else casual
            done = Ratings(store, rate_casual, tournament_or_none(store)).catch_up(rebuild=True)
        finally:
            store.close()
        return (
            f"ratings rebuilt: {done.read} finished matches read, {done.rated} rated "
            f"(casual matches {'rated' if rate_casual else 'not rated'})"
        )

    typer.echo(guarded("unoduo ratings rebuild", run))


@ratings_app.command("list")
def list_ratings(
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    family: str = typer.Option("uno-duo", "--family", help=FAMILY_HELP),
    top: int = typer.Option(30, "--top", min=1, max=1000, help="how many to list"),
) -> None:
    """The rating list of one family, highest first (a provisional rating is marked ?)."""
    from server.ratings.book import FAMILIES

    if family not in FAMILIES:
        typer.echo(f"unoduo ratings list: --family is one of {', '.join(FAMILIES)}, not {family!r}", err=True)
        raise typer.Exit(2)
    url = _url(db)

    def run() -> list[str]:
        from engine.game.seat_names import player_label
        from server.db import make_engine
        from server.services.ratings import Ratings
        from server.services.tournaments import tournament_or_none
        from server.settings import Settings
        from server.store.event_store import EventStore
        from server.store.ratings import rating_list

        _require_head("unoduo ratings list", url)
        store = EventStore(make_engine(url), group_commit=False)
        try:
            Ratings(store, Settings().rate_casual, tournament_or_none(store)).catch_up()
            rows = rating_list(store.engine, family, top)
        finally:
            store.close()
        lines = [f"{'#':>3}  {'player':<32} {'rating':>7} {'±':>5} {'games':>5}"]
        for rank, row in enumerate(rows, start=1):
            mark = "?" if row.provisional else " "
            lines.append(
                f"{rank:>3}  {player_label(row.name, row.kind)[:32]:<32} {row.rating:>6.0f}{mark} {row.deviation:>5.0f} {row.games:>5}"
            )
        return lines

    for line in guarded("unoduo ratings list", run):
        typer.echo(line)
