"""``unoduo bench coach-tables``: what limits the coach at tables of four (issue 37.2).

The target is to finish first at tables of four (classic to 500, against three ``bot:greedy``)
twice as often as chance. This study plays the same tables (same seeds, same seats) with
variants of the coach at one world count, so their figures compare directly:

- ``greedy``: greedy itself in the measured seat (the calibration: about one table in four);
- ``coach``: the house coach (``engine.bots.coach``) at ``--worlds`` worlds, picking the best mean;
- ``guarded``: greedy's move unless the search finds an option better than it on the same
  worlds by at least ``GUARD_Z`` standard errors of the paired difference (search as a
  correction to a heuristic: it can only leave greedy's move where the evidence is strong);
- ``sighted``: the coach dealt the other seats' *true* hands in every world (the draw pile's order
  still shuffled). It reads hidden cards, so it is no house bot and never plays on a server: it
  measures how much of the gap is what the seat cannot know.

Every match is :func:`engine.play.selfplay.play_match`: the seats move every match, each match
seeded from (seed, index) alone, so each variant meets the same deals at the same seats.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Console

from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section
from engine.bots import Bot, CommandObject, View, get_bot
from engine.bots.coach import CoachBot, option_code
from engine.bots.greedy import GreedyBot
from engine.game.events import Event
from engine.game.rulesets import get_ruleset
from engine.game.state import MatchState
from engine.play.selfplay import play_match
from engine.play.tally import wilson_interval
from engine.search.knowledge import SeatKnowledge, determinize
from engine.search.playout import Playout

SECTION = "## Coach at tables of four: what limits it"
RULESET = "classic"
SEATS = 4
MEASURED = "measured"  # the seat's name in each table; the other three are greedy
VARIANTS = ("greedy", "coach", "guarded", "sighted")
GUARD_Z = 2.0  # ``guarded`` leaves greedy's move only for an option this many standard errors better


class Truth:
    """The match's true state as it stands, for the ``sighted`` variant only (fed by ``on_step``)."""

    def __init__(self) -> None:
        self.state: MatchState | None = None

    def see(self, state: MatchState, _events: Sequence[Event]) -> None:
        self.state = state

    def deal(self, knowledge: SeatKnowledge, rng: random.Random) -> MatchState:
        """The true hands with the draw pile shuffled; before the first step, a plain determinization."""
        state = self.state
        if state is None or state.version != knowledge.picture.version:
            return determinize(knowledge, rng)
        pile = list(state.draw_pile)
        rng.shuffle(pile)
        return dataclasses.replace(state, draw_pile=tuple(pile))


class GuardedCoach(CoachBot):
    """Greedy's move unless the search shows a better one beyond doubt (``GUARD_Z``)."""

    def __init__(self, worlds: int) -> None:
        super().__init__(5, worlds)
        self.greedy = GreedyBot()

    def choice(
        self, codes: Sequence[int], samples: Sequence[Sequence[float]], probe: Playout, view: View, rng: random.Random
    ) -> int:
        best = super().choice(codes, samples, probe, view, rng)
        heuristic: CommandObject = self.greedy.choose(view, rng)
        code = option_code(probe, view["viewer"], heuristic)
        if code not in codes or codes.index(code) == best:
            return best  # greedy's move is not among the options searched (a wild named otherwise)
        fallback = codes.index(code)
        differences = [a - b for a, b in zip(samples[best], samples[fallback], strict=True)]
        return best if paired_z(differences) >= GUARD_Z else fallback


def paired_z(differences: Sequence[float]) -> float:
    """The mean of paired differences over its standard error (0 when they do not vary)."""
    n = len(differences)
    if n < 2:
        return 0.0
    mean = sum(differences) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1))
    return mean / (spread / math.sqrt(n)) if spread > 0 else 0.0


@dataclass(frozen=True)
class Task:
    variant: str
    worlds: int
    seed: int
    index: int


@dataclass(frozen=True)
class Outcome:
    first: bool
    hands_won: int
    hands: int


def _maker(variant: str, worlds: int, truth: Truth) -> Callable[[str], Bot]:
    def make(name: str) -> Bot:
        if name != MEASURED or variant == "greedy":
            return get_bot("greedy")
        if variant == "guarded":
            return GuardedCoach(worlds)
        return CoachBot(5, worlds, truth.deal if variant == "sighted" else determinize)

    return make


def play(task: Task) -> Outcome:
    truth = Truth()
    result = play_match(
        (MEASURED, "greedy", "greedy", "greedy"),
        get_ruleset(RULESET),
        f"coach-tables:{task.seed}",
        task.index,
        on_step=truth.see,
        make_bot=_maker(task.variant, task.worlds, truth),
    )
    seat = result.entrants.index(0)
    won = sum(1 for winner in result.round_winners if winner == seat)
    return Outcome(result.winner == seat, won, len(result.round_winners))


@dataclass(frozen=True)
class Row:
    variant: str
    tables: int
    firsts: int
    hands_won: int
    hands: int


def run(variants: Sequence[str], worlds: int, tables: int, seed: int, jobs: int) -> list[Row]:
    """Every variant at the same ``tables`` tables (a function of the arguments; ``jobs`` only sets the speed)."""
    tasks = [Task(v, worlds, seed, i) for i in range(tables) for v in variants]
    if jobs <= 1:
        outcomes = [play(task) for task in tasks]
    else:
        context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        with context.Pool(processes=jobs) as pool:
            outcomes = pool.map(play, tasks, chunksize=1)
    rows = []
    for variant in variants:
        mine = [o for t, o in zip(tasks, outcomes, strict=True) if t.variant == variant]
        rows.append(
            Row(
                variant,
                len(mine),
                sum(o.first for o in mine),
                sum(o.hands_won for o in mine),
                sum(o.hands for o in mine),
            )
        )
    return rows


def _rate(k: int, n: int) -> str:
    low, high = wilson_interval(k, n)
    return f"{k / n:.1%} ({low:.1%}–{high:.1%})" if n else "-"


def markdown(rows: Sequence[Row], worlds: int) -> list[str]:
    lines = [
        "| variant (measured seat; three `greedy` beside it) | tables | first (95% interval) | × chance | hands won (95% interval) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        label = r.variant if r.variant == "greedy" else f"{r.variant}, {worlds} worlds"
        lines.append(
            f"| {label} | {r.tables} | {_rate(r.firsts, r.tables)} | {r.firsts / r.tables / 0.25:.2f} "
            f"| {_rate(r.hands_won, r.hands)} |"
        )
    return lines


def run_and_report(
    variants: Sequence[str], worlds: int, tables: int, seed: int, jobs: int, write_docs: bool, command: str
) -> list[Row]:
    console = Console(stderr=True)
    console.log(f"{len(variants) * tables} tables of four on {jobs} process(es)…")
    started = time.perf_counter()
    rows = run(variants, worlds, tables, seed, jobs)
    facts = [
        f"CPU: {cpu_model()}; Python {sys.version.split()[0]}; {jobs} worker process(es)",
        f"{len(variants) * tables} tables in {time.perf_counter() - started:,.0f} s wall; seed {seed}",
        f"`{RULESET}` to 500 at {SEATS} seats; intervals: 95% Wilson (hands counted as independent trials)",
    ]
    section = "\n".join([*section_head(SECTION, command, facts), *markdown(rows, worlds)]) + "\n"
    sys.stdout.write(section)
    sys.stdout.flush()
    if write_docs:
        write_docs_section(BENCHMARKS_MD, SECTION, section)
    return rows
