"""``unoduo bench strength``: how strong the house bots are, in matches and hands, with error bars.

Three measures, each a function of the options and the seed only (``--jobs`` changes the speed):

- *Two seats* (``uno-duo``, matches to 200): every bot of ``--bots`` against every bot of
  ``--against`` (``greedy`` and the RLCard reference ``rule-v1``), and each bot against the next
  one in ``--bots``. Match wins and hands won, each with its 95% Wilson interval.
- *Tables of four* (``classic``): each bot of ``--bots`` at a table with three of
  ``--table-against`` (``greedy``); how often it finishes first (wins the match), against the 25%
  that a seat of four equal bots would.
- *Ratings*: every two-seat match above, fed to the project's rating book
  (``server.ratings.book.Book``, uno-duo family: Glicko-2 with lichess's constants, one rating
  period a match, docs/RATINGS.md), the pairings interleaved match by match so no pairing comes
  last; then: do the ratings increase strictly in the order ``--bots`` lists the bots?

Matches are :func:`engine.play.selfplay.play_match`: the entrants swap seats every match, and
each match is seeded from (seed, pairing, index), so every pairing's figures stand on their own.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from rich.console import Console

from bench.report import BENCHMARKS_MD, cpu_model, section_head, write_docs_section
from engine.game.rulesets import get_ruleset
from engine.play.selfplay import MatchResult, play_match
from engine.play.tally import RunSummary, Tally, wilson_interval
from server.ratings.book import UNO_DUO, Book, Result

SECTION = "## Strength"
TWO_SEATS = "uno-duo"
TABLES = "classic"
TABLE_SEATS = 4
TARGET_VS_GREEDY = 0.65  # issue 37.2: the top level wins >= 65% of two-seat matches against greedy
TARGET_FIRST_AT_FOUR = 2 / TABLE_SEATS  # ... and finishes first at tables of four twice as often as chance
RATED_AT = "2026-12-07T00:00:00+00:00"  # one instant for every match: no deviation widens between them


@dataclass(frozen=True)
class Options:
    bots: tuple[str, ...]  # weakest first: the ratings should increase in this order
    against: tuple[str, ...]
    matches: int  # two-seat matches per pairing
    table_matches: int  # tables of four per bot and table reference
    table_against: tuple[str, ...]  # each table: the bot measured and three of one of these
    jobs: int
    seed: int
    minutes: float | None = None  # stop starting matches after this long: the figures of those played
    tables_for_top_only: bool = False  # tables of four for the last (strongest) bot only: they are slow


@dataclass(frozen=True)
class Task:
    bots: tuple[str, ...]
    ruleset: str
    seed: str  # the run's seed and the pairing: each pairing has matches of its own
    index: int


@dataclass(frozen=True)
class Figures:
    options: Options
    pairings: list[RunSummary]  # two seats; entrant 0 is the bot measured, 1 its opponent
    tables: list[RunSummary]  # tables of four; entrant 0 is the bot measured
    ratings: dict[str, tuple[float, float, int]]  # bot -> (rating, deviation, rated matches)
    seconds: float
    played: int  # matches played: all those planned, or fewer when --minutes stopped the run
    planned: int


def pairings(options: Options) -> list[tuple[str, str]]:
    """Each bot against each reference, then each bot against the next: no pair twice, nobody alone."""
    out: list[tuple[str, str]] = []
    seen: set[frozenset[str]] = set()
    wanted = [(bot, other) for bot in options.bots for other in options.against]
    wanted += list(pairwise(options.bots))
    for bot, other in wanted:
        key = frozenset((bot, other))
        if bot != other and key not in seen:
            seen.add(key)
            out.append((bot, other))
    return out


def tables(options: Options) -> list[tuple[str, ...]]:
    bots = options.bots[-1:] if options.tables_for_top_only else options.bots
    return [
        (bot, *[reference] * (TABLE_SEATS - 1))
        for bot in bots
        for reference in options.table_against
        if bot != reference
    ]


def _play(task: Task) -> MatchResult:
    return play_match(task.bots, get_ruleset(task.ruleset), task.seed, task.index).without_events()


def _tasks(options: Options) -> list[Task]:
    """Match 0 of every pairing and table, then match 1 of each, …: any prefix is balanced, so a
    run stopped by ``--minutes`` has (nearly) as many matches of each."""
    out = []
    for index in range(max(options.matches, options.table_matches)):
        if index < options.matches:
            out += [Task(pair, TWO_SEATS, f"{options.seed}:{'-'.join(pair)}", index) for pair in pairings(options)]
        if index < options.table_matches:
            out += [Task(seats, TABLES, f"{options.seed}:{'-'.join(seats)}", index) for seats in tables(options)]
    return out


def play_all(
    tasks: Sequence[Task], jobs: int, progress: Callable[[int], None], deadline: float | None = None
) -> list[MatchResult]:
    """The tasks' matches in the order of ``tasks`` whatever ``jobs`` is: all of them, or the
    first ones finished by ``deadline`` (``time.perf_counter``; the matches still under way are
    dropped, and a worker's share is stopped with its pool)."""
    results: list[MatchResult] = []
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            results.append(_play(task))
            progress(len(results))
            if deadline is not None and time.perf_counter() > deadline:
                break
        return results
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with context.Pool(processes=min(jobs, len(tasks))) as pool:
        for result in pool.imap(_play, tasks, chunksize=1):  # a search bot's match is slow: no batching
            results.append(result)
            progress(len(results))
            if deadline is not None and time.perf_counter() > deadline:
                break  # leaving the with-block terminates the pool
    return results


def rate(results: Sequence[MatchResult]) -> dict[str, tuple[float, float, int]]:
    """The rating book over the two-seat matches, in the order given: each bot's engine is one identity."""
    book = Book()
    for result in results:
        if result.ruleset != TWO_SEATS:
            continue
        places = (1, 2) if result.winner == 0 else (2, 1)
        book.rate(Result(result.match_id + ":" + "-".join(result.bots), UNO_DUO, RATED_AT, result.players, places))
    out = {}
    for (identity, family), rating in book.ratings.items():
        if family == UNO_DUO:
            out[identity.removeprefix("bot:")] = (rating.rating, rating.deviation, rating.games)
    return out


def run(options: Options, progress: Callable[[int], None] = lambda _: None) -> Figures:
    tasks = _tasks(options)
    started = time.perf_counter()
    deadline = None if options.minutes is None else started + 60 * options.minutes
    results = play_all(tasks, options.jobs, progress, deadline)
    seconds = time.perf_counter() - started
    tallies: dict[tuple[str, tuple[str, ...]], Tally] = {}
    for task, result in zip(tasks, results, strict=False):  # all tasks, or the first ones by the deadline
        key = (task.ruleset, task.bots)
        if key not in tallies:
            tallies[key] = Tally(task.bots, task.ruleset, task.seed)
        tallies[key].add(result)
    return Figures(
        options=options,
        pairings=[tallies[(TWO_SEATS, pair)].summary() for pair in pairings(options) if (TWO_SEATS, pair) in tallies],
        tables=[tallies[(TABLES, seats)].summary() for seats in tables(options) if (TABLES, seats) in tallies],
        ratings=rate(results),
        seconds=seconds,
        played=len(results),
        planned=len(tasks),
    )


def _rate(wins: int, trials: int) -> str:
    low, high = wilson_interval(wins, trials)
    return f"{wins / trials:.1%} ({low:.1%}–{high:.1%})" if trials else "-"


def increasing(figures: Figures) -> bool:
    """Do the ratings increase strictly in the order of ``--bots`` (weakest first)?"""
    values = [figures.ratings[bot][0] for bot in figures.options.bots if bot in figures.ratings]
    return len(values) == len(figures.options.bots) and all(a < b for a, b in pairwise(values))


def verdicts(figures: Figures) -> list[str]:
    """Issue 37.2's targets for the last (strongest) bot of ``--bots``, met or missed by how much."""
    top = figures.options.bots[-1]
    out = []
    for summary in figures.pairings:
        if summary.entrants[0].bot == top and summary.entrants[1].bot == "greedy":
            rate, (low, _) = summary.win_rate(0), summary.win_interval(0)
            met = "met" if rate >= TARGET_VS_GREEDY else f"NOT met, short by {TARGET_VS_GREEDY - rate:.1%} points"
            out.append(
                f"{top} wins >= 65% of two-seat matches against greedy: {met} "
                f"({rate:.1%}; the interval's low end {low:.1%})"
            )
    for summary in figures.tables:
        if summary.entrants[0].bot == top and summary.entrants[1].bot == "greedy":
            rate = summary.win_rate(0)
            met = (
                "met" if rate >= TARGET_FIRST_AT_FOUR else f"NOT met, short by {TARGET_FIRST_AT_FOUR - rate:.1%} points"
            )
            out.append(
                f"{top} first at tables of four >= 2 x chance (50%): {met} ({rate:.1%} = {rate / 0.25:.2f} x chance)"
            )
    if figures.ratings:
        order = " < ".join(figures.options.bots)
        out.append(f"ratings strictly increasing ({order}): {'yes' if increasing(figures) else 'NO'}")
    return out


def markdown(figures: Figures) -> list[str]:
    o = figures.options
    lines = [
        f"### Two seats: `{TWO_SEATS}`, matches to 200 (up to {o.matches} matches a pairing)",
        "",
        "| bot | against | matches | match wins (95% interval) | hands | hands won (95% interval) |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for s in figures.pairings:
        first, other = s.entrants
        lines.append(
            f"| {first.bot} | {other.bot} | {s.matches} | {_rate(first.wins, s.matches)} | {s.rounds} "
            f"| {_rate(first.hands_won, s.rounds)} |"
        )
    if figures.tables:
        lines += [
            "",
            f"### Tables of four: `{TABLES}` to 500, against three of one reference (up to {o.table_matches} a bot)",
            "",
            "| bot | against (x3) | tables | first (95% interval) | × chance (25%) | hands won (95% interval) |",
            "| --- | --- | ---: | ---: | ---: | ---: |",
        ]
        for s in figures.tables:
            first, other = s.entrants[0], s.entrants[1]
            lines.append(
                f"| {first.bot} | {other.bot} | {s.matches} | {_rate(first.wins, s.matches)} "
                f"| {s.win_rate(0) / 0.25:.2f} | {_rate(first.hands_won, s.rounds)} |"
            )
    if figures.ratings:
        lines += [
            "",
            "### Ratings: the rating book over the two-seat matches (uno-duo family, Glicko-2)",
            "",
            "| bot | rating | deviation | rated matches |",
            "| --- | ---: | ---: | ---: |",
        ]
        for bot in sorted(figures.ratings, key=lambda b: figures.ratings[b][0]):
            rating, deviation, games = figures.ratings[bot]
            lines.append(f"| {bot} | {rating:.0f} | {deviation:.0f} | {games} |")
    lines += ["", *[f"- {v}" for v in verdicts(figures)]]
    return lines


def run_and_report(options: Options, write_docs: bool, command: str) -> Figures:
    console = Console(stderr=True)
    total = len(_tasks(options))
    console.log(f"{total} matches on {options.jobs} process(es)…")
    step = max(1, total // 20)
    figures = run(options, lambda done: console.print(f"{done}/{total} matches") if done % step == 0 else None)
    facts = [
        f"CPU: {cpu_model()}; Python {sys.version.split()[0]}; {options.jobs} worker process(es)",
        f"{figures.played} matches in {figures.seconds:,.0f} s wall; seed {options.seed}"
        + ("" if figures.played == figures.planned else f" (stopped by --minutes: {figures.planned} planned)"),
        "intervals: 95% Wilson; hands are rounds, counted as independent trials (a little optimistic)",
    ]
    section = "\n".join([*section_head(SECTION, command, facts), *markdown(figures)]) + "\n"
    sys.stdout.write(section)
    sys.stdout.flush()
    if write_docs:
        write_docs_section(BENCHMARKS_MD, SECTION, section)
        console.print(f"wrote {Path(BENCHMARKS_MD)}")
    return figures
