"""Running ``unoduo serve`` as a real process in tests: the tests' front to the one launcher,
``bench/launch.py`` (its command, environment, wait until it answers and Ctrl-C stop), with the
tests' own environment (quick SQLite, no director token unless given), output (one text pipe or a
log file) and failures (AssertionError with the server's output)."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from bench.launch import ROOT, SERVE, free_port, interrupt, process_env, wait_answering
from bench.progress import STALL_SECONDS

__all__ = ["ROOT", "STALL_SECONDS", "free_port", "running", "serve", "serve_env", "stop", "wait_until_up"]

STOP_SECONDS = 15.0  # after Ctrl-C, a test server still running this much later fails its test


def serve_env(**settings: str) -> dict[str, str]:
    """The environment of a test server: the launcher's (bots that answer at once, this checkout),
    quick SQLite, no outside database or director token unless ``settings`` (``UNODUO_…`` names)
    give them."""
    env = process_env(UNODUO_SQLITE_SYNCHRONOUS="NORMAL")
    env.pop("UNODUO_DIRECTOR_TOKEN", None)
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
            [*SERVE, *args],
            cwd=cwd,
            env=env if env is not None else serve_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )


def wait_until_up(base: str, process: subprocess.Popen[str]) -> None:
    """Wait until the server answers; a process that exits fails at once, with its output."""

    def failure(why: str) -> AssertionError:
        output = process.communicate()[0] if process.poll() is not None else "(still running)"
        return AssertionError(f"the server {why}: {output}")

    wait_answering(base, process, failure)


def stop(process: subprocess.Popen[str]) -> str:
    """Ctrl-C; the server must exit 0 within :data:`STOP_SECONDS`. Its output ("" when it went to a log file)."""
    code, output = interrupt(process, STOP_SECONDS)
    if code is None:
        raise AssertionError(f"the server did not stop on Ctrl-C:\n{output}")
    assert code == 0, output
    return output or ""


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
