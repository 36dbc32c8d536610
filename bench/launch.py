"""The one server launcher, of the bench harness and of the tests: a fresh database, and ``unoduo
serve`` as a real process on a free loopback port, started (again, on the same port, after a
kill), waited for until it answers, killed, stopped with Ctrl-C.

Every run that needs a real server (``bench server``, ``bench tournament``, ``bench soak``,
``bench chaos``) starts it here, and so does every end-to-end test (``tests/cli/serving.py`` is
the tests' front to it: their environment, their output, their failures), so they agree on the
command, the environment (house bots that answer at once unless told otherwise; the harness's
registrations unlimited: it registers its players from one address at once), on how long a
start may take, and on what a clean stop is.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any, AnyStr

import httpx

from bench.progress import STALL_SECONDS

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
STOP_SECONDS = 20.0  # after Ctrl-C, a server still running this much later is killed (not a clean stop)


SERVE = [sys.executable, "-m", "cli.main", "serve"]  # ``unoduo serve`` from this checkout


class BenchError(RuntimeError):
    """The run could not go on: a server that does not start, a request that fails, a database that cannot be made."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def postgres_schema(postgres_url: str, prefix: str, application_name: str | None = None) -> Iterator[str]:
    """A fresh schema on ``postgres_url``, dropped at the end: the URL that works in it (its search
    path, and the application name, if given, by which its connections can be found)."""
    import sqlalchemy
    from sqlalchemy import make_url, text

    schema = f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"
    admin = sqlalchemy.create_engine(postgres_url, pool_size=1)
    try:
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        query = {"options": f"-csearch_path={schema}"}
        if application_name is not None:
            query["application_name"] = application_name
        yield make_url(postgres_url).update_query_dict(query).render_as_string(hide_password=False)
    finally:
        with contextlib.suppress(Exception), admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@contextlib.contextmanager
def database(kind: str, postgres_url: str, prefix: str = "unoduo_bench") -> Iterator[str]:
    """A fresh, empty database: a SQLite file in a temporary directory (``kind`` "sqlite"), or a new
    schema on ``postgres_url``. The server migrates it when it starts."""
    if kind == "sqlite":
        with TemporaryDirectory(prefix=prefix.replace("_", "-") + "-") as tmp:
            yield f"sqlite:///{tmp}/bench.sqlite3"
        return
    with postgres_schema(postgres_url, prefix) as url:
        yield url


def process_env(**settings: str) -> dict[str, str]:
    """The environment of any server started here: this checkout's code, unbuffered output, house
    bots that answer at once, no database but the one its command line names; ``settings``
    (``UNODUO_…`` names) add or override."""
    env = {**os.environ, "UNODUO_BOT_THINK_SECONDS": "0", "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
    env.pop("UNODUO_DATABASE_URL", None)  # --db says which
    env.update(settings)
    return env


def server_env(**settings: str) -> dict[str, str]:
    """The environment of a bench server: :func:`process_env`, with registrations and wrong tokens
    unthrottled (every player registers from this one address); ``settings`` add or override."""
    unthrottled = {"UNODUO_REGISTER_PER_MINUTE": "0", "UNODUO_CONNECTIONS_PER_ADDRESS": "0"}
    return process_env(**{**unthrottled, **settings})


def wait_answering(
    base: str, process: subprocess.Popen[Any], fail: Callable[[str], Exception], path: str = "/api"
) -> float:
    """Wait until ``GET base+path`` answers 200: the seconds that took. A process that exits fails at
    once, ``fail(why)`` raised; one that neither answers nor exits for the harness's stall window is
    stuck (a start is never failed for being slow: a loaded machine took more than 30 s)."""
    began = time.monotonic()
    while time.monotonic() - began < STALL_SECONDS:
        if process.poll() is not None:
            raise fail(f"exited at start (code {process.returncode})")
        try:
            if httpx.get(f"{base}{path}", timeout=2.0).status_code == 200:
                return time.monotonic() - began
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise fail(f"neither answered nor exited in {STALL_SECONDS:.0f} s")


def interrupt(process: subprocess.Popen[AnyStr], seconds: float = STOP_SECONDS) -> tuple[int | None, AnyStr | None]:
    """Ctrl-C (SIGINT), as an operator stops a server: its exit status (None: still running
    ``seconds`` later, so it was killed) and its output, if it went to a pipe."""
    if process.poll() is not None:
        return process.returncode, process.communicate()[0]
    process.send_signal(signal.SIGINT)
    try:
        output = process.communicate(timeout=seconds)[0]
    except subprocess.TimeoutExpired:
        process.kill()
        return None, process.communicate()[0]
    return process.returncode, output


class ServerProcess:
    """``python -m cli.main serve`` on a free loopback port of its own; its output appended to ``log_path``;
    ``args`` more options of ``serve`` (``--workers 2``)."""

    def __init__(
        self,
        db_url: str,
        log_path: Path,
        settings: Mapping[str, str] | None = None,
        name: str = "the server",
        args: Sequence[str] = (),
    ) -> None:
        self.name = name
        self.args = list(args)
        self.db_url = db_url
        self.log_path = log_path
        self.env = server_env(**dict(settings or {}))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.returncode: int | None = None  # of the last stop (None: it had to be killed)
        self.starts = 0
        self.kills = 0
        self.up = False

    def argv(self) -> list[str]:
        """The command line that starts it (another program that answers ``GET /api`` may override it)."""
        return [*SERVE, "--host", "127.0.0.1", "--port", str(self.port), *self.args, "--db", self.db_url]

    def rss_kib(self) -> int | None:
        """Its resident memory now (``VmRSS``, KiB); None when it is not running or /proc cannot say."""
        if self.process is None or self.process.poll() is not None:
            return None
        try:
            for line in Path(f"/proc/{self.process.pid}/status").read_text(encoding="ascii").splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        except (OSError, ValueError, IndexError):
            pass
        return None

    def start(self) -> float:
        """Start it and wait until ``GET /api`` answers; the seconds that took (a recovery included).
        A process that exits fails at once; one that neither answers nor exits for the harness's
        stall window is stuck (a start is never failed for being slow)."""
        began = time.monotonic()
        with self.log_path.open("ab") as log:
            log.write(f"\n===== start {self.starts + 1} of {self.name} =====\n".encode())
            log.flush()
            self.process = subprocess.Popen(self.argv(), cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        self.starts += 1
        wait_answering(self.base, self.process, lambda why: BenchError(f"{self.name} {why}:\n{self.log_tail()}"))
        self.up = True
        return time.monotonic() - began

    def kill(self) -> None:
        """SIGKILL: a crash; nothing is flushed or shut down."""
        process = self.process
        self.up = False
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGKILL)
        process.wait()
        self.kills += 1

    def stop(self) -> int | None:
        """Ctrl-C (SIGINT), as an operator stops it; its exit status, also kept in ``returncode``
        (None: still running :data:`STOP_SECONDS` later, so it was killed)."""
        self.up = False
        self.returncode = None if self.process is None else interrupt(self.process)[0]
        return self.returncode

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def log_problems(self) -> list[str]:
        """What its log shows went wrong: a traceback (with its context), a 500 answered."""
        log = self.log_text()
        found: list[str] = []
        if "Traceback" in log:
            at = log.index("Traceback")
            found.append(f"{self.name} logged a traceback:\n{log[max(0, at - 300) : at + 1500]}")
        if " 500 Internal Server Error" in log:
            found.append(f"{self.name} answered 500 (see its log)")
        return found
