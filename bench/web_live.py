"""``unoduo bench web-live``: what open live pages cost a real server while results land.

A real ``unoduo serve`` (a subprocess, a fresh SQLite file) runs a round robin whose players
never come: each round's results land as no-shows ``join_seconds`` after it opens, so results
come at a steady pace and the server's other work is the same in every phase (house bots would
play matches of random lengths, whose CPU would swamp the pages'). N browsers' worth of live
tournament pages (``GET /live/t/{id}``, server-sent events, read raw by this process as an
EventSource would: one connection each) follow it from before its start to its end. The
reference, in the same run on the same server just before: the same tournament followed by ONE
page. Figures per phase:

- **server CPU** (``/proc/PID/stat``) from the start of the tournament until every page has its
  last version, and per version delivered; the difference to the reference, divided by the extra
  pages, is what one more open page costs per version;
- **server RSS** before the pages were opened, once they are open, and the highest seen while
  the tournament ran (sampled every poll): the growth per open page;
- **delivery latency**: for each result the server recorded (each ``result_recorded`` event of
  the tournament's stream, read from the database afterwards, with the time it was appended)
  and each page, from that time to the moment the page received a version that contains it
  (client and server on one machine, one clock): p50 and p99 over all (result, page) pairs.

This process's own CPU is given too: a client near one core would be measuring itself.
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import resource
import secrets
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Final

import httpx
from rich.console import Console

from bench.launch import BenchError, ServerProcess
from bench.progress import Stall
from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section
from bench.startup import process_cpu
from server.db import make_engine
from server.store.event_store import EventStore
from server.tournaments.model import tournament_stream

SECTION: Final = "## Web pages, live"
FRAME_ID: Final = re.compile(rb"id: (\d+)\nevent: version\n")  # a frame's start: the data line has no raw newline
TAIL: Final = 64  # bytes of a read kept for the next, so an id split between two reads is still found
POLL: Final = 0.25
OPEN_AT_ONCE: Final = 100  # pages opened together (the server's listen backlog is 511)
DESCRIPTORS_SPARE: Final = 256


@dataclass(frozen=True)
class Options:
    pages: int = 1000
    players: int = 16
    join_seconds: int = 1


@dataclass
class Phase:
    """One tournament followed by ``pages`` pages."""

    pages: int
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    seconds: float = 0.0
    versions: int = 0  # distinct versions the pages were sent after the start
    frames: int = 0  # frames received by all pages after the start
    received_bytes: int = 0
    results: int = 0
    latencies: list[float] = field(default_factory=list)
    rss_before: int = 0  # KiB
    rss_open: int = 0
    rss_peak: int = 0

    @property
    def cpu_per_version_ms(self) -> float:
        return self.server_cpu / max(self.versions, 1) * 1e3

    def latency(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Page:
    """One live page: a raw HTTP connection to the event stream; each version received, and when."""

    def __init__(self) -> None:
        self.received: list[tuple[int, float]] = []
        self.bytes = 0
        self.first = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def open(self, port: int, path: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            writer.close()
            raise BenchError(f"a live page was refused: {head.decode(errors='replace').splitlines()[0]}")
        self.task = asyncio.ensure_future(self._read(reader, writer))

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        tail = b""
        try:
            while chunk := await reader.read(65536):
                now = time.time()
                self.bytes += len(chunk)
                buffer = tail + chunk
                end = 0
                for found in FRAME_ID.finditer(buffer):
                    self.received.append((int(found.group(1)), now))
                    end = found.end()
                    self.first.set()
                tail = buffer[max(end, len(buffer) - TAIL) :]
        finally:
            writer.close()

    @property
    def version(self) -> int:
        return self.received[-1][0] if self.received else -1

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()


def raise_descriptor_limit(pages: int) -> None:
    """Enough descriptors for ``pages`` connections here and in the server (it inherits the limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 2 * pages + DESCRIPTORS_SPARE
    if soft != resource.RLIM_INFINITY and soft < wanted:
        if hard != resource.RLIM_INFINITY and hard < wanted:
            raise BenchError(f"{pages} pages need {wanted} open files; the hard limit is {hard} (ulimit -Hn)")
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _names(options: Options) -> list[str]:
    return [f"absent-{i}" for i in range(options.players)]


async def _register(client: httpx.AsyncClient, options: Options) -> None:
    for name in _names(options):
        made = await client.post("/api/players", json={"name": name})
        if made.status_code != 201:
            raise BenchError(f"POST /api/players answered {made.status_code}: {made.text}")


async def _create(client: httpx.AsyncClient, options: Options, director: dict[str, str]) -> str:
    body = {"name": "bench evening", "players": _names(options), "join_seconds": options.join_seconds}
    made = await client.post("/api/tournaments", headers=director, json=body)
    if made.status_code != 201:
        raise BenchError(f"POST /api/tournaments answered {made.status_code}: {made.text}")
    tournament_id: str = made.json()["id"]
    return tournament_id


async def _open_pages(count: int, port: int, path: str) -> list[Page]:
    pages = [Page() for _ in range(count)]
    for at in range(0, count, OPEN_AT_ONCE):
        batch = pages[at : at + OPEN_AT_ONCE]
        await asyncio.gather(*(p.open(port, path) for p in batch))
    stall = Stall()
    while not all(p.first.is_set() for p in pages):  # each has its first version
        stall.moved(sum(p.first.is_set() for p in pages))
        if stall.stuck:
            raise BenchError("the live pages' first versions stopped coming")
        await asyncio.sleep(POLL)
    return pages


async def run_phase(server: ServerProcess, options: Options, pages_wanted: int, director: dict[str, str]) -> Phase:
    phase = Phase(pages_wanted)
    assert server.process is not None
    pid = server.process.pid
    async with httpx.AsyncClient(base_url=server.base, timeout=60.0) as client:
        tournament_id = await _create(client, options, director)
        phase.rss_before = server.rss_kib() or 0
        pages = await _open_pages(pages_wanted, server.port, f"/live/t/{tournament_id}")
        try:
            await asyncio.sleep(1.0)  # the opening settles before memory is read
            phase.rss_open = phase.rss_peak = server.rss_kib() or 0
            opened = [len(p.received) for p in pages]
            cpu, own, began = process_cpu(pid), _self_cpu(), time.monotonic()
            started = await client.post(f"/api/tournaments/{tournament_id}/start", headers=director)
            if started.status_code != 200:
                raise BenchError(f"starting the tournament answered {started.status_code}: {started.text}")
            stall = Stall()
            while (await client.get(f"/api/tournaments/{tournament_id}")).json()["status"] != "finished":
                phase.rss_peak = max(phase.rss_peak, server.rss_kib() or 0)
                stall.moved(pages[0].version)
                if stall.stuck:
                    raise BenchError("the tournament stopped moving")
                await asyncio.sleep(POLL)
            head = await asyncio.to_thread(_head, server.db_url, tournament_id)
            while min(p.version for p in pages) < head:  # every page has the last version
                stall.moved(sum(p.version for p in pages))
                if stall.stuck:
                    raise BenchError(f"pages stopped short of the last version {head}")
                await asyncio.sleep(POLL)
            phase.server_cpu = process_cpu(pid) - cpu
            phase.client_cpu = _self_cpu() - own
            phase.seconds = time.monotonic() - began
            phase.rss_peak = max(phase.rss_peak, server.rss_kib() or 0)
        finally:
            for page in pages:
                page.close()
    after = [p.received[n:] for p, n in zip(pages, opened, strict=True)]
    phase.frames = sum(len(r) for r in after)
    phase.versions = len({v for r in after for v, _ in r})
    phase.received_bytes = sum(p.bytes for p in pages)
    results = await asyncio.to_thread(_results, server.db_url, tournament_id)
    phase.results = len(results)
    for received in after:
        for seq, at in results:
            phase.latencies.append(next(t for v, t in received if v >= seq) - at)
    return phase


def _store(url: str) -> EventStore:
    return EventStore(make_engine(url), group_commit=False)


def _head(url: str, tournament_id: str) -> int:
    store = _store(url)
    try:
        return store.head(tournament_stream(tournament_id))
    finally:
        store.close()


def _results(url: str, tournament_id: str) -> list[tuple[int, float]]:
    """Each recorded result of the tournament: its seq and when it was appended (epoch seconds)."""
    store = _store(url)
    try:
        events = store.read(tournament_stream(tournament_id), 1, limit=1_000_000)
    finally:
        store.close()
    return [
        (e.seq, datetime.fromisoformat(e.at.replace("Z", "+00:00")).timestamp())
        for e in events
        if e.type == "result_recorded"
    ]


async def _run(options: Options, folder: Path) -> tuple[Phase, Phase]:
    token = "bench-web-live-" + secrets.token_hex(12)
    settings = {
        "UNODUO_DIRECTOR_TOKEN": token,
        "UNODUO_LIVE_PAGES_MAX": "0",
        "UNODUO_LIVE_PAGES_PER_ADDRESS": "0",
        "UNODUO_MAX_CONNECTIONS": str(options.pages + DESCRIPTORS_SPARE),
    }
    server = ServerProcess(f"sqlite:///{folder / 'bench.sqlite3'}", folder / "server.log", settings, "the server")
    director = {"Authorization": f"Bearer {token}"}
    server.start()
    try:
        async with httpx.AsyncClient(base_url=server.base, timeout=60.0) as client:
            await _register(client, options)
        reference = await run_phase(server, options, 1, director)
        many = await run_phase(server, options, options.pages, director)
    finally:
        server.stop()
    problems = server.log_problems()
    if problems:
        raise BenchError("\n".join(problems))
    return reference, many


def run(options: Options) -> tuple[Phase, Phase]:
    raise_descriptor_limit(options.pages)
    with tempfile.TemporaryDirectory(prefix="unoduo-bench-web-live-") as folder:
        return asyncio.run(_run(options, Path(folder)))


def _row(name: str, p: Phase) -> str:
    return (
        f"| {name} | {p.pages} | {p.results} | {p.versions} | {p.frames} | {p.server_cpu:.1f} s"
        f" ({p.server_cpu / p.seconds * 100:.0f}% of a core over {p.seconds:.0f} s) | {p.cpu_per_version_ms:.1f} ms"
        f" | {p.latency(0.5) * 1e3:.0f} / {p.latency(0.99) * 1e3:.0f} ms"
        f" | {p.rss_before / 1024:.0f} → {p.rss_open / 1024:.0f} (peak {p.rss_peak / 1024:.0f}) MiB"
        f" | {p.client_cpu:.1f} s | {p.received_bytes / max(p.frames, 1) / 1024:.1f} KiB |"
    )


def extra_cpu_per_frame_us(reference: Phase, many: Phase) -> float:
    """What one more page costs per version it is sent: the server CPU the many pages took beyond
    the reference, over the frames they were sent beyond it (the tournament's own work is the same)."""
    return (many.server_cpu - reference.server_cpu) / max(many.frames - reference.frames, 1) * 1e6


def summary(reference: Phase, many: Phase) -> list[str]:
    growth = (many.rss_open - many.rss_before) / max(many.pages, 1)
    return [
        f"server CPU for the whole tournament: {many.server_cpu:.2f} s with {many.pages} pages open,"
        f" {reference.server_cpu:.2f} s with 1 (ratio {many.server_cpu / max(reference.server_cpu, 1e-9):.2f}×);"
        f" each extra page costs about {extra_cpu_per_frame_us(reference, many):.0f} µs of server CPU per version"
        f" it is sent ({many.frames} frames to {many.pages} pages, {many.versions} versions)",
        f"server memory: {growth:.1f} KiB per open page ({many.rss_before / 1024:.0f} → {many.rss_open / 1024:.0f} MiB"
        f" with {many.pages} pages open; peak {many.rss_peak / 1024:.0f} MiB while results landed)",
        f"delivery, result recorded → on the page: p50 {many.latency(0.5) * 1e3:.0f} ms, p99"
        f" {many.latency(0.99) * 1e3:.0f} ms over {len(many.latencies)} (result, page) pairs"
        f" (1 page: p50 {reference.latency(0.5) * 1e3:.0f} ms, p99 {reference.latency(0.99) * 1e3:.0f} ms)",
    ]


def run_and_report(options: Options, write_docs: bool, command: str) -> tuple[Phase, Phase]:
    console = Console()
    console.log(
        f"a round robin of {options.players} players who never come (each result a no-show,"
        f" {options.join_seconds} s after its round opens), followed by 1 live page, then another by {options.pages}…"
    )
    reference, many = run(options)
    lines = summary(reference, many)
    for phase in (reference, many):
        console.print(_row("reference" if phase is reference else "many pages", phase))
    for line in lines:
        console.print(line)
    if write_docs:
        facts = [
            f"nproc: {os.cpu_count()}; CPU: {cpu_model()}; Linux {platform.release()}; Python"
            f" {platform.python_version()}",
            "server: one `unoduo serve` process (one uvicorn worker) on a fresh SQLite file; client: this process"
            " on the same machine, each page one raw HTTP/1.1 connection read as an EventSource reads it",
            f"each phase: a round robin of {options.players} registered players who never join their matches"
            f" (`join_seconds` {options.join_seconds}: each round's results land as no-shows that long after it"
            " opens, so the server does the same work in both phases and nothing else), created, its pages"
            " opened, then started and followed to its end; the reference: the same with one page, on the same"
            " server just before",
            "load average at the end (1/5/15 min): " + " / ".join(f"{x:.2f}" for x in os.getloadavg()),
        ]
        body = [
            "| phase | pages | results | versions | frames received | server CPU | per version | latency p50 / p99"
            " | server RSS before → open | client CPU | bytes per frame |",
            "| --- | ---: | ---: | ---: | ---: | --- | ---: | --- | --- | ---: | ---: |",
            _row("reference", reference),
            _row("many pages", many),
            "",
            *[f"- {line}" for line in lines],
        ]
        write_docs_section(BENCHMARKS_MD, SECTION, "\n".join([*section_head(SECTION, command, facts), *body]) + "\n")
        console.print(f"wrote {BENCHMARKS_MD}")
    return reference, many


__all__ = ["Options", "Phase", "run", "run_and_report"]
