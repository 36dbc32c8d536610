"""``unoduo bench store``: appended commands per second, beside a raw batched insert of the same rows.

For each database, for 1, 4 and 16 concurrent writer threads (each on its own stream, each
command one event with a command id) and for both append modes (group commit, and one
transaction per command), count the commands appended in ``--seconds``. The reference is a
raw executemany of the same rows (events plus processed-command rows, chained and hashed
beforehand) in transactions of 500 commands, in the same process and run. The measuring code
is in ``cli.bench_store_run``, loaded only when the benchmark runs, so that every other
``unoduo`` command starts without the store.
"""

from __future__ import annotations

import os

import typer

from cli.db_guard import guarded

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
SECTION = "## Event store"


def store(
    seconds: float = typer.Option(3.0, min=0.1, help="how long each writer count runs"),
    db: str = typer.Option("both", help="sqlite, postgres or both"),
    writers: str = typer.Option("1,4,16", help="comma-separated writer counts"),
    postgres_url: str = typer.Option(
        os.environ.get("UNODUO_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL),
        help="PostgreSQL server to use (a throw-away schema is created and dropped)",
    ),
    write_docs: bool = typer.Option(False, "--write-docs", help=f"update the '{SECTION}' section of docs/BENCHMARKS.md"),
) -> None:
    """Event store: commands appended per second with 1, 4, 16 writers, beside a raw batched insert."""
    choices = {"sqlite": ["sqlite"], "postgres": ["postgres"], "both": ["sqlite", "postgres"]}
    if db not in choices:
        typer.echo("unoduo bench store: --db must be sqlite, postgres or both", err=True)
        raise typer.Exit(2)
    try:
        counts = [int(w) for w in writers.split(",")]
        if not counts or min(counts) < 1:
            raise ValueError
    except ValueError:
        typer.echo("unoduo bench store: --writers must be positive whole numbers, e.g. 1,4,16", err=True)
        raise typer.Exit(2) from None
    from cli.bench_store_run import run_and_report

    guarded("unoduo bench store", lambda: run_and_report(choices[db], seconds, counts, postgres_url, write_docs))


def register(bench_app: typer.Typer) -> None:
    bench_app.command("store")(store)
