"""``unoduo db …``: migrate the database, rebuild the read models, check the hash chains."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import typer
from sqlalchemy.exc import OperationalError

from server.db import DatabaseURLError, make_engine
from server.settings import Settings

T = TypeVar("T")

db_app = typer.Typer(help="The database: migrations, read models, chain checks.", no_args_is_help=True)

DB_HELP = "database URL (default: UNODUO_DATABASE_URL, else sqlite:///./unoduo.sqlite3)"


def _url(db: str | None) -> str:
    return db or Settings().database_url


def _guard(what: str, action: Callable[[], T]) -> T:
    """Run ``action``; a bad URL exits 2, an unreachable database exits 1, each with a clear message."""
    try:
        return action()
    except DatabaseURLError as exc:
        typer.echo(f"unoduo db {what}: {exc}", err=True)
        raise typer.Exit(2) from None
    except OperationalError as exc:
        typer.echo(f"unoduo db {what}: cannot use the database: {exc.orig}", err=True)
        raise typer.Exit(1) from None


def _require_head(what: str, url: str) -> None:
    from server.store.migrate import current_revision, head_revision

    current, head = current_revision(url), head_revision()
    if current != head:
        typer.echo(
            f"unoduo db {what}: the database is at revision {current or 'none'}, not {head}: "
            "run `unoduo db upgrade` first",
            err=True,
        )
        raise typer.Exit(1)


@db_app.command("upgrade")
def upgrade(
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    revision: str = typer.Option("head", help="the revision to reach"),
) -> None:
    """Apply the migrations (Alembic) up to the latest revision."""
    from server.store.migrate import current_revision, upgrade as run_upgrade

    url = _url(db)

    def run() -> str | None:
        run_upgrade(url, revision)
        return current_revision(url)

    typer.echo(f"database at revision {_guard('upgrade', run)}")


@db_app.command("rebuild")
def rebuild(db: str | None = typer.Option(None, "--db", help=DB_HELP)) -> None:
    """Empty the read models (match summaries, standings) and project every event again."""
    from server.store.read_models import rebuild as run_rebuild

    url = _url(db)

    def run() -> str:
        _require_head("rebuild", url)
        engine = make_engine(url)
        try:
            report = run_rebuild(engine)
        finally:
            engine.dispose()
        return f"rebuilt from {report.events} events: {report.matches} matches, {report.standings} standings rows"

    typer.echo(_guard("rebuild", run))


@db_app.command("verify")
def verify(
    db: str | None = typer.Option(None, "--db", help=DB_HELP),
    stream: list[str] = typer.Option([], "--stream", help="a stream to check; repeat for several (default: all)"),
) -> None:
    """Check every stream's hash chain; name the first bad seq of each broken one (exit 1)."""
    from server.store.event_store import EventStore

    url = _url(db)

    def run() -> list[tuple[str, int | None]]:
        _require_head("verify", url)
        store = EventStore(make_engine(url), group_commit=False)
        try:
            return [(name, store.verify_chain(name)) for name in (stream or store.streams())]
        finally:
            store.close()

    results = _guard("verify", run)
    broken = [(name, seq) for name, seq in results if seq is not None]
    for name, seq in broken:
        typer.echo(f"{name}: chain broken at seq {seq}")
    typer.echo(f"{len(results)} streams checked, {len(broken)} broken")
    if broken:
        raise typer.Exit(1)
