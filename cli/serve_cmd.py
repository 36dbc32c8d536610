"""``unoduo serve``: run the HTTP server (uvicorn) on the configured database (the machinery:
:mod:`cli.serve_runtime`).

``--workers N`` (N > 1, PostgreSQL only) runs N such servers on the one port under a small
supervisor: :mod:`cli.serve_workers`. ``--web-client PORT`` starts ``unoduo web`` beside it (the
play client for players' browsers, each signed in as itself): :mod:`cli.web_beside`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from pydantic import ValidationError

from cli.db_guard import guarded
from cli.serve_runtime import (
    MAX_WORKERS,
    StopRequests,
    _bind_or_exit,
    _server,
    announce,
    collector_off,
    peer_url,
    tune_garbage_collector,
)
from server.settings import Settings

if TYPE_CHECKING:
    from fastapi import FastAPI


def _checked_app(settings: Settings) -> FastAPI:
    """The app, once SQLite's quick_check has found the file whole: a damaged page would otherwise
    surface in the start-up's recovery as uvicorn's traceback (DatabaseDamagedError, one line here)."""
    from server.app import make_app
    from server.store.integrity import check_file

    check_file(settings.database_url)
    return make_app(settings)


def serve(
    host: str = typer.Option("127.0.0.1", help="address to listen on"),
    port: int = typer.Option(8000, min=1, max=65535, help="port to listen on"),
    db: str | None = typer.Option(
        None,
        help="database URL, or a SQLite file path (default: UNODUO_DATABASE_URL, else sqlite:///./unoduo.sqlite3)",
    ),
    workers: int = typer.Option(
        1,
        min=1,
        max=MAX_WORKERS,
        help="server processes sharing the port, each owning its share of the live matches (PostgreSQL only); "
        "a worker that dies is restarted",
    ),
    web_client: int | None = typer.Option(
        None,
        "--web-client",
        min=1,
        max=65535,
        help="also serve the play client to players' browsers on this port, on the address --host says "
        "(unoduo web: each browser signs in as itself)",
    ),
) -> None:
    """Serve the HTTP API: migrate the database, register the house bots, listen until Ctrl-C.

    With --workers N (PostgreSQL), a supervisor runs N server processes on the one port, each
    also listening on a private port of its own (on UNODUO_PEER_HOST) for what other servers
    forward to it (docs/SERVER.md "Several workers on one host").
    """
    if web_client == port:
        typer.echo("unoduo serve: --web-client needs a port of its own, not --port's", err=True)
        raise typer.Exit(2)
    from cli.web_beside import web_client_beside

    with StopRequests().installed() as stop, web_client_beside(host, port, web_client):
        try:
            _serve(stop, host, port, db, workers)
        except KeyboardInterrupt:  # a second Ctrl-C before the server served
            typer.echo("unoduo serve: stopped at once (a second Ctrl-C) before it served", err=True)
            raise typer.Exit(130) from None


def _settings(db: str | None) -> Settings:
    """The server's settings, ``--db`` over ``UNODUO_DATABASE_URL``; exit 2 if one is wrong."""
    from server.db import DatabaseURLError, normalize_url, url_or_path

    try:
        settings = Settings()
    except ValidationError as exc:
        typer.echo(f"unoduo serve: bad UNODUO_* setting: {exc}", err=True)
        raise typer.Exit(2) from None
    if db:
        settings = settings.model_copy(update={"database_url": url_or_path(db)})
    try:
        normalize_url(settings.database_url)
    except DatabaseURLError as exc:
        typer.echo(f"unoduo serve: {exc}{', or (with --db) a SQLite file path' if db else ''}", err=True)
        raise typer.Exit(2) from None
    return settings


def _serve(stop: StopRequests, host: str, port: int, db: str | None, workers: int) -> None:
    with collector_off():
        settings = _settings(db)
    if workers > 1:
        from cli.serve_workers import serve_workers

        serve_workers(settings, host, port, workers, stop)
        return
    if not settings.peer_url:
        settings = settings.model_copy(update={"peer_url": peer_url(host, port)})
    sock = _bind_or_exit(host, port)
    try:
        with collector_off():
            app = guarded("unoduo serve", lambda: _checked_app(settings))
            token = app.state.new_director_token
            if token:
                typer.echo(f"director token (shown only now; the server keeps its hash): {token}")
            announce(host, port)
            server = _server(app, settings, stop)
        tune_garbage_collector()
        server.run(sockets=[sock])
    finally:
        sock.close()
    if not server.started:
        typer.echo("unoduo serve: the server did not start", err=True)
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
