"""Alembic: upgrade from empty, down to base and up again, no drift from the models, the CLI."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import inspect, text
from typer.testing import CliRunner

from cli.main import app
from engine.events import Event
from server.db import make_engine
from server.store.event_store import EventStore
from server.store.migrate import current_revision, downgrade, drift, head_revision, upgrade

TABLES = {
    "events",
    "servers",
    "match_leases",
    "processed_commands",
    "snapshots",
    "players",
    "player_tokens",
    "sign_in_codes",
    "match_summaries",
    "match_seats",
    "ratings",
    "rating_changes",
    "rated_matches",
    "ratings_state",
    "standings",
    "match_secrets",
    "server_secrets",
}


def tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_from_empty_then_down_to_base_and_up_again(db_url: str) -> None:
    assert tables(db_url) == set() and current_revision(db_url) is None
    upgrade(db_url)
    assert current_revision(db_url) == head_revision() == "0009"
    assert tables(db_url) == TABLES | {"alembic_version"}
    assert drift(db_url) == []
    upgrade(db_url)  # a second upgrade is a no-op
    downgrade(db_url, "base")
    assert tables(db_url) == {"alembic_version"} and current_revision(db_url) is None
    upgrade(db_url)
    assert current_revision(db_url) == head_revision() and drift(db_url) == []
    store = EventStore(make_engine(db_url))
    try:
        store.append("match-a", [Event("x", {"ok": True})], expected_seq=0)
        assert store.verify_chain("match-a") is None
    finally:
        store.close()


def test_drift_is_reported_when_the_database_differs_from_the_models(url: str) -> None:
    assert drift(url) == []
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("DROP INDEX ix_match_summaries_tournament"))
            conn.execute(text("CREATE TABLE stray (id INTEGER PRIMARY KEY)"))
    finally:
        engine.dispose()
    kinds = {change[0] for change in drift(url)}
    assert {"add_index", "remove_table"} <= kinds


def test_servers_starting_together_migrate_once(db_url: str) -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            upgrade(db_url)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and current_revision(db_url) == "0009"


def test_event_store_open_migrates(db_url: str) -> None:
    store = EventStore.open(db_url)
    try:
        assert current_revision(db_url) == "0009"
        store.append("players", [Event("x", {})], expected_seq=None)
    finally:
        store.close()


def test_cli_upgrade(db_url: str) -> None:
    result = CliRunner().invoke(app, ["db", "upgrade", "--db", db_url])
    assert result.exit_code == 0, result.output
    assert "database at revision 0009" in result.output
    assert current_revision(db_url) == "0009"


def test_cli_upgrade_uses_the_environment(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNODUO_DATABASE_URL", db_url)
    result = CliRunner().invoke(app, ["db", "upgrade"])
    assert result.exit_code == 0, result.output
    assert current_revision(db_url) == "0009"


@pytest.mark.parametrize(
    ("bad_url", "code", "message"),
    [
        ("nonsense", 2, "not a database URL"),
        ("sqlite://", 2, "in-memory SQLite"),
        ("mysql://u@h/db", 2, "unsupported database"),
        ("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=2", 1, "cannot use the database"),
    ],
)
def test_cli_refuses_bad_urls_clearly(bad_url: str, code: int, message: str) -> None:
    result = CliRunner().invoke(app, ["db", "upgrade", "--db", bad_url])
    assert result.exit_code == code and message in result.output


def test_cli_rebuild_and_verify_want_an_upgraded_database(db_url: str) -> None:
    for command in ("rebuild", "verify"):
        result = CliRunner().invoke(app, ["db", command, "--db", db_url])
        assert result.exit_code == 1 and "run `unoduo db upgrade` first" in result.output
