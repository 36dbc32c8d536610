"""Running ``unoduo serve`` as a real process in tests: start it, wait for it, stop it."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import httpx

from bench.progress import STALL_SECONDS

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serve_env(**settings: str) -> dict[str, str]:
    """The environment of a test server: quick SQLite, bots that answer at once, no outside
    database or director token unless ``settings`` (``UNODUO_…`` names) give them."""
    env = {
        **os.environ,
        "UNODUO_SQLITE_SYNCHRONOUS": "NORMAL",
        "UNODUO_BOT_THINK_SECONDS": "0",
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("UNODUO_DIRECTOR_TOKEN", None)
    env.pop("UNODUO_DATABASE_URL", None)
    env.update(settings)
    return env


def serve(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT, log: Path | None = None
) -> subprocess.Popen[str]:
    """``unoduo serve ARGS`` as a process, its output (stdout and stderr) in one text pipe, or in
    the file ``log``: a long test that never reads the pipe would fill it with the access log,
    and the server would then stall on its next write."""
    with contextlib.ExitStack() as files:
        out: IO[str] | int = files.enter_context(log.open("w")) if log is not None else subprocess.PIPE
        return subprocess.Popen(
            [sys.executable, "-m", "cli.main", "serve", *args],
            cwd=cwd,
            env=env if env is not None else serve_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )


def wait_until_up(base: str, process: subprocess.Popen[str], seconds: float = STALL_SECONDS) -> None:
    """Wait until the server answers; a process that exits fails at once. ``seconds`` is a cap
    whose expiry is a clear failure (a server that neither answers nor exits), not a budget: a
    loaded machine can take tens of seconds to start one (CI saw more than 30)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server exited early: {process.communicate()}"
        try:
            if httpx.get(f"{base}/openapi.json", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"the server neither answered nor exited in {seconds:g} s")


def stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    try:
        output, _ = process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        raise AssertionError(f"the server did not stop on Ctrl-C:\n{output}") from None
    assert process.returncode == 0, output
    return output or ""  # "" when the output went to a log file


@contextlib.contextmanager
def running(db: Path, *, clean: bool = False, **settings: str) -> Iterator[str]:
    """``unoduo serve`` on the SQLite file ``db`` with ``settings`` (``UNODUO_…`` names, over
    :func:`serve_env`'s), up: its base URL; stopped afterwards, also when it never came up.
    ``clean``: the server's output must hold no traceback."""
    port = free_port()
    process = serve("--port", str(port), "--db", f"sqlite:///{db}", env=serve_env(**settings))
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        yield base
    finally:
        output = stop(process)
    assert not clean or "Traceback" not in output, output
