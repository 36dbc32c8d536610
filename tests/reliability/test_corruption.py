"""A damaged SQLite file (issue #19, point 7): a clear 503 over HTTP, one line from the commands.

A real migrated database with one finished match is copied and some of its pages are
overwritten (the leaves of the events table, found with SQLite's ``dbstat``, or the only page
of the players table): ``GET …/events`` answers 503 ``unavailable`` (it answered 500 "database
disk image is malformed"), and ``unoduo serve``, ``db verify`` and ``db rebuild`` print one line
on stderr naming the file and exit 1 (they printed tracebacks).
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from server.app import make_app
from server.settings import Settings
from tests.cli.serving import ROOT, free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import ok, play_to_end, register

GARBAGE = b"\xff" * 64  # over a page's header: its type and cell count no longer make sense


def settings_for(path: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{path}",
        director_token="director-token-for-tests-0123456789",
        sqlite_synchronous="NORMAL",
        bot_think_seconds=0,
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> tuple[Path, str]:
    """A migrated database with one finished match (its id), every page in the main file."""
    path = tmp_path_factory.mktemp("played") / "played.sqlite3"
    shutil.copyfile(sqlite_template, path)
    with TestClient(make_app(settings_for(path))) as client:
        _, headers = register(client, "ada")
        match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
        ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "ada"}))
        play_to_end(client, match_id, headers, 0, random.Random(3))
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path, match_id


def pages_of(path: Path, table: str) -> list[int]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype IN ('leaf', 'internal') ORDER BY pageno", (table,)
        ).fetchall()
    assert rows, f"no pages for {table}"
    return [pageno for (pageno,) in rows]


def damage(path: Path, pages: list[int]) -> None:
    """Overwrite the start of each page (numbered from 1) of ``path``, in place."""
    with sqlite3.connect(path) as connection:
        size = int(connection.execute("PRAGMA page_size").fetchone()[0])
    with path.open("r+b") as file:
        for page in pages:
            file.seek((page - 1) * size)
            file.write(GARBAGE)


def damaged_copy(played: tuple[Path, str], into: Path, table: str) -> Path:
    source, _ = played
    copy = into / f"damaged-{table}.sqlite3"
    shutil.copyfile(source, copy)
    pages = pages_of(source, table)
    assert table != "events" or len(pages) > 10  # a real match: its events span many pages
    damage(copy, pages)
    return copy


def one_line_saying_damaged(result: subprocess.CompletedProcess[str], path: Path) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"the database file {path} is damaged (SQLite" in lines[0] and "restore it from a backup" in lines[0]


def unoduo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=ROOT,
        env=serve_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_reading_a_damaged_page_answers_503_unavailable_not_500(played: tuple[Path, str], tmp_path: Path) -> None:
    path = damaged_copy(played, tmp_path, "events")
    _, match_id = played
    with TestClient(make_app(settings_for(path)), raise_server_exceptions=False) as client:
        response = client.get(f"/api/matches/{match_id}/events")
        assert response.status_code == 503, response.text
        body = response.json()
        assert body["code"] == "unavailable" and "damaged" in body["message"], body
        assert str(path) not in body["message"]  # a client is not told where the server keeps its files
        assert client.get("/api").status_code == 200  # the server goes on answering


def test_a_page_damaged_under_a_running_server_is_answered_503(played: tuple[Path, str], tmp_path: Path) -> None:
    source, match_id = played
    path = tmp_path / "running.sqlite3"
    shutil.copyfile(source, path)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    process = serve("--port", str(port), "--db", str(path), log=log)
    try:
        wait_until_up(base, process)
        damage(path, pages_of(source, "events"))
        response = httpx.get(f"{base}/api/matches/{match_id}/events", timeout=30.0)
        assert response.status_code == 503 and response.json()["code"] == "unavailable", response.text
        assert httpx.get(f"{base}/api", timeout=30.0).status_code == 200
    finally:
        stop(process)
    assert "Traceback" not in log.read_text()


def test_unoduo_serve_on_a_damaged_file_says_so_in_one_line(played: tuple[Path, str], tmp_path: Path) -> None:
    for table in ("players", "events"):  # found by the start (house bots), or only by the file check
        path = damaged_copy(played, tmp_path, table)
        result = unoduo("serve", "--port", str(free_port()), "--db", str(path))
        one_line_saying_damaged(result, path)


def test_unoduo_db_verify_and_rebuild_on_a_damaged_file_say_so_in_one_line(
    played: tuple[Path, str], tmp_path: Path
) -> None:
    path = damaged_copy(played, tmp_path, "events")
    for command in ("verify", "rebuild"):
        one_line_saying_damaged(unoduo("db", command, "--db", f"sqlite:///{path}"), path)
    whole, _ = played
    verified = unoduo("db", "verify", "--db", f"sqlite:///{whole}")  # the whole file passes
    assert verified.returncode == 0 and "0 broken" in verified.stdout, verified


def test_postgres_corruption_states_count_as_damage_and_nothing_else_does() -> None:
    import psycopg
    from sqlalchemy.exc import DatabaseError, IntegrityError

    from server.store.errors import damage_reason

    assert damage_reason(DatabaseError("SELECT", {}, psycopg.errors.DataCorrupted("bad page"))) is not None
    assert damage_reason(DatabaseError("SELECT", {}, psycopg.errors.IndexCorrupted("bad index"))) is not None
    assert damage_reason(IntegrityError("INSERT", {}, psycopg.errors.UniqueViolation("dup"))) is None
    assert damage_reason(DatabaseError("SELECT", {}, sqlite3.OperationalError("database is locked"))) is None
