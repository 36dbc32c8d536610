"""``unoduo serve --workers N``: N server processes on one port, under a small supervisor.

The supervisor (the ``unoduo serve`` process itself) binds the public port as a single server
does, migrates the database, registers the house bots and makes the director's token known
(printing a generated one once), then starts N worker processes. Each inherits the listening
socket (``pass_fds``) and serves it with its own uvicorn server, so the kernel hands each new
connection to one of them. Each worker also listens on a private port of its own (any free one
on ``UNODUO_PEER_HOST``, 127.0.0.1 by default) and makes that its ``peer_url``: where the other
servers on the database forward the commands and sockets of the matches this worker owns.
Connections to the private port are not counted against the per-address cap (they all come
from a few peers). PostgreSQL only: a SQLite database is one process's.

Ctrl-C or SIGTERM to the supervisor stops every worker gracefully (SIGTERM to each: it stops as
a single server does at Ctrl-C); a second Ctrl-C makes them stop at once. Every process counts
its stops with its own handler from its start (:class:`cli.serve_runtime.StopRequests`): a stop that
reaches a worker still starting, or the supervisor while it prepares the database, is obeyed as
soon as that is done (a worker's server starts and at once shuts down; the supervisor starts no
workers), never lost. The supervisor exits
when they all have. A worker that exits on its own (a crash, ``kill -9``) is started again after
:data:`RESTART_PAUSE_SECONDS`; one that stops :data:`STOPS_IN_A_BURST` times within
:data:`BURST_SECONDS` stops the whole server (exit 1) instead. A worker whose supervisor is gone
stops by itself (it checks its parent every second). Workers run in a process group of their
own, so a terminal's Ctrl-C reaches only the supervisor, which passes one stop on to each.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field

import typer

from cli.db_guard import guarded
from cli.serve_runtime import (
    BACKLOG,
    StopRequests,
    _bind_or_exit,
    _server,
    announce,
    collector_off,
    listening_socket,
    peer_url,
    tune_garbage_collector,
)
from server.settings import Settings

RESTART_PAUSE_SECONDS = 1.0  # between a worker's death and its replacement
STOPS_IN_A_BURST = 5  # a worker that stops this often ...
BURST_SECONDS = 60.0  # ... within this long stops the server: it would only keep dying
STOP_SECONDS = 30.0  # what the workers get to stop after Ctrl-C before they are killed
POLL_SECONDS = 0.1  # how often the supervisor looks at its workers


def serve_workers(settings: Settings, host: str, port: int, workers: int, stop: StopRequests) -> None:
    """``unoduo serve --workers N`` (N > 1): exit 2 on SQLite, else supervise until Ctrl-C."""
    from server.db import normalize_url

    if normalize_url(settings.database_url).get_backend_name() != "postgresql":
        typer.echo(
            f"unoduo serve: --workers {workers} needs PostgreSQL: a SQLite database is served by one process "
            "(use --workers 1, or a postgresql+psycopg:// database)",
            err=True,
        )
        raise typer.Exit(2)
    if settings.peer_url:
        typer.echo(
            "unoduo serve: UNODUO_PEER_URL names one process, but each of the --workers is reached at a port of "
            "its own; unset it (UNODUO_PEER_HOST chooses the workers' address)",
            err=True,
        )
        raise typer.Exit(2)
    try:
        listening_socket(settings.peer_host, 0).close()  # each worker's peer port will be one like it
    except OSError as exc:
        typer.echo(f"unoduo serve: {_peer_host_problem(settings.peer_host, exc)}", err=True)
        raise typer.Exit(2) from None
    listener = _bind_or_exit(host, port)
    try:
        token = guarded("unoduo serve", lambda: prepare_database(settings))
        if token:
            typer.echo(f"director token (shown only now; the server keeps its hash): {token}")
        announce(host, port)
        typer.echo(f"unoduo serve: {workers} workers share port {port}; Ctrl-C stops them all")
        if stop.count:  # Ctrl-C while the database was being prepared
            typer.echo("unoduo serve: stopped before the workers started")
            return
        listener.listen(BACKLOG)  # connections wait in the kernel's queue while no worker takes them yet
        environment = {**os.environ, "UNODUO_DATABASE_URL": settings.database_url}
        code = Supervisor(listener, workers, environment, stop).run()
    finally:
        listener.close()
    if code:
        raise typer.Exit(code)


def _peer_host_problem(host: str, exc: OSError) -> str:
    return f"cannot listen on UNODUO_PEER_HOST {host!r} (the workers' peer ports): {exc.strerror or exc}"


def prepare_database(settings: Settings) -> str | None:
    """What ``make_app`` does first, done once before the workers start (they find it done): the
    migration, the house bots, the director's token (returned if it was generated now)."""
    from server.services.players import ensure_house_bots
    from server.store.event_store import EventStore
    from server.store.secrets import ensure_director_token

    with EventStore.open(settings.database_url, settings) as store:
        ensure_house_bots(store)
        return ensure_director_token(store, settings.director_token)


def _how_it_ended(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


@dataclass
class Worker:
    """One worker's place: its number (1 … N), its current process, and when it is due to restart."""

    number: int
    process: subprocess.Popen[bytes]
    restart_at: float | None = None  # set while it is dead and waiting to be started again
    deaths: deque[float] = field(default_factory=deque)  # when it stopped, within the last BURST_SECONDS


class Supervisor:
    """Starts the workers on ``listener``, restarts those that die, stops them all on Ctrl-C/SIGTERM."""

    def __init__(
        self, listener: socket.socket, count: int, environment: dict[str, str], stop: StopRequests | None = None
    ) -> None:
        self.listener = listener
        self.count = count
        self.environment = environment
        self.workers: list[Worker] = []
        self.stop = stop if stop is not None else StopRequests()  # Ctrl-Cs and SIGTERMs received
        self.stops_asked = 0  # the supervisor's own stops (a worker that keeps dying)
        self.stops_sent = 0
        self.failed = False

    def _start(self, number: int) -> subprocess.Popen[bytes]:
        fd = self.listener.fileno()
        command = [sys.executable, "-m", "cli.serve_workers", str(fd), str(number), str(os.getpid())]
        process = subprocess.Popen(command, pass_fds=(fd,), env=self.environment, process_group=0)
        typer.echo(f"worker {number} started: pid {process.pid}")
        return process

    def run(self) -> int:
        """Supervise until every worker has stopped after a stop; 0, or 1 if a worker kept dying."""
        with self.stop.installed():
            self.stop.forcing = False  # a second Ctrl-C is passed on to the workers: they stop at once
            return self._supervise()

    def _supervise(self) -> int:
        try:
            self.workers = [Worker(n, self._start(n)) for n in range(1, self.count + 1)]
            stop_deadline: float | None = None
            while True:
                asked = self.stop.count + self.stops_asked
                if asked > self.stops_sent:
                    if stop_deadline is None:
                        live = sum(w.process.poll() is None for w in self.workers)
                        typer.echo(f"unoduo serve: stopping {live} workers")
                        stop_deadline = time.monotonic() + STOP_SECONDS
                    # First a graceful stop; another Ctrl-C is uvicorn's "stop at once" (a second SIGINT).
                    self._signal_all(signal.SIGTERM if self.stops_sent == 0 else signal.SIGINT)
                    self.stops_sent = asked
                if stop_deadline is not None:
                    if all(w.process.poll() is not None for w in self.workers):
                        break
                    if time.monotonic() > stop_deadline:
                        self._kill_stragglers()
                        break
                else:
                    self._look_after_workers()
                time.sleep(POLL_SECONDS)
        except BaseException:  # the supervisor itself failed (it could not start a process): stop them all
            self._signal_all(signal.SIGTERM)
            raise
        return 1 if self.failed else 0

    def _look_after_workers(self) -> None:
        now = time.monotonic()
        for worker in self.workers:
            if worker.restart_at is not None:
                if now >= worker.restart_at:
                    worker.restart_at = None
                    worker.process = self._start(worker.number)
                continue
            returncode = worker.process.poll()
            if returncode is None:
                continue
            worker.deaths.append(now)
            while worker.deaths and worker.deaths[0] < now - BURST_SECONDS:
                worker.deaths.popleft()
            ended = f"worker {worker.number} (pid {worker.process.pid}) {_how_it_ended(returncode)}"
            if len(worker.deaths) >= STOPS_IN_A_BURST:
                typer.echo(
                    f"unoduo serve: {ended}: {len(worker.deaths)} stops in {BURST_SECONDS:g} s, it would only "
                    "keep stopping; stopping the server",
                    err=True,
                )
                self.failed = True
                self.stops_asked += 1
                return
            typer.echo(f"unoduo serve: {ended}; a new one starts in {RESTART_PAUSE_SECONDS:g} s", err=True)
            worker.restart_at = now + RESTART_PAUSE_SECONDS

    def _signal_all(self, sig: signal.Signals) -> None:
        for worker in self.workers:
            if worker.process.poll() is None:
                try:
                    worker.process.send_signal(sig)
                except ProcessLookupError:  # pragma: no cover - it ended just now
                    pass

    def _kill_stragglers(self) -> None:
        for worker in self.workers:
            if worker.process.poll() is None:
                typer.echo(
                    f"unoduo serve: worker {worker.number} (pid {worker.process.pid}) did not stop in "
                    f"{STOP_SECONDS:g} s; killed",
                    err=True,
                )
                worker.process.kill()
                worker.process.wait()
        self.failed = True


def worker(fd: int, number: int, parent: int) -> None:
    """One worker: serve the inherited listening socket ``fd`` and a private peer port, until the
    supervisor (pid ``parent``) stops it (SIGTERM) or is gone."""
    with StopRequests().installed() as stop:  # the supervisor's stop (SIGTERM, then SIGINT), counted from now
        try:
            _work(fd, number, parent, stop)
        except KeyboardInterrupt:  # a second stop before the server served
            typer.echo(f"unoduo serve: worker {number} stopped at once before it served", err=True)
            raise typer.Exit(130) from None


def _work(fd: int, number: int, parent: int, stop: StopRequests) -> None:
    settings = Settings()  # the supervisor's environment, its database URL included
    shared = socket.socket(fileno=fd)
    try:
        try:
            private = listening_socket(settings.peer_host, 0)
        except OSError as exc:
            typer.echo(f"unoduo serve: worker {number}: {_peer_host_problem(settings.peer_host, exc)}", err=True)
            raise typer.Exit(2) from None
        try:
            peer_port: int = private.getsockname()[1]
            settings = settings.model_copy(update={"peer_url": peer_url(settings.peer_host, peer_port)})
            with collector_off():
                from server.app import make_app

                app = guarded("unoduo serve", lambda: make_app(settings))
                typer.echo(f"worker {number} (pid {os.getpid()}): other servers reach it at {settings.peer_url}")
                server = _server(app, settings, stop, peer_ports=frozenset({peer_port}), parent=parent)
            tune_garbage_collector()
            server.run(sockets=[shared, private])
        finally:
            private.close()
    finally:
        shared.close()
    if not server.started:
        typer.echo(f"unoduo serve: worker {number} did not start", err=True)
        raise typer.Exit(1)


if __name__ == "__main__":  # the supervisor's command for a worker: FD NUMBER PARENT_PID
    worker_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    worker_app.command()(worker)
    worker_app()
