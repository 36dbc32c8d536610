"""``unoduo export --match ID [--db URL] [-o FILE]``: a finished match's replay file straight from
the database, for a director without the HTTP API (the same file ``GET /api/matches/{id}/replay``
gives). Exit 0 written; 1 the match is unknown or still live, or the database cannot be used; 2 a
bad URL or an unwritable output."""

from __future__ import annotations

from pathlib import Path

import typer

from cli.db_guard import guarded


def export(
    match: str = typer.Option(..., "--match", help="the match id (e.g. m_1a2b3c4d5e6f7a8b)"),
    db: str | None = typer.Option(
        None, "--db", help="database URL, or a SQLite file path (default: UNODUO_DATABASE_URL, else ./unoduo.sqlite3)"
    ),
    output: Path | None = typer.Option(None, "-o", "--output", help="write here (default: standard output)"),
) -> None:
    """Write the replay file of a finished match from the database."""
    from server.db import make_engine, url_or_path
    from server.domain_errors import MatchLive, MatchNotFound, NotNow
    from server.services.matches import MatchService
    from server.services.tournaments import TournamentService
    from server.settings import Settings
    from server.store.event_store import EventStore

    url = url_or_path(db) if db else Settings().database_url
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).is_file():
        typer.echo(f"unoduo export: no database at {url.removeprefix('sqlite:///')}", err=True)
        raise typer.Exit(1)

    def run() -> str:
        store = EventStore(make_engine(url), group_commit=False)
        try:
            # A duplicate round's match: refused until its round is revealed, then with the deal key.
            return TournamentService(store, MatchService(store)).replay(match)
        finally:
            store.close()

    try:
        text = guarded("unoduo export", run)
    except (MatchNotFound, MatchLive, NotNow) as exc:
        typer.echo(f"unoduo export: {exc.message}", err=True)
        raise typer.Exit(1) from None
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        typer.echo(f"unoduo export: cannot write {output}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"wrote {output} ({text.count(chr(10)) - 1} events of match {match})", err=True)


def register(app: typer.Typer) -> None:
    app.command("export")(export)
