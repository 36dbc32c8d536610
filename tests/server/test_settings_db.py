"""Settings from UNODUO_* variables, and how engines are made (URLs, SQLite pragmas)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy import text

from server.db import DatabaseURLError, make_engine, normalize_url
from server.settings import DEFAULT_DATABASE_URL, Settings
from server.store.values import format_at


def test_defaults_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("UNODUO_DATABASE_URL", "UNODUO_SNAPSHOT_EVERY", "UNODUO_GROUP_COMMIT"):
        monkeypatch.delenv(name, raising=False)
    s = Settings()
    assert s.database_url == DEFAULT_DATABASE_URL == "sqlite:///./unoduo.sqlite3"
    assert s.snapshot_every == 500 and s.group_commit and s.sqlite_synchronous == "FULL"
    monkeypatch.setenv("UNODUO_DATABASE_URL", "postgresql://u@db/x")
    monkeypatch.setenv("UNODUO_SNAPSHOT_EVERY", "25")
    monkeypatch.setenv("UNODUO_GROUP_COMMIT", "false")
    s = Settings()
    assert (s.database_url, s.snapshot_every, s.group_commit) == ("postgresql://u@db/x", 25, False)


@pytest.mark.parametrize(
    ("name", "value"),
    [("SNAPSHOT_EVERY", "0"), ("NOTIFY_CHANNEL", "bad channel; drop"), ("SQLITE_SYNCHRONOUS", "SOMETIMES")],
)
def test_bad_settings_are_refused(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(f"UNODUO_{name}", value)
    with pytest.raises(ValidationError):
        Settings()


def test_urls_pick_psycopg_and_refuse_what_cannot_work() -> None:
    assert normalize_url("postgresql://u@h/d").drivername == "postgresql+psycopg"
    assert normalize_url("postgres://u@h/d").drivername == "postgresql+psycopg"
    assert normalize_url("postgresql+psycopg://u@h/d").drivername == "postgresql+psycopg"
    assert normalize_url("sqlite:///x.db").database == "x.db"
    for bad, message in [
        ("sqlite://", "in-memory"),
        ("sqlite:///:memory:", "in-memory"),
        ("mysql://u@h/d", "unsupported"),
        ("postgresql+asyncpg://u@h/d", "psycopg 3"),
        ("::", "not a database URL"),
    ]:
        with pytest.raises(DatabaseURLError, match=message):
            normalize_url(bad)


def test_sqlite_connections_get_wal_busy_timeout_and_foreign_keys(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'p.sqlite3'}", Settings(sqlite_busy_timeout_ms=4321))
    try:
        with engine.connect() as conn:
            pragma = {
                name: conn.execute(text(f"PRAGMA {name}")).scalar()
                for name in ("journal_mode", "busy_timeout", "foreign_keys", "synchronous")
            }
        assert pragma == {"journal_mode": "wal", "busy_timeout": 4321, "foreign_keys": 1, "synchronous": 2}
        with engine.connect().execution_options(sqlite_begin="IMMEDIATE") as conn, conn.begin():
            conn.execute(text("CREATE TABLE t (x INTEGER)"))
        with pytest.raises(ValueError, match="sqlite_begin"):
            with engine.connect().execution_options(sqlite_begin="SOMETIMES") as conn, conn.begin():
                pass
    finally:
        engine.dispose()


def test_times_are_utc_with_microseconds_and_z() -> None:
    moment = datetime(2026, 11, 29, 20, 55, 34, 123456, tzinfo=timezone(timedelta(hours=1)))
    assert format_at(moment) == "2026-11-29T19:55:34.123456Z"
    assert format_at(datetime(2026, 1, 2, tzinfo=UTC)) == "2026-01-02T00:00:00.000000Z"
