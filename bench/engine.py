"""``unoduo bench engine`` (the command is in ``cli.bench_cmd``): self-play and fold rates, as a ratio of RLCard's UNO core, same process.

Measured, each for about ``--seconds`` (in two alternating halves, so a noisy neighbour on the
machine hurts both sides alike):

- **self-play, engine core**: random legal actions, as RLCard is driven: per action the seat's
  ``legal_actions`` (engine action objects, a wild once per colour, as RLCard lists its wilds), a
  uniform choice, and ``decide_step`` (the Decider, which folds each event it emits and returns
  the new state). Matches are started (cut, shuffles, draft) inside the timing, as RLCard's
  ``init_game`` is.
- **self-play through views**: ``bot:random`` given the full ``view`` (JSON ``legal`` included),
  its command parsed by ``parse_seat_command`` (what ``unoduo simulate`` and the server's house
  bots do).
- **fold**: the logs of about a second of engine-core self-play (played untimed, after the
  measures above) folded from their events with ``engine.game.evolve.fold``, the one fold the
  server and every replay use: whole matches, and one round at a time.
- **a table of four**: the same engine-core self-play at a ``classic`` table of
  ``TABLE_SEATS`` seats (whatever ``--ruleset``), against RLCard's ``UnoGame`` of as many players.
- **search playout**: the same random self-play on ``engine.search.playout.Playout`` (the mutable core
  search rolls out on, proven to agree with the Decider: ``unoduo bench playout-agreement``), matches
  started (``Playout.new_match``) inside the timing; two seats under ``--ruleset``, and ``classic`` at
  ``TABLE_SEATS``.
- **RLCard** (with the optional ``bench`` extra): ``rlcard.games.uno.game.UnoGame`` (two players,
  and ``TABLE_SEATS`` players for the table line), ``init_game``, then ``step`` with a uniformly
  random action of ``get_legal_actions`` until ``is_over``.
"""

from __future__ import annotations

import importlib.metadata
import itertools
import os
import platform
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section
from bench.report import ENGINE_SECTION as SECTION
from engine.bots import get_bot
from engine.game.commands import SeatCommand, parse_seat_command
from engine.game.decide import decide_step
from engine.game.events import Event
from engine.game.evolve import fold
from engine.game.legal import legal_actions
from engine.game.rulesets import CLASSIC, Ruleset
from engine.game.state import INITIAL_STATE, MatchState, Phase
from engine.play.match import LocalMatch
from engine.play.selfplay import match_seed
from engine.protocol.views import view
from engine.search.playout import Playout

ACTIONS_BAR = 2.0  # our self-play actions/s over RLCard's
PLAYOUT_BAR = 1.0  # the search playout's actions/s over RLCard's (issue 37.5)
FOLD_BAR = 1_000_000  # events/s
FOLD_SAMPLE_SECONDS = 1.0  # of untimed self-play whose logs the fold measures fold
TABLE_SEATS = 4  # the larger table's line: classic self-play at this many seats (issue 21)


@dataclass
class Rate:
    """A counter run for a measured time."""

    actions: int = 0
    rounds: int = 0
    seconds: float = 0.0
    logs: list[list[Event]] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds else 0.0


# ---------------------------------------------------------------- our engine


def _selfplay(
    ruleset: Ruleset,
    seed: int,
    seconds: float,
    rate: Rate,
    through_views: bool,
    first_match: int,
    keep_logs: bool = False,
    seats: int = 2,
) -> int:
    """Random self-play for ``seconds`` at a table of ``seats``; returns the next match number.

    Each match's log is built, as a server or ``unoduo simulate`` builds it, then let go unless
    ``keep_logs``: keeping every log of a timed run would time the garbage collector walking an
    ever larger heap, not the engine.
    """
    bot = get_bot("random")
    rng = random.Random(f"bench:{seed}:{first_match}:{through_views}" + (f":{seats}" if seats != 2 else ""))
    choice = rng.choice
    number = first_match
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    while time.perf_counter() < deadline:
        server_seed = match_seed(f"bench-{seed}", number)
        number += 1
        match = LocalMatch.start(server_seed, ruleset, ("",) * seats, seats=seats if seats != 2 else None)
        state: MatchState = match.state
        dealer = match.dealer
        log = list(match.events)
        while state.phase is not Phase.MATCH_OVER:
            seat = state.pending.seat
            assert seat is not None
            if through_views:
                command = parse_seat_command(seat, bot.choose(view(state, seat), rng))
            else:
                command = SeatCommand(seat, choice(legal_actions(state, seat)))
            batch, state = decide_step(state, command, dealer)
            log.extend(batch)
            rate.actions += 1
            if rate.actions % 256 == 0 and time.perf_counter() >= deadline:
                break
        rate.rounds += state.round if state.phase is Phase.MATCH_OVER else state.round - 1
        if keep_logs:
            rate.logs.append(log)
    rate.seconds += time.perf_counter() - started
    return number


def _playout_selfplay(ruleset: Ruleset, seed: int, seconds: float, rate: Rate, seats: int = 2) -> None:
    """Random self-play on the search playout for ``seconds``: whole matches, each started inside the timing."""
    rng = random.Random(f"bench-playout:{seed}:{seats}:{rate.actions}")
    choice = rng.choice
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    while time.perf_counter() < deadline:
        playout = Playout.new_match(ruleset, seats, rng)
        actions = 0
        while not playout.over:
            playout.play(choice(playout.legal()))
            actions += 1
            if actions % 256 == 0 and time.perf_counter() >= deadline:
                break
        rate.actions += actions
        rate.rounds += playout.rounds_ended
    rate.seconds += time.perf_counter() - started


Folder = Callable[[list[Event], MatchState], MatchState]


def _fold_rate(pieces: list[tuple[list[Event], MatchState]], seconds: float, folder: Folder) -> float:
    """Events folded per second: each piece of log folded onto its starting state, repeatedly."""
    events = sum(len(log) for log, _ in pieces)
    if not events:
        return 0.0
    done = 0
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        for log, state in pieces:
            folder(log, state)
        done += events
        if time.perf_counter() >= deadline:
            break
    return done / (time.perf_counter() - started)


def _rounds_of(logs: list[list[Event]]) -> list[tuple[list[Event], MatchState]]:
    """Each log cut at its ``round_started`` events, with the state each piece starts from."""
    pieces: list[tuple[list[Event], MatchState]] = []
    for log in logs:
        starts = [i for i, e in enumerate(log) if e.type == "round_started"] + [len(log)]
        state = fold(log[: starts[0]])
        for begin, end in itertools.pairwise(starts):
            pieces.append((log[begin:end], state))
            state = fold(log[begin:end], state)
    return pieces


STEPS = ("legal_actions", "random choice", "SeatCommand", "decide and fold (decide_step)")


def _breakdown(ruleset: Ruleset, seed: int, seconds: float) -> dict[str, float]:
    """Microseconds per engine-core action spent in each step (timed one by one)."""
    rng = random.Random(f"breakdown:{seed}")
    spent = dict.fromkeys(STEPS, 0.0)
    actions = 0
    clock = time.perf_counter
    deadline = clock() + seconds
    number = 0
    while clock() < deadline:
        match = LocalMatch.start(match_seed(f"bench-{seed}", 20_000 + number), ruleset)
        number += 1
        state, dealer = match.state, match.dealer
        while state.phase is not Phase.MATCH_OVER and clock() < deadline:
            seat = state.pending.seat
            assert seat is not None
            t0 = clock()
            legal = legal_actions(state, seat)
            t1 = clock()
            action = rng.choice(legal)
            t2 = clock()
            command = SeatCommand(seat, action)
            t3 = clock()
            _, state = decide_step(state, command, dealer)
            t4 = clock()
            for step, took in zip(STEPS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=False):
                spent[step] += took
            actions += 1
    return {step: spent[step] / actions * 1e6 if actions else 0.0 for step in STEPS}


# ---------------------------------------------------------------- RLCard


def _rlcard_game() -> Any | None:
    try:
        from rlcard.games.uno.game import UnoGame  # type: ignore[import-untyped]
    except Exception:  # noqa: BLE001 - not installed, or broken: the table says so
        return None
    return UnoGame(num_players=2)


def _rlcard_table(game: Any | None, players: int) -> Any | None:
    """RLCard's game of ``players`` players, when RLCard is there at all."""
    return None if game is None else type(game)(num_players=players)


def _rlcard(game: Any, seed: int, seconds: float, rate: Rate) -> None:
    import numpy as np

    game.np_random = np.random.RandomState(seed)
    rng = random.Random(f"rlcard:{seed}:{rate.actions}")
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    while time.perf_counter() < deadline:
        game.init_game()
        while not game.is_over():
            game.step(rng.choice(game.get_legal_actions()))
            rate.actions += 1
        rate.rounds += 1
    rate.seconds += time.perf_counter() - started


# ---------------------------------------------------------------- report


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def machine_facts() -> list[str]:
    rl = _version("rlcard")
    return [
        f"CPU: {cpu_model()}, {os.cpu_count()} logical cores",
        f"Python {platform.python_version()} ({platform.python_implementation()}), {platform.system()} {platform.release()}",
        f"rlcard {rl}, numpy {_version('numpy')}" if rl else "rlcard not installed",
    ]


@dataclass(frozen=True)
class Results:
    ruleset: str
    core: Rate
    views: Rate
    fold_whole: float
    fold_rounds: float
    rlcard: Rate | None
    breakdown: dict[str, float]
    events_per_action: float
    table: Rate  # engine core, classic at TABLE_SEATS seats
    table_rlcard: Rate | None  # RLCard's UnoGame of TABLE_SEATS players
    playout: Rate  # the search playout, two seats
    table_playout: Rate  # the search playout, classic at TABLE_SEATS seats

    @property
    def ratio(self) -> float | None:
        return _ratio(self.core, self.rlcard)

    @property
    def views_ratio(self) -> float | None:
        return _ratio(self.views, self.rlcard)

    @property
    def table_ratio(self) -> float | None:
        return _ratio(self.table, self.table_rlcard)

    @property
    def playout_ratio(self) -> float | None:
        return _ratio(self.playout, self.rlcard)

    @property
    def table_playout_ratio(self) -> float | None:
        return _ratio(self.table_playout, self.table_rlcard)


def _ratio(ours: Rate, theirs: Rate | None) -> float | None:
    if theirs is None or not theirs.per_second:
        return None
    return ours.per_second / theirs.per_second


def run_bench(ruleset: Ruleset, seconds: float, seed: int, log: Callable[[str], None]) -> Results:
    game = _rlcard_game()
    core, views, theirs, playout = Rate(), Rate(), Rate(), Rate()
    half = seconds / 2
    next_match = 0
    for part in range(2):
        log(f"self-play, engine core ({part + 1}/2)")
        next_match = _selfplay(ruleset, seed, half, core, through_views=False, first_match=next_match)
        log(f"self-play, search playout ({part + 1}/2)")
        _playout_selfplay(ruleset, seed, half, playout)
        if game is not None:
            log(f"RLCard UnoGame ({part + 1}/2)")
            _rlcard(game, seed + part, half, theirs)
    table_game = _rlcard_table(game, TABLE_SEATS)
    table, table_theirs, table_playout = Rate(), Rate(), Rate()
    next_table_match = 40_000
    for part in range(2):
        log(f"self-play, engine core, classic at {TABLE_SEATS} seats ({part + 1}/2)")
        next_table_match = _selfplay(
            CLASSIC, seed, half / 2, table, through_views=False, first_match=next_table_match, seats=TABLE_SEATS
        )
        log(f"self-play, search playout, classic at {TABLE_SEATS} seats ({part + 1}/2)")
        _playout_selfplay(CLASSIC, seed, half / 2, table_playout, seats=TABLE_SEATS)
        if table_game is not None:
            log(f"RLCard UnoGame, {TABLE_SEATS} players ({part + 1}/2)")
            _rlcard(table_game, seed + part, half / 2, table_theirs)
    log("self-play through views")
    _selfplay(ruleset, seed, half, views, through_views=True, first_match=10_000)
    log("self-play logs to fold (untimed)")
    sample = Rate()
    _selfplay(ruleset, seed, FOLD_SAMPLE_SECONDS, sample, through_views=False, first_match=30_000, keep_logs=True)
    whole = [(events, INITIAL_STATE) for events in sample.logs]
    log("fold whole logs: engine.game.evolve.fold")
    fold_whole = _fold_rate(whole, half / 2, fold)
    log("fold one round at a time: engine.game.evolve.fold")
    fold_rounds = _fold_rate(_rounds_of(sample.logs), half / 2, fold)
    log("where an action's time goes")
    breakdown = _breakdown(ruleset, seed, half / 2)
    return Results(
        ruleset.name,
        core,
        views,
        fold_whole,
        fold_rounds,
        theirs if game is not None else None,
        breakdown,
        sum(len(events) for events in sample.logs) / sample.actions if sample.actions else 0.0,
        table,
        table_theirs if table_game is not None else None,
        playout,
        table_playout,
    )


def _bar(met: bool) -> str:
    return "met" if met else "NOT met"


def result_rows(r: Results) -> list[tuple[str, str, str, str]]:
    """(measure, ours, RLCard, ratio) rows, shared by the terminal table and the markdown."""
    theirs, table_theirs = r.rlcard, r.table_rlcard
    rows = [
        (
            "self-play actions/s (engine core)",
            f"{r.core.per_second:,.0f}",
            f"{theirs.per_second:,.0f}" if theirs else "-",
            f"{r.ratio:.2f}×" if r.ratio is not None else "-",
        ),
        (
            "self-play actions/s (full views)",
            f"{r.views.per_second:,.0f}",
            f"{theirs.per_second:,.0f}" if theirs else "-",
            f"{r.views_ratio:.2f}×" if r.views_ratio is not None else "-",
        ),
        (
            "self-play actions/s (search playout)",
            f"{r.playout.per_second:,.0f}",
            f"{theirs.per_second:,.0f}" if theirs else "-",
            f"{r.playout_ratio:.2f}×" if r.playout_ratio is not None else "-",
        ),
        (
            "rounds/s (RLCard: games/s)",
            f"{r.core.rounds_per_second:,.1f}",
            f"{theirs.rounds_per_second:,.1f}" if theirs else "-",
            "-",
        ),
        (
            "actions per round",
            f"{r.core.actions / r.core.rounds:,.0f}" if r.core.rounds else "-",
            f"{theirs.actions / theirs.rounds:,.0f}" if theirs and theirs.rounds else "-",
            "-",
        ),
        (
            f"self-play actions/s, classic at {TABLE_SEATS} seats (engine core; RLCard: {TABLE_SEATS} players)",
            f"{r.table.per_second:,.0f}",
            f"{table_theirs.per_second:,.0f}" if table_theirs else "-",
            f"{r.table_ratio:.2f}×" if r.table_ratio is not None else "-",
        ),
        (
            f"self-play actions/s, classic at {TABLE_SEATS} seats (search playout)",
            f"{r.table_playout.per_second:,.0f}",
            f"{table_theirs.per_second:,.0f}" if table_theirs else "-",
            f"{r.table_playout_ratio:.2f}×" if r.table_playout_ratio is not None else "-",
        ),
        (
            f"actions per round, {TABLE_SEATS} seats",
            f"{r.table.actions / r.table.rounds:,.0f}" if r.table.rounds else "-",
            f"{table_theirs.actions / table_theirs.rounds:,.0f}" if table_theirs and table_theirs.rounds else "-",
            "-",
        ),
        ("fold stored events/s, whole matches (evolve.fold)", f"{r.fold_whole:,.0f}", "-", "-"),
        ("fold stored events/s, one round at a time (evolve.fold)", f"{r.fold_rounds:,.0f}", "-", "-"),
    ]
    return rows


def bar_lines(r: Results) -> list[str]:
    lines = []
    if r.ratio is None:
        lines.append(
            "actions/s ≥ 2× RLCard: not measured — RLCard is not installed (pip install -e '.[bench]' adds it)"
        )
    else:
        lines.append(f"actions/s ≥ {ACTIONS_BAR:g}× RLCard: {_bar(r.ratio >= ACTIONS_BAR)} ({r.ratio:.2f}×)")
    if r.playout_ratio is not None:
        lines.append(
            f"search playout actions/s ≥ {PLAYOUT_BAR:g}× RLCard: {_bar(r.playout_ratio >= PLAYOUT_BAR)}"
            f" ({r.playout_ratio:.2f}×; classic at {TABLE_SEATS} seats {r.table_playout_ratio or 0:.2f}×)"
        )
    lines.append(
        f"fold ≥ {FOLD_BAR:,} events/s: {_bar(r.fold_whole >= FOLD_BAR)} ({r.fold_whole:,.0f} whole matches;"
        f" {_bar(r.fold_rounds >= FOLD_BAR)} one round at a time: {r.fold_rounds:,.0f})"
    )
    return lines


def breakdown_rows(r: Results) -> list[tuple[str, str]]:
    rows = [(step, f"{micros:,.1f}") for step, micros in r.breakdown.items()]
    if r.rlcard is not None and r.rlcard.per_second:
        rows.append(("RLCard: get_legal_actions + step (for scale)", f"{1e6 / r.rlcard.per_second:,.1f}"))
    return rows


def _breakdown_table(r: Results) -> Table:
    table = Table(title="µs per self-play action, step by step", title_justify="left")
    table.add_column("step")
    table.add_column("µs", justify="right")
    for row in breakdown_rows(r):
        table.add_row(*row)
    return table


def _table(r: Results) -> Table:
    table = Table(title=f"engine benchmark · {r.ruleset}", title_justify="left")
    for name, justify in (("measure", "left"), ("ours", "right"), ("RLCard", "right"), ("ratio", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in result_rows(r):
        table.add_row(*row)
    return table


def reading(r: Results) -> str:
    """How to read the figures, with this run's numbers."""
    b = r.breakdown
    decided = b["decide and fold (decide_step)"]
    steps = sum(b.values())
    loop = 1e6 / r.core.per_second if r.core.per_second else 0.0
    per_round = r.core.actions / r.core.rounds if r.core.rounds else 0.0
    text = (
        f"Reading it: actions/s is the comparable figure. Our random self-play rounds are long "
        f"({per_round:,.0f} actions here: a random seat may draw even when it could play, and a round "
        "has a draft, UNO calls and challenges), while an RLCard game is one round whose random "
        "agent draws only when it cannot play. An engine-core action costs about "
        f"{steps:,.1f} µs step by step ({decided:,.1f} in `decide_step`, {b['legal_actions']:,.1f} in "
        f"`legal_actions`) and {loop:,.1f} µs in the timed loop, where each match's log stays in "
        "memory until the match ends, as a server keeps it, and the garbage collector walks it. "
        f"Each action records {r.events_per_action:.1f} events on average (the command, what it did, "
        "whose decision is next), each a JSON-ready record the Decider builds and folds into a new "
        "immutable state; RLCard's `step` changes its objects in place and records nothing."
    )
    if r.rlcard is not None and r.rlcard.per_second:
        text += f" The 2× bar means {1e6 / r.rlcard.per_second / ACTIONS_BAR:,.1f} µs per whole action here."
    if r.table.rounds and r.table_ratio is not None:
        text += (
            f" At a `classic` table of {TABLE_SEATS} an engine-core action runs at {r.table_ratio:.2f}× "
            f"RLCard's {TABLE_SEATS}-player game (about {1e6 / r.table.per_second:,.1f} µs an action, a round "
            f"{r.table.actions / r.table.rounds:,.0f} actions)."
        )
    return text


def markdown(r: Results, facts: list[str], command: str) -> str:
    lines = [
        *section_head(SECTION, command, facts),
        "*Engine core*: per action `legal_actions` (engine action objects; a wild listed once per "
        "colour, as RLCard lists its wilds), a uniformly random one, and `decide_step` (the Decider, "
        "which folds each event it emits and so returns the new state with the events; matches "
        "started inside the timing). *Full views*: `bot:random` given `view(state, seat)` and its "
        "JSON command parsed, as in `unoduo simulate`. *Search playout*: the same random self-play on "
        "`engine.search.playout.Playout`, the mutable core search rolls out on (no events; proven to "
        "agree with the Decider, `unoduo bench playout-agreement`), matches started with "
        "`Playout.new_match` inside the timing. *Classic at "
        f"{TABLE_SEATS} seats*: the engine-core loop at a `classic` table of {TABLE_SEATS} (whatever "
        f"`--ruleset`), against RLCard's `UnoGame` of {TABLE_SEATS} players. *RLCard*: "
        "`rlcard.games.uno.game.UnoGame` (2 players, or as many as the table line's seats), `init_game`, then "
        "`step` with a random action of `get_legal_actions` until `is_over`, in the same process and "
        "run. *Fold*: the logs of a second of engine-core self-play (played outside the timing), "
        "folded from their events with `evolve.fold`: whole matches, and one round at a time.",
        "",
        "| measure | ours | RLCard | ratio |",
        "| --- | ---: | ---: | ---: |",
        *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in result_rows(r)],
        "",
        *[f"- {line}" for line in bar_lines(r)],
        "",
        reading(r),
        "",
        "Where an engine-core action's time goes (each step timed on its own; `decide_step` "
        "includes folding the events it emits):",
        "",
        "| step | µs per action |",
        "| --- | ---: |",
        *[f"| {a} | {b} |" for a, b in breakdown_rows(r)],
    ]
    return "\n".join(lines) + "\n"


def run_and_report(rules: Ruleset, seconds: float, seed: int, write_docs: bool, command: str) -> None:
    """Run the benchmark, print its tables and bars, and (``write_docs``) rewrite its docs section."""
    console = Console()
    err = Console(stderr=True)
    results = run_bench(rules, seconds, seed, lambda message: err.log(message))
    console.print(_table(results))
    console.print(_breakdown_table(results))
    for line in bar_lines(results):
        console.print(f"  {line}")
    facts = machine_facts()
    for fact in facts:
        console.print(f"  {fact}")
    if write_docs:
        write_docs_section(BENCHMARKS_MD, SECTION, markdown(results, facts, command))
        console.print(f"wrote {BENCHMARKS_MD}")
