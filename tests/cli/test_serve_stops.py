"""``unoduo serve`` stops on Ctrl-C whatever it is doing (issue 33, point 7).

CI once saw a ``--workers`` server not stop: the supervisor's stop reached a worker before its
server was serving, Python's default handler raised ``KeyboardInterrupt`` in the frame that was
running — one of SQLAlchemy's garbage-collector callbacks — and an exception raised there is
printed as "Exception ignored" and lost; the worker went on to serve for ever. Here the same is
made to happen on purpose: a ``sitecustomize`` (on ``PYTHONPATH`` of the server only) makes a stop
land inside a garbage-collector callback at a chosen moment of the start-up, and the test waits
for the server to exit. The other tests stop a server while it is busy: with requests in flight,
and while its workers are still starting.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.progress import STALL_SECONDS, wait_for
from tests.cli.serving import ROOT, free_port, serve, serve_env, wait_until_up

# Makes a signal land inside a garbage-collector callback, once, at the moment UNODUO_TEST_STOP_AT names:
#   serve: in a single server, Ctrl-C (SIGINT) to itself as its server is about to run;
#   worker: in worker 1 of --workers, the supervisor's stop as the worker's server is about to run
#           (the worker asks the supervisor for Ctrl-C, waits for the SIGTERM that follows with the
#           signal blocked, then lets it be handled inside the callback);
#   prepare: in the supervisor, Ctrl-C to itself while it prepares the database.
SITECUSTOMIZE = '''
import gc, os, signal, sys

AT = os.environ.get("UNODUO_TEST_STOP_AT", "")
MARK = os.environ.get("UNODUO_TEST_STOP_MARK", "")


class InTheCollector:
    """Cyclic garbage whose finalizer runs ``action`` during a gc.collect()."""

    def __init__(self, action):
        self.action = action
        self.cycle = self

    def __del__(self):
        self.action()


def collect_with(action):
    InTheCollector(action)
    gc.collect()


def once():
    try:
        os.close(os.open(MARK, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def ctrl_c_to_myself():
    signal.raise_signal(signal.SIGINT)  # handled right here, inside the collector


def the_supervisors_stop():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    os.kill(os.getppid(), signal.SIGINT)  # as a terminal's Ctrl-C to the supervisor
    signal.sigwait({signal.SIGTERM})  # the supervisor's stop to this worker ...
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    signal.raise_signal(signal.SIGTERM)  # ... handled here, inside the collector


WORKER = "cli.serve_workers" in sys.orig_argv  # python -m cli.serve_workers FD NUMBER PARENT

if AT and MARK:
    import cli.serve_runtime as serve_runtime  # patched before cli.serve_cmd and the supervisor import it

    tune = serve_runtime.tune_garbage_collector

    def tune_and_stop():
        if AT == "serve" and not WORKER and once():
            collect_with(ctrl_c_to_myself)
        elif AT == "worker" and WORKER and sys.orig_argv[-2] == "1" and once():
            collect_with(the_supervisors_stop)
        tune()

    serve_runtime.tune_garbage_collector = tune_and_stop
    if AT == "prepare" and not WORKER:
        import cli.serve_workers as serve_workers

        prepare = serve_workers.prepare_database

        def prepare_and_stop(settings):
            token = prepare(settings)
            if once():
                collect_with(ctrl_c_to_myself)
            return token

        serve_workers.prepare_database = prepare_and_stop
'''


def exited(process: subprocess.Popen[str], log: Path) -> int:
    """Wait for ``process`` to exit (STALL_SECONDS is a cap whose expiry fails clearly); its code."""
    try:
        return process.wait(timeout=STALL_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"the server did not stop on Ctrl-C; its output:\n{log.read_text()}") from None


@contextlib.contextmanager
def stopping_in_the_collector(
    tmp_path: Path, at: str, *args: str, **settings: str
) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = serve_env(
        PYTHONPATH=f"{hook}{os.pathsep}{ROOT}",
        UNODUO_TEST_STOP_AT=at,
        UNODUO_TEST_STOP_MARK=str(tmp_path / "stopped-once"),
        **settings,
    )
    log = tmp_path / "serve.log"
    process = serve("--port", str(free_port()), *args, env=env, log=log)
    try:
        yield process, log
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_single_server_stops_when_ctrl_c_lands_in_a_collector_callback(tmp_path: Path) -> None:
    with stopping_in_the_collector(tmp_path, "serve", "--db", str(tmp_path / "club.sqlite3")) as (process, log):
        assert exited(process, log) == 0, log.read_text()
    assert (tmp_path / "stopped-once").exists()  # the stop did land where it was meant to
    assert "Traceback" not in log.read_text(), log.read_text()


@pytest.mark.parametrize("db_kind", ["postgres"])
def test_a_worker_stops_when_the_supervisors_stop_lands_in_a_collector_callback(url: str, tmp_path: Path) -> None:
    with stopping_in_the_collector(tmp_path, "worker", "--workers", "2", UNODUO_DATABASE_URL=url) as (process, log):
        assert exited(process, log) == 0, log.read_text()
    output = log.read_text()
    assert (tmp_path / "stopped-once").exists()
    assert "stopping 2 workers" in output
    assert "did not stop" not in output and "Traceback" not in output, output


@pytest.mark.parametrize("db_kind", ["postgres"])
def test_the_supervisor_stops_when_ctrl_c_lands_in_a_collector_callback_before_the_workers_start(
    url: str, tmp_path: Path
) -> None:
    with stopping_in_the_collector(tmp_path, "prepare", "--workers", "2", UNODUO_DATABASE_URL=url) as (process, log):
        assert exited(process, log) == 0, log.read_text()
    output = log.read_text()
    assert "stopped before the workers started" in output, output
    assert "worker 1 started" not in output and "Traceback" not in output, output


def flood(base: str, stop: threading.Event) -> None:
    """Ask the server for pages as fast as it answers, until ``stop`` or it is gone."""
    with httpx.Client(base_url=base, timeout=STALL_SECONDS) as client:
        while not stop.is_set():
            try:
                client.get("/api/tournaments")
                client.post("/api/players", json={"name": f"p{threading.get_ident() % 10_000}-{os.urandom(3).hex()}"})
            except httpx.TransportError:
                return


@pytest.mark.parametrize(("db_kind", "workers"), [("sqlite", "1"), ("postgres", "1"), ("postgres", "2")])
def test_ctrl_c_stops_a_busy_server(url: str, workers: str, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    process = serve("--port", str(port), "--workers", workers, env=serve_env(UNODUO_DATABASE_URL=url), log=log)
    base = f"http://127.0.0.1:{port}"
    done = threading.Event()
    flooders = [threading.Thread(target=flood, args=(base, done)) for _ in range(4)]
    try:
        wait_until_up(base, process)
        for flooder in flooders:
            flooder.start()
        with httpx.Client(base_url=base, timeout=STALL_SECONDS) as client:
            client.get("/api/tournaments")  # the flood is under way: this answer waited its turn
        process.send_signal(signal.SIGINT)
        assert exited(process, log) == 0, log.read_text()
    finally:
        done.set()
        for flooder in flooders:
            if flooder.is_alive():
                flooder.join()
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Traceback" not in log.read_text(), log.read_text()


@pytest.mark.parametrize("db_kind", ["postgres"])
def test_ctrl_c_stops_workers_that_are_still_starting(url: str, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    process = serve("--port", str(free_port()), "--workers", "2", env=serve_env(UNODUO_DATABASE_URL=url), log=log)
    try:
        # As soon as the supervisor says it started a worker: that worker is importing and making its app.
        wait_for(lambda: "worker 1 started" in log.read_text() or process.poll() is not None, "worker 1 started")
        assert process.poll() is None, log.read_text()
        process.send_signal(signal.SIGINT)
        assert exited(process, log) == 0, log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    output = log.read_text()
    assert "did not stop" not in output and "Traceback" not in output, output


def test_a_forwarded_sockets_end_waits_less_than_a_stop_gives_it() -> None:
    """A socket joined to the match's owner on another server waits for the owner's closing
    handshake at most UPSTREAM_CLOSE_SECONDS: a stopping server gives a running request
    GRACEFUL_SHUTDOWN_SECONDS, and a wait cut off by the stop left a traceback in the log."""
    from cli.serve_runtime import GRACEFUL_SHUTDOWN_SECONDS
    from server.api.forwarding import UPSTREAM_CLOSE_SECONDS

    assert UPSTREAM_CLOSE_SECONDS < GRACEFUL_SHUTDOWN_SECONDS
