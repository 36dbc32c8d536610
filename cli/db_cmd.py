"""``unoduo db …``: migrate the database, rebuild the read models, check the hash chains."""

from __future__ import annotations

import typer

from cli.db_guard import guarded

db_app = typer.Typer(help="The database: migrations, read models, chain checks.", no_args_is_help=True)

DB_HELP = "database URL, or a SQLite file path (default: UNODUO_DATABASE_URL, else sqlite:///./unoduo.sqlite3)"


def _url(db: str | None) -> str:
    """``--db`` as ``unoduo serve`` reads it: a URL, or a SQLite file's path; else the settings'."""
    # Imported here, not at the top: every ``unoduo`` command loads this module at start.
    from server.db import url_or_path
    from server.settings import Settings

    return url_or_path(db) if db else Settings().database_url


def _require_head(command: str, url: str) -> None:
    """Exit 1 unless the database is at the latest revision (``command``: ``unoduo ratings list``, …)."""
    from server.store.migrate import current_revision, head_revision

    current, head = current_revision(url), head_revision()
    if current != head:
        typer.echo(
            f"{command}: the database is at revision {current or 'none'}, not {head}: run `unoduo db upgrade` first",
            err=True,
        )
        raise typer.Exit(1)


@db_app.command("upgrade")
def upgrade(
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    revision: str = typer.Option("head", help="the revision to reach"),
) -> None:
    """Apply the migrations (Alembic) up to the latest revision."""
    from server.store.migrate import current_revision
    from server.store.migrate import upgrade as run_upgrade

    url = _url(db)

    def run() -> str | None:
        run_upgrade(url, revision)
        return current_revision(url)

    typer.echo(f"database at revision {guarded('unoduo db upgrade', run)}")


@db_app.command("rebuild")
def rebuild(db: str | None = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Empty the read models (match summaries, standings) and project every event again."""
    from server.store.read_models import rebuild as run_rebuild

    url = _url(db)

    def run() -> str:
        from server.db import make_engine

        _require_head("unoduo db rebuild", url)
        engine = make_engine(url)
        try:
            report = run_rebuild(engine)
        finally:
            engine.dispose()
        return f"rebuilt from {report.events} events: {report.matches} matches, {report.standings} standings rows"

    typer.echo(guarded("unoduo db rebuild", run))


@db_app.command("verify")
def verify(
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    stream: list[str] = typer.Option([], "--stream", help="a stream to check; repeat for several (default: all)"),
) -> None:
    """Check that the file is whole (SQLite's quick_check) and every stream's hash chain; name the
    first bad seq of each broken chain (exit 1). A damaged file is one line on stderr (exit 1)."""
    from server.db import make_engine
    from server.store.event_store import EventStore
    from server.store.integrity import check_engine

    url = _url(db)

    def run() -> list[tuple[str, int | None]]:
        _require_head("unoduo db verify", url)
        store = EventStore(make_engine(url), group_commit=False)
        try:
            check_engine(store.engine)
            return [(name, store.verify_chain(name)) for name in (stream or store.streams())]
        finally:
            store.close()

    results = guarded("unoduo db verify", run)
    broken = [(name, seq) for name, seq in results if seq is not None]
    for name, seq in broken:
        typer.echo(f"{name}: chain broken at seq {seq}")
    typer.echo(f"{len(results)} streams checked, {len(broken)} broken")
    if broken:
        raise typer.Exit(1)
