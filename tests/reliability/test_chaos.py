"""``unoduo bench chaos --quick`` as a test: servers killed with SIGKILL in the middle of a tournament
with clocks running and human clients keeping receipts, then the database taken away under load.

On SQLite (one server, started again on the same file after each kill; the outage is another
connection holding the write lock past the servers' busy timeout) and on PostgreSQL (two servers on
one schema, one of them killed while the other carries on; the outage is a private PostgreSQL
cluster stopped hard and started again, or, where none can be started here, the servers'
connections terminated over and over). Nothing a client was answered may be lost, nothing applied
twice, no request answered 500, and every tournament finishes with standings that add up
(``bench.chaos`` checks all of it; docs/RELIABILITY-chaos.md has the figures of the full runs).
The run waits on progress, never on a time budget: a loaded machine makes it slower, not failed.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from bench.chaos import Report, options_for, private_cluster_possible, run_chaos, server_error
from tests.cli.serving import ROOT
from tests.server.store.helpers import PG_URL

# Not a budget: the run fails by itself when nothing moves for bench.progress.STALL_SECONDS, however
# slow the machine; this only stops a hung harness from holding CI for ever.
HANG_SECONDS = 3600


def _check(report: Report, kills: int) -> None:
    assert report.ok, "\n".join(report.problems[:20])
    kill, outage = report.phases
    assert kill.kills == kill.restarts == kills
    assert not kill.not_resumed and kill.resumed_checks >= 1
    assert report.answers > 100 and report.receipts >= report.answers
    assert report.lost == report.duplicates == 0
    assert report.replays_verified >= len(kill.tournaments) * 6
    assert outage.outages == 1 and not outage.not_resumed
    during: Counter[str] = outage.outage_statuses
    assert sum(during.values()) > 0, "no request was made while the database was away"
    assert not any(server_error(s) for s in during), during
    assert not any(server_error(s) for s in report.statuses), report.statuses


def test_quick_chaos_on_sqlite_loses_nothing() -> None:
    """Through the command, as a user runs it: exit 0 and the report says nothing was lost."""
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "bench", "chaos", "--quick", "--db", "sqlite", "--seed", "7"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "result: OK, nothing lost" in done.stdout
    assert "duplicates: 0" in done.stdout and "kills: 3 SIGKILLs, 3 restarts" in done.stdout


def test_quick_chaos_on_postgres_two_servers_loses_nothing(postgres_reachable: None) -> None:
    outage = "restart" if private_cluster_possible() else "terminate"
    report = run_chaos(options_for("postgres", True, None, PG_URL, outage, seed=7), lambda _line: None)
    _check(report, 3)
    kill = report.phases[0]
    assert kill.down_checks >= 1, "no match was in play while a server was down"
    if outage == "restart":
        assert report.phases[1].outage_statuses["POST 503"] >= 1, report.phases[1].outage_statuses


@pytest.mark.parametrize("argv", [["--db", "mysql"], ["--db", "postgres", "--outage", "unplug"], ["--kills", "0"]])
def test_chaos_refuses_bad_options(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "bench", "chaos", *argv], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 2, done.stdout + done.stderr
