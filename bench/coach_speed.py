"""``unoduo bench coach``: how long a coach level takes to decide, on one core.

Plays whole matches of ``bot:coach-N`` against ``bot:greedy`` (seats alternate), the coach fed
its seat's events as the server feeds it (``engine.bots.SeatMemories``), and times every decision
it is asked for (CPU time of this process, so a busy machine's other work is not counted; wall
time beside it). Issue 37's bound for the top level: a median of at most 1 s, a p99 of at most 3 s.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass, field

from rich.console import Console

from bench.engine import machine_facts
from bench.report import BENCHMARKS_MD, section_head, write_docs_section
from engine.bots import SeatMemories, bot_choice, get_bot
from engine.game.rulesets import Ruleset
from engine.play.match import LocalMatch
from engine.protocol.views import legal_commands, view

SECTION = "## Coach: time to decide"


@dataclass
class Timings:
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    matches: int = 0


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_level(level: int, ruleset: Ruleset, seats: int, matches: int, seed: int) -> Timings:
    """Every decision of ``coach-{level}`` in ``matches`` matches against greedy seats, timed."""
    out = Timings()
    for index in range(matches):
        coach_seat = index % seats
        players = {s: get_bot(f"coach-{level}" if s == coach_seat else "greedy") for s in range(seats)}
        server_seed = random.Random(f"bench-coach:{seed}:{index}").randbytes(32)
        match = LocalMatch.start(server_seed, ruleset, ("",) * seats, None, seats if seats != 2 else None)
        memories = SeatMemories(players)
        memories.see(match.events)
        while match.state.phase.value != "match_over":
            state = match.state
            pending = state.pending.seat
            movers = [s for s in range(seats) if legal_commands(state, s)]
            seat = pending if pending in movers else movers[0]
            seen = view(state, seat)
            rng = match.dealer.bot_chance(f"bench-coach-{index}", state.version, seat)
            knowledge = memories.knowledge(seat, seen)
            began, began_cpu = time.perf_counter(), time.process_time()
            command = bot_choice(players[seat], seen, rng, knowledge)
            if seat == coach_seat:
                out.cpu.append(time.process_time() - began_cpu)
                out.wall.append(time.perf_counter() - began)
            before = len(match.events)
            match.act(seat, command)
            memories.see(match.events[before:])
        out.matches += 1
    return out


def lines(level: int, ruleset: Ruleset, seats: int, t: Timings) -> list[str]:
    cpu, wall = t.cpu, t.wall
    return [
        f"coach-{level}, {ruleset.name} at {seats} seats against greedy: {len(cpu):,} decisions in {t.matches} "
        f"matches to {ruleset.target}. CPU time a decision: median {statistics.median(cpu):.3f} s, "
        f"p90 {_quantile(cpu, 0.9):.3f} s, p99 {_quantile(cpu, 0.99):.3f} s, longest {max(cpu):.3f} s "
        f"(wall: median {statistics.median(wall):.3f} s, p99 {_quantile(wall, 0.99):.3f} s)."
    ]


def run_and_report(
    level: int, ruleset: Ruleset, seats: int, matches: int, seed: int, write_docs: bool, command: str
) -> None:
    console = Console()
    timings = time_level(level, ruleset, seats, matches, seed)
    text = lines(level, ruleset, seats, timings)
    for line in text:
        console.print(line)
    if write_docs:
        body = [
            *section_head(SECTION, command, machine_facts()),
            "Every decision the coach is asked for (a UNO call and a single legal command included, which it "
            "answers at once), timed as CPU time of the process: one core. Issue 37's bound for the top level: "
            "median <= 1 s, p99 <= 3 s.",
            "",
            *text,
        ]
        write_docs_section(BENCHMARKS_MD, SECTION, "\n".join(body) + "\n")
        console.print(f"wrote {BENCHMARKS_MD}")
