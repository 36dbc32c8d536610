"""``unoduo serve`` start-up problems users found: a port in use, a plain file path for ``--db``,
an unparseable URL, and a start-up line that pointed at a 404."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx
from typer.testing import CliRunner

from cli.main import app
from server.db import url_or_path
from tests.cli.serving import ROOT, free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import ok


def test_a_port_in_use_stops_the_server_before_it_migrates_or_prints_a_token(tmp_path: Path) -> None:
    database = tmp_path / "never.sqlite3"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--db", f"sqlite:///{database}"],
            cwd=ROOT,
            env=serve_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"port {port} on 127.0.0.1 is in use" in done.stderr
    assert "token" not in done.stdout + done.stderr and done.stdout == ""
    assert not database.exists()  # nothing migrated, no director token made


def test_db_takes_a_plain_file_path_as_sqlite(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    (tmp_path / "data").mkdir()
    process = serve("--port", str(port), "--db", "data/plain.sqlite3", cwd=tmp_path)  # relative to the cwd
    try:
        wait_until_up(base, process)
        info = ok(httpx.get(f"{base}/", timeout=5))
        assert info["name"] == "unoduo" and info["docs"] == "/docs" and info["api"] == "/api"
        assert ok(httpx.get(f"{base}/api", timeout=5)) == info
        assert httpx.get(f"{base}/docs", timeout=5).status_code == 200
    finally:
        output = stop(process)
    assert (tmp_path / "data" / "plain.sqlite3").is_file()
    assert f"{base}/docs" in output and "director token" in output


def test_an_unparseable_database_url_says_which_forms_work(tmp_path: Path) -> None:
    runner = CliRunner()
    for bad in ("nosuch:thing", "postgresql+psycopg://user@host:port/db"):
        result = runner.invoke(app, ["serve", "--port", str(free_port()), "--db", bad])
        assert result.exit_code == 2, result.output
        message = result.stderr
        assert "not a database URL" in message, message
        assert "sqlite:///" in message and "postgresql+psycopg://" in message and "file path" in message, message
        assert "token" not in result.stdout


def test_url_or_path(tmp_path: Path) -> None:
    assert url_or_path("sqlite:///./x.sqlite3") == "sqlite:///./x.sqlite3"
    assert url_or_path("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
    assert url_or_path("nosuch:thing") == "nosuch:thing"  # left for the URL parser to refuse
    assert url_or_path(str(tmp_path / "a.sqlite3")) == f"sqlite:///{tmp_path / 'a.sqlite3'}"
    assert url_or_path("rel.sqlite3") == f"sqlite:///{Path.cwd() / 'rel.sqlite3'}"
