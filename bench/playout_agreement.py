"""``unoduo bench playout-agreement``: the search playout against the Decider over millions of actions.

Runs :func:`engine.search.agreement.run_agreement` again and again, at every standard ruleset
and table size alike (uno-duo, classic-2p, classic at 2-10: ``TABLES``; the least compared so
far goes next), each run under random switches (``random_rules``), from a random point of a random match, now and then with seats gone
or time called, every other run from a determinization of one seat's knowledge, until
``--actions`` actions have been compared. It stops at the first disagreement, naming it (exit 1).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field

from rich.console import Console

from bench.engine import machine_facts
from bench.report import BENCHMARKS_MD, section_head, write_docs_section
from engine.search.agreement import TABLES, Disagreement, random_rules, run_agreement

SECTION = "## Engine: the search playout agrees with the Decider"
ACTIONS_PER_RUN = 5000


@dataclass
class Tally:
    actions: int = 0
    runs: int = 0
    rounds_ended: int = 0
    matches_ended: int = 0
    seconds: float = 0.0
    by_table: Counter[str] = field(default_factory=Counter)


def run(actions: int, seed: int, log: Console) -> Tally:
    tally = Tally()
    rng = random.Random(f"playout-agreement:{seed}")
    started = time.perf_counter()
    while tally.actions < actions:
        table = min(TABLES, key=lambda t: tally.by_table[f"{t[0].name} at {t[1]}"])  # the least compared yet
        ruleset, seats = random_rules(rng, table)
        leave = rng.choice([0, 0, 1, 3]) if seats > 2 else 0
        result = run_agreement(
            ruleset, seats, rng.randrange(2**32), min(ACTIONS_PER_RUN, actions - tally.actions), leave=leave,
            call_time=rng.random() < 0.1, determinized=tally.runs % 2 == 1,
        )  # fmt: skip
        tally.runs += 1
        tally.actions += result.actions
        tally.rounds_ended += result.rounds_ended
        tally.matches_ended += result.matches_ended
        tally.by_table[f"{ruleset.name} at {seats}"] += result.actions
        if tally.runs % 100 == 0:
            log.log(f"{tally.actions:,} actions compared, {tally.runs:,} runs")
    tally.seconds = time.perf_counter() - started
    return tally


def lines(t: Tally) -> list[str]:
    return [
        f"{t.actions:,} actions compared in {t.runs:,} runs ({t.rounds_ended:,} rounds and "
        f"{t.matches_ended:,} matches ended), no disagreement, in {t.seconds:,.0f} s.",
        "Actions by ruleset and table size: "
        + ", ".join(f"{name} {count:,}" for name, count in sorted(t.by_table.items())),
    ]


def run_and_report(actions: int, seed: int, write_docs: bool, command: str) -> None:
    console = Console()
    try:
        tally = run(actions, seed, Console(stderr=True))
    except Disagreement as exc:
        console.print(f"DISAGREEMENT: {exc}")
        raise SystemExit(1) from None
    for line in lines(tally):
        console.print(line)
    if write_docs:
        text = [
            *section_head(SECTION, command, machine_facts()),
            "Each run starts a match through the Decider at the standard ruleset and table size "
            "compared least so far (uno-duo, classic-2p, classic at 2-10), under random switches (`engine.search.agreement.random_rules`), plays a random way "
            "into it (seats leaving at a table, time called, now and then; every other run then takes a "
            "determinization of one seat's knowledge, `engine.search.knowledge`, as search does), "
            "takes a `Playout` of that state with the match's own dealer as its chance, and drives both with the same random actions (the pending seat's, "
            "a play or dump now and then with UNO said, and other seats' UNO catches), comparing legal moves, hands, piles, colour, pending "
            "decision, UNO windows, direction, scores and winner after every action.",
            "",
            *lines(tally),
        ]
        write_docs_section(BENCHMARKS_MD, SECTION, "\n".join(text) + "\n")
        console.print(f"wrote {BENCHMARKS_MD}")
