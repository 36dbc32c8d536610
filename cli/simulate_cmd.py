"""``unoduo simulate``: house bots play whole matches against each other; a table of the results.

The table is a function of ``--bots``, ``--ruleset``, ``--seed`` and ``--matches`` only: match
``i`` of a run is seeded from ``(seed, i)`` and the entrants swap seats every match, so
``--jobs`` changes the speed, never the figures. The progress bar and the timing go to stderr,
the table to stdout.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import os
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from engine.bots import UnknownBotError, normalize_bot_name
from engine.game.rulesets import RULESETS, Ruleset, get_ruleset, seats_allowed
from engine.play.selfplay import MatchResult, play_match
from engine.play.tally import RunSummary, Tally
from engine.record.replay import replay_text

Task = tuple[tuple[str, ...], str, int, int, str | None]


def _fail(message: str) -> typer.Exit:
    typer.echo(f"unoduo simulate: {message}", err=True)
    return typer.Exit(2)


def replay_path(directory: Path, result: MatchResult) -> Path:
    return directory / f"{result.match_id}-{'-vs-'.join(result.bots)}.jsonl"


def play_one(task: Task) -> MatchResult:
    """One match (in a worker process with ``--jobs``); writes its replay when asked to."""
    bots, ruleset_name, seed, index, replays = task
    result = play_match(bots, get_ruleset(ruleset_name), seed, index)
    if replays is not None:
        text = replay_text(result.match_id, result.ruleset, result.players, result.events)
        replay_path(Path(replays), result).write_text(text, encoding="utf-8")
    return result.without_events()


def _pool(jobs: int, tasks: int) -> multiprocessing.pool.Pool:
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    return context.Pool(processes=min(jobs, tasks))


def entrant_label(summary: RunSummary, number: int) -> str:
    """The entrant's bot, numbered when a bot sits more than once (``greedy #2``)."""
    bot = summary.entrants[number].bot
    same = len({entrant.bot for entrant in summary.entrants}) < len(summary.entrants)
    return f"{bot} #{number + 1}" if same else bot


def summary_table(summary: RunSummary) -> Table:
    """The results table. Nothing in it depends on time or on ``--jobs``."""
    table = Table(
        title=f"{summary.matches:,} matches · {summary.ruleset} · seed {summary.seed}",
        title_justify="left",
    )
    table.add_column("bot")
    table.add_column("wins", justify="right")
    table.add_column("win %", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_column("challenges", justify="right")
    table.add_column("upheld", justify="right")
    table.add_column("UNO catches", justify="right")
    for number, entrant in enumerate(summary.entrants):
        low, high = summary.win_interval(number)
        upheld = f"{entrant.challenges_upheld / entrant.challenges:.1%}" if entrant.challenges else "-"
        table.add_row(
            entrant_label(summary, number),
            f"{entrant.wins:,}",
            f"{summary.win_rate(number):.1%}",
            f"{low:.1%} – {high:.1%}",
            f"{entrant.challenges:,}",
            upheld,
            f"{entrant.catches:,}",
        )
    table.caption = (
        f"mean rounds per match {summary.mean_rounds:.2f} · "
        f"mean actions per round {summary.mean_actions_per_round:.1f} · "
        "upheld = challenges that found the Wild Draw Four illegal"
    )
    table.caption_justify = "left"
    return table


def hands_table(summary: RunSummary) -> Table:
    """Strength per hand: the share of all rounds each entrant won (went out, or a blocked round's
    lower hand), with its 95% interval, rounds counted as independent trials."""
    table = Table(title=f"hands: {summary.rounds:,} rounds", title_justify="left")
    table.add_column("bot")
    table.add_column("hands won", justify="right")
    table.add_column("hand %", justify="right")
    table.add_column("95% interval", justify="right")
    for number, entrant in enumerate(summary.entrants):
        low, high = summary.hand_interval(number)
        table.add_row(
            entrant_label(summary, number),
            f"{entrant.hands_won:,}",
            f"{summary.hand_rate(number):.1%}",
            f"{low:.1%} – {high:.1%}",
        )
    return table


def _check_replays_dir(replays: Path) -> str:
    try:
        replays.mkdir(parents=True, exist_ok=True)
        probe = replays / f".unoduo-write-test-{os.getpid()}"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise _fail(f"cannot write replays to {replays}: {exc.strerror or exc}") from None
    return str(replays)


def _parse_bots(text: str, rules: Ruleset) -> tuple[str, ...]:
    """One bot a seat: two, or as many as the ruleset seats (classic: 2 to 10)."""
    names = [part.strip() for part in text.split(",")]
    allowed = seats_allowed(rules)
    if len(names) not in allowed or not all(names):
        count = (
            "two bot names" if len(allowed) == 1 else f"{allowed.start} to {allowed.stop - 1} bot names (one a seat)"
        )
        raise _fail(f"--bots takes {count} separated by commas for {rules.name} (e.g. greedy,random), not {text!r}")
    try:
        return tuple(normalize_bot_name(n) for n in names)
    except UnknownBotError as exc:
        raise _fail(str(exc)) from None


def simulate(
    matches: int = typer.Option(100, "--matches", "-n", help="how many whole matches to play"),
    bots: str = typer.Option(
        "greedy,random",
        "--bots",
        help="one bot a seat, comma-separated (random, greedy, rule-v1, …): two, or 2 to 10 with --ruleset classic",
    ),
    ruleset: str = typer.Option("uno-duo", "--ruleset", help=f"one of {', '.join(RULESETS)}"),
    seed: int = typer.Option(1, "--seed", help="master seed: the same seed gives the same table"),
    replays: Path | None = typer.Option(
        None, "--replays", help="write every match as a replay file (docs/FAIRNESS.md) into this directory"
    ),
    jobs: int = typer.Option(1, "--jobs", "-j", help="worker processes (the table does not depend on it)"),
) -> None:
    """Bots play whole matches to the target; prints wins and hands won (95% intervals), rounds, actions, challenges, catches."""
    if matches < 1:
        raise _fail(f"--matches must be at least 1, not {matches}")
    if jobs < 1:
        raise _fail(f"--jobs must be at least 1, not {jobs}")
    try:
        rules: Ruleset = get_ruleset(ruleset)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    pair = _parse_bots(bots, rules)
    replay_dir = _check_replays_dir(replays) if replays is not None else None

    tasks: list[Task] = [(pair, rules.name, seed, index, replay_dir) for index in range(matches)]
    tally = Tally(pair, rules.name, seed)
    err = Console(stderr=True)
    started = time.perf_counter()
    with ExitStack() as stack:
        results: Iterator[MatchResult]
        if jobs > 1 and matches > 1:
            # Workers are forked here, before the progress bar starts its refresh thread; imap
            # hands results back in match order, so the table is the same as with one job.
            pool = stack.enter_context(_pool(jobs, matches))
            results = pool.imap(play_one, tasks, chunksize=max(1, min(16, matches // (jobs * 8))))
        else:
            results = map(play_one, tasks)
        progress = stack.enter_context(
            Progress(
                SpinnerColumn(),
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TaskProgressColumn(),
                TextColumn("{task.fields[score]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=err,
            )
        )
        task_id = progress.add_task(" vs ".join(pair), total=matches, score="")
        for result in results:
            tally.add(result)
            progress.update(task_id, advance=1, score="–".join(map(str, tally.wins)))
    elapsed = time.perf_counter() - started

    out = Console()
    out.print(summary_table(tally.summary()))
    out.print(hands_table(tally.summary()))
    rate = matches / elapsed if elapsed > 0 else float("inf")
    err.print(f"{matches:,} matches in {elapsed:.1f} s ({rate:,.1f} matches/s, {jobs} job(s))")
    if replay_dir is not None:
        err.print(f"replays written to {replay_dir}")
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate)
