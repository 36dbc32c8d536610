"""``unoduo bench scale`` (the command is in ``cli.bench_cmd``): several servers on one PostgreSQL database.

Issue 24 point 4. Each *configuration* gets a fresh PostgreSQL schema and its own servers, all with
one director token and ``UNODUO_BOT_THINK_SECONDS=0``:

- ``servers=N`` (N = 1, 2, 3): N separate ``unoduo serve`` processes, each on a loopback port of
  its own;
- ``workers=N``: one ``unoduo serve --workers N`` (N processes sharing one port). When ``serve``
  has no ``--workers`` option the configuration is reported as unavailable, never imitated.

One client process (``bench.server``'s machinery: players against ``bot:random`` over the match
socket, a saturation phase and a paced phase, nearest-rank percentiles) spreads its connections
over the servers round-robin with no stickiness, as a load balancer without sticky sessions
would: each set-up request (registration, creation, join, a re-read after ``stale_version``) and
each socket goes to the next server in turn, so some land on a server that does not own the match
and are forwarded to its owner. The sockets ask for per-decision frames (``frames=decision``)
when the server has them (``--frames``; probed first, event frames otherwise, with a note).

*Server CPU*: user + system CPU of every server process and its children (the process trees read
from ``/proc/PID/stat``) during each phase, summed over the servers, divided by the commands
accepted in the phase. Today's design (every server holds every live match) makes it grow about
N-fold with N servers; the target is at most 1.2× one server's. The other targets: ``workers=2``
at least 1.5× one server's commands/s (saturation), and the paced round trip p99 at most 50 ms.

*Takeover* (``--kills``): two servers, a round-robin of house bots that think a little, move
clocks on. The server that owns the most live matches (PostgreSQL ``match_leases`` joined with
``servers`` by ``peer_url``; without those tables every server holds every match, so the killed
one is simply either) is killed with SIGKILL; for each of its live matches, the time from the kill
to the first event appended after it (its ``at`` stamp, the server's clock, which is this
machine's) is the takeover time. The killed server is started again before the next kill. Then the
matches are let finish, and: every finished match's replay verifies (``engine.fairness.verify``), every
stream's seqs run 1…head, each covered by exactly one processed command, no clock fired early and
no decision timed out twice, every chain verifies (``bench.chaos``'s audit), and no server logged a
traceback or answered 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import secrets
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from tempfile import TemporaryDirectory

import httpx
import websockets
from sqlalchemy import bindparam, inspect, text
from websockets.asyncio.client import ClientConnection, connect

from bench import chaos
from bench.commands import first_legal
from bench.launch import DEFAULT_POSTGRES_URL, ROOT, BenchError, ServerProcess, database
from bench.progress import STALL_SECONDS, Stall
from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section
from bench.server import (
    CONNECT_AT_ONCE,
    WS_PACED,
    WS_SATURATED,
    Client,
    CpuMeter,
    Match,
    PhaseResult,
    Player,
    RawRequester,
    Requester,
    _gather_limited,
    _run_async,
    ms,
    percentile,
    run_phase,
)
from engine.record.jsonfmt import AT_FORMAT

SECTION = "## Scale-out"
CPU_FACTOR_TARGET = 1.2  # server CPU per accepted command, summed over the servers, at most this × one server's
WORKERS_RATE_TARGET = 1.5  # --workers 2: commands/s at least this × one server's
P99_TARGET_MS = 50.0  # paced round trip
DEFAULT_CONFIGS = ("servers=1", "servers=2", "servers=3", "workers=2")
FRAMES = ("decision", "event")
PROBE_SECONDS = 0.5  # after the probe's answer, how long further frames are awaited


# ---------------------------------------------------------------- configurations


@dataclass(frozen=True)
class Config:
    """``servers`` separate ``unoduo serve`` processes, each with ``workers`` (1: no ``--workers``);
    ``sticky``: each player's match set-up and socket go to the server that started its match (its
    owner), as behind a load balancer with sticky sessions, instead of round-robin."""

    servers: int
    workers: int = 1
    sticky: bool = False

    @property
    def name(self) -> str:
        if self.sticky:
            return f"sticky={self.servers}"
        return f"workers={self.workers}" if self.workers > 1 else f"servers={self.servers}"

    @property
    def processes(self) -> int:
        return self.servers * self.workers


def parse_configs(spec: str) -> list[Config]:
    """``servers=1,servers=2,workers=2,sticky=2`` (a bare number is ``servers=N``), in order, each once."""
    out: list[Config] = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        kind, _, value = part.rpartition("=")
        kind = kind or "servers"
        if kind not in ("servers", "workers", "sticky") or not value.isdigit() or not 1 <= int(value) <= 8:
            raise ValueError(f"{part!r}: a configuration is servers=N, workers=N or sticky=N, N from 1 to 8")
        n = int(value)
        config = Config(1, n) if kind == "workers" else Config(n, sticky=kind == "sticky")
        if config not in out:
            out.append(config)
    if not out:
        raise ValueError("no configuration named")
    return out


@dataclass
class Options:
    configs: list[Config] = field(default_factory=lambda: parse_configs(",".join(DEFAULT_CONFIGS)))
    players: int = 60
    seconds: float = 15.0
    rate: float = 1000.0  # the paced phase's offered commands/s, in all
    frames: str = "decision"  # asked for: decision (when the server has it) or event
    kills: int = 2  # takeover: SIGKILLs of an owner (0: no takeover run)
    takeover_bots: int = 12  # house bots of the takeover's round-robin (half as many matches at once)
    takeover_target: int = 100
    takeover_think: float = 0.02  # the takeover servers' UNODUO_BOT_THINK_SECONDS
    move_seconds: int = 2
    postgres_url: str = DEFAULT_POSTGRES_URL
    stall_seconds: float = STALL_SECONDS


# ---------------------------------------------------------------- CPU of process trees


def parse_stat(line: str) -> tuple[int, int, int]:
    """(pid, ppid, utime + stime in clock ticks) from one ``/proc/PID/stat`` line (the command
    name, in parentheses, may hold spaces and parentheses: the fields are read after the last one)."""
    pid = int(line.split(" ", 1)[0])
    fields = line.rsplit(")", 1)[1].split()
    # after the name: state(0) ppid(1) … utime(11) stime(12)
    return pid, int(fields[1]), int(fields[11]) + int(fields[12])


def tree_ticks(stats: Iterable[str], roots: Iterable[int]) -> int:
    """utime + stime of every root and all its descendants (each counted once), from stat lines."""
    parent: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for line in stats:
        try:
            pid, ppid, used = parse_stat(line)
        except (IndexError, ValueError):
            continue
        parent[pid], ticks[pid] = ppid, used
    wanted = {r for r in roots if r in ticks}
    total = 0
    for pid in ticks:
        at, seen = pid, 0
        while at and seen < 64:  # walk up to a root (or to init)
            if at in wanted:
                total += ticks[pid]
                break
            at, seen = parent.get(at, 0), seen + 1
    return total


def read_stats() -> list[str]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                out.append((entry / "stat").read_text())
    return out


def tree_cpu_seconds(roots: Sequence[int]) -> float | None:
    """CPU seconds (user + system) the process trees of ``roots`` have used so far; None without /proc."""
    if not roots or not Path("/proc/self/stat").exists():
        return None
    return tree_ticks(read_stats(), roots) / os.sysconf("SC_CLK_TCK")


class TreeCpuMeter(CpuMeter):
    """``bench.server``'s meter, the server side summed over several process trees."""

    def __init__(self, roots: Sequence[int]) -> None:
        super().__init__(None)
        self.roots = list(roots)

    def _now(self) -> tuple[float, float | None]:
        client, _ = super()._now()
        return client, tree_cpu_seconds(self.roots)


# ---------------------------------------------------------------- the spreading client


LOST_RACE = b"uq_events_stream_seq"  # a set-up append that lost a race on a shared stream to another server
RACE_RETRIES = 20


def lost_race(status: int, body: bytes) -> bool:
    """A refusal that says two servers appended to one shared stream (``players``, ``matches``) at
    once and this one lost: nothing was written, so the request may be sent again. Today's server
    retries such a race itself and, if it keeps losing, answers 503 ``unavailable``; servers
    before it answered 400 naming the constraint."""
    return status == 503 or (status == 400 and LOST_RACE in body)


class RetryLostRaces(httpx.AsyncBaseTransport):
    """Sends a set-up request again (after a short pause) when it lost a race on a shared stream
    (:func:`lost_race`), counting how often, so that a run is not stopped by it and the count is reported."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.retried = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        for attempt in range(RACE_RETRIES):
            response = await self.inner.handle_async_request(request)
            if response.status_code not in (400, 503) or attempt == RACE_RETRIES - 1:
                return response
            body = await response.aread()
            if not lost_race(response.status_code, body):
                return response
            await response.aclose()
            self.retried += 1
            await asyncio.sleep(0.01 * (attempt + 1))
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        await self.inner.aclose()


_STUCK: ContextVar[Client | None] = ContextVar("stuck", default=None)  # sticky: the server of this match's set-up


class SpreadClient(Client):
    """``bench.server.Client`` over several servers: every set-up request, every socket and every
    timed loop's connection goes to the next server in turn (no stickiness); ``sticky``: a match's
    creation, join and socket all go to one server (the next in turn), which starts and so owns it."""

    def __init__(self, bases: Sequence[str], pool: int, frames: str, sticky: bool = False) -> None:
        super().__init__(bases[0], pool, "raw")
        self.sticky = sticky
        self.starters: dict[str, Client] = {}  # sticky: match id → the server that started it
        self.others = [Client(base, pool, "raw") for base in bases[1:]]
        self.members: list[Client] = [self, *self.others]
        self.frames = frames
        self.turn = 0
        self.socket_bases: dict[str, str] = {}  # match id → the server its player's socket went to
        self.retrying: list[RetryLostRaces] = []
        for member in self.members:
            limits = httpx.Limits(max_connections=pool, max_keepalive_connections=pool)
            retrying = RetryLostRaces(httpx.AsyncHTTPTransport(limits=limits))
            self.retrying.append(retrying)
            old = member.http
            member.http = httpx.AsyncClient(base_url=old.base_url, timeout=old.timeout, transport=retrying)
            member.shared.http = member.http

    @property
    def races_retried(self) -> int:
        return sum(r.retried for r in self.retrying)

    def pick(self) -> Client:
        member = self.members[self.turn % len(self.members)]
        self.turn += 1
        return member

    def via(self) -> httpx.AsyncClient:
        return (_STUCK.get() or self.pick()).http

    async def new_match(self, player: Player, opponent: str = "bot:random") -> Match:
        if not self.sticky:
            return await super().new_match(player, opponent)
        member = self.pick()
        token = _STUCK.set(member)  # this task's creation and join (a context of its own under gather)
        try:
            match = await super().new_match(player, opponent)
        finally:
            _STUCK.reset(token)
        self.starters[match.id] = member
        return match

    def requester(self) -> Requester:
        member = self.pick()
        return RawRequester(member.host, member.port)

    def socket_url(self, member: Client, match: Match, since: int, token: str | None) -> str:
        url = f"{member.ws_base}/api/matches/{match.id}/ws?since={since}"
        if token:
            url += f"&token={token}"
        if self.frames == "decision":
            url += "&frames=decision"
        return url

    async def open_socket(self, match: Match, since: int, token: str | None) -> ClientConnection:
        member = self.starters.get(match.id) or self.pick()
        url = self.socket_url(member, match, since, token)
        if token:
            self.socket_bases[match.id] = member.base
        try:
            return await connect(url, ping_interval=None, max_size=2**23, open_timeout=60, close_timeout=5)
        except (OSError, TimeoutError, websockets.exceptions.WebSocketException) as exc:
            raise BenchError(f"WS {url.split('?')[0]}: {type(exc).__name__}: {exc}") from None

    async def close(self) -> None:
        await super().close()
        for other in self.others:
            await other.close()


async def probe_frames(client: SpreadClient, player: Player) -> tuple[bool, str]:
    """Whether the servers send per-decision frames for ``frames=decision``: one match, one command
    sent on its socket, and every frame until its answer (and a little more) read. Event frames
    (``type: event``, one per event) mean the parameter was not understood."""
    match = await client.new_match(player)
    saved = client.frames
    client.frames = "decision"
    try:
        ws = await client.open_socket(match, match.view["version"], player.token)
    finally:
        client.frames = saved
    kinds: Counter[str] = Counter()
    try:
        legal = match.view.get("legal") or []
        if not legal:
            return False, "probe: the player had nothing to do in its first view"
        message = {"type": "command", "command_id": "probe", "expected_version": match.view["version"]}
        await ws.send(json.dumps({**message, "command": first_legal(legal)}))
        answered: float | None = None
        while answered is None or time.perf_counter() - answered < PROBE_SECONDS:
            limit = STALL_SECONDS if answered is None else PROBE_SECONDS
            try:
                async with asyncio.timeout(limit):
                    raw = await ws.recv()
            except TimeoutError:
                break
            kind = str(json.loads(raw).get("type"))
            kinds[kind] += 1
            if kind == "result" and answered is None:
                answered = time.perf_counter()
    finally:
        await ws.close()
    seen = ", ".join(f"{k} ×{n}" for k, n in sorted(kinds.items()))
    if kinds["event"] or not set(kinds) - {"result"}:
        return False, f"the server answered `frames=decision` with event frames ({seen}): not supported"
    return True, f"per-decision frames ({seen} for one command and the bot's reply)"


# ---------------------------------------------------------------- one configuration


@dataclass
class ConfigResult:
    config: Config
    available: bool = True
    note: str = ""
    frames: str = "event"  # what the sockets got
    saturated: PhaseResult | None = None
    paced: PhaseResult | None = None
    off_owner: tuple[int, int] | None = None  # (sockets on a server not owning their match, sockets with a known owner)
    leases: bool = False  # the database has match_leases (ownership)
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    races_retried: int = 0  # set-up requests sent again after losing a race on a shared stream
    problems: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.config.name

    def phases(self) -> list[PhaseResult]:
        return [p for p in (self.saturated, self.paced) if p is not None]


def cpu_per_command(phase: PhaseResult | None) -> float | None:
    """Server CPU seconds per accepted command in ``phase`` (None: no CPU read, or no command)."""
    if phase is None or phase.server_cpu is None or not phase.commands:
        return None
    return phase.server_cpu / phase.commands


def ratio(value: float | None, base: float | None) -> float | None:
    return None if value is None or not base else value / base


def within(factor: float | None, limit: float) -> bool | None:
    """A ratio at most ``limit`` (None: nothing to judge)."""
    return None if factor is None else factor <= limit


def at_least(factor: float | None, limit: float) -> bool | None:
    return None if factor is None else factor >= limit


def workers_available() -> bool:
    """Whether ``unoduo serve`` has a ``--workers`` option (it is being built)."""
    found = subprocess.run(
        [sys.executable, "-m", "cli.main", "serve", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
        check=False,
    )
    return "--workers" in found.stdout


def has_leases(url: str) -> bool:
    db = chaos.Database(url)
    try:
        tables = set(inspect(db.engine).get_table_names())
        return {"match_leases", "servers"} <= tables
    finally:
        db.close()


def owners(db: chaos.Database, match_ids: Iterable[str]) -> dict[str, str]:
    """match id → the owner's peer URL, for the matches of ``match_ids`` that have a lease."""
    ids = list(match_ids)
    if not ids:
        return {}
    query = text(
        "SELECT l.match_id, s.peer_url FROM match_leases l JOIN servers s ON s.id = l.owner WHERE l.match_id IN :ids"
    ).bindparams(bindparam("ids", expanding=True))
    with db.engine.connect() as conn:
        return {str(m): str(url).rstrip("/") for m, url in conn.execute(query, {"ids": ids})}


def peer(server: ServerProcess) -> ServerProcess:
    """The server told where the others reach it (``UNODUO_PEER_URL``): its own loopback address."""
    server.env["UNODUO_PEER_URL"] = server.base
    return server


def _port(url: str) -> str:
    return url.rstrip("/").rpartition(":")[2]


async def _drive(
    client: SpreadClient, roots: list[int], options: Options, result: ConfigResult, log: Callable[[str], None]
) -> None:
    n = options.players
    cpu = TreeCpuMeter(roots)
    tag = secrets.token_hex(2)
    players: list[Player] = await _gather_limited(n, CONNECT_AT_ONCE, lambda i: client.register(f"scale-{tag}-{i}"))
    if options.frames == "decision":
        supported, note = await probe_frames(client, players[0])
        result.frames = "decision" if supported else "event"
        result.note = note if supported else note + "; event frames used"
    client.frames = result.frames
    for name, pace in ((WS_SATURATED, None), (WS_PACED, options.rate)):
        how = "at saturation" if pace is None else f"paced at {pace:g} commands/s offered"
        log(f"  {result.name}, {name}: {n} players against bot:random, {how}, at most {options.seconds:g} s…")
        phase = await run_phase(client, players, name, "ws", options.seconds, 0, 0, cpu, pace)
        log(
            f"  {result.name}, {name}: {phase.commands:,} commands in {phase.seconds:.1f} s"
            f" ({phase.rate:,.0f}/s), server CPU {phase.server_cpu or 0:.1f} s"
        )
        if pace is None:
            result.saturated = phase
        else:
            result.paced = phase


def run_config(config: Config, options: Options, log: Callable[[str], None]) -> ConfigResult:
    result = ConfigResult(config)
    if config.workers > 1 and not workers_available():
        result.available = False
        result.note = "`unoduo serve` has no `--workers` option in this tree: not measured"
        log(f"{config.name}: unavailable ({result.note})")
        return result
    token = "scale-director-" + secrets.token_hex(16)
    settings = {"UNODUO_DIRECTOR_TOKEN": token, "UNODUO_BAD_TOKENS_PER_MINUTE": "0"}
    args = ["--workers", str(config.workers)] if config.workers > 1 else []
    with (
        database("postgres", options.postgres_url, "unoduo_bench_scale") as url,
        TemporaryDirectory(prefix="unoduo-bench-scale-") as tmp,
    ):
        servers = [
            ServerProcess(url, Path(tmp) / f"server-{i + 1}.log", settings, name=f"server {i + 1}", args=args)
            for i in range(config.servers)
        ]
        if config.workers == 1:
            for server in servers:
                peer(server)
        try:
            for server in servers:  # one after the other: the first migrates the database
                server.start()
            log(f"{config.name}: {', '.join(s.base for s in servers)} ({config.processes} processes)")
            result.leases = has_leases(url)
            roots = [s.process.pid for s in servers if s.process is not None]
            client = SpreadClient(
                [s.base for s in servers], pool=options.players + 20, frames=options.frames, sticky=config.sticky
            )

            async def main() -> None:
                try:
                    await _drive(client, roots, options, result, log)
                finally:
                    await client.close()

            _run_async(main())
            result.races_retried = client.races_retried
            if result.leases and config.workers == 1:
                db = chaos.Database(url)
                try:
                    owned = owners(db, client.socket_bases)
                finally:
                    db.close()
                ports = {m: _port(u) for m, u in owned.items()}
                elsewhere = sum(1 for m, port in ports.items() if _port(client.socket_bases[m]) != port)
                result.off_owner = (elsewhere, len(ports))
        finally:
            for server in servers:
                if server.stop() not in (0, None) or server.returncode is None:
                    result.problems.append(f"{server.name} did not stop cleanly on SIGINT (exit {server.returncode})")
                result.problems += server.log_problems()
    for phase in result.phases():
        result.problems += [f"{phase.name}: {e}" for e in phase.errors[:5]]
    result.load = os.getloadavg()
    return result


# ---------------------------------------------------------------- takeover


@dataclass
class Kill:
    victim: str
    ownership: bool  # chosen by its leases (else: every server held every match)
    matches: int  # live matches it owned (or held) at the kill
    ids: list[str] = field(default_factory=list)  # those matches
    seconds: list[float] = field(default_factory=list)  # per match: kill → first event appended after it
    timed_out: int = 0  # timeouts among the events after the kill, in those matches
    not_moved: list[str] = field(default_factory=list)
    unseen: list[str] = field(default_factory=list)  # moved, but the survivor did not show it
    survivor_owns: int | None = None  # after the takeover, of the matches still live, how many the survivor leases


@dataclass
class TakeoverResult:
    ownership: bool = False
    kills: list[Kill] = field(default_factory=list)
    matches_checked: int = 0
    replays_verified: int = 0
    timeouts: int = 0
    events: int = 0
    problems: list[str] = field(default_factory=list)
    note: str = ""

    @property
    def seconds(self) -> list[float]:
        return [s for k in self.kills for s in k.seconds]

    @property
    def ok(self) -> bool:
        return not self.problems and all(not k.not_moved for k in self.kills)


def _parse_at(at: str) -> float:
    return datetime.strptime(at, AT_FORMAT).replace(tzinfo=UTC).timestamp()


def first_events_after(db: chaos.Database, match_ids: Sequence[str], after: str) -> dict[str, tuple[int, str]]:
    """match id → (seq, at) of its first event stamped later than ``after`` (an AT_FORMAT string)."""
    query = text(
        "SELECT stream, MIN(seq), MIN(at) FROM events WHERE stream IN :streams AND at > :after GROUP BY stream"
    ).bindparams(bindparam("streams", expanding=True))
    streams = [f"match-{m}" for m in match_ids]
    with db.engine.connect() as conn:
        rows = conn.execute(query, {"streams": streams, "after": after}).all()
    return {str(s).removeprefix("match-"): (int(seq), str(at)) for s, seq, at in rows}


def timeouts_after(db: chaos.Database, match_ids: Sequence[str], after: str) -> int:
    query = text(
        "SELECT COUNT(*) FROM events WHERE stream IN :streams AND at > :after AND type = 'timed_out'"
    ).bindparams(bindparam("streams", expanding=True))
    with db.engine.connect() as conn:
        return int(conn.execute(query, {"streams": [f"match-{m}" for m in match_ids], "after": after}).scalar() or 0)


def live_matches(db: chaos.Database, tournament: str) -> dict[str, int]:
    return {m: head for m, (status, head) in db.heads(tournament).items() if status == "live"}


def choose_victim(
    servers: Sequence[ServerProcess], live: Mapping[str, int], owned: Mapping[str, str], turn: int
) -> tuple[ServerProcess, list[str]]:
    """The server to kill and the live matches it owns: the owner of the most (by its port), or,
    with no leases at all (every server holds every match), the ``turn``-th server and every match."""
    if not owned:
        return servers[turn % len(servers)], sorted(live)
    by_port = Counter(_port(url) for m, url in owned.items() if m in live)
    up = [s for s in servers if s.up]
    victim = max(up, key=lambda s: by_port.get(str(s.port), 0))
    return victim, sorted(m for m, url in owned.items() if m in live and _port(url) == str(victim.port))


def wait_moved(
    db: chaos.Database, match_ids: list[str], after: str, stall_seconds: float
) -> tuple[dict[str, tuple[int, str]], list[str]]:
    """Until every match of ``match_ids`` has an event stamped after ``after`` (or none has moved
    for ``stall_seconds``): the first such events, and the matches that never moved."""
    found: dict[str, tuple[int, str]] = {}
    stall = Stall(stall_seconds)
    while len(found) < len(match_ids) and not stall.stuck:
        with contextlib.suppress(Exception):
            found = first_events_after(db, match_ids, after)
        stall.moved(len(found))
        time.sleep(0.05)
    return found, [m for m in match_ids if m not in found]


def wait_finished(db: chaos.Database, tournament: str, match_ids: set[str], stall_seconds: float) -> list[str]:
    """Until every match of ``match_ids`` is no longer live (progress: their heads); those still live."""
    stall = Stall(stall_seconds)
    while True:
        heads = db.heads(tournament)
        left = {m: heads[m][1] for m in match_ids if heads.get(m, ("", 0))[0] == "live"}
        if not left or stall.stuck:
            return sorted(left)
        stall.moved(tuple(sorted(left.items())))
        time.sleep(0.2)


def run_takeover(options: Options, log: Callable[[str], None]) -> TakeoverResult:
    result = TakeoverResult()
    token = "scale-director-" + secrets.token_hex(16)
    settings = {
        "UNODUO_DIRECTOR_TOKEN": token,
        "UNODUO_BOT_THINK_SECONDS": f"{options.takeover_think:g}",
        "UNODUO_BAD_TOKENS_PER_MINUTE": "0",
    }
    with (
        database("postgres", options.postgres_url, "unoduo_bench_scale_takeover") as url,
        TemporaryDirectory(prefix="unoduo-bench-takeover-") as tmp,
    ):
        servers = [
            peer(ServerProcess(url, Path(tmp) / f"server-{i + 1}.log", settings, name=f"server {i + 1}"))
            for i in (0, 1)
        ]
        db: chaos.Database | None = None
        director: chaos.Director | None = None
        try:
            for server in servers:
                server.start()
            db = chaos.Database(url)
            result.ownership = has_leases(url)
            director = chaos.Director(servers, token, chaos.Ledger())
            entries = ["bot:random"] * options.takeover_bots
            tournament = director.tournament(entries, options.takeover_target, options.move_seconds)
            log(
                f"takeover: 2 servers, a round robin of {options.takeover_bots} house bots (think"
                f" {options.takeover_think:g} s, move clock {options.move_seconds} s, target {options.takeover_target})"
            )
            measured: set[str] = set()
            for turn in range(options.kills):
                kill = _one_kill(db, servers, tournament, turn, options, log)
                if kill is None:
                    result.note = "no live match to take over at a kill (the tournament ran out): fewer kills"
                    break
                result.kills.append(kill)
                measured |= set(kill.ids)
            left = wait_finished(db, tournament, measured, options.stall_seconds)
            if left:
                result.problems.append(f"{len(left)} measured matches never finished: {', '.join(left[:5])}")
            audit = chaos.Report(chaos.Options(db="postgres"))
            chaos.verify_replays(director, db, audit, [], [tournament])
            result.replays_verified = audit.replays_verified
            result.matches_checked = len(measured)
            for server in servers:
                if server.stop() not in (0, None):
                    audit.problems.append(f"{server.name} exited with {server.returncode} on Ctrl-C")
            chaos.audit(db, audit, [], chaos.move_seconds_of(db))
            chaos.verify_chains(url, audit)
            chaos.scan_logs(servers, audit)
            result.timeouts, result.events = audit.timeouts, audit.events
            result.problems += audit.problems
        finally:
            for server in servers:
                server.stop()
            if director is not None:
                director.close()
            if db is not None:
                db.close()
    return result


def _one_kill(
    db: chaos.Database,
    servers: list[ServerProcess],
    tournament: str,
    turn: int,
    options: Options,
    log: Callable[[str], None],
) -> Kill | None:
    """Wait for live matches moving (with their leases, under ownership), kill the owner of the
    most, measure each of its matches' takeover, then start it again."""
    ownership = has_leases(db.url)
    stall = Stall(options.stall_seconds)
    live: dict[str, int] = {}
    owned: dict[str, str] = {}
    while not stall.stuck:  # every live match under way (a few moves), and leased when leases exist
        live = live_matches(db, tournament)
        owned = owners(db, live) if ownership else {}
        if live and min(live.values()) >= 20 and (not ownership or set(owned) >= set(live)):
            break
        stall.moved((tuple(sorted(live.items())), len(owned)))
        time.sleep(0.1)
    if not live:
        return None
    victim, ids = choose_victim(servers, live, owned, turn)
    if not ids:
        return None
    survivor = next(s for s in servers if s is not victim)
    after = datetime.now(UTC).strftime(AT_FORMAT)
    killed_at = _parse_at(after)
    victim.kill()
    kill = Kill(victim.name, bool(owned), len(ids), ids)
    found, kill.not_moved = wait_moved(db, ids, after, options.stall_seconds)
    kill.seconds = [_parse_at(at) - killed_at for _, at in found.values()]
    kill.timed_out = timeouts_after(db, ids, after)
    for match_id, (seq, _) in found.items():  # what the survivor shows
        with contextlib.suppress(httpx.HTTPError):
            shown = httpx.get(f"{survivor.base}/api/matches/{match_id}", timeout=30).json()
            if int(shown["view"]["version"]) < seq:
                kill.unseen.append(match_id)
    if ownership:
        still = live_matches(db, tournament)
        now = owners(db, still)
        kill.survivor_owns = sum(1 for m in ids if m in still and _port(now.get(m, "")) == str(survivor.port))
    took = sorted(kill.seconds)
    log(
        f"  kill {turn + 1}: {victim.name} (owner of {len(ids)} live matches{'' if owned else ': every server holds every match'})"
        f" killed; moved again after median {statistics.median(took) if took else float('nan'):.2f} s,"
        f" max {max(took) if took else float('nan'):.2f} s; {len(kill.not_moved)} did not move; {kill.timed_out} timeouts"
    )
    victim.start()
    return kill


# ---------------------------------------------------------------- the run and its report


@dataclass
class ScaleReport:
    options: Options
    configs: list[ConfigResult]
    takeover: TakeoverResult | None
    facts: list[str]

    def config(self, name: str) -> ConfigResult | None:
        return next((c for c in self.configs if c.name == name and c.available), None)

    @property
    def base(self) -> ConfigResult | None:
        return self.config("servers=1")

    @property
    def problems(self) -> list[str]:
        out = [f"{c.name}: {p}" for c in self.configs for p in c.problems]
        if self.takeover is not None:
            out += [f"takeover: {p}" for p in self.takeover.problems]
        return out


def run_scale(options: Options, log: Callable[[str], None]) -> ScaleReport:
    configs = []
    for config in options.configs:
        log(f"{config.name}: starting…")
        configs.append(run_config(config, options, log))
    takeover = run_takeover(options, log) if options.kills else None
    return ScaleReport(options, configs, takeover, machine_facts(options, configs))


def machine_facts(options: Options, configs: list[ConfigResult]) -> list[str]:
    import importlib.metadata as md

    loads = "; ".join(f"{c.name} {c.load[0]:.2f} / {c.load[1]:.2f} / {c.load[2]:.2f}" for c in configs if c.available)
    return [
        f"nproc: {os.cpu_count()}; CPU: {cpu_model()}; Python {platform.python_version()}, uvicorn"
        f" {md.version('uvicorn')}, websockets {md.version('websockets')}",
        "PostgreSQL on the same machine (a fresh schema per configuration); each server `UNODUO_BOT_THINK_SECONDS=0`,"
        " one director token; the client is ONE process (asyncio) sharing the cores with the servers",
        f"{options.players} players, each against `bot:random` over the match socket; phases of at most"
        f" {options.seconds:g} s: saturation, then paced at {options.rate:g} commands/s offered in all",
        "requests and sockets spread over the servers round-robin, no stickiness (`sticky=N`: a match's set-up and"
        " socket on the server that started it)",
        f"load average (1/5/15 min) at the end of each configuration: {loads}" if loads else "",
    ]


Row = tuple[str, ...]


def _verdict(ok: bool | None, yes: str = "kept", no: str = "MISSED") -> str:
    return "-" if ok is None else (yes if ok else no)


def _f(value: float | None, fmt: str = "{:.2f}") -> str:
    return "-" if value is None else fmt.format(value)


CONFIG_HEADERS = (
    "configuration",
    "processes",
    "frames",
    "saturation commands/s",
    "saturation p50 / p99 ms",
    "paced commands/s (of offered)",
    "paced p50 / p99 ms",
    "server cores (sat / paced)",
    "client cores (sat / paced)",
    "server CPU ms per command (sat / paced)",
    "× 1 server (sat / paced)",
    f"≤ {CPU_FACTOR_TARGET:g}×",
    "sockets on a non-owner",
    "stale / errors",
)


def config_rows(report: ScaleReport) -> list[Row]:
    base = report.base
    base_cpu = (cpu_per_command(base.saturated), cpu_per_command(base.paced)) if base else (None, None)
    out: list[Row] = []
    for c in report.configs:
        if not c.available:
            out.append((c.name, "-", "-", "unavailable", *["-"] * (len(CONFIG_HEADERS) - 4)))
            continue
        s, p = c.saturated, c.paced
        sat_cpu, paced_cpu = cpu_per_command(s), cpu_per_command(p)
        factors = (ratio(sat_cpu, base_cpu[0]), ratio(paced_cpu, base_cpu[1]))
        kept = [within(f, CPU_FACTOR_TARGET) for f in factors]
        off = "-" if c.off_owner is None else f"{c.off_owner[0]} of {c.off_owner[1]}"

        def cores(ph: PhaseResult | None, client: bool = False) -> str:
            used = None if ph is None else (ph.client_cpu if client else ph.server_cpu)
            return "-" if ph is None or used is None or not ph.seconds else f"{used / ph.seconds:.2f}"

        out.append(
            (
                c.name,
                str(c.config.processes),
                c.frames,
                _f(s.rate if s else None, "{:,.0f}"),
                f"{ms(percentile(s.round_trips, 50))} / {ms(percentile(s.round_trips, 99))}" if s else "-",
                f"{p.rate:,.0f} ({p.rate / p.pace:.0%})" if p and p.pace else "-",
                f"{ms(percentile(p.round_trips, 50))} / {ms(percentile(p.round_trips, 99))}" if p else "-",
                f"{cores(s)} / {cores(p)}",
                f"{cores(s, True)} / {cores(p, True)}",
                f"{_f(None if sat_cpu is None else sat_cpu * 1000)} / {_f(None if paced_cpu is None else paced_cpu * 1000)}",
                f"{_f(factors[0])} / {_f(factors[1])}",
                f"{_verdict(kept[0])} / {_verdict(kept[1])}",
                off,
                f"{(s.stale if s else 0) + (p.stale if p else 0)} / {sum(len(ph.errors) for ph in c.phases())}",
            )
        )
    return out


def checks(report: ScaleReport) -> list[Row]:
    """(check, figure, target, verdict) for the issue's targets."""
    out: list[Row] = []
    base = report.base
    for c in report.configs:
        if c.name == "servers=1" or not c.available or base is None:
            continue
        for which, mine, theirs in (
            ("saturation", cpu_per_command(c.saturated), cpu_per_command(base.saturated)),
            ("paced", cpu_per_command(c.paced), cpu_per_command(base.paced)),
        ):
            factor = ratio(mine, theirs)
            out.append(
                (
                    f"{c.name}: server CPU per accepted command, summed over its processes, over servers=1's ({which})",
                    f"{_f(factor)}×",
                    f"≤ {CPU_FACTOR_TARGET:g}×",
                    _verdict(within(factor, CPU_FACTOR_TARGET)),
                )
            )
    workers = next((c for c in report.configs if c.config.workers == 2), None)
    if workers is not None:
        if workers.available and base is not None and workers.saturated and base.saturated:
            factor = ratio(workers.saturated.rate, base.saturated.rate)
            figure = f"{workers.saturated.rate:,.0f} / {base.saturated.rate:,.0f} = {_f(factor)}×"
            out.append(
                (
                    "workers=2 commands/s (saturation) over servers=1's",
                    figure,
                    f"≥ {WORKERS_RATE_TARGET:g}×",
                    _verdict(at_least(factor, WORKERS_RATE_TARGET), "met", "NOT met"),
                )
            )
        else:
            out.append(("workers=2 commands/s over servers=1's", "unavailable", f"≥ {WORKERS_RATE_TARGET:g}×", "-"))
    for c in report.configs:
        if c.available and c.paced is not None:
            p99 = percentile(c.paced.round_trips, 99)
            out.append(
                (
                    f"{c.name}: paced round trip p99 at {report.options.rate:g} commands/s offered"
                    f" ({c.paced.rate:,.0f} achieved)",
                    f"{ms(p99)} ms",
                    f"≤ {P99_TARGET_MS:g} ms",
                    _verdict(None if p99 is None else p99 * 1000 <= P99_TARGET_MS, "met", "NOT met"),
                )
            )
    return out


def takeover_rows(t: TakeoverResult) -> list[Row]:
    took = t.seconds
    rows: list[Row] = []
    for i, k in enumerate(t.kills, 1):
        rows.append(
            (
                f"kill {i}: {k.victim}",
                f"{k.matches} live matches {'owned (its leases)' if k.ownership else 'held (every server holds every match)'}",
                f"{_f(statistics.median(k.seconds) if k.seconds else None)} / {_f(max(k.seconds) if k.seconds else None)} s",
                f"{len(k.not_moved)} not moved, {len(k.unseen)} not shown by the survivor, {k.timed_out} timeouts"
                + ("" if k.survivor_owns is None else f", survivor leases {k.survivor_owns}"),
            )
        )
    rows.append(
        (
            "all kills",
            f"{len(took)} matches",
            f"{_f(statistics.median(took) if took else None)} / {_f(max(took) if took else None)} s",
            f"replays verified {t.replays_verified}; audit: {t.events:,} events, {t.timeouts} timeouts;"
            f" {'no problem' if t.ok else f'{len(t.problems)} problems'}",
        )
    )
    return rows


TAKEOVER_HEADERS = ("kill", "matches", "takeover median / max", "checks")


def _table(headers: Sequence[str], rows: Sequence[Row]) -> list[str]:
    return [
        "| " + " | ".join(headers) + " |",
        "| " + " | ".join("---" if i == 0 else "---:" for i in range(len(headers))) + " |",
        *["| " + " | ".join(r) + " |" for r in rows],
    ]


def notes(report: ScaleReport) -> list[str]:
    out = [f"{c.name}: {c.note}" for c in report.configs if c.note]
    raced = [c for c in report.configs if c.races_retried]
    if raced:
        out.append(
            "Set-up requests (registrations, match creations, joins) that two servers raced on one shared stream"
            " (`players`, `matches`) lost the race every time the server tried again and were answered 503"
            " `unavailable` (nothing written; before, 400 `malformed` naming `uq_events_stream_seq`), and sent again"
            " by the client: "
            + "; ".join(f"{c.name} {c.races_retried}" for c in raced)
            + ". Not a cost of the timed phases."
        )
    if report.takeover is not None and report.takeover.note:
        out.append(f"takeover: {report.takeover.note}")
    leases = {c.leases for c in report.configs if c.available}
    if leases == {False}:
        out.append(
            "The database has no `match_leases` table: today's design, every server holds every live match"
            " (its clocks and house bots run in every server; command ids decide which copy's move lands)."
        )
    elif leases == {True}:
        out.append("Ownership on: each live match has one owning server (`match_leases`); the others forward to it.")
    return out


MEASURED = (
    "What is measured: per configuration, a fresh PostgreSQL schema and its servers; N players, each in a"
    " match against `bot:random` (the bot answers inside the player's request), send the first legal command"
    " of their latest view over the match socket: *saturation* (the next command the moment the answer is in:"
    " commands/s is the capacity, the round trip mostly queueing) then *paced* (a think time of N / `--rate`"
    " ± 50% between an answer and the next command). Every registration, match creation, join and socket goes"
    " to the next server in turn, so a socket lands on a server that does not own its match (and is forwarded)"
    " about (N − 1) / N of the time, as the `sockets on a non-owner` column counts from `match_leases`."
    " *Server CPU*: user + system CPU of every server process and its children (`/proc/PID/stat`), summed"
    " over the servers, over the phase, divided by the commands accepted in it; PostgreSQL's own CPU is not"
    " in it. *Takeover*: two servers (house bots thinking `UNODUO_BOT_THINK_SECONDS=0.02`, move clocks of 2"
    " s, the default lease of 3 s), a round robin of house bots; the owner of the most live matches is killed"
    " with SIGKILL, and for each of its matches the time from the kill to the first event appended after it"
    " (its `at` stamp) is the takeover time; the killed server is started again before the next kill. Then"
    " every finished match's replay verifies, and the whole log is audited (`bench.chaos`: seqs 1…head, each"
    " covered by one processed command; no clock early or twice for one decision; every chain)."
)


def markdown(report: ScaleReport, command: str) -> str:
    lines = [*section_head(SECTION, command, [f for f in report.facts if f]), MEASURED, ""]
    lines += ["**Throughput, latency and server CPU per configuration**", ""]
    lines += _table(CONFIG_HEADERS, config_rows(report))
    lines += ["", "**Targets**", ""]
    lines += _table(("check", "figure", "target", ""), checks(report))
    if report.takeover is not None:
        lines += [
            "",
            f"**Takeover after `kill -9` of an owner** ({'ownership' if report.takeover.ownership else 'no ownership: every server holds every match'})",
            "",
        ]
        lines += _table(TAKEOVER_HEADERS, takeover_rows(report.takeover))
    extra = notes(report)
    if extra:
        lines += ["", *[f"- {n}" for n in extra]]
    problems = report.problems
    if problems:
        lines += ["", "Problems seen (first 10):", "", *[f"- `{p[:300]}`" for p in problems[:10]]]
    return "\n".join(lines) + "\n"


def print_report(report: ScaleReport, say: Callable[[str], None], command: str = "unoduo bench scale") -> None:
    for line in markdown(report, command).splitlines():
        say(line)


def run_and_report(options: Options, write_docs: bool, command: str, say: Callable[[str], None]) -> ScaleReport:
    report = run_scale(options, say)
    print_report(report, say, command)
    if write_docs:
        write_docs_section(BENCHMARKS_MD, SECTION, markdown(report, command))
        say(f"wrote {BENCHMARKS_MD}")
    return report
