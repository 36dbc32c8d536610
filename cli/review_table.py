"""A seat's Game Review printed for a person (rich, 80 columns): what ``unoduo review`` shows.

It reads the review's JSON (``engine.review.report.review_dict``), so a review computed here from
a replay file and one fetched from a server print the same.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from engine.review.report import option_words

BAND_STYLE = {"inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "bold red"}


def _pct(value: object) -> str:
    return "-" if not isinstance(value, int | float) else f"{100 * value:.0f}%"


def _mp(value: object) -> str:
    return "-" if not isinstance(value, int | float) else f"{value:.3f}"


def summary_lines(review: dict[str, Any]) -> list[str]:
    bands = review["bands"]
    who = review.get("player") or f"seat {review['seat']}"
    accuracy = review.get("accuracy")
    counts = review["counts"]
    return [
        f"Game Review of {who}, seat {review['seat']}" + (f", match {review['match']}" if review.get("match") else ""),
        f"Unit: expected match points (the chance to win the match); {review['settings']['samples']} samples each.",
        f"Bands: inaccuracy {bands['inaccuracy']:.2f}, mistake {bands['mistake']:.2f}, blunder"
        f" {bands['blunder']:.2f}, if above {review['noise_sigmas']:g} standard errors.",
        f"Accuracy {'-' if accuracy is None else f'{accuracy:.1f}'} (lichess's formula) over {review['reviewed']}"
        f" decisions with a choice ({review['forced']} forced).",
        f"Average loss {_mp(review.get('average_loss'))} a decision; the coach's choice made in"
        f" {_pct(review.get('agreement'))}.",
        f"{counts['blunder']} blunders, {counts['mistake']} mistakes, {counts['inaccuracy']} inaccuracies.",
    ]


def decisions_table(review: dict[str, Any], every: bool = False) -> Table:
    table = Table(title="Decisions" if every else "Flagged decisions", title_justify="left", expand=False)
    for name, justify in (("seq", "right"), ("hand", "right"), ("chose", "left"), ("better", "left"),
                          ("loss ± se", "right"), ("band", "left")):  # fmt: skip
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for d in review["decisions"]:
        if not every and d["band"] is None:
            continue
        band = d["band"] or ""
        better = "" if d["chosen"] == d["best"] else option_words(d["best"])
        table.add_row(
            str(d["seq"]),
            str(d["round"]),
            option_words(d["chosen"]),
            better,
            f"{d['loss']:.3f} ± {d['loss_stderr']:.3f}",
            f"[{BAND_STYLE[band]}]{band}[/]" if band else "",
        )
    return table


def hands_table(review: dict[str, Any]) -> Table:
    table = Table(title="Luck by hand (expected match points)", title_justify="left")
    for name in ("hand", "before", "deal ± se", "luck", "after", "points"):
        table.add_column(name, justify="right")
    for h in review["hands"]:
        table.add_row(
            str(h["round"]),
            _mp(h["before"]),
            f"{_mp(h['deal'])} ± {_mp(h['deal_stderr'])}",
            f"{h['luck']:+.3f}",
            _mp(h["after"]),
            f"{h['points']:+d}",
        )
    return table


def print_review(review: dict[str, Any], every: bool = False, console: Console | None = None) -> None:
    out = console or Console(width=80)
    for line in summary_lines(review):
        out.print(line, highlight=False, markup=False)
    if any(d["band"] for d in review["decisions"]) or every:
        out.print(decisions_table(review, every))
    else:
        out.print("No decision flagged.")
    out.print(hands_table(review))
    out.print(
        "Luck: what the deal was worth (deal minus before, every seat playing simply); after: the value"
        " the hand left. Points: the seat's score change (in uno-duo the hand's loser scores).",
        highlight=False,
        markup=False,
    )
