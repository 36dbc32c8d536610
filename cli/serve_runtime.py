"""What ``unoduo serve`` runs, for one server and for a supervisor's workers alike (:mod:`cli.serve_cmd`
is the command, :mod:`cli.serve_workers` the supervisor): stop requests kept from the first line,
the listening socket bound first, uvicorn configured with every limit, the timed garbage
collection, and where players connect.

The port is bound first, before the database is migrated or a director token is made: a
server that cannot listen stops (exit 2) without using anything up. Uvicorn is then handed
that bound socket. On Ctrl-C the open event streams are ended at once (``begin_shutdown``), so
the server stops quickly and quietly instead of waiting for them to time out. Ctrl-C and SIGTERM
are the process's own from its first line (:class:`StopRequests`): a stop asked at any moment,
even during start-up, is kept and obeyed, never an exception that could be lost.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import resource
import signal
import socket
import threading
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING

import typer

from server.settings import Settings

if TYPE_CHECKING:
    import uvicorn
    from fastapi import FastAPI

GRACEFUL_SHUTDOWN_SECONDS = 2  # what a request still running at Ctrl-C gets to finish
MAX_WORKERS = 64  # --workers


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequests:
    """Ctrl-C (SIGINT) and SIGTERM received by this process, counted by its own handler.

    Python's own Ctrl-C raises KeyboardInterrupt in whatever frame runs when the signal is
    handled. In a garbage collector's callback (SQLAlchemy's connection-pool finalizers) such an
    exception is printed as "Exception ignored" and lost: a server stopped while it started went
    on to serve for ever (a CI run's "the server did not stop on Ctrl-C", issue 33). Here a stop
    is a count that nothing can lose: the server made afterwards sees it (:func:`_server`: it
    stops as soon as it has started, through its normal shutdown), and while it serves uvicorn's
    own handlers take Ctrl-C the same way (a first one stops gracefully, a second at once).
    A second stop before the server serves forces: KeyboardInterrupt, as a migration or a
    recovery that takes too long must be left (``forcing`` is turned off once it serves, so the
    signals uvicorn passes on after its shutdown only count).
    """

    def __init__(self) -> None:
        self.count = 0
        self.forcing = True

    def _on_signal(self, _signum: int, _frame: FrameType | None) -> None:
        self.count += 1
        if self.count > 1 and self.forcing:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def installed(self) -> Iterator[StopRequests]:
        """This object's handler for Ctrl-C and SIGTERM while the block runs; the previous ones after.
        Only the main thread may handle signals: elsewhere (a test's runner thread) nothing changes."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = {sig: signal.signal(sig, self._on_signal) for sig in STOP_SIGNALS}
        try:
            yield self
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


BACKLOG = 511  # the kernel's queue of connections not yet accepted (Linux caps it at somaxconn)


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to (``host``, ``port``) and listening, as uvicorn would make it; OSError if
    it cannot be. It listens at once, so a connection made before the server runs (another server
    that read this process's peer URL, a client that saw the port printed) waits in the backlog
    instead of being refused; uvicorn listens on it again with its own backlog."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except BaseException:
        sock.close()
        raise
    return sock


def base_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


WILDCARD_HOSTS = ("", "0.0.0.0", "::")  # the names of "every address" of the machine


def peer_url(host: str, port: int) -> str:
    """The URL at which other servers reach a server listening on (``host``, ``port``): a wildcard
    address (every address of the machine) is named by the machine's host name."""
    return base_url(socket.gethostname() if host in WILDCARD_HOSTS else host, port)


def lan_address() -> str | None:
    """This machine's address on its network (the one its traffic leaves from), or None. A UDP
    socket "connected" to an outside address sends nothing; the kernel picks the route's source."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1 (RFC 5737): a route is chosen, no packet leaves
        address: str = probe.getsockname()[0]
        if not address.startswith("127.") and address != "0.0.0.0":
            return address
    return None


def where_players_connect(host: str, port: int) -> str:
    """What ``unoduo serve`` says the other laptops type: the machine's network address for a
    wildcard ``--host`` (0.0.0.0 is no address to give anyone), else ``--host`` itself; and, for a
    loopback host, that only this machine can connect."""
    if host in WILDCARD_HOSTS:
        address = lan_address()
        if address is None:
            return (
                "players on other machines: unoduo play --server http://THIS-MACHINE'S-ADDRESS:"
                f"{port} (hostname -I or ip -4 addr shows it)"
            )
        return f"players on other machines: unoduo play --server {base_url(address, port)}"
    if host == "localhost" or host.startswith("127.") or host == "::1":
        return "only this machine can connect; for other laptops: unoduo serve --host 0.0.0.0 (README)"
    return f"players on other machines: unoduo play --server {base_url(host, port)}"


def announce(host: str, port: int) -> None:
    """The start-up lines: where the server listens (and its docs), and what players elsewhere type."""
    url = base_url(host, port)
    typer.echo(f"unoduo server on {url}: API docs at {url}/docs, OpenAPI at {url}/openapi.json")
    typer.echo(where_players_connect(host, port))


def _bind_or_exit(host: str, port: int) -> socket.socket:
    try:
        return listening_socket(host, port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            reason = f"port {port} on {host} is in use (another server?); choose another with --port"
        elif exc.errno == errno.EACCES:
            reason = f"not allowed to listen on port {port} on {host}; choose a port above 1023 with --port"
        else:
            reason = f"cannot listen on {host} port {port}: {exc.strerror or exc}"
        typer.echo(f"unoduo serve: {reason}", err=True)
        raise typer.Exit(2) from None


def tune_garbage_collector() -> None:
    """Speed: keep what start-up made out of the collector's sight and collect less often.

    A live server makes many short-lived objects per command; the default thresholds (700)
    stopped the event loop often enough to be the tail of the round trips: `unoduo bench server
    --rate 500` p99 90 ms before, 34-55 ms after (docs/BENCHMARKS.md). At those thresholds the
    collector itself runs only every several minutes (not once in the soak's first 5 minutes)
    and the older generations about never, so the server collects on a timer as well
    (``Server.on_tick``, every :data:`COLLECT_SECONDS`).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    """The collector off while the block runs: for start-up, until :func:`tune_garbage_collector`.

    Speed: start-up imports and builds thousands of objects that all live on, and the collector
    went over them again and again as they came: 2% of `unoduo serve`'s start (callgrind). The one
    collection before serving (:func:`tune_garbage_collector`) finds what start-up left behind.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


# Memory: every connection leaves reference cycles behind (uvicorn's protocol and its transport,
# the socket's tasks); left to the thresholds above they piled up for minutes (about a hundred
# closed connections in the soak's first 5 minutes) and the heap grew to hold them (the soak's
# RSS growth, docs/RELIABILITY.md). So the server collects on a timer too (:class:`Collector`).
COLLECT_SECONDS = 30
DEEP_COLLECT_SECONDS = 600  # how often the timer's pass looks at every object, the old ones too


class Collector:
    """The server's timed collections: every :data:`COLLECT_SECONDS` one over the objects made since
    the last pass, whose survivors are then frozen; every :data:`DEEP_COLLECT_SECONDS` one over all.

    Speed: a full pass over 1,000 live matches' objects cost 0.7 s of CPU and stopped the event loop
    for up to 0.5 s every 30 s (2.2% of a core idle, measured); a pass over what is new costs what
    30 s of play made. A cycle that outlived a pass waits for the deep pass (at most 10 minutes).
    """

    def __init__(self) -> None:
        self.passes = 0

    def collect(self) -> None:
        self.passes += 1
        if self.passes % (DEEP_COLLECT_SECONDS // COLLECT_SECONDS) == 0:
            gc.unfreeze()
        gc.collect()
        gc.freeze()


TICKS_PER_SECOND = 10  # uvicorn's main loop ticks every 0.1 s
# A socket's keep-alive ping (uvicorn's default is 20 s): it finds clients that vanished without
# closing, and keeps a proxy's idle timeout (nginx: 60 s) from cutting a client that sends no pings
# of its own. Each costs the server a write, a pong to parse and two timers: 2,000 idle sockets
# took 1.9% of a core at 20 s (measured with and without pings); at 45 s about 0.8%.
WS_PING_SECONDS = 45.0


DESCRIPTORS_KEPT = 64  # descriptors left for the database, log files and the listening socket


def connection_cap(wanted: int) -> int:
    """``wanted`` open connections, or fewer if the process may not open that many descriptors."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - DESCRIPTORS_KEPT))


def uvicorn_config(app: FastAPI, settings: Settings, peer_ports: frozenset[int] = frozenset()) -> uvicorn.Config:
    """uvicorn's options from the settings: every limit of docs/SERVER.md "Connections and limits".

    Connections to a port of ``peer_ports`` (a worker's private port, where other servers forward
    their clients) are not counted against the per-address cap.
    """
    import uvicorn

    from server.connections import guarded_protocols

    trusted = settings.trusted_proxies.strip()
    # Behind a proxy every connection comes from the proxy's address: the proxy caps its clients.
    per_address = 0 if trusted else settings.connections_per_address
    http, ws, limits = guarded_protocols(
        settings.request_timeout_seconds, settings.max_head_bytes, per_address, peer_ports
    )
    app.state.connection_limits = limits
    app.state.peer_ports = peer_ports  # answered only with the servers' key (server.api.peer_port)
    # No permessage-deflate: a view is a kilobyte or two, and compressing every frame cost
    # about a tenth of the server's time under load (profiled with py-spy).
    return uvicorn.Config(
        app,
        log_level="info",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        http=http,
        ws=ws,
        ws_per_message_deflate=False,
        ws_ping_interval=WS_PING_SECONDS,
        ws_max_size=settings.max_body_bytes,  # a frame or message over the app's limit: closed 1009, unread
        proxy_headers=bool(trusted),  # uvicorn's default trusts X-Forwarded-For from 127.0.0.1
        forwarded_allow_ips=trusted or None,
        limit_concurrency=connection_cap(settings.max_connections),
        timeout_keep_alive=settings.keep_alive_seconds,
        backlog=BACKLOG,
    )


def _server(
    app: FastAPI,
    settings: Settings,
    stop: StopRequests,
    *,
    peer_ports: frozenset[int] = frozenset(),
    parent: int | None = None,
) -> uvicorn.Server:
    """The server of ``app``; it stops once ``stop`` has counted a request (one made before it ran
    too: it then starts and at once shuts down). ``parent``: the pid of the supervisor of
    ``--workers``; when it is gone (the worker was orphaned: killed with it, its parent's ``kill
    -9``), the server stops by itself."""
    import uvicorn

    from server.app import begin_shutdown
    from server.log_redaction import redact_uvicorn_logs

    collector = Collector()

    class Server(uvicorn.Server):
        async def serve(self, sockets: list[socket.socket] | None = None) -> None:
            stop.forcing = False  # from here uvicorn's handlers take the signals; what it passes on only counts
            await super().serve(sockets)

        async def on_tick(self, counter: int) -> bool:
            if stop.count:  # asked before uvicorn's handlers were in place
                self.should_exit = True
                self.force_exit = self.force_exit or stop.count > 1
            if counter and counter % (COLLECT_SECONDS * TICKS_PER_SECOND) == 0:
                collector.collect()  # on the event loop's thread: finalizers of loop objects run where they belong
            if parent is not None and counter % TICKS_PER_SECOND == 0 and os.getppid() != parent:
                self.should_exit = True  # the supervisor is gone: nobody would ever stop this worker
            return await super().on_tick(counter)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            begin_shutdown(app)  # open follow streams end now; their connections can close
            await super().shutdown(sockets)

    config = uvicorn_config(app, settings, peer_ports)
    redact_uvicorn_logs()  # after the config, which sets uvicorn's logging up
    return Server(config)
