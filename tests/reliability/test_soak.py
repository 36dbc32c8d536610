"""``unoduo bench soak --quick`` as a test: one minute of tournaments, players and spectators over
WS against a real server, on SQLite (through the command, as an operator runs it) and on
PostgreSQL: no error, RSS flat, no descriptor growth, ``unoduo db verify`` clean
(``bench.soak`` checks all of it; docs/RELIABILITY.md has the figures of the ten-minute runs)."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bench.soak import DB_CONNECTIONS_BOUND, DatabaseFiles, Options, Reading, Report, read_process, run_soak
from tests.cli.serving import ROOT
from tests.server.store.helpers import PG_URL


def test_quick_soak_on_sqlite() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "bench", "soak", "--quick", "--seed", "7"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,  # not a budget (the soak's stages are timed by the soak): a hung run is stopped
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "result: OK" in done.stdout and "errors: 0" in done.stdout
    assert "streams checked, 0 broken" in done.stdout


def test_quick_soak_on_postgres(postgres_reachable: None) -> None:
    options = Options.quick()
    options.db, options.postgres_url, options.seed = "postgres", PG_URL, 7
    report = run_soak(options, lambda _line: None)
    assert report.ok, "\n".join(report.problems()[:20])
    counts = report.counts
    assert (
        counts.player_matches_finished >= 1 and counts.tournament_matches >= 1
    )  # a tournament may not finish in 1 min
    assert counts.commands > 100 and counts.spectator_messages > counts.commands
    assert report.end is not None and report.end.db_connections >= 1  # its sockets to PostgreSQL, told apart


def test_the_soak_fails_on_growth_and_errors() -> None:
    """The verdict itself: memory over +10%, one more descriptor, an error, a dirty verify, a server
    that did not stop cleanly each fail it."""
    base = Reading(0.0, 100_000, 4, 20)

    def report(end: Reading, **extra: object) -> Report:
        r = Report(Options.quick(), baseline=base, end=end, verify_ok=True, server_exit=0)
        r.counts.player_matches_finished = r.counts.tournament_matches = 1
        r.samples = [("soak", base), ("soak", Reading(30.0, end.rss_kib, 4, 20))]
        for name, value in extra.items():
            setattr(r, name, value)
        return r

    assert report(Reading(60.0, 109_000, 4, 20)).ok
    assert not report(Reading(60.0, 111_000, 4, 20)).ok
    assert not report(Reading(60.0, 100_000, 5, 20)).ok
    assert not report(Reading(60.0, 100_000, 4, 20), errors=["a refusal"]).ok
    assert not report(Reading(60.0, 100_000, 4, 20), verify_ok=False).ok
    assert not report(Reading(60.0, 100_000, 4, 20), server_exit=1).ok
    # Database connections are the pool's to bound: more of them is no growth, past the pool's size is.
    assert report(Reading(60.0, 100_000, 4, 20, db_connections=DB_CONNECTIONS_BOUND)).ok
    assert not report(Reading(60.0, 100_000, 4, 20, db_connections=DB_CONNECTIONS_BOUND + 1)).ok


def test_descriptors_are_told_apart(tmp_path: Path) -> None:
    """The reading of a real process: this one, with a SQLite file of its own open twice."""
    db = tmp_path / "x.sqlite3"
    first, second = sqlite3.connect(db), sqlite3.connect(db)
    try:
        reading = read_process(os.getpid(), 0.0, DatabaseFiles.of(f"sqlite:///{db}"))
        assert reading.db_connections == 2 and reading.rss_kib > 0
        with socket.socket() as extra:
            extra.bind(("127.0.0.1", 0))
            assert read_process(os.getpid(), 0.0, DatabaseFiles.of(f"sqlite:///{db}")).sockets == reading.sockets + 1
    finally:
        first.close()
        second.close()
    assert DatabaseFiles.of("postgresql+psycopg://u@h:5433/d").postgres_port == 5433


def test_a_clients_live_connection_is_not_the_servers_but_one_left_half_closed_is() -> None:
    """The soak's CI flake: an idle keep-alive the bench's own HTTP pool held read as a server
    descriptor more. A connection accepted on the serving port and still open at both ends is the
    client's; once the client has closed it and the server has not (CLOSE_WAIT), it counts."""
    db = DatabaseFiles(sqlite_file="/nonexistent")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = listener.accept()
        try:
            everything = read_process(os.getpid(), 0.0, db).sockets
            served = read_process(os.getpid(), 0.0, db, port).sockets
            assert served == everything - 1  # the accepted end, ESTABLISHED, is not counted
            client.close()

            def excluded() -> int:
                return read_process(os.getpid(), 0.0, db).sockets - read_process(os.getpid(), 0.0, db, port).sockets

            for _ in range(100):  # the FIN arrives at once on loopback; give it a moment
                if excluded() == 0:
                    break
                time.sleep(0.01)
            assert excluded() == 0  # the client has gone: the accepted end (CLOSE_WAIT) counts again
        finally:
            accepted.close()
