"""``unoduo bench server`` (the command is in ``cli.bench_cmd``): the live server, end to end.

A real ``unoduo serve`` is started as a subprocess on loopback (``--db`` a fresh SQLite file or
a throw-away PostgreSQL schema; ``UNODUO_BOT_THINK_SECONDS=0``, so the house bots answer at
once), and one client process drives it over HTTP and WebSocket only: asyncio (uvloop when
installed), ``websockets`` sockets, and for HTTP one ``httpx.AsyncClient`` (pool as large as the
run needs) for the set-up requests. The timed HTTP loops (no-op and HTTP phase) send with
``--http-client``: ``raw`` (default), a minimal HTTP/1.1 client with one keep-alive connection
per loop, or ``httpx``, the shared AsyncClient, which was measured at about 1 ms of client CPU a
request on a 2-core machine (8 ms with 100 loops on one pool, encode/httpx#3215), so the client,
not the server, set the no-op rate. The client shares the machine's cores with the server; the
CPU each process used is reported per phase.

Phases of one run, each on its own matches, in two parts kept apart in the report:

- **no-op**: N concurrent loops of ``GET /api`` (the smallest route of the same server, same
  client machinery) for ``--noop-seconds``: requests/s, the reference rate.

*Capacity* (saturation): every player sends its next command the moment it has the answer, so
the server is never idle. Commands/s, and its ratio to the no-op rate, is the figure; the round
trips are reported too but they measure queueing (Little's law: N players waiting, a round trip
is about N / (commands/s)), not the latency a player sees at a realistic load.

- **WebSocket, saturation**: N registered players, each in a match against ``bot:random``, play
  the first legal command of their view (a wild or ``color`` gets ``"red"``), with
  ``expected_version`` = the view's version, sent on the match's socket. Round trip: from the
  send to the ``result`` message answering it.
- **WebSocket, saturation, per-decision frames**: the same with every socket opened with
  ``frames=decision`` (one message per decision, its events and the view after the last:
  docs/SERVER.md "The live socket") instead of one message per event.
- **HTTP POST, saturation**: the same, each command a ``POST /api/matches/{id}/commands``.
  Round trip: the POST.

*Latency at a paced load* (``--rate`` R commands/s offered in all): each player waits a think
time between receiving its answer and sending its next command, N / R on average with ±50 %
uniform jitter (so the players do not fall into step), and its first command at a random moment
of its first think time. Round trips and deliveries here are the latency figures the targets are
meant for; achieved commands/s is set beside the offered R (the round trip itself lengthens each
player's cycle a little; far below R means the server did not keep up).

- **WebSocket, paced** and **HTTP POST, paced**: the two phases above at the paced load.
- **WebSocket, paced + K spectators** (``--spectators`` K > 0): the paced WebSocket phase again,
  with K more spectator sockets on match 0; match 0's player's round trips and all players' are
  compared with the paced WebSocket phase without them.

A ``stale_version`` answer is counted and the view read again (``GET /api/matches/{id}``). Each
phase ends when every match is over or ``--seconds`` have passed (commands then outstanding
are awaited a little). Delivery: for ``--watched`` matches a spectator socket is open too; for
each of the player's commands, the time from the moment it was sent to the moment that socket
receives the ``command`` event with ``data.seat`` = the player's seat at
``seq`` = ``expected_version`` + 1 (the event that records it).
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import json
import math
import os
import platform
import random
import resource
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx
import websockets
from rich.console import Console
from rich.table import Table
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench.commands import first_legal
from bench.launch import DEFAULT_POSTGRES_URL, STOP_SECONDS, BenchError, ServerProcess, database
from bench.progress import STALL_SECONDS
from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section

SECTION = "## Server"
# A phase is timed (--seconds): these are not budgets but stall windows, long enough for a loaded machine.
GRACE_SECONDS = STALL_SECONDS  # after --seconds, how long an outstanding command's answer is awaited
IDLE_SECONDS = STALL_SECONDS  # no event for this long while waiting for one: the match is stuck (an error)
CONNECT_AT_ONCE = 25  # sockets opened concurrently while a phase is set up

# the targets, beside the figures
RATE_TARGET = 0.25  # commands/s over no-op requests/s
P50_TARGET_MS = 10.0
P99_TARGET_MS = 50.0
DELIVERY_P99_TARGET_MS = 20.0
SPECTATOR_P99_FACTOR = 2.0
KEPT_UP = 0.9  # a paced phase whose achieved commands/s is below this share of the offered rate did not keep up
JITTER = 0.5  # a think time is uniform in mean × (1 ± JITTER)


WS_SATURATED = "WebSocket, saturation"
WS_DECISIONS = "WebSocket, saturation, per-decision frames"
HTTP_SATURATED = "HTTP POST, saturation"
WS_PACED = "WebSocket, paced"
HTTP_PACED = "HTTP POST, paced"


def crowded_name(spectators: int) -> str:
    return f"WebSocket, paced + {spectators} spectators"


# ---------------------------------------------------------------- figures


def percentile(samples: list[float], q: float) -> float | None:
    """The nearest-rank ``q`` percentile (0-100), or None for no samples."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f}"


@dataclass
class PhaseResult:
    """One play phase: its matches' commands, round trips and deliveries."""

    name: str
    transport: str  # "ws" or "http"
    matches: int
    frames: str = "event"  # what the WebSocket sockets asked for: one message per event, or per decision
    pace: float | None = None  # the offered commands/s of a paced phase; None: saturation (no think time)
    spectators: int = 0
    watched: int = 0
    commands: int = 0
    stale: int = 0
    finished: int = 0
    polls: int = 0  # HTTP only: GETs while the view had nothing for the player to do
    seconds: float = 0.0
    setup_seconds: float = 0.0
    round_trips: list[float] = field(default_factory=list)
    match0_round_trips: list[float] = field(default_factory=list)
    deliveries: list[float] = field(default_factory=list)  # to the watchers
    crowd_deliveries: list[float] = field(default_factory=list)  # to match 0's K spectators
    crowd_messages: int = 0
    errors: list[str] = field(default_factory=list)
    client_cpu: float = 0.0  # CPU seconds of the client process while the phase ran
    server_cpu: float | None = None  # of the server process (None: not readable)

    @property
    def rate(self) -> float:
        return self.commands / self.seconds if self.seconds else 0.0

    @property
    def think(self) -> float | None:
        """A player's mean think time in a paced phase: N / the offered rate."""
        return None if self.pace is None else self.matches / self.pace

    @property
    def kept_up(self) -> bool | None:
        return None if self.pace is None else self.rate >= KEPT_UP * self.pace


@dataclass
class NoopResult:
    requests: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    client_cpu: float = 0.0
    server_cpu: float | None = None

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


@dataclass
class Options:
    matches: int = 100
    seconds: float = 60.0
    noop_seconds: float = 5.0
    watched: int = 10
    spectators: int = 0
    rate: float = 1000.0  # the offered commands/s, in all, of the paced phases
    db: str = "sqlite"
    postgres_url: str = DEFAULT_POSTGRES_URL
    http_client: str = "raw"  # or "httpx": what the no-op and HTTP-phase loops send their requests with


@dataclass
class Report:
    options: Options
    noop: NoopResult
    phases: list[PhaseResult]
    facts: list[str]
    server_log_tail: str = ""
    server_exit: int | None = 0

    def phase(self, name: str) -> PhaseResult | None:
        return next((p for p in self.phases if p.name == name), None)


# ---------------------------------------------------------------- the client


def _summary(response: httpx.Response, what: str) -> str:
    return f"{what}: HTTP {response.status_code} {response.text[:200]}"


@dataclass
class Player:
    id: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass
class Match:
    id: str
    player: Player
    view: dict[str, Any]
    seat: int = 0
    sent_at: dict[int, float] = field(default_factory=dict)  # seq of the command's event → perf_counter at send
    socket: ClientConnection | None = None
    watchers: list[ClientConnection] = field(default_factory=list)


class Requester(abc.ABC):
    """How one loop sends its timed HTTP requests: ``(status, body)`` for a method, path, headers and JSON body."""

    @abc.abstractmethod
    async def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, body: Any = None
    ) -> tuple[int, bytes]: ...

    async def close(self) -> None:
        return None


class HttpxRequester(Requester):
    """Through the run's one shared ``httpx.AsyncClient`` (its connection pool)."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, body: Any = None
    ) -> tuple[int, bytes]:
        try:
            response = await self.http.request(method, path, headers=headers, json=body)
        except httpx.HTTPError as exc:
            raise BenchError(f"{method} {path}: {type(exc).__name__}: {exc}") from None
        return response.status_code, response.content


class RawRequester(Requester):
    """A minimal HTTP/1.1 client on its own keep-alive connection (asyncio streams): a light load generator."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, body: Any = None
    ) -> tuple[int, bytes]:
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Content-Length: {len(payload)}"]
        if body is not None:
            lines.append("Content-Type: application/json")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        message = ("\r\n".join(lines) + "\r\n\r\n").encode() + payload
        try:
            if self.streams is None:
                self.streams = await asyncio.open_connection(self.host, self.port)
            reader, writer = self.streams
            writer.write(message)
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            status = int(head[0].split(" ", 2)[1])
            fields = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:] if h)}
            if fields.get("transfer-encoding", "").lower() == "chunked":
                content = b""
                while size := int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16):
                    content += (await reader.readexactly(size + 2))[:-2]
                await reader.readuntil(b"\r\n")
            else:
                content = await reader.readexactly(int(fields.get("content-length", "0")))
            if fields.get("connection", "").lower() == "close":
                await self.close()
            return status, content
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as exc:
            await self.close()
            raise BenchError(f"{method} {path}: {type(exc).__name__}: {exc}") from None

    async def close(self) -> None:
        if self.streams is not None:
            writer = self.streams[1]
            self.streams = None
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


def _said(status: int, content: bytes, what: str) -> str:
    return f"{what}: HTTP {status} {content[:200].decode(errors='replace')}"


class Client:
    def __init__(self, base: str, pool: int, http_client: str = "httpx") -> None:
        self.base = base
        self.ws_base = "ws" + base[len("http") :]
        self.host, _, port = base[len("http://") :].rpartition(":")
        self.port = int(port)
        self.http_client = http_client
        self.frames = "event"  # what match sockets ask for (``frames=``): event or decision
        self.ping_interval: float | None = None  # the sockets' keep-alive pings (None: none)
        limits = httpx.Limits(max_connections=pool, max_keepalive_connections=pool)
        self.http = httpx.AsyncClient(base_url=base, limits=limits, timeout=httpx.Timeout(60.0))
        self.shared = HttpxRequester(self.http)

    def requester(self) -> Requester:
        """What one timed loop sends its requests with: the shared httpx client, or a connection of its own."""
        return self.shared if self.http_client == "httpx" else RawRequester(self.host, self.port)

    async def close(self) -> None:
        await self.http.aclose()

    def via(self) -> httpx.AsyncClient:
        """The client a set-up request goes through (one server here; ``bench.scale`` spreads them over several)."""
        return self.http

    async def register(self, name: str) -> Player:
        response = await self.via().post("/api/players", json={"name": name})
        if response.status_code != 201:
            raise BenchError(_summary(response, "POST /api/players"))
        body = response.json()
        return Player(body["id"], body["token"])

    async def new_match(self, player: Player, opponent: str = "bot:random") -> Match:
        response = await self.via().post("/api/matches", headers=player.headers, json={"opponent": opponent})
        if response.status_code != 201:
            raise BenchError(_summary(response, "POST /api/matches"))
        summary = response.json()
        match_id = summary["id"]
        seats = [s.get("id") if isinstance(s, dict) else s for s in summary.get("seats", [])]
        seat = seats.index(player.id) if player.id in seats else 0
        return await self.join(match_id, player, seat)

    async def join(self, match_id: str, player: Player, seat: int) -> Match:
        """``player`` joins the match at ``seat`` (fresh entropy): the match with the view of that seat."""
        response = await self.via().post(
            f"/api/matches/{match_id}/join", headers=player.headers, json={"entropy": secrets.token_hex(8)}
        )
        if response.status_code != 200:
            raise BenchError(_summary(response, f"POST /api/matches/{match_id}/join"))
        return Match(match_id, player, response.json()["view"], seat)

    async def open_socket(self, match: Match, since: int, token: str | None) -> ClientConnection:
        url = f"{self.ws_base}/api/matches/{match.id}/ws?since={since}" + (f"&token={token}" if token else "")
        url += f"&frames={self.frames}" if self.frames != "event" else ""
        try:
            return await connect(
                url, ping_interval=self.ping_interval, max_size=2**23, open_timeout=60, close_timeout=5
            )
        except (OSError, TimeoutError, websockets.exceptions.WebSocketException) as exc:
            raise BenchError(f"WS {url.split('?')[0]}: {type(exc).__name__}: {exc}") from None


async def read_view(http: Requester, match: Match) -> dict[str, Any]:
    status, content = await http.request("GET", f"/api/matches/{match.id}", match.player.headers)
    if status != 200:
        raise BenchError(_said(status, content, f"GET /api/matches/{match.id}"))
    view: dict[str, Any] = json.loads(content)["view"]
    return view


async def _gather_limited(count: int, at_once: int, make: Callable[[int], Any]) -> list[Any]:
    gate = asyncio.Semaphore(at_once)

    async def one(i: int) -> Any:
        async with gate:
            return await make(i)

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def run_noop(client: Client, loops: int, seconds: float, cpu: CpuMeter) -> NoopResult:
    result = NoopResult()
    deadline = time.perf_counter() + seconds

    async def loop() -> None:
        http = client.requester()
        try:
            while time.perf_counter() < deadline:
                began = time.perf_counter()
                try:
                    status, content = await http.request("GET", "/api")
                except BenchError as exc:
                    result.errors.append(str(exc))
                    return
                if status != 200:
                    result.errors.append(_said(status, content, "GET /api"))
                    return
                result.latencies.append(time.perf_counter() - began)
                result.requests += 1
        finally:
            await http.close()

    cpu.begin()
    began = time.perf_counter()
    await asyncio.gather(*(loop() for _ in range(loops)))
    result.seconds = time.perf_counter() - began
    result.client_cpu, result.server_cpu = cpu.end()
    return result


def _error_code(message: dict[str, Any]) -> str:
    error = message.get("error") or {}
    return str(error.get("code")) if isinstance(error, dict) else str(error)


Think = Callable[[], float] | None  # a paced player's next think time (seconds); None: no thinking (saturation)


def thinker(mean: float, rng: random.Random) -> Callable[[], float]:
    """Think times uniform in ``mean`` × (1 ± ``JITTER``)."""
    return lambda: mean * rng.uniform(1 - JITTER, 1 + JITTER)


def _first_send(think: Think) -> float:
    """When a paced player sends its first command: a random moment of its first think time (now if not paced)."""
    return time.perf_counter() + (random.random() * think() if think else 0.0)


async def _play_ws(
    http: Requester, match: Match, deadline: float, result: PhaseResult, first: bool, think: Think = None
) -> None:
    ws = match.socket
    assert ws is not None
    current = match.view
    wait_for = 0  # decide only on a view at least this recent (the version a result named)
    pending: tuple[str, float] | None = None
    not_before = _first_send(think)  # a paced player's think time ends then
    n = 0
    while current.get("phase") != "match_over":
        now = time.perf_counter()
        thinking = False
        if pending is None:
            if now >= deadline:
                return
            ready = current["version"] >= wait_for and bool(current.get("legal"))
            if ready and now < not_before:  # still thinking: read what arrives meanwhile, then send
                thinking = True
            elif ready:
                command_id = f"c{n}"
                n += 1
                expected = current["version"]
                match.sent_at[expected + 1] = sent = time.perf_counter()
                message = {"type": "command", "command_id": command_id, "expected_version": expected}
                try:
                    await ws.send(json.dumps({**message, "command": first_legal(current["legal"])}))
                except ConnectionClosed as closed:
                    # The match ended while this player decided on a view its socket had not caught
                    # up with (a catch or a challenge is legal on the bot's turn; the bot's last card
                    # and the server's 1000 were still unread): the match's view says which.
                    if (await read_view(http, match)).get("phase") == "match_over":
                        break
                    result.errors.append(f"match {match.id}: socket closed at version {expected}: {closed}")
                    return
                pending = (command_id, sent)
                continue
        if thinking:
            by_deadline = True
            limit = min(not_before, deadline) - now
        elif pending is None:
            by_deadline = deadline - now <= IDLE_SECONDS  # a timeout then only means the time is up
            limit = min(deadline - now, IDLE_SECONDS)
        else:
            by_deadline = False
            limit = deadline + GRACE_SECONDS - now
        try:
            async with asyncio.timeout(max(limit, 0.0)):
                raw = await ws.recv()
        except TimeoutError:
            if thinking:
                continue  # the think time is over (or the phase's time: the loop's top says which)
            if not by_deadline:
                what = f"no answer to {pending[0]}" if pending else "no event"
                result.errors.append(f"match {match.id}: {what} at version {current['version']} after {limit:.0f} s")
            return
        except ConnectionClosed as closed:
            if current.get("phase") != "match_over":
                result.errors.append(f"match {match.id}: socket closed at version {current['version']}: {closed}")
            return
        received = time.perf_counter()
        message = json.loads(raw)
        kind = message.get("type")
        if kind in ("event", "decision"):  # one event's frame, or one decision's (``frames=decision``)
            view = message.get("view") or {}
            if view.get("version", -1) > current["version"]:
                current = view
        elif kind == "result" and pending is not None and message.get("command_id") == pending[0]:
            if message.get("ok"):
                rt = received - pending[1]
                result.round_trips.append(rt)
                if first:
                    result.match0_round_trips.append(rt)
                result.commands += 1
                wait_for = int(message.get("version") or 0)
                if think:
                    not_before = received + think()
            elif _error_code(message) == "stale_version":
                result.stale += 1
                fresh = await read_view(http, match)
                if fresh["version"] > current["version"]:
                    current = fresh
                wait_for = current["version"]
            elif _error_code(message) == "match_over" and (await read_view(http, match)).get("phase") == "match_over":
                break  # the same race as a send on a closed socket above, answered before the close
            else:
                result.errors.append(f"match {match.id}: command refused: {json.dumps(message)[:300]}")
                return
            pending = None
        elif kind == "result":
            result.errors.append(f"match {match.id}: unexpected result: {json.dumps(message)[:300]}")
    result.finished += 1


async def _play_http(
    http: Requester, match: Match, deadline: float, result: PhaseResult, first: bool, think: Think = None
) -> None:
    current = match.view
    n = 0
    idle_since: float | None = None
    not_before = _first_send(think)
    while current.get("phase") != "match_over":
        now = time.perf_counter()
        if now >= deadline:
            return
        if now < not_before:
            await asyncio.sleep(min(not_before, deadline) - now)
            continue
        if not current.get("legal"):  # nothing for the player now: read the match again shortly
            idle_since = idle_since or time.perf_counter()
            if time.perf_counter() - idle_since > IDLE_SECONDS:
                result.errors.append(
                    f"match {match.id}: nothing to do for {IDLE_SECONDS:.0f} s at {current['version']}"
                )
                return
            await asyncio.sleep(0.005)
            current = await read_view(http, match)
            result.polls += 1
            continue
        idle_since = None
        expected = current["version"]
        body = {"command_id": f"c{n}", "expected_version": expected, "command": first_legal(current["legal"])}
        n += 1
        match.sent_at[expected + 1] = sent = time.perf_counter()
        status, content = await http.request("POST", f"/api/matches/{match.id}/commands", match.player.headers, body)
        rt = time.perf_counter() - sent
        if status == 200:
            result.round_trips.append(rt)
            if first:
                result.match0_round_trips.append(rt)
            result.commands += 1
            current = json.loads(content)["view"]
            if think:
                not_before = time.perf_counter() + think()
        elif status == 409 and b"stale_version" in content:
            result.stale += 1
            current = await read_view(http, match)
        else:
            result.errors.append(f"match {match.id}: " + _said(status, content, "POST commands"))
            return
    result.finished += 1


async def _watch(ws: ClientConnection, match: Match, out: list[float]) -> int:
    """Receive a spectator socket's messages until it is closed; delivery times into ``out``; the message count."""
    count = 0
    with contextlib.suppress(ConnectionClosed):
        async for raw in ws:
            received = time.perf_counter()
            count += 1
            text = raw if isinstance(raw, str) else raw.decode()
            if '"command"' not in text:  # a command event names its type in clear: the others go unparsed
                continue
            message = json.loads(text)
            if message.get("type") == "decision":
                events = message.get("events") or []
            else:
                events = [message.get("event") or {}]
            for event in events:
                if event.get("type") == "command" and (event.get("data") or {}).get("seat") == match.seat:
                    sent = match.sent_at.get(int(event.get("seq", -1)))
                    if sent is not None:
                        out.append(received - sent)
    return count


async def run_phase(
    client: Client,
    players: list[Player],
    name: str,
    transport: str,
    seconds: float,
    watched: int,
    spectators: int,
    cpu: CpuMeter,
    pace: float | None = None,
) -> PhaseResult:
    """One phase on fresh matches: at saturation (``pace`` None) or paced at ``pace`` commands/s offered in all."""
    result = PhaseResult(
        name, transport, len(players), pace=pace, spectators=spectators, watched=min(watched, len(players))
    )
    setup_began = time.perf_counter()
    matches: list[Match] = await _gather_limited(len(players), CONNECT_AT_ONCE, lambda i: client.new_match(players[i]))
    crowd: list[ClientConnection] = []
    requesters = [client.requester() for _ in matches]
    try:
        if transport == "ws":

            async def player_socket(i: int) -> None:
                m = matches[i]
                m.socket = await client.open_socket(m, m.view["version"], m.player.token)

            await _gather_limited(len(matches), CONNECT_AT_ONCE, player_socket)

        async def watcher(i: int) -> None:
            m = matches[i]
            m.watchers.append(await client.open_socket(m, m.view["version"], None))

        await _gather_limited(result.watched, CONNECT_AT_ONCE, watcher)

        async def spectator(_: int) -> ClientConnection:
            return await client.open_socket(matches[0], matches[0].view["version"], None)

        crowd = await _gather_limited(spectators, CONNECT_AT_ONCE, spectator)
        result.setup_seconds = time.perf_counter() - setup_began

        watching = [asyncio.ensure_future(_watch(w, m, result.deliveries)) for m in matches for w in m.watchers]
        crowding = [asyncio.ensure_future(_watch(c, matches[0], result.crowd_deliveries)) for c in crowd]
        play = _play_ws if transport == "ws" else _play_http
        mean = result.think
        thinks: list[Think] = [None if mean is None else thinker(mean, random.Random()) for _ in matches]
        cpu.begin()
        began = time.perf_counter()
        deadline = began + seconds
        outcomes = await asyncio.gather(
            *(play(requesters[i], m, deadline, result, i == 0, thinks[i]) for i, m in enumerate(matches)),
            return_exceptions=True,
        )
        result.seconds = time.perf_counter() - began
        result.client_cpu, result.server_cpu = cpu.end()
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                result.errors.append(f"a player stopped: {type(outcome).__name__}: {outcome}")
        await asyncio.sleep(0.2)  # the last events on their way to the spectators
        await asyncio.gather(*(w.close() for m in matches for w in m.watchers), *(c.close() for c in crowd))
        await asyncio.gather(*watching, return_exceptions=True)
        counts = await asyncio.gather(*crowding, return_exceptions=True)
        result.crowd_messages = sum(c for c in counts if isinstance(c, int))
    finally:
        sockets = [s for m in matches for s in [m.socket, *m.watchers] if s is not None] + crowd
        await asyncio.gather(*(s.close() for s in sockets), *(r.close() for r in requesters), return_exceptions=True)
    return result


class CpuMeter:
    """CPU seconds used by this (client) process and by the server process between ``begin`` and ``end``."""

    def __init__(self, server_pid: int | None) -> None:
        self.server_pid = server_pid
        self.began: tuple[float, float | None] = (0.0, None)

    def _now(self) -> tuple[float, float | None]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        server = None
        if self.server_pid is not None:
            try:
                fields = Path(f"/proc/{self.server_pid}/stat").read_text().rsplit(")", 1)[1].split()
                server = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            except (OSError, IndexError, ValueError):
                pass
        return usage.ru_utime + usage.ru_stime, server

    def begin(self) -> None:
        self.began = self._now()

    def end(self) -> tuple[float, float | None]:
        client, server = self._now()
        before = self.began[1]
        return client - self.began[0], None if server is None or before is None else server - before


async def run_client(
    base: str, server_pid: int | None, options: Options, log: Callable[[str], None]
) -> tuple[NoopResult, list[PhaseResult]]:
    n = options.matches
    client = Client(base, pool=n + options.watched + options.spectators + 20, http_client=options.http_client)
    cpu = CpuMeter(server_pid)
    try:
        log(f"registering {n} players…")
        tag = secrets.token_hex(2)
        players: list[Player] = await _gather_limited(n, CONNECT_AT_ONCE, lambda i: client.register(f"bench-{tag}-{i}"))
        log(f"no-op: {n} concurrent loops of GET /api for {options.noop_seconds:g} s ({options.http_client})…")
        noop = await run_noop(client, n, options.noop_seconds, cpu)
        rate = options.rate
        plan: list[tuple[str, str, int, float | None, str]] = [
            (WS_SATURATED, "ws", 0, None, "event"),
            (WS_DECISIONS, "ws", 0, None, "decision"),
            (HTTP_SATURATED, "http", 0, None, "event"),
            (WS_PACED, "ws", 0, rate, "event"),
            (HTTP_PACED, "http", 0, rate, "event"),
        ]
        if options.spectators:
            plan.append((crowded_name(options.spectators), "ws", options.spectators, rate, "event"))
        phases = []
        for name, transport, spectators, pace, frames in plan:
            how = "at saturation" if pace is None else f"paced at {pace:g} commands/s offered"
            log(f"{name}: {n} matches against bot:random, {how}, at most {options.seconds:g} s…")
            client.frames = frames
            phase = await run_phase(
                client, players, name, transport, options.seconds, options.watched, spectators, cpu, pace
            )
            phase.frames = frames
            log(f"{name}: {phase.commands} commands in {phase.seconds:.1f} s, {phase.finished} matches finished")
            phases.append(phase)
        return noop, phases
    finally:
        await client.close()


def _run_async(main: Any) -> Any:
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def _event_loop_name() -> str:
    import importlib.metadata as md

    try:
        return f"uvloop {md.version('uvloop')}"
    except md.PackageNotFoundError:
        return "asyncio"


def run_bench(options: Options, log: Callable[[str], None]) -> Report:
    with (
        database(options.db, options.postgres_url, "unoduo_bench_server") as url,
        TemporaryDirectory(prefix="unoduo-bench-log-") as tmp,
    ):
        server = ServerProcess(url, Path(tmp) / "server.log")
        log(f"starting unoduo serve on {server.base} ({options.db})…")
        try:
            server.start()
            pid = server.process.pid if server.process else None
            noop, phases = _run_async(run_client(server.base, pid, options, log))
        finally:
            server.stop()
            tail = server.log_tail(40)
    facts = machine_facts(options)
    if server.returncode != 0:
        facts.append(
            f"the server did NOT stop cleanly on SIGINT: exit {server.returncode} (None: killed after {STOP_SECONDS:g} s)"
        )
    return Report(options, noop, phases, facts, tail, server.returncode)


# ---------------------------------------------------------------- report


def machine_facts(options: Options) -> list[str]:
    import importlib.metadata as md

    sync = os.environ.get("UNODUO_SQLITE_SYNCHRONOUS", "FULL (default)")
    db = f"SQLite (a fresh file; synchronous={sync})" if options.db == "sqlite" else "PostgreSQL (a fresh schema)"
    return [
        f"nproc: {os.cpu_count()}; CPU: {cpu_model()}",
        f"Python {platform.python_version()}; uvicorn {md.version('uvicorn')}, websockets {md.version('websockets')},"
        f" httpx {md.version('httpx')}; client loop: {_event_loop_name()}",
        f"server: one `unoduo serve` process (one uvicorn worker, its access log on, as `unoduo serve` runs: it has"
        f" no flag to turn it off) on {db}, `UNODUO_BOT_THINK_SECONDS=0` (the house bot answers inside the"
        " player's request: a round trip includes its reply)",
        "client: ONE process on the same machine (asyncio), sharing its cores with the server; timed HTTP"
        + (
            " requests through one shared `httpx.AsyncClient` (its pool as large as the run)"
            if options.http_client == "httpx"
            else " requests through a minimal HTTP/1.1 client, one keep-alive connection per loop (`--http-client raw`)"
        ),
        f"{options.matches} concurrent matches against `bot:random`, each phase at most {options.seconds:g} s;"
        f" paced phases at {options.rate:g} commands/s offered in all; {options.watched} watched by a spectator"
        f" socket; {options.spectators} extra spectators on match 0 (paced WebSocket phase)",
        "load average at the end of the run (1/5/15 min): " + " / ".join(f"{x:.2f}" for x in os.getloadavg()),
    ]


def _met(ok: bool | None) -> str:
    return "-" if ok is None else ("met" if ok else "NOT met")


def _at_most(value: float | None, limit_ms: float) -> bool | None:
    return None if value is None else value * 1000 <= limit_ms


Row = tuple[str, str, str, str]  # measure, figure, target, verdict


def _rt_rows(p: PhaseResult, saturated: bool) -> list[Row]:
    p50, p99 = percentile(p.round_trips, 50), percentile(p.round_trips, 99)
    d50, d99 = percentile(p.deliveries, 50), percentile(p.deliveries, 99)
    delivery = f"{p.name}: move → spectator delivery p50 / p99 ({p.watched} watched)"
    if saturated:  # queueing: the latency targets are not meant for it
        queue = f"(queueing: N / rate ≈ {p.matches / p.rate * 1000:.0f} ms)" if p.rate else "(queueing)"
        return [
            (
                f"{p.name}: command round trip p50 / p99 at saturation (queueing)",
                f"{ms(p50)} / {ms(p99)} ms",
                queue,
                "-",
            ),
            (delivery + " at saturation (queueing)", f"{ms(d50)} / {ms(d99)} ms", "(queueing)", "-"),
        ]
    return [
        (
            f"{p.name}: command round trip p50",
            f"{ms(p50)} ms",
            f"≤ {P50_TARGET_MS:g} ms",
            _met(_at_most(p50, P50_TARGET_MS)),
        ),
        (
            f"{p.name}: command round trip p99",
            f"{ms(p99)} ms",
            f"≤ {P99_TARGET_MS:g} ms",
            _met(_at_most(p99, P99_TARGET_MS)),
        ),
        (
            delivery,
            f"{ms(d50)} / {ms(d99)} ms",
            f"p99 ≤ {DELIVERY_P99_TARGET_MS:g} ms",
            _met(_at_most(d99, DELIVERY_P99_TARGET_MS)),
        ),
    ]


def capacity(report: Report) -> float | None:
    """The best commands/s of the saturation phases (what the server can carry)."""
    rates = [p.rate for p in report.phases if p.pace is None and p.rate]
    return max(rates) if rates else None


def _kept(ok: bool | None) -> str:
    return "-" if ok is None else ("kept up" if ok else "did NOT keep up")


def sections(report: Report) -> list[tuple[str, list[Row]]]:
    """The figures in their parts: capacity (saturation), latency at the paced load, the spectator check."""
    noop = report.noop
    capacity_rows: list[Row] = [
        (
            "no-op `GET /api` requests/s",
            f"{noop.rate:,.0f} (p50 {ms(percentile(noop.latencies, 50))} ms, p99 {ms(percentile(noop.latencies, 99))} ms)",
            "reference",
            "-",
        )
    ]
    for p in (p for p in report.phases if p.pace is None):
        ratio = p.rate / noop.rate if noop.rate else None
        capacity_rows.append(
            (
                f"{p.name}: commands/s",
                f"{p.rate:,.0f} = {ratio:.0%} of no-op" if ratio is not None else f"{p.rate:,.0f}",
                f"≥ {RATE_TARGET:.0%} of no-op",
                _met(None if ratio is None else ratio >= RATE_TARGET),
            )
        )
        capacity_rows += _rt_rows(p, saturated=True)
    out = [("Capacity (saturation: no think time)", capacity_rows)]

    most = capacity(report)
    paced_rows: list[Row] = []
    crowded = next((p for p in report.phases if p.spectators), None)
    for p in (p for p in report.phases if p.pace is not None and not p.spectators):
        assert p.pace is not None and p.think is not None
        above = f"; offered > the {most:,.0f} measured at saturation" if most is not None and p.pace > most else ""
        paced_rows.append(
            (
                f"{p.name}: commands/s achieved of offered (think {p.think * 1000:.0f} ms ± {JITTER:.0%})",
                f"{p.rate:,.0f} of {p.pace:,.0f} ({p.rate / p.pace:.0%}{above})",
                f"≥ {KEPT_UP:.0%} of offered",
                _kept(p.kept_up),
            )
        )
        paced_rows += _rt_rows(p, saturated=False)
    if paced_rows:
        out.append((f"Latency at a paced load ({report.options.rate:g} commands/s offered)", paced_rows))

    base = report.phase(WS_PACED)
    if crowded is not None:
        assert crowded.pace is not None
        c50, c99 = percentile(crowded.crowd_deliveries, 50), percentile(crowded.crowd_deliveries, 99)
        crowd_rows: list[Row] = [
            (
                f"{crowded.name}: commands/s achieved of offered",
                f"{crowded.rate:,.0f} of {crowded.pace:,.0f} ({crowded.rate / crowded.pace:.0%})",
                f"≥ {KEPT_UP:.0%} of offered",
                _kept(crowded.kept_up),
            ),
            *_rt_rows(crowded, saturated=False),
            (
                f"{crowded.name}: move → delivery to the {crowded.spectators} spectators of match 0, p50 / p99",
                f"{ms(c50)} / {ms(c99)} ms",
                f"p99 ≤ {DELIVERY_P99_TARGET_MS:g} ms",
                _met(_at_most(c99, DELIVERY_P99_TARGET_MS)),
            ),
        ]
        if base is not None:
            for who, before, after, target in (
                ("match 0's player", base.match0_round_trips, crowded.match0_round_trips, True),
                ("all players'", base.round_trips, crowded.round_trips, False),
            ):
                without, with_ = percentile(before, 99), percentile(after, 99)
                factor = with_ / without if with_ is not None and without else None
                crowd_rows.append(
                    (
                        f"{who} round trip p99, without → with {crowded.spectators} spectators on match 0"
                        f" ({len(before):,} → {len(after):,} round trips)",
                        f"{ms(without)} → {ms(with_)} ms" + (f" ({factor:.2f}×)" if factor is not None else ""),
                        f"≤ {SPECTATOR_P99_FACTOR:g}× without" if target else "(for comparison)",
                        _met(None if factor is None else factor <= SPECTATOR_P99_FACTOR) if target else "-",
                    )
                )
        out.append((f"Spectators at the paced load ({crowded.spectators} on match 0)", crowd_rows))
    return out


def rows(report: Report) -> list[Row]:
    """(measure, figure, target, verdict) for every phase, all parts in order."""
    return [row for _, part in sections(report) for row in part]


def _cores(cpu: float | None, seconds: float) -> str:
    return "-" if cpu is None or not seconds else f"{cpu / seconds:.2f}"


def _per(cpu: float | None, count: int) -> str:
    return "-" if cpu is None or not count else f"{cpu / count * 1000:.2f}"


CLIENT_BOUND_CORES = 0.8  # a client process this busy may be what limits the phase


def reading(report: Report) -> list[str]:
    """What the figures say: who was the limit, what the saturation round trips follow from, whether the pace held."""
    lines: list[str] = []
    timed = [("no-op", report.noop.client_cpu, report.noop.seconds)]
    timed += [(p.name, p.client_cpu, p.seconds) for p in report.phases]
    bound = [name for name, cpu, seconds in timed if seconds and cpu / seconds >= CLIENT_BOUND_CORES]
    if bound:
        lines.append(
            f"WARNING: the client process used ≥ {CLIENT_BOUND_CORES:g} of a core in: {', '.join(bound)}. There the"
            " client, not the server, may be the limit (httpx's pooled AsyncClient costs about 1 ms of CPU a"
            " request on this kind of machine; `--http-client raw` is far lighter), so those rates and"
            " ratios say little about the server."
        )
    saturated = [p for p in report.phases if p.pace is None and p.rate]
    if saturated:
        lines.append(
            "Capacity: in the saturation phases each player sends its next command as soon as it has the answer"
            " (no think time), so the server always has work queued and a round trip is about N / (commands/s)"
            " (Little's law): "
            + "; ".join(f"{p.name} {p.matches / p.rate * 1000:.0f} ms" for p in saturated)
            + ". Those round trips measure the queue, not the latency a player sees; the targets are checked"
            " at the paced load."
        )
    busy = [p for p in report.phases if p.server_cpu is not None and p.seconds and p.server_cpu / p.seconds >= 0.9]
    if busy:
        lines.append(
            "The server process was busy (≈ 1 core or more: one uvicorn worker, one Python interpreter) in: "
            + "; ".join(p.name for p in busy)
            + "."
        )
    per_event, per_decision = report.phase(WS_SATURATED), report.phase(WS_DECISIONS)
    if per_event is not None and per_decision is not None and per_event.rate and per_decision.commands:
        lines.append(
            f"Frames: with one message per decision (`frames=decision`) the WebSocket players carried"
            f" {per_decision.rate:,.0f} commands/s against {per_event.rate:,.0f} with one message per event"
            f" ({per_decision.rate / per_event.rate:.2f}×); server CPU per command"
            f" {_per(per_event.server_cpu, per_event.commands)} → {_per(per_decision.server_cpu, per_decision.commands)} ms."
        )
    most = capacity(report)
    behind = [p for p in report.phases if p.kept_up is False]
    if behind:
        lines.append(
            "The server did NOT keep up with the paced load in: "
            + "; ".join(f"{p.name} ({p.rate:,.0f} of {p.pace:,.0f} commands/s offered)" for p in behind if p.pace)
            + ". A player's cycle is its think time plus its round trip, so when the server cannot carry the"
            " offered rate the round trips grow until the achieved rate is what it can carry: those paced"
            " round trips include queueing too."
            + (
                f" `--rate {report.options.rate:g}` is above the capacity measured at saturation ({most:,.0f}"
                " commands/s): run with a lower `--rate` for the latency at a load the server can carry."
                if most is not None and report.options.rate > most
                else ""
            )
        )
    lines.append(
        "The server runs with `UNODUO_BOT_THINK_SECONDS=0`: the house bot answers inside the player's request,"
        " so a round trip includes the bot's reply and the commit of both moves' events."
    )
    return lines


def _load(p: PhaseResult) -> str:
    if p.think is None or p.pace is None:
        return "saturation"
    return f"{p.pace:g}/s offered, think {p.think * 1000:.0f} ms ± {JITTER:.0%}"


def count_rows(report: Report) -> list[tuple[str, ...]]:
    """Per phase: how much was measured, and the CPU each process used (cores = CPU seconds / seconds)."""
    noop = report.noop
    out: list[tuple[str, ...]] = [
        (
            "no-op GET /api",
            "saturation",
            "-",
            f"{noop.requests:,} requests",
            "-",
            f"{len(noop.latencies):,}",
            "-",
            "-",
            f"{len(noop.errors)}",
            f"{noop.seconds:.1f}",
            _cores(noop.client_cpu, noop.seconds),
            _cores(noop.server_cpu, noop.seconds),
            _per(noop.server_cpu, noop.requests),
        )
    ]
    out += [
        (
            p.name,
            _load(p),
            f"{p.finished}/{p.matches}",
            f"{p.commands:,}",
            f"{p.stale:,}",
            f"{len(p.round_trips):,}",
            f"{len(p.deliveries):,}",
            f"{len(p.crowd_deliveries):,}" if p.spectators else "-",
            f"{len(p.errors)}",
            f"{p.seconds:.1f}",
            _cores(p.client_cpu, p.seconds),
            _cores(p.server_cpu, p.seconds),
            _per(p.server_cpu, p.commands),
        )
        for p in report.phases
    ]
    return out


COUNT_HEADERS = (
    "phase",
    "load",
    "matches finished",
    "commands",
    "stale",
    "round trips",
    "deliveries (watched)",
    "deliveries (crowd)",
    "errors",
    "seconds",
    "client cores",
    "server cores",
    "server CPU ms per request/command",
)


def measured_text(options: Options) -> list[str]:
    machinery = (
        "one shared `httpx.AsyncClient` (pool as large as the run)"
        if options.http_client == "httpx"
        else "a minimal HTTP/1.1 client, one keep-alive connection per loop (`--http-client raw`)"
    )
    think = options.matches / options.rate * 1000
    return [
        "What is measured, in one client process (asyncio) on the same machine as the server, sharing its"
        " cores: N registered players, each in its own match against `bot:random` (the bot answers inside"
        " the player's request), all playing at once; each sends the first legal command of its latest"
        " view (a wild or `color` gets `red`) with `expected_version` = that view's version, and after an"
        " answer decides on the view at the answer's version. Two kinds of phase, each on fresh matches:"
        " *capacity* (saturation: a player sends its next command the moment it has the answer, so the"
        " server is never idle and a round trip is mostly the queue, N / (commands/s)), and *paced*: each"
        f" player waits a think time between its answer and its next command, N / `--rate` = {think:.0f} ms"
        f" on average (uniform ± {JITTER:.0%}, so the players do not fall into step; the first command at a"
        f" random moment of the first think time), an offered load of {options.rate:g} commands/s in all"
        " if answers were instant. The latency targets are meant for the paced phases; a paced phase whose"
        f" achieved commands/s is below {KEPT_UP:.0%} of the offered rate did not keep up (the round trip"
        " lengthens each cycle a little even then). *Commands/s*: commands accepted in the phase over its"
        " duration (until every match is over or the time is up), against *no-op*: N concurrent"
        f" loops of `GET /api` (the smallest route of the same server) sent with {machinery}, the"
        " machinery the HTTP phases' commands use too. *Round trip*: over WebSocket from `send` of the"
        " command message to receipt of its `result` message on the player's socket; over HTTP the"
        " `POST /api/matches/{id}/commands`. A `stale_version` answer is counted (not as a round trip)"
        " and the view read again with `GET /api/matches/{id}`. *Delivery*: for the watched matches a"
        " spectator socket (no token) is open as well; for each of the player's commands, the time from"
        " just before it was sent to the spectator's receipt of the event that records it (type `command`,"
        " `data.seat` the player's seat, `seq` = `expected_version` + 1). With spectators, the paced"
        " WebSocket phase runs again with K more spectator sockets following match 0, the same delivery"
        " taken on each of them; match 0's player's p99 round trip (and all players') is compared with the"
        " paced WebSocket phase without them. The per-decision phase opens every socket with"
        " `frames=decision` (one message per decision: its events and the view after the last) where the"
        " other WebSocket phases get one message per event. Sockets use the `websockets` client's defaults"
        " (permessage-deflate offered), no pings. *Cores*: CPU seconds each process used during the phase"
        " over its duration (client from `getrusage`, server from `/proc/PID/stat`): a client near 1 core"
        " is the limit, not the server."
        + (
            " Why not `httpx` for the timed HTTP loops: with N loops on one pooled `httpx.AsyncClient` the"
            " client process used a whole core and the no-op rate measured the client, not the server"
            " (`--http-client httpx` shows it, in the cores columns); httpx still makes the set-up requests."
            if options.http_client == "raw"
            else ""
        ),
    ]


def _tables(report: Report) -> list[Table]:
    tables = []
    for title, part in sections(report):
        table = Table(title=f"unoduo bench server: {title}", title_justify="left")
        for name, justify in (("measure", "left"), ("figure", "right"), ("target", "right"), ("", "left")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for row in part:
            table.add_row(*row)
        tables.append(table)
    return tables


def _count_table(report: Report) -> Table:
    table = Table(title="what each phase measured", title_justify="left")
    for i, name in enumerate(COUNT_HEADERS):
        table.add_column(name, justify="left" if i < 2 else "right")
    for row in count_rows(report):
        table.add_row(*row)
    return table


def error_lines(report: Report, most: int = 5) -> list[str]:
    lines = [f"no-op: {e}" for e in report.noop.errors[:most]]
    for p in report.phases:
        lines += [f"{p.name}: {e}" for e in p.errors[:most]]
        if len(p.errors) > most:
            lines.append(f"{p.name}: … and {len(p.errors) - most} more")
    return lines


def markdown(report: Report, command: str) -> str:
    lines = [*section_head(SECTION, command, report.facts), *measured_text(report.options)]
    for title, part in sections(report):
        lines += [
            "",
            f"**{title}**",
            "",
            "| measure | figure | target | |",
            "| --- | ---: | ---: | --- |",
            *[f"| {m} | {f} | {t} | {v} |" for m, f, t, v in part],
        ]
    lines += [
        "",
        "| " + " | ".join(COUNT_HEADERS) + " |",
        "| --- | --- |" + " ---: |" * (len(COUNT_HEADERS) - 2),
        *["| " + " | ".join(r) + " |" for r in count_rows(report)],
    ]
    notes = reading(report)
    if notes:
        lines += ["", *[line for note in notes for line in (note, "")]][:-1]
    errors = error_lines(report)
    if errors:
        lines += ["", "Errors seen during the run (first few per phase):", "", *[f"- `{e}`" for e in errors]]
    return "\n".join(lines) + "\n"


def run_and_report(options: Options, write_docs: bool, command: str) -> Report:
    """Run the benchmark, print its tables, and (``write_docs``) rewrite its docs section."""
    console = Console()
    report = run_bench(options, lambda m: console.log(m))
    for table in _tables(report):
        console.print(table)
    console.print(_count_table(report))
    for fact in report.facts:
        console.print(f"  {fact}")
    for note in reading(report):
        console.print(note, markup=False)
    errors = error_lines(report)
    if errors:
        console.print("[bold red]errors:[/]")
        for line in errors:
            console.print(f"  {line}", markup=False)
        console.print("server log (last lines):", markup=False)
        console.print(report.server_log_tail, markup=False)
    if write_docs:
        write_docs_section(BENCHMARKS_MD, SECTION, markdown(report, command))
        console.print(f"wrote {BENCHMARKS_MD}")
    return report
