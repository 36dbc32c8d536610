"""``unoduo bench soak`` (the command is in ``cli.bench_cmd``): an evening's load for N minutes.

The issue's bar: "a tournament's worth of concurrent bot matches plus spectators over WS for N
minutes: 0 errors, memory flat (RSS at the end within 10% of after warm-up), no file descriptor
growth, ``unoduo db verify`` clean afterwards".

One real ``unoduo serve`` (``bench.launch.ServerProcess``: loopback, a fresh SQLite file or a
throw-away PostgreSQL schema) carries three loads at once, as a club evening would:

- **a tournament**: a round-robin of ``bots`` house-bot entries run by the server itself, with
  clocks (``move_seconds``) and the house bots thinking ``bot_think`` seconds a move; when one
  finishes, the director creates the next, so the run never goes quiet;
- **players**: ``clients`` registered players, each playing casual matches against the house
  bots (random and greedy in turn) over the WebSocket with think times, a new match as soon as
  one ends;
- **spectators over WS**: one on every player's match (from the current event) and one on every
  live tournament match (from seq 0: the whole history first), each closed once its match is over.

The run has two stages. The **warm-up** (``warmup_seconds``) fills the caches, the database
pool and the allocator; then the players and spectators leave, and once the server's sockets
have settled its resident memory (``VmRSS``) and open file descriptors (sockets and the rest,
from ``/proc/PID/fd``) are read: the **baseline**. The **soak** runs the same load again for the
rest of the N minutes and the same reading is taken after the same lull: the **end**. The
tournaments go on through both lulls. Memory is also sampled under load every
``sample_seconds``: the medians of the 10 s after the warm-up and of the soak's last 10 s are
compared too.

It passes (exit 0) only if: no error of any kind (a refused or unanswered command, a request
answered other than as documented, a socket the server closed early, a tournament whose standings
do not add up, a traceback or a 500 in the server's log, a server that did not stop cleanly); RSS
at the end within 10% of the baseline, idle and under load; no more file descriptors at the end
than at the baseline; and ``unoduo db verify`` on the database afterwards reports 0 broken chains.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import random
import secrets
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from bench.launch import DEFAULT_POSTGRES_URL, ROOT, BenchError, ServerProcess, database
from bench.server import (
    Client,
    CpuMeter,
    Match,
    PhaseResult,
    Player,
    _play_ws,
    _run_async,
    thinker,
)
from bench.tournament import check as check_tournament

SECTION = "## Soak: `unoduo bench soak`"
RSS_GROWTH_LIMIT = 0.10  # the bar: RSS at the end within 10% of after warm-up
# What a quiet server may hold: the store's pool keeps UNODUO_DB_POOL_SIZE (10) connections, the
# writer's among them (its overflow is closed when returned), and on PostgreSQL the LISTEN connection.
DB_CONNECTIONS_BOUND = 10 + 1
SETTLE_SECONDS = 15.0  # at most this long for the server's sockets to settle in a lull
WINDOW_SECONDS = 10.0  # the under-load memory windows: after the warm-up, and the soak's last
POLL_SECONDS = 1.0  # the director's reading of the running tournament
DIRECTOR_TOKEN = "director-of-the-soak-" + secrets.token_hex(8)

Log = Callable[[str], None]


@dataclass
class Options:
    minutes: float = 10.0
    warmup_seconds: float = 60.0
    clients: int = 8
    bots: int = 6  # a 6-player round-robin: 3 matches at once, 5 rounds (one tournament in about 7 minutes)
    think: float = 0.1  # a player's mean think time, seconds
    bot_think: float = 0.03
    move_seconds: int = 30
    target: int = 50  # the tournament matches' target: several tournaments in a run
    db: str = "sqlite"
    postgres_url: str = DEFAULT_POSTGRES_URL
    sample_seconds: float = 1.0
    seed: int | None = None
    finished_kept: int | None = None  # the server's UNODUO_FINISHED_MATCHES_KEPT (None: its default)

    @classmethod
    def quick(cls) -> Options:
        """CI's: one minute, a smaller field."""
        return cls(minutes=1.0, warmup_seconds=15.0, clients=4, bots=4, think=0.05, bot_think=0.02, target=50)

    @property
    def soak_seconds(self) -> float:
        return max(self.minutes * 60.0 - self.warmup_seconds, 1.0)


@dataclass(frozen=True)
class Reading:
    """The server process at one moment: its memory and its open file descriptors, the database
    connections' apart (SQLite: the database file, one per connection; PostgreSQL: sockets to its port)."""

    at: float  # seconds since the run began
    rss_kib: int
    sockets: int  # neither the database's nor clients' live connections: listening, leaked
    other_fds: int  # neither sockets nor the database's files: logs, pipes, the event loop's
    db_connections: int = 0

    @property
    def fds(self) -> int:
        """Every descriptor but the database connections' (which the connection pool bounds)."""
        return self.sockets + self.other_fds


ESTABLISHED = "01"  # /proc/net/tcp's state of a connection both ends hold open


@dataclass(frozen=True)
class TcpSocket:
    local_port: int
    remote_port: int
    state: str


def _tcp_sockets(pid: int) -> dict[str, TcpSocket]:
    """Socket inode → its ports and state, from the process's view of /proc/net/tcp and tcp6."""
    found: dict[str, TcpSocket] = {}
    for name in ("tcp", "tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/net/{name}").read_text(encoding="ascii").splitlines()[1:]:
                fields = line.split()
                local, remote = (int(f.rsplit(":", 1)[1], 16) for f in (fields[1], fields[2]))
                found[fields[9]] = TcpSocket(local, remote, fields[3])
    return found


@dataclass(frozen=True)
class DatabaseFiles:
    """How the run's database shows among a process's descriptors."""

    sqlite_file: str | None = None  # the database file's path (its -wal and -shm belong to it)
    postgres_port: int | None = None

    @classmethod
    def of(cls, db_url: str) -> DatabaseFiles:
        from sqlalchemy import make_url

        url = make_url(db_url)
        if url.get_backend_name() == "sqlite":
            return cls(sqlite_file=str(Path(url.database or "").resolve()))
        return cls(postgres_port=url.port or 5432)


def read_process(pid: int, began: float, database: DatabaseFiles, serving_port: int | None = None) -> Reading:
    """``serving_port``: the server's own port. A client's open connection to it (an idle keep-alive
    the bench's HTTP pool still holds) is the client's, not the server's: it is not counted, but a
    connection the client closed and the server did not (CLOSE_WAIT) is."""
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    tcp = _tcp_sockets(pid)
    sockets = other = connections = 0
    for entry in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(entry)
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            found = tcp.get(target[len("socket:[") : -1])
            if found is not None and database.postgres_port is not None and found.remote_port == database.postgres_port:
                connections += 1
            elif found is not None and found.local_port == serving_port and found.state == ESTABLISHED:
                continue  # a client's live connection
            else:
                sockets += 1
        elif database.sqlite_file is not None and target.startswith(database.sqlite_file):
            connections += target == database.sqlite_file  # -wal and -shm: the same connections
        else:
            other += 1
    return Reading(time.monotonic() - began, rss, sockets, other, connections)


@dataclass
class Counts:
    """What the load did, over the whole run."""

    player_matches_started: int = 0
    player_matches_finished: int = 0
    commands: int = 0
    stale: int = 0
    spectators_opened: int = 0
    spectator_messages: int = 0
    tournaments_finished: int = 0
    tournament_matches: int = 0  # pairings decided, finished tournaments or not


@dataclass
class Report:
    options: Options
    seconds: float = 0.0
    baseline: Reading | None = None
    end: Reading | None = None
    samples: list[tuple[str, Reading]] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)
    errors: list[str] = field(default_factory=list)
    verify_output: str = ""
    verify_ok: bool = False
    server_cpu: float | None = None
    server_exit: int | None = None

    def window(self, stage: str, first: bool) -> list[Reading]:
        """The readings under load of the 10 s after the warm-up (``first``) or of the soak's last 10 s."""
        readings = [r for s, r in self.samples if s == stage]
        if not readings:
            return []
        if first:
            return [r for r in readings if r.at <= readings[0].at + WINDOW_SECONDS]
        return [r for r in readings if r.at >= readings[-1].at - WINDOW_SECONDS]

    @property
    def load_rss(self) -> tuple[float, float] | None:
        """Median RSS (KiB) under load: just after the warm-up, and at the end of the soak."""
        after, last = self.window("soak", True), self.window("soak", False)
        if not after or not last:
            return None
        return statistics.median(r.rss_kib for r in after), statistics.median(r.rss_kib for r in last)

    @property
    def rss_growth(self) -> float | None:
        if self.baseline is None or self.end is None:
            return None
        return self.end.rss_kib / self.baseline.rss_kib - 1

    @property
    def load_rss_growth(self) -> float | None:
        pair = self.load_rss
        return None if pair is None else pair[1] / pair[0] - 1

    @property
    def fd_growth(self) -> int | None:
        if self.baseline is None or self.end is None:
            return None
        return self.end.fds - self.baseline.fds

    def problems(self) -> list[str]:
        found = list(self.errors)
        for what, growth in (("idle", self.rss_growth), ("under load", self.load_rss_growth)):
            if growth is None:
                found.append(f"RSS {what}: not measured")
            elif growth > RSS_GROWTH_LIMIT:
                found.append(f"RSS {what} grew {growth:+.1%} (the limit is {RSS_GROWTH_LIMIT:+.0%})")
        if self.fd_growth is None or self.end is None:
            found.append("file descriptors: not measured")
        else:
            if self.fd_growth > 0:
                found.append(f"file descriptors grew by {self.fd_growth} ({self.baseline} → {self.end})")
            if self.end.db_connections > DB_CONNECTIONS_BOUND:
                found.append(
                    f"{self.end.db_connections} database connections open at the end (the pool keeps at most"
                    f" {DB_CONNECTIONS_BOUND})"
                )
        if not self.verify_ok:
            found.append(f"unoduo db verify: {self.verify_output.strip()[-500:] or 'did not run'}")
        if self.server_exit != 0:
            found.append(f"the server did not stop cleanly (exit status {self.server_exit})")
        if self.counts.player_matches_finished == 0 or self.counts.tournament_matches == 0:
            found.append("no match was played to its end: the load did not run")
        return found

    @property
    def ok(self) -> bool:
        return not self.problems()


# ---------------------------------------------------------------- the load


class Load:
    """The players, their spectators and the tournament spectators of one stage; the tournaments run on."""

    def __init__(self, client: Client, players: list[Player], options: Options, report: Report) -> None:
        self.client = client
        self.players = players
        self.options = options
        self.report = report
        self.rng = random.Random(options.seed)
        self.watched: set[str] = set()  # tournament matches with a spectator, over the whole run
        self.spectating: set[asyncio.Task[None]] = set()

    def error(self, text: str) -> None:
        self.report.errors.append(text)

    async def spectate(self, match_id: str, since: int, stage_end: float) -> None:
        """One spectator: every message parsed, until its match is over (or the stage ends)."""
        counts = self.report.counts
        counts.spectators_opened += 1
        ws: ClientConnection | None = None
        try:
            ws = await self.client.open_socket(Match(match_id, Player("", ""), {}), since, None)
            while True:
                remaining = stage_end - time.monotonic()
                if remaining <= 0:
                    return
                try:
                    async with asyncio.timeout(remaining):
                        raw = await ws.recv()
                except TimeoutError:
                    return
                counts.spectator_messages += 1
                message = json.loads(raw)
                if message.get("type") == "error":
                    self.error(f"spectator of {match_id}: {json.dumps(message)[:300]}")
                    return
                if (message.get("view") or {}).get("phase") == "match_over":
                    return
        except ConnectionClosed as closed:
            self.error(f"spectator of {match_id}: the server closed the socket before the match was over: {closed}")
        except BenchError as exc:
            self.error(f"spectator of {match_id}: {exc}")
        finally:
            if ws is not None:
                await ws.close()

    def start_spectator(self, match_id: str, since: int, stage_end: float) -> None:
        task = asyncio.ensure_future(self.spectate(match_id, since, stage_end))
        self.spectating.add(task)
        task.add_done_callback(self.spectating.discard)

    async def player(self, player: Player, number: int, stage_end: float) -> None:
        """One player's evening: matches against the house bots until the stage ends."""
        counts = self.report.counts
        think = thinker(self.options.think, random.Random(self.rng.random()))
        bots = ("bot:random", "bot:greedy")
        games = 0
        while time.monotonic() < stage_end:
            opponent = bots[(number + games) % 2]
            games += 1
            try:
                match = await self.client.new_match(player, opponent)
                match.socket = await self.client.open_socket(match, match.view["version"], player.token)
            except BenchError as exc:
                self.error(f"player {number}: {exc}")
                await asyncio.sleep(1.0)
                continue
            counts.player_matches_started += 1
            self.start_spectator(match.id, match.view["version"], stage_end)
            result = PhaseResult("soak", "ws", 1)
            try:
                # _play_ws reads its deadline off perf_counter: the stage's end in that clock.
                deadline = time.perf_counter() + (stage_end - time.monotonic())
                await _play_ws(self.client.shared, match, deadline, result, False, think)
            finally:
                await match.socket.close()
            counts.commands += result.commands
            counts.stale += result.stale
            counts.player_matches_finished += result.finished
            self.report.errors += [f"player {number}: {e}" for e in result.errors]

    async def run_stage(self, seconds: float) -> None:
        stage_end = time.monotonic() + seconds
        players = [self.player(p, i, stage_end) for i, p in enumerate(self.players)]
        outcomes = await asyncio.gather(*players, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                self.error(f"a player stopped: {type(outcome).__name__}: {outcome}")
        if self.spectating:
            await asyncio.gather(*self.spectating, return_exceptions=True)


class Director:
    """Creates a tournament of house bots, watches its live matches, checks it, and creates the next."""

    def __init__(self, http: httpx.AsyncClient, load: Load, options: Options, report: Report, log: Log) -> None:
        self.http = http
        self.log = log
        self.decided: dict[str, int] = {}  # decided pairings of each tournament so far
        self.load = load
        self.options = options
        self.report = report
        self.headers = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
        self.stage_end: float | None = None  # set while a stage runs: its live matches get spectators

    def entries(self) -> list[str]:
        kinds = ("bot:random", "bot:greedy")
        return [kinds[i % 2] for i in range(self.options.bots)]

    async def expect(self, response: httpx.Response, status: int, what: str) -> Any:
        if response.status_code != status:
            raise BenchError(f"{what}: HTTP {response.status_code} {response.text[:300]}")
        return response.json()

    async def one_tournament(self, number: int, stop: asyncio.Event) -> None:
        body = {
            "name": f"soak {number}",
            "players": self.entries(),
            "rules": {"target": self.options.target},
            "move_seconds": self.options.move_seconds,
        }
        created = await self.expect(
            await self.http.post("/api/tournaments", headers=self.headers, json=body), 201, "POST /api/tournaments"
        )
        tid = created["id"]
        await self.expect(
            await self.http.post(f"/api/tournaments/{tid}/start", headers=self.headers), 200, "POST …/start"
        )
        began = time.monotonic()
        while not stop.is_set():
            t = await self.expect(await self.http.get(f"/api/tournaments/{tid}"), 200, f"GET /api/tournaments/{tid}")
            self.decided[tid] = sum(p["status"] == "decided" for r in t["rounds"] for p in r["pairings"])
            self.report.counts.tournament_matches = sum(self.decided.values())
            if self.stage_end is not None:
                for r in t["rounds"]:
                    for p in r["pairings"]:
                        if p["status"] == "live" and p["match"] and p["match"] not in self.load.watched:
                            self.load.watched.add(p["match"])
                            self.load.start_spectator(p["match"], 0, self.stage_end)
            if t["status"] == "finished":
                problems = check_tournament(t, self.options.bots)
                self.report.errors += [f"tournament {tid}: {p}" for p in problems]
                self.report.counts.tournaments_finished += 1
                self.log(
                    f"  tournament {number} finished in {time.monotonic() - began:.0f} s: {len(problems)} problems"
                )
                return
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(POLL_SECONDS):
                    await stop.wait()

    async def run(self, stop: asyncio.Event) -> None:
        number = 0
        while not stop.is_set():
            number += 1
            try:
                await self.one_tournament(number, stop)
            except (BenchError, httpx.HTTPError, ValueError, KeyError) as exc:
                self.report.errors.append(f"director: {type(exc).__name__}: {exc}")
                await asyncio.sleep(POLL_SECONDS)


# ---------------------------------------------------------------- the run


async def _sample(
    pid: int, port: int, began: float, database: DatabaseFiles, stage: list[str], report: Report, stop: asyncio.Event
) -> None:
    while not stop.is_set():
        with contextlib.suppress(OSError):
            report.samples.append((stage[0], read_process(pid, began, database, port)))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(report.options.sample_seconds):
                await stop.wait()


async def _settled(pid: int, port: int, began: float, database: DatabaseFiles, log: Log) -> Reading:
    """After a stage: wait until the server's socket count holds still, then read it."""
    deadline = time.monotonic() + SETTLE_SECONDS
    last = read_process(pid, began, database, port)
    while time.monotonic() < deadline:
        await asyncio.sleep(1.0)
        now = read_process(pid, began, database, port)
        if now.sockets == last.sockets:
            last = now
            break
        last = now
    log(
        f"  server: RSS {last.rss_kib / 1024:.1f} MiB, {last.sockets} sockets, {last.other_fds} other descriptors,"
        f" {last.db_connections} database connections"
    )
    return last


async def _drive(server: ServerProcess, options: Options, report: Report, log: Log) -> None:
    assert server.process is not None
    pid = server.process.pid
    database = DatabaseFiles.of(server.db_url)
    began = time.monotonic()
    client = Client(server.base, pool=options.clients * 2 + 10)
    cpu = CpuMeter(pid)
    cpu.begin()
    stop = asyncio.Event()
    stage = ["warm-up"]
    try:
        tag = secrets.token_hex(2)
        players = [await client.register(f"soak-{tag}-{i}") for i in range(options.clients)]
        load = Load(client, players, options, report)
        director = Director(client.http, load, options, report, log)
        sampler = asyncio.ensure_future(_sample(pid, server.port, began, database, stage, report, stop))
        directing = asyncio.ensure_future(director.run(stop))

        async def run_stage(name: str, seconds: float, reading: str) -> Reading:
            """The players and spectators for ``seconds``, then the lull's reading."""
            log(f"{name}: {seconds:g} s …")
            stage[0] = name
            director.stage_end = time.monotonic() + seconds
            await load.run_stage(seconds)
            director.stage_end = None
            stage[0] = "lull"
            log(f"the players leave; {reading}:")
            return await _settled(pid, server.port, began, database, log)

        report.baseline = await run_stage("warm-up", options.warmup_seconds, "the baseline")
        report.end = await run_stage("soak", options.soak_seconds, "the end")

        stop.set()
        await asyncio.gather(sampler, directing, return_exceptions=True)
        report.seconds = time.monotonic() - began
        report.server_cpu = cpu.end()[1]
    finally:
        stop.set()
        await client.close()


def db_verify(db_url: str) -> tuple[bool, str]:
    """``unoduo db verify`` on the run's database, as an operator runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "db", "verify", "--db", db_url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = (done.stdout + done.stderr).strip()
    return done.returncode == 0 and output.endswith(", 0 broken"), output


def run_soak(options: Options, log: Log) -> Report:
    report = Report(options)
    extra = {
        "UNODUO_DIRECTOR_TOKEN": DIRECTOR_TOKEN,
        "UNODUO_BOT_THINK_SECONDS": str(options.bot_think),
    }
    if options.finished_kept is not None:
        extra["UNODUO_FINISHED_MATCHES_KEPT"] = str(options.finished_kept)
    with (
        database(options.db, options.postgres_url, "unoduo_soak") as db_url,
        TemporaryDirectory(prefix="unoduo-soak-") as tmp,
    ):
        server = ServerProcess(db_url, Path(tmp) / "server.log", extra)
        log(f"starting unoduo serve on {options.db} …")
        server.start()
        try:
            _run_async(_drive(server, options, report, log))
        finally:
            server.stop()
            report.server_exit = server.returncode
            report.errors += server.log_problems()
        log("unoduo db verify …")
        report.verify_ok, report.verify_output = db_verify(db_url)
    return report


# ---------------------------------------------------------------- the report


def _mib(kib: float) -> str:
    return f"{kib / 1024:.1f} MiB"


def figure_lines(report: Report) -> list[str]:
    o, c = report.options, report.counts
    kept = "the default" if o.finished_kept is None else str(o.finished_kept)
    lines = [
        f"run: {report.seconds:.0f} s ({o.warmup_seconds:g} s warm-up, {o.soak_seconds:g} s soak) on {o.db}; "
        f"finished matches kept in memory: {kept}",
        f"load: {o.clients} players vs house bots over WS (think {o.think:g} s), "
        f"tournaments of {o.bots} house bots (target {o.target}, clock {o.move_seconds} s, bots think {o.bot_think:g} s)",
        f"player matches: {c.player_matches_started} started, {c.player_matches_finished} played to the end; "
        f"{c.commands} commands answered ({c.stale} stale, re-read)",
        f"tournaments: {c.tournaments_finished} finished, standings checked; {c.tournament_matches} pairings decided",
        f"spectators: {c.spectators_opened} sockets, {c.spectator_messages} messages received",
    ]
    if report.server_cpu is not None and report.seconds:
        lines.append(
            f"server CPU: {report.server_cpu:.0f} s = {report.server_cpu / report.seconds:.2f} cores on average"
        )
    b, e = report.baseline, report.end
    if b is not None and e is not None:
        lines.append(
            f"RSS in the lulls: baseline {_mib(b.rss_kib)} → end {_mib(e.rss_kib)} ({report.rss_growth:+.1%}; limit +10%)"
        )
    if report.load_rss is not None:
        after, last = report.load_rss
        lines.append(
            f"RSS under load (medians): after warm-up {_mib(after)} → last 10 s {_mib(last)} "
            f"({report.load_rss_growth:+.1%}; limit +10%)"
        )
    if b is not None and e is not None:
        lines.append(
            f"file descriptors in the lulls (database connections apart): baseline {b.fds} ({b.sockets} sockets)"
            f" → end {e.fds} ({e.sockets} sockets); database connections {b.db_connections} → {e.db_connections}"
            f" (at most {DB_CONNECTIONS_BOUND})"
        )
    loaded = [r for s, r in report.samples if s == "soak"]
    if loaded:
        lines.append(
            f"under load: RSS {_mib(min(r.rss_kib for r in loaded))}…{_mib(max(r.rss_kib for r in loaded))}, "
            f"descriptors {min(r.fds for r in loaded)}…{max(r.fds for r in loaded)}, database connections"
            f" {min(r.db_connections for r in loaded)}…{max(r.db_connections for r in loaded)} ({len(loaded)} readings)"
        )
    if len(loaded) > 1:
        by_minute: dict[int, list[int]] = {}
        for r in loaded:
            by_minute.setdefault(int((r.at - loaded[0].at) // 60), []).append(r.rss_kib)
        medians = [_mib(statistics.median(v)).removesuffix(" MiB") for _, v in sorted(by_minute.items())]
        lines.append(f"RSS under load, median of each minute of the soak (MiB): {', '.join(medians)}")
    lines.append(f"unoduo db verify: {report.verify_output.splitlines()[-1] if report.verify_output else '—'}")
    lines.append(f"errors: {len(report.errors)}")
    return lines


def print_report(report: Report, say: Log) -> None:
    for line in figure_lines(report):
        say(line)
    problems = report.problems()
    for problem in problems[:20]:
        say(f"PROBLEM: {problem}")
    say("result: OK" if not problems else f"result: FAILED ({len(problems)} problems)")


def machine_line() -> str:
    from bench.report import cpu_model

    return f"{os.cpu_count()} cores ({cpu_model()}), Linux {platform.release()}, Python {platform.python_version()}"
