"""The supervisor of ``unoduo serve --workers N`` (``cli/serve_workers.py``), with stand-in workers.

Real workers are tested end to end in ``test_serve_workers.py``; here the workers are tiny
Python processes, so that what the supervisor does with them is quick to see: a worker that
keeps dying stops the server (exit 1) after a bounded number of restarts, and a stop (SIGTERM
here, as Ctrl-C) reaches every worker once and the supervisor returns 0 when they have all
stopped. A bad ``UNODUO_PEER_HOST`` is refused before anything is made.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench.progress import STALL_SECONDS
from cli.main import app
from cli.serve_runtime import listening_socket
from cli.serve_workers import STOPS_IN_A_BURST, Supervisor

# A worker that stops when told to (SIGTERM), saying so in the file named by its first argument
# (where it says first that it is ready to be told).
STOPPABLE = """
import signal, sys, time
def stop(signum, frame):
    open(sys.argv[1], "a").write(f"stopped by {signal.Signals(signum).name}\\n")
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
open(sys.argv[1], "a").write("ready\\n")
while True:
    time.sleep(0.05)
"""


class StandIns(Supervisor):
    """A supervisor whose workers run ``script``."""

    def __init__(self, script: str, *args: str) -> None:
        self.listener_socket = listening_socket("127.0.0.1", 0)
        super().__init__(self.listener_socket, 2, dict(os.environ))
        self.script = script
        self.args = args
        self.pids: list[int] = []

    def _start(self, number: int) -> subprocess.Popen[bytes]:
        process = subprocess.Popen([sys.executable, "-c", self.script, *self.args])
        self.pids.append(process.pid)
        return process


def test_a_worker_that_keeps_dying_stops_the_server(capsys: pytest.CaptureFixture[str]) -> None:
    supervisor = StandIns("raise SystemExit(3)")
    try:
        assert supervisor.run() == 1
    finally:
        supervisor.listener_socket.close()
    err = capsys.readouterr().err
    gave_up = re.search(rf"worker (\d) \(pid \d+\) exited with code 3: {STOPS_IN_A_BURST} stops in 60 s, it would", err)
    assert gave_up is not None, err
    restarted = rf"worker {gave_up.group(1)} \(pid \d+\) exited with code 3; a new one starts in 1 s"
    assert len(re.findall(restarted, err)) == STOPS_IN_A_BURST - 1, err  # then no more
    assert err.count("stopping the server") == 1
    assert len(supervisor.pids) <= 2 * STOPS_IN_A_BURST


def test_a_stop_reaches_every_worker_once_and_the_supervisor_returns_when_they_have(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = tmp_path / "said.txt"
    supervisor = StandIns(STOPPABLE, str(said))

    def stop_when_running() -> None:
        deadline = time.monotonic() + STALL_SECONDS
        while time.monotonic() < deadline:
            if said.exists() and said.read_text().count("ready") == 2:
                # The supervisor's own handler is installed while its workers run: this is its Ctrl-C.
                os.kill(os.getpid(), signal.SIGTERM)
                return
            time.sleep(0.05)
        supervisor.stops_asked += 1  # the workers never got ready (the test fails): end the run all the same

    stopper = threading.Thread(target=stop_when_running)
    stopper.start()
    try:
        assert supervisor.run() == 0
    finally:
        stopper.join()
        supervisor.listener_socket.close()
    assert sorted(said.read_text().splitlines()) == ["ready"] * 2 + ["stopped by SIGTERM"] * 2
    assert all(not Path(f"/proc/{pid}").exists() for pid in supervisor.pids)
    assert len(supervisor.pids) == 2
    assert "stopping 2 workers" in capsys.readouterr().out


def test_an_address_the_workers_cannot_listen_on_is_refused_first() -> None:
    never = "postgresql+psycopg://nobody@127.0.0.1:1/never"  # not reached: the setting is refused first
    env = {"UNODUO_PEER_HOST": "192.0.2.1", "UNODUO_DATABASE_URL": never}  # TEST-NET-1: no host's own address
    result = CliRunner().invoke(app, ["serve", "--port", "8000", "--workers", "2"], env=env)
    assert result.exit_code == 2, result.output
    assert "cannot listen on UNODUO_PEER_HOST '192.0.2.1' (the workers' peer ports)" in result.stderr
