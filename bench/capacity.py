"""``unoduo bench capacity`` (the command is in ``cli.bench_cmd``): how many live matches at human
pace one ``unoduo serve`` process holds (issue 34), beside the machine's floor measured in the same run.

For each N of ``--matches``, one step on a fresh server and a fresh database (SQLite by default),
started as ``bench server`` starts it (:class:`bench.launch.ServerProcess`; limits raised for the
bench, see :data:`SETTINGS`):

- **set-up**: 2N registered players, N casual matches between two of them (one creates the match
  naming the other, both join): two human seats a match, no house bot.
- **sockets**: each seat on its own WebSocket, opened as the terminal client opens it
  (``frames=decision``, a keep-alive ping every :data:`PING_SECONDS`). The server's RSS is read
  before the matches, once they are live, and once the sockets are open: per match and per socket.
- **idle**: every socket open, nobody moving, for ``--idle-seconds``: the server's CPU as a share
  of one core.
- **play**: ``--seconds`` at human pace. The seat whose turn it is waits a think time uniform in
  :data:`THINK_SECONDS`, then sends the first legal command of its view with ``expected_version``;
  each match's first command comes at a random moment of its first think time, so the matches do
  not move in step. About 0.5 commands/s a match: N / 2 offered in all. Round trip: from the send
  to the ``result`` message answering it. Errors: any refusal but ``stale_version`` (counted
  apart), any socket closed other than by the match's end, an answer missing. A match that ends
  is replaced by a new one between the same two players (counted). Server CPU per accepted
  command: the server process's CPU (``/proc/PID/stat``) over the phase, over its commands.
- **floor**: the same steps against :func:`floor_app`, a tiny Starlette app under uvicorn set up
  as ``unoduo serve`` sets it up (httptools, websockets-sansio, no compression), whose socket
  handler answers each message with one ``INSERT`` + ``COMMIT`` into a WAL SQLite file at
  ``synchronous=FULL`` and an echo: what one command cannot cost less than on this machine.

The players are driven by one or more driver processes (asyncio, uvloop when installed; one per
:data:`MATCHES_PER_DRIVER` matches unless ``--drivers`` says), each holding its share of the
matches; their CPU is reported apart. They share the machine's cores with the server.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import math
import multiprocessing
import os
import random
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from bench.commands import first_legal
from bench.launch import DEFAULT_POSTGRES_URL, ROOT, BenchError, ServerProcess, database
from bench.progress import STALL_SECONDS
from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section
from bench.scale import tree_cpu_seconds
from bench.server import Client, Match, Player, _error_code, _gather_limited, _run_async, ms, percentile

SECTION = "## Capacity"
BEFORE = "### Before"  # a hand-kept subsection of the section that --write-docs keeps as it is
DEFAULT_MATCHES = (100, 500, 1000, 2000)
THINK_SECONDS = (1.0, 3.0)  # a seat's think time, uniform
PER_MATCH_RATE = 2 / (THINK_SECONDS[0] + THINK_SECONDS[1])  # commands/s offered a match: one per mean think time
PING_SECONDS = 20.0  # the terminal client's keep-alive ping (tui_client/connection/api.py)
MATCHES_PER_DRIVER = 500  # matches one driver process holds unless --drivers says
CONNECT_AT_ONCE = 16  # set-up requests and socket opens one driver makes at a time
SETTLE_SECONDS = 1.0  # after the sockets opened, before RSS and idle are read (their catch-up frames)
PROFILE_SECONDS = 20.0  # --py-spy: how long the server is sampled in each step's play phase
# A bench server holds thousands of sockets from one address and may take minutes to set up:
SETTINGS = {
    "UNODUO_MAX_CONNECTIONS": "20000",  # default 4096: 2 sockets a match
    "UNODUO_MOVE_SECONDS": "3600",  # default 60: no move clock runs out while 2,000 matches are set up or idle
}

# the targets of issue 34
TARGET_MATCHES = 1000
P99_TARGET_MS = 50.0
HOLD_P99_MS = 100.0  # the docs say how many live matches one process holds at this p99
IDLE_TARGET = 0.01  # of a core
FLOOR_FACTOR = 2.0


# ---------------------------------------------------------------- the driver processes


@dataclass
class Share:
    """What one driver process counted in a play phase."""

    seconds: float = 0.0
    commands: int = 0
    stale: int = 0
    finished: int = 0  # matches that ended (each replaced by a new one while the phase ran)
    round_trips: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class Table(abc.ABC):
    """Two seats, each on a socket of its own; the seat whose turn it is acts after a think time."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.sockets: list[ClientConnection | None] = [None, None]
        self.pending: list[tuple[str, float] | None] = [None, None]  # command id, perf_counter at send
        self.timers: list[asyncio.TimerHandle | None] = [None, None]
        self.acted = [-1, -1]  # the version each seat last decided on
        self.sent = 0
        self.readers: list[asyncio.Task[None]] = []
        self.life: asyncio.Task[None] | None = None

    @abc.abstractmethod
    def version(self, seat: int) -> int: ...

    @abc.abstractmethod
    def my_turn(self, seat: int) -> bool: ...

    @abc.abstractmethod
    def command(self, seat: int) -> dict[str, Any]: ...

    @abc.abstractmethod
    def receive(self, seat: int, message: dict[str, Any], at: float) -> None: ...

    @abc.abstractmethod
    def closed_as_expected(self, ws: ClientConnection) -> bool: ...

    @abc.abstractmethod
    async def start(self) -> None:
        """Make the match (or nothing): what the sockets are opened on."""

    @abc.abstractmethod
    async def connect(self, seat: int) -> ClientConnection: ...

    async def open(self) -> None:
        self.sockets = list(await asyncio.gather(self.connect(0), self.connect(1)))
        self.readers = [asyncio.ensure_future(self.read(seat)) for seat in (0, 1)]

    def consider(self, seat: int, first: bool = False) -> None:
        """Schedule ``seat``'s next command if it is to move, in a play phase, on a view it has not decided on."""
        d = self.driver
        if not d.playing or self.pending[seat] is not None or self.timers[seat] is not None:
            return
        if not self.my_turn(seat) or self.version(seat) <= self.acted[seat]:
            return
        self.acted[seat] = self.version(seat)
        think = d.rng.uniform(*THINK_SECONDS)
        self.timers[seat] = d.loop.call_later(think * d.rng.random() if first else think, self.fire, seat)

    def fire(self, seat: int) -> None:
        self.timers[seat] = None
        ws = self.sockets[seat]
        if not self.driver.playing or ws is None or not self.my_turn(seat):
            return
        self.sent += 1
        command_id = f"c{self.sent}"
        message = {
            "type": "command",
            "command_id": command_id,
            "expected_version": self.version(seat),
            "command": self.command(seat),
        }
        self.pending[seat] = (command_id, time.perf_counter())
        self.driver.spawn(self.send(ws, orjson.dumps(message).decode()))

    async def send(self, ws: ClientConnection, text: str) -> None:
        try:
            await ws.send(text)
        except ConnectionClosed as closed:
            if not self.driver.stopping:
                self.driver.share.errors.append(f"send on a closed socket: {closed}")

    def answered(self, seat: int, message: dict[str, Any], at: float) -> None:
        share = self.driver.share
        pending = self.pending[seat]
        if pending is None or message.get("command_id") != pending[0]:
            share.errors.append(f"a result to no command sent: {orjson.dumps(message)[:200].decode()}")
            return
        self.pending[seat] = None
        if message.get("ok"):
            share.round_trips.append(at - pending[1])
            share.commands += 1
        elif _error_code(message) == "stale_version":
            share.stale += 1
            self.acted[seat] = -1  # decide again on the next view
        else:
            share.errors.append(f"command refused: {orjson.dumps(message)[:300].decode()}")
        self.consider(seat)

    async def read(self, seat: int) -> None:
        ws = self.sockets[seat]
        assert ws is not None
        try:
            async for raw in ws:
                self.receive(seat, orjson.loads(raw), time.perf_counter())
        except ConnectionClosed:
            pass
        if not self.driver.stopping and not self.closed_as_expected(ws):
            self.driver.share.errors.append(
                f"socket of seat {seat} closed at version {self.version(seat)}: {ws.close_code} {ws.close_reason!r}"
            )

    def cancel(self) -> None:
        for seat, timer in enumerate(self.timers):
            if timer is not None:
                timer.cancel()
                self.timers[seat] = None

    async def close(self) -> None:
        self.cancel()
        await asyncio.gather(*(ws.close() for ws in self.sockets if ws is not None), return_exceptions=True)
        await asyncio.gather(*self.readers, *([self.life] if self.life else []), return_exceptions=True)


class MatchTable(Table):
    """A live match of ``unoduo serve`` between two registered players."""

    def __init__(self, driver: Driver, client: Client, players: tuple[Player, Player]) -> None:
        super().__init__(driver)
        self.client = client
        self.players = players
        self.matches: list[Match] = []
        self.views: list[dict[str, Any]] = [{}, {}]
        self.wait_for = [0, 0]  # a seat decides only on a view at least this recent (its last result's version)
        self.over = False

    async def start(self) -> None:
        made = await self.client.new_match(self.players[0], opponent=self.players[1].id)
        other = await self.client.join(made.id, self.players[1], 1 - made.seat)
        self.matches = sorted((made, other), key=lambda m: m.seat)
        self.views = [m.view for m in self.matches]
        self.wait_for, self.acted, self.over = [0, 0], [-1, -1], False

    async def connect(self, seat: int) -> ClientConnection:
        match = self.matches[seat]
        return await self.client.open_socket(match, match.view["version"], match.player.token)

    def version(self, seat: int) -> int:
        return int(self.views[seat]["version"])

    def my_turn(self, seat: int) -> bool:
        view = self.views[seat]
        return view["turn"] == seat and bool(view["legal"]) and view["version"] >= self.wait_for[seat]

    def command(self, seat: int) -> dict[str, Any]:
        return first_legal(self.views[seat]["legal"])

    def receive(self, seat: int, message: dict[str, Any], at: float) -> None:
        kind = message.get("type")
        if kind == "decision":
            view = message["view"]
            if view["version"] > self.views[seat]["version"]:
                self.views[seat] = view
            self.over = self.over or view["phase"] == "match_over"
            self.consider(seat)
        elif kind == "result":
            if message.get("ok"):
                self.wait_for[seat] = int(message.get("version") or 0)
            self.answered(seat, message, at)

    def closed_as_expected(self, ws: ClientConnection) -> bool:
        return self.over and ws.close_code == 1000

    async def lives(self) -> None:
        """Until the phase ends: each time the match ends, a new one between the same players."""
        while True:
            await asyncio.gather(*self.readers, return_exceptions=True)
            d = self.driver
            if not self.over or d.stopping:
                return
            d.share.finished += 1
            if not d.playing:
                return
            try:
                await self.start()
                await self.open()
            except BenchError as exc:
                d.share.errors.append(f"a new match after one ended: {exc}")
                return
            for seat in (0, 1):
                self.consider(seat, first=True)


class EchoTable(Table):
    """Two sockets to the floor app: the seats take turns, each message echoed."""

    def __init__(self, driver: Driver, ws_base: str) -> None:
        super().__init__(driver)
        self.ws_base = ws_base
        self.turn = 0
        self.count = 0

    async def start(self) -> None:
        return None

    async def connect(self, seat: int) -> ClientConnection:
        url = f"{self.ws_base}/echo"
        try:
            return await connect(url, ping_interval=self.driver.ping_interval, open_timeout=60, close_timeout=5)
        except (OSError, TimeoutError, WebSocketException) as exc:
            raise BenchError(f"WS {url}: {type(exc).__name__}: {exc}") from None

    def version(self, seat: int) -> int:
        return self.count

    def my_turn(self, seat: int) -> bool:
        return seat == self.turn

    def command(self, seat: int) -> dict[str, Any]:
        return {"type": "play", "card": "R4"}

    def receive(self, seat: int, message: dict[str, Any], at: float) -> None:
        self.turn, self.count = 1 - seat, self.count + 1
        self.answered(seat, {"command_id": message.get("command_id"), "ok": True}, at)
        self.consider(self.turn)

    def closed_as_expected(self, ws: ClientConnection) -> bool:
        return False


class Driver:
    """One driver process's share of the matches (or of the floor's pairs of sockets)."""

    def __init__(self, ping_interval: float | None) -> None:
        self.ping_interval = ping_interval
        self.loop = asyncio.get_running_loop()
        self.rng = random.Random()
        self.tables: list[Table] = []
        self.client: Client | None = None
        self.playing = False
        self.stopping = False
        self.share = Share()
        self.tasks: set[asyncio.Future[None]] = set()

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def setup(self, kind: str, base: str, count: int, tag: str) -> None:
        if kind == "floor":
            ws_base = "ws" + base[len("http") :]
            self.tables = [EchoTable(self, ws_base) for _ in range(count)]
            return
        client = self.client = Client(base, pool=2 * CONNECT_AT_ONCE)
        client.frames, client.ping_interval = "decision", self.ping_interval
        players: list[Player] = await _gather_limited(
            2 * count, CONNECT_AT_ONCE, lambda i: client.register(f"cap-{tag}-{i}")
        )
        tables = [MatchTable(self, client, (players[2 * i], players[2 * i + 1])) for i in range(count)]
        await _gather_limited(count, CONNECT_AT_ONCE, lambda i: tables[i].start())
        self.tables = list(tables)

    async def open(self) -> None:
        await _gather_limited(len(self.tables), CONNECT_AT_ONCE, lambda i: self.tables[i].open())
        for table in self.tables:
            if isinstance(table, MatchTable):
                table.life = asyncio.ensure_future(table.lives())

    async def play(self, seconds: float) -> Share:
        self.share = Share()
        self.playing = True
        began = time.perf_counter()
        for table in self.tables:
            for seat in (0, 1):
                table.consider(seat, first=True)
        await asyncio.sleep(seconds)
        self.playing = False
        for table in self.tables:
            table.cancel()
        self.share.seconds = time.perf_counter() - began
        waiting = time.monotonic()  # the answers still on their way: a stall window, not a budget
        while any(p is not None for t in self.tables for p in t.pending) and time.monotonic() - waiting < STALL_SECONDS:
            await asyncio.sleep(0.05)
        for table in self.tables:
            for pending in table.pending:
                if pending is not None:
                    self.share.errors.append(f"no answer to {pending[0]} after {STALL_SECONDS:.0f} s")
        return self.share

    async def close(self) -> None:
        self.stopping = True
        await asyncio.gather(*(t.close() for t in self.tables), *self.tasks, return_exceptions=True)
        if self.client is not None:
            await self.client.close()


async def _drive(conn: Connection, ping_interval: float | None) -> None:
    """A driver process's loop: requests from the bench's main process, one at a time, each answered."""
    loop = asyncio.get_running_loop()
    driver = Driver(ping_interval)
    while True:
        what, *args = await loop.run_in_executor(None, conn.recv)
        try:
            reply: Any = None
            if what == "setup":
                await driver.setup(*args)
            elif what == "open":
                await driver.open()
            elif what == "play":
                reply = await driver.play(*args)
            else:
                await driver.close()
                conn.send(("ok", None))
                return
            conn.send(("ok", reply))
        except Exception as exc:  # noqa: BLE001 (told to the main process, which stops the run)
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


def _driver_main(conn: Connection, ping_interval: float | None) -> None:
    _run_async(_drive(conn, ping_interval))


class Drivers:
    """The driver processes (spawned: a fresh interpreter each), asked in step."""

    def __init__(self, count: int, ping_interval: float | None) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        self.processes: list[Any] = []
        for _ in range(count):
            mine, theirs = context.Pipe()
            process = context.Process(target=_driver_main, args=(theirs, ping_interval), daemon=True)
            process.start()
            self.pipes.append(mine)
            self.processes.append(process)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.processes if p.pid is not None]

    def ask(self, requests: Sequence[tuple[Any, ...]]) -> list[Any]:
        """Send each driver its request, then wait for every answer (a driver that dies fails the run)."""
        for pipe, request in zip(self.pipes, requests, strict=True):
            pipe.send(request)
        replies = []
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            while not pipe.poll(1.0):
                if not process.is_alive():
                    raise BenchError(f"a driver process died (exit {process.exitcode})")
            try:
                status, reply = pipe.recv()
            except (EOFError, OSError) as exc:
                raise BenchError(f"a driver process went away ({type(exc).__name__}: {exc})") from None
            if status != "ok":
                raise BenchError(f"a driver process: {reply}")
            replies.append(reply)
        return replies

    def all(self, *request: Any) -> list[Any]:
        return self.ask([request] * len(self.pipes))

    def stop(self) -> None:
        with contextlib.suppress(BenchError, OSError, EOFError):
            self.all("close")
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join()


def driver_count(matches: int, asked: int | None) -> int:
    return asked or max(1, math.ceil(matches / MATCHES_PER_DRIVER))


def split(total: int, parts: int) -> list[int]:
    """``total`` in ``parts`` shares as even as can be."""
    return [total // parts + (i < total % parts) for i in range(parts)]


# ---------------------------------------------------------------- the floor


def floor_app(db_file: str) -> Any:
    """A socket echo and one SQLite transaction (WAL, ``synchronous=FULL``) per message."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    db = sqlite3.connect(db_file, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")

    async def echo(ws: WebSocket) -> None:
        await ws.accept()
        with contextlib.suppress(WebSocketDisconnect):
            while True:
                text = await ws.receive_text()
                db.execute("BEGIN")
                db.execute("INSERT INTO messages (body) VALUES (?)", (text,))
                db.execute("COMMIT")
                await ws.send_text(text)

    async def about(_: Request) -> JSONResponse:
        return JSONResponse({"name": "floor"})

    return Starlette(routes=[Route("/api", about), WebSocketRoute("/echo", echo)])


def serve_floor(port: int, db_file: str) -> None:
    import uvicorn

    uvicorn.run(
        floor_app(db_file),
        host="127.0.0.1",
        port=port,
        http="httptools",
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        log_level="warning",
        backlog=511,
    )


class FloorProcess(ServerProcess):
    """:func:`serve_floor` as a process, started and stopped as the server is; ``db_url`` is the SQLite file."""

    def argv(self) -> list[str]:
        return [sys.executable, "-m", "bench.capacity", "floor", str(self.port), self.db_url]


# ---------------------------------------------------------------- a run


@dataclass
class Options:
    matches: tuple[int, ...] = DEFAULT_MATCHES
    seconds: float = 60.0
    idle_seconds: float = 20.0
    drivers: int | None = None  # None: one per MATCHES_PER_DRIVER matches
    ping_seconds: float | None = PING_SECONDS  # None: no keep-alive pings
    floor: bool = True
    db: str = "sqlite"
    postgres_url: str = DEFAULT_POSTGRES_URL
    py_spy: Path | None = None  # record the server in each play phase (raw format) into this directory


@dataclass
class Run:
    """One program (the server or the floor) at N matches: set-up, memory, idle, play."""

    program: str  # "server" or "floor"
    matches: int
    drivers: int
    setup_seconds: float = 0.0
    rss_kib: tuple[int | None, int | None, int | None] = (None, None, None)  # before, matches live, sockets open
    idle_seconds: float = 0.0
    idle_cpu: float | None = None  # of the program's process
    idle_driver_cpu: float | None = None
    share: Share = field(default_factory=Share)  # the play phase, all drivers together
    cpu: float | None = None  # of the program's process over the play phase
    driver_cpu: float | None = None
    wall: float = 0.0  # the play phase and its last answers
    profile: Path | None = None

    @property
    def offered(self) -> float:
        return self.matches * PER_MATCH_RATE

    @property
    def rate(self) -> float:
        return self.share.commands / self.share.seconds if self.share.seconds else 0.0

    @property
    def cpu_per_command(self) -> float | None:
        return None if self.cpu is None or not self.share.commands else self.cpu / self.share.commands

    @property
    def idle_cores(self) -> float | None:
        return None if self.idle_cpu is None or not self.idle_seconds else self.idle_cpu / self.idle_seconds

    def per(self, what: str) -> float | None:
        """RSS growth (KiB) per match (``match``) or per socket (``socket``)."""
        before, live, opened = self.rss_kib
        if what == "match":
            return None if before is None or live is None else (live - before) / self.matches
        return None if live is None or opened is None else (opened - live) / (2 * self.matches)

    def percentile(self, q: float) -> float | None:
        return percentile(self.share.round_trips, q)


@dataclass
class Step:
    matches: int
    server: Run
    floor: Run | None

    @property
    def floor_ratio(self) -> float | None:
        mine, floor = self.server.cpu_per_command, self.floor.cpu_per_command if self.floor else None
        return None if mine is None or not floor else mine / floor


@dataclass
class Report:
    options: Options
    steps: list[Step]
    facts: list[str]
    commit: str
    server_log_tail: str = ""

    def step(self, matches: int) -> Step | None:
        return next((s for s in self.steps if s.matches == matches), None)


def _merge(shares: list[Share]) -> Share:
    out = Share(seconds=max((s.seconds for s in shares), default=0.0))
    for s in shares:
        out.commands += s.commands
        out.stale += s.stale
        out.finished += s.finished
        out.round_trips += s.round_trips
        out.errors += s.errors
    return out


def _cpu(pids: list[int]) -> float | None:
    return tree_cpu_seconds(pids)


def _used(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else after - before


def measure(process: ServerProcess, program: str, matches: int, options: Options, log: Callable[[str], None]) -> Run:
    """Start ``process``, drive ``matches`` tables against it through all the steps, stop it."""
    run = Run(program, matches, driver_count(matches, options.drivers))
    process.start()
    assert process.process is not None
    pid = process.process.pid
    drivers = Drivers(run.drivers, options.ping_seconds)
    try:
        before = process.rss_kib()
        began = time.perf_counter()
        tag = os.urandom(2).hex()
        log(f"{program}: {matches} tables, {run.drivers} driver process(es): set-up…")
        drivers.ask(
            [("setup", program, process.base, n, f"{tag}{i}") for i, n in enumerate(split(matches, run.drivers))]
        )
        live = process.rss_kib()
        log(f"{program}: opening {2 * matches} sockets…")
        drivers.all("open")
        run.setup_seconds = time.perf_counter() - began
        time.sleep(SETTLE_SECONDS)
        run.rss_kib = (before, live, process.rss_kib())

        log(f"{program}: idle for {options.idle_seconds:g} s…")
        idle_profiler = None
        if options.py_spy is not None and program == "server":
            idle_profiler = _py_spy(pid, options.idle_seconds, options.py_spy / f"capacity-{matches}-idle.txt")
        cpu0, d0, t0 = _cpu([pid]), _cpu(drivers.pids), time.perf_counter()
        time.sleep(options.idle_seconds)
        cpu1, d1 = _cpu([pid]), _cpu(drivers.pids)
        run.idle_seconds = time.perf_counter() - t0
        run.idle_cpu, run.idle_driver_cpu = _used(cpu0, cpu1), _used(d0, d1)
        if idle_profiler is not None:
            idle_profiler.wait()

        log(f"{program}: play for {options.seconds:g} s at about {run.offered:,.0f} commands/s offered…")
        profiler = None
        if options.py_spy is not None and program == "server":
            run.profile = options.py_spy / f"capacity-{matches}.txt"
            profiler = _py_spy(pid, min(PROFILE_SECONDS, options.seconds), run.profile)
        cpu0, d0, t0 = _cpu([pid]), _cpu(drivers.pids), time.perf_counter()
        run.share = _merge(drivers.all("play", options.seconds))
        cpu1, d1 = _cpu([pid]), _cpu(drivers.pids)
        run.wall = time.perf_counter() - t0
        run.cpu, run.driver_cpu = _used(cpu0, cpu1), _used(d0, d1)
        if profiler is not None:
            profiler.wait()
        log(
            f"{program}: {run.share.commands:,} commands in {run.share.seconds:.1f} s, p99"
            f" {ms(run.percentile(99))} ms, {len(run.share.errors)} errors"
        )
    finally:
        drivers.stop()
        process.stop()
    return run


def _py_spy(pid: int, seconds: float, out: Path) -> subprocess.Popen[bytes]:
    out.parent.mkdir(parents=True, exist_ok=True)
    py_spy = Path(sys.executable).with_name("py-spy")
    command = [str(py_spy) if py_spy.exists() else "py-spy", "record", "--format", "raw", "-r", "100"]
    return subprocess.Popen(
        [*command, "-d", f"{max(1, round(seconds))}", "-p", str(pid), "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def commit() -> str:
    """The checkout's commit, and whether the server's code differs from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "server", "engine", "cli"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return head + (" with uncommitted changes to server/, engine/ or cli/" if dirty else "")


def run_capacity(options: Options, log: Callable[[str], None]) -> Report:
    steps: list[Step] = []
    tail = ""
    for n in options.matches:
        with (
            database(options.db, options.postgres_url, "unoduo_bench_capacity") as url,
            TemporaryDirectory(prefix="unoduo-bench-capacity-") as tmp,
        ):
            server = ServerProcess(url, Path(tmp) / "server.log", settings=SETTINGS)
            try:
                mine = measure(server, "server", n, options, log)
            finally:
                tail = server.log_tail(40)
            floor = None
            if options.floor:
                floor = measure(FloorProcess(f"{tmp}/floor.sqlite3", Path(tmp) / "floor.log"), "floor", n, options, log)
            steps.append(Step(n, mine, floor))
    return Report(options, steps, machine_facts(options), commit(), tail)


# ---------------------------------------------------------------- report


def machine_facts(options: Options) -> list[str]:
    import importlib.metadata as md

    db = "SQLite (a fresh file a step, synchronous=FULL)" if options.db == "sqlite" else "PostgreSQL (a fresh schema)"
    pings = f"a ping every {options.ping_seconds:g} s" if options.ping_seconds else "no pings"
    return [
        f"nproc: {os.cpu_count()}; CPU: {cpu_model()}",
        f"Python {sys.version.split()[0]}; uvicorn {md.version('uvicorn')}, websockets {md.version('websockets')}",
        f"server: one `unoduo serve` process per step on {db}, "
        + ", ".join(f"`{k}={v}`" for k, v in SETTINGS.items())
        + ", registrations and connections per address unlimited (the bench's one address)",
        f"sockets: `frames=decision`, {pings} (as the terminal client); think time uniform"
        f" {THINK_SECONDS[0]:g}–{THINK_SECONDS[1]:g} s, about {PER_MATCH_RATE:g} commands/s a match",
        "drivers: "
        + (f"{options.drivers} process(es)" if options.drivers else f"one process per {MATCHES_PER_DRIVER} matches")
        + " on the same machine, sharing its cores with the server",
        f"each step: idle {options.idle_seconds:g} s, play {options.seconds:g} s;"
        " load average at the end (1/5/15 min): " + " / ".join(f"{x:.2f}" for x in os.getloadavg()),
    ]


def _met(ok: bool | None) -> str:
    return "-" if ok is None else ("met" if ok else "NOT met")


def _pct(cores: float | None) -> str:
    return "-" if cores is None else f"{cores * 100:.1f}%"


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.2f}"


def _kib(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _cores(cpu: float | None, seconds: float) -> str:
    return "-" if cpu is None or not seconds else f"{cpu / seconds:.2f}"


def held(report: Report, p99_ms: float) -> int | None:
    """The most live matches measured with p99 round trip ≤ ``p99_ms`` and no error."""
    fine = [
        s.matches
        for s in report.steps
        if not s.server.share.errors and _within(s.server.percentile(99), p99_ms) and s.server.share.commands
    ]
    return max(fine) if fine else None


def _within(seconds: float | None, limit_ms: float) -> bool:
    return seconds is not None and seconds * 1000 <= limit_ms


def target_rows(report: Report) -> list[tuple[str, str, str]]:
    """(target, figure, verdict) for issue 34's targets, judged at 1,000 matches (- when not run)."""
    at = report.step(TARGET_MATCHES)
    rows: list[tuple[str, str, str]] = []
    if at is None:
        rows.append((f"(no step at {TARGET_MATCHES:,} matches: the targets are not judged)", "-", "-"))
    else:
        s = at.server
        p99 = s.percentile(99)
        rows.append(
            (
                f"p99 round trip ≤ {P99_TARGET_MS:g} ms and 0 errors at {TARGET_MATCHES:,} live matches",
                f"{ms(p99)} ms, {len(s.share.errors)} errors",
                _met(_within(p99, P99_TARGET_MS) and not s.share.errors),
            )
        )
        idle = s.idle_cores
        rows.append(
            (
                f"idle CPU ≤ {IDLE_TARGET:.0%} of a core, {TARGET_MATCHES:,} matches' sockets open",
                _pct(idle),
                _met(None if idle is None else idle <= IDLE_TARGET),
            )
        )
        ratio = at.floor_ratio
        rows.append(
            (
                f"server CPU per command ≤ {FLOOR_FACTOR:g}× the floor at {TARGET_MATCHES:,}",
                "-"
                if ratio is None
                else f"{_ms(s.cpu_per_command)} ms = {ratio:.1f}× {_ms(at.floor.cpu_per_command if at.floor else None)} ms",
                _met(None if ratio is None else ratio <= FLOOR_FACTOR),
            )
        )
    most = held(report, HOLD_P99_MS)
    rows.append(
        (
            f"live matches held at p99 ≤ {HOLD_P99_MS:g} ms, 0 errors (of the steps run)",
            "none" if most is None else f"{most:,}",
            "-",
        )
    )
    return rows


STEP_HEADERS = (
    "live matches",
    "drivers",
    "commands/s achieved / offered",
    "round trip p50 / p99 ms",
    "errors",
    "stale",
    "matches ended",
    "server CPU ms / command",
    "floor CPU ms / message",
    "ratio to floor",
    "idle CPU, server (floor)",
    "RSS KiB / match",
    "RSS KiB / socket",
    "server cores (play)",
    "driver cores (play / idle)",
    "set-up s",
)


def step_rows(report: Report) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for step in report.steps:
        s, f = step.server, step.floor
        out.append(
            (
                f"{step.matches:,}",
                f"{s.drivers}",
                f"{s.rate:,.0f} / {s.offered:,.0f}",
                f"{ms(s.percentile(50))} / {ms(s.percentile(99))}",
                f"{len(s.share.errors)}",
                f"{s.share.stale}",
                f"{s.share.finished}",
                _ms(s.cpu_per_command),
                _ms(f.cpu_per_command) if f else "-",
                "-" if step.floor_ratio is None else f"{step.floor_ratio:.1f}×",
                f"{_pct(s.idle_cores)} ({_pct(f.idle_cores) if f else '-'})",
                _kib(s.per("match")),
                _kib(s.per("socket")),
                _cores(s.cpu, s.wall),
                f"{_cores(s.driver_cpu, s.wall)} / {_cores(s.idle_driver_cpu, s.idle_seconds)}",
                f"{s.setup_seconds:.0f}",
            )
        )
    return out


def floor_lines(report: Report) -> list[str]:
    lines = []
    for step in report.steps:
        if step.floor is not None:
            f = step.floor
            lines.append(
                f"floor at {step.matches:,} pairs of sockets: {f.rate:,.0f} messages/s, round trip p50 / p99"
                f" {ms(f.percentile(50))} / {ms(f.percentile(99))} ms, {len(f.share.errors)} errors,"
                f" {_ms(f.cpu_per_command)} ms CPU a message, idle {_pct(f.idle_cores)} of a core"
            )
    return lines


def error_lines(report: Report, most: int = 5) -> list[str]:
    lines = []
    for step in report.steps:
        for run in (step.server, step.floor):
            if run is None:
                continue
            lines += [f"{run.program} at {step.matches:,}: {e}" for e in run.share.errors[:most]]
            if len(run.share.errors) > most:
                lines.append(f"{run.program} at {step.matches:,}: … and {len(run.share.errors) - most} more")
    return lines


MEASURED = (
    "What is measured (`bench/capacity.py`): for each N, a fresh `unoduo serve` process on a fresh"
    " database; 2N registered players, N casual matches between two of them (two human seats, no house"
    " bot), each seat on its own WebSocket opened as the terminal client opens it. *Idle*: every socket"
    " open, nobody moving: the server process's CPU (`/proc/PID/stat`) as a share of one core. *Play*:"
    " the seat whose turn it is waits a think time uniform in 1–3 s (each match's first command at a"
    " random moment of its first think time, so the matches do not move in step), then sends the first"
    " legal command of its view with `expected_version`: about 0.5 commands/s a match. *Round trip*:"
    " from the send to the `result` message answering it. *Errors*: a refusal other than"
    " `stale_version` (counted apart), a socket closed other than at its match's end, an answer missing."
    " A match that ends is replaced by a new one between the same players (*matches ended*)."
    " *Server CPU per command*: the server process's CPU over the play phase over the commands"
    " accepted. *Floor*: the same shape (N pairs of sockets, the same pace) against a Starlette app"
    " under uvicorn set up as `unoduo serve` sets it up, whose socket handler answers each message with"
    " one `INSERT` + `COMMIT` into a WAL SQLite file at `synchronous=FULL` and an echo; its CPU per"
    " message is what a command cannot cost less than here (its commit runs on its event loop, so its round"
    " trips wait for each fsync: a CPU floor, not a latency floor). *RSS*: the server's `VmRSS` before the"
    " matches, once they are live (per match) and once their sockets are open (per socket). The"
    " driver processes' CPU is reported apart; they share the machine's cores with the server."
)


def markdown(report: Report, command: str, kept: str = "") -> str:
    lines = [SECTION, "", MEASURED, ""]
    lines += section_head(f"### Latest run (commit {report.commit})", command, report.facts)
    lines += ["| target (issue 34) | figure | |", "| --- | ---: | --- |"]
    lines += [f"| {t} | {f} | {v} |" for t, f, v in target_rows(report)]
    lines += [
        "",
        "| " + " | ".join(STEP_HEADERS) + " |",
        "|" + " ---: |" * len(STEP_HEADERS),
        *["| " + " | ".join(r) + " |" for r in step_rows(report)],
    ]
    floors = floor_lines(report)
    if floors:
        lines += ["", *[f"- {line}" for line in floors]]
    errors = error_lines(report)
    if errors:
        lines += ["", "Errors seen during the run (first few per step):", "", *[f"- `{e}`" for e in errors]]
    text = "\n".join(lines) + "\n"
    return text + ("\n" + kept.rstrip("\n") + "\n" if kept.strip() else "")


def kept_subsections(text: str) -> str:
    """The hand-kept subsections (``### Before…``) of the section in ``text``, to write back unchanged."""
    start = text.find(f"\n{SECTION}\n")
    if start < 0:
        return ""
    end = text.find("\n## ", start + len(SECTION) + 2)
    section = text[start : end if end >= 0 else len(text)]
    parts = section.split("\n### ")
    return "".join("### " + p.rstrip("\n") + "\n\n" for p in parts[1:] if ("### " + p).startswith(BEFORE))


def run_and_report(options: Options, write_docs: bool, command: str, say: Callable[[str], None]) -> Report:
    report = run_capacity(options, say)
    say(f"commit: {report.commit}")
    for fact in report.facts:
        say(f"  {fact}")
    for t, f, v in target_rows(report):
        say(f"{t}: {f} {v}")
    for header, row in ((STEP_HEADERS, r) for r in step_rows(report)):
        say("; ".join(f"{h}: {c}" for h, c in zip(header, row, strict=True)))
    for line in floor_lines(report) + error_lines(report):
        say(line)
    for step in report.steps:
        if step.server.profile is not None:
            say(f"py-spy (raw) of the server at {step.matches:,}: {step.server.profile}")
    if write_docs:
        old = BENCHMARKS_MD.read_text(encoding="utf-8") if BENCHMARKS_MD.exists() else ""
        write_docs_section(BENCHMARKS_MD, SECTION, markdown(report, command, kept_subsections(old)))
        say(f"wrote {BENCHMARKS_MD}")
    return report


if __name__ == "__main__":  # python -m bench.capacity floor PORT DB_FILE: the floor's server (FloorProcess)
    if sys.argv[1:2] == ["floor"] and len(sys.argv) == 4:
        serve_floor(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit("usage: python -m bench.capacity floor PORT DB_FILE")
