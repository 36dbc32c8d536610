"""``unoduo bench live``: the server's live path in one process, without the network.

N matches of a registered player against ``bot:random`` are driven straight through
``MatchService`` (commands decided on the live copies, appended to a SQLite store with group
commit, answered by the house bot in the same chain, fanned out to one watcher per match that
takes each event's encoded message, as a socket would). The figure is process CPU time per
player command, bot reply included. The reference, in the same process: the same kind of play
through the engine alone (``LocalMatch``: the player's decision and the bot's, no store, no
fan-out), so the ratio is what the service costs on top of the rules.

CPU time, not wall time, and no sockets: run to run it moves by about 1%, where the loopback
benchmark (``unoduo bench server``) moves by 10-15%. It is the yardstick for the live path's own
code; ``bench server`` remains the measure of the whole server.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from bench.commands import with_color
from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section
from engine.bots import get_bot
from engine.game.state import Phase
from engine.play.match import LocalMatch
from engine.protocol.views import legal_commands, view
from server.services.frames import Frames
from server.services.matches import MatchService
from server.services.players import Caller, ensure_house_bots, register_human
from server.settings import Settings
from server.store.event_store import EventStore

SECTION = "## Live service (in one process)"


@dataclass(frozen=True)
class LiveFigures:
    commands: int
    service_us: float  # CPU per player command through MatchService, one message per event
    engine_us: float  # CPU per player command through the engine alone
    decision_us: float  # the same with one message per decision (frames=decision, as the clients ask)

    @property
    def ratio(self) -> float:
        return self.service_us / self.engine_us

    @property
    def decision_ratio(self) -> float:
        return self.decision_us / self.engine_us


async def _service_run(matches: int, commands: int, folder: Path, frames: Frames = Frames.EVENT) -> tuple[int, float]:
    url = f"sqlite:///{folder / 'live.sqlite3'}"
    store = EventStore.open(url, Settings(database_url=url))
    try:
        ensure_house_bots(store)
        service = MatchService(store, bot_think_seconds=0, move_seconds=3600)
        players = [register_human(store, f"bench-{i}")[0] for i in range(matches)]
        match_ids = []
        for player in players:
            summary = await service.create(player, "bot:random", None)
            await service.join(summary.id, Caller(player=player), "bench")
            match_ids.append(summary.id)

        async def watch(match_id: str, caller: Caller) -> None:
            async for _message in service.reads.messages(match_id, caller, 0, frames):  # the socket's messages
                pass

        watchers = [asyncio.create_task(watch(m, Caller(player=p))) for m, p in zip(match_ids, players, strict=True)]
        await asyncio.sleep(0.1)  # every watcher has caught up with its match's history
        done = 0

        async def play(match_id: str, caller: Caller, rng: random.Random) -> None:
            nonlocal done
            while done < commands:
                live = await service.registry.open(match_id)
                state = live.state
                if state.phase is Phase.MATCH_OVER:
                    return
                legal = legal_commands(state, 0)
                if not legal:  # cannot happen with the bot answering in the same chain; never spin
                    await asyncio.sleep(0)
                    continue
                command = with_color(rng.choice(legal))
                await service.command_version(match_id, caller, f"c{state.version}", state.version, command)
                done += 1

        started = time.process_time()
        await asyncio.gather(
            *(
                play(m, Caller(player=p), random.Random(i))
                for i, (m, p) in enumerate(zip(match_ids, players, strict=True))
            )
        )
        cpu = time.process_time() - started
        for task in watchers:
            task.cancel()
        await service.stop()
        return done, cpu
    finally:
        await store.aclose()


def _engine_run(commands: int) -> float:
    """CPU per player command when the engine alone plays the same kind of match."""
    bot = get_bot("random")
    rng = random.Random(7)
    done, seed = 0, 0
    started = time.process_time()
    while done < commands:
        seed += 1
        match = LocalMatch.start(seed.to_bytes(32, "big"))
        while match.state.phase is not Phase.MATCH_OVER and done < commands:
            state = match.state
            mine = legal_commands(state, 0)
            if mine:
                match.act(0, with_color(rng.choice(mine)))
                done += 1
                continue
            if legal_commands(state, 1):
                match.act(1, bot.choose(view(state, 1), rng))
                continue
            break  # nobody can move (cannot happen in a live match)
    return (time.process_time() - started) / max(done, 1)


def run(matches: int, commands: int) -> LiveFigures:
    with tempfile.TemporaryDirectory(prefix="unoduo-bench-live-") as folder:
        done, cpu = asyncio.run(_service_run(matches, commands, Path(folder)))
    with tempfile.TemporaryDirectory(prefix="unoduo-bench-live-") as folder:
        by_decision, decision_cpu = asyncio.run(_service_run(matches, commands, Path(folder), Frames.DECISION))
    engine = _engine_run(done)
    return LiveFigures(
        commands=done,
        service_us=cpu / done * 1e6,
        engine_us=engine * 1e6,
        decision_us=decision_cpu / by_decision * 1e6,
    )


def run_and_report(matches: int, commands: int, write_docs: bool, command: str) -> LiveFigures:
    console = Console()
    console.log(f"{matches} matches against bot:random, {commands} player commands through MatchService…")
    figures = run(matches, commands)
    lines = [
        f"service: {figures.service_us:.0f} µs CPU per player command (bot reply, store, fan-out included)",
        f"service, one message per decision: {figures.decision_us:.0f} µs CPU per player command",
        f"engine alone: {figures.engine_us:.0f} µs per player command (the same play, rules only)",
        f"ratio: the service costs {figures.ratio:.1f}× the rules ({figures.decision_ratio:.1f}× with per-decision messages)",
    ]
    for line in lines:
        console.print(line)
    if write_docs:
        facts = [
            f"CPU: {cpu_model()}; process CPU time (time.process_time), SQLite with group commit, synchronous=FULL",
            f"{matches} matches, {figures.commands} player commands; one watcher per match (the player's seat)"
            " takes every message: one per event (the socket's default), then, in a second run, one per decision"
            " (`frames=decision`, as the terminal client and the browser ask)",
        ]
        body = [
            "| measure | µs CPU per player command | ratio to the engine |",
            "| --- | ---: | ---: |",
            f"| through `MatchService` (decide, append, bot reply, fan-out), a message per event"
            f" | {figures.service_us:.0f} | {figures.ratio:.1f}× |",
            f"| the same, a message per decision | {figures.decision_us:.0f} | {figures.decision_ratio:.1f}× |",
            f"| the engine alone, the same play (reference) | {figures.engine_us:.0f} | 1× |",
        ]
        write_docs_section(BENCHMARKS_MD, SECTION, "\n".join([*section_head(SECTION, command, facts), *body]) + "\n")
        console.print(f"wrote {BENCHMARKS_MD}")
    return figures
