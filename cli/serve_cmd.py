"""``unoduo serve``: run the HTTP server (uvicorn) on the configured database."""

from __future__ import annotations

import typer
from pydantic import ValidationError

from cli.db_guard import guarded
from server.settings import Settings


def serve(
    host: str = typer.Option("127.0.0.1", help="address to listen on"),
    port: int = typer.Option(8000, min=1, max=65535, help="port to listen on"),
    db: str | None = typer.Option(
        None, help="database URL (default: UNODUO_DATABASE_URL, else sqlite:///./unoduo.sqlite3)"
    ),
) -> None:
    """Serve the HTTP API: migrate the database, register the house bots, listen until Ctrl-C."""
    import uvicorn

    from server.app import make_app

    try:
        settings = Settings()
    except ValidationError as exc:
        typer.echo(f"unoduo serve: bad UNODUO_* setting: {exc}", err=True)
        raise typer.Exit(2) from None
    if db:
        settings = settings.model_copy(update={"database_url": db})
    app = guarded("unoduo serve", lambda: make_app(settings))
    token = app.state.new_director_token
    if token:
        typer.echo(f"director token (shown only now; the server keeps its hash): {token}")
    typer.echo(f"unoduo server on http://{host}:{port}/api (docs: http://{host}:{port}/docs)", err=False)
    # Open event streams (?follow=1) are cut after a few seconds so that Ctrl-C always ends the server.
    uvicorn.run(app, host=host, port=port, log_level="info", timeout_graceful_shutdown=5)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
