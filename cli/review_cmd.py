"""``unoduo review MATCH | --replay FILE [--seat N] [--samples N] [--all] [--json]``: Game Review.

With ``--replay`` the review is computed here from a verified replay file; with MATCH the server
computes it (``GET /api/matches/{id}/review``, finished matches only) and this prints it. Exit 0
printed; 1 the replay does not verify or the server refused; 2 bad arguments or an unreadable file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from cli.replay_input import read_replay
from cli.tournament_cmd import DEFAULT_URL, TIMEOUT_SECONDS, Url, fail, refusal

REVIEW_TIMEOUT_SECONDS = 4 * TIMEOUT_SECONDS  # a long match's review takes up to a minute the first time


def _local(text: str, source: str, seat: int, samples: int | None) -> dict[str, Any]:
    from engine.game.errors import ReplayUnreadable
    from engine.review.replay_events import verified_replay_events
    from engine.review.report import player_of, review_dict
    from engine.review.review import ReviewSettings, ReviewUnavailable, review_seat

    try:
        header, events = verified_replay_events(text)
    except ReplayUnreadable as exc:
        fail(f"unoduo review: {source}: {exc}", 1)
    settings = ReviewSettings() if samples is None else ReviewSettings(samples=samples)
    try:
        review = review_seat(events, seat, settings)
    except ReviewUnavailable as exc:
        fail(f"unoduo review: {exc}", 2)
    return review_dict(review, header.get("match"), player_of(header, events, seat))


def _remote(url: str, match: str, seat: int, samples: int | None) -> dict[str, Any]:
    import httpx

    params = {"seat": str(seat)} | ({} if samples is None else {"samples": str(samples)})
    base = url.rstrip("/")
    try:
        response = httpx.get(f"{base}/api/matches/{match}/review", params=params, timeout=REVIEW_TIMEOUT_SECONDS)
    except httpx.TimeoutException:
        fail(f"unoduo review: the server at {base} did not answer within {REVIEW_TIMEOUT_SECONDS:g} s")
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        fail(f"unoduo review: cannot reach the server at {base}: {str(exc) or type(exc).__name__}")
    if response.is_error:
        fail(f"unoduo review: {refusal(response)}")
    answer = response.json()
    if not isinstance(answer, dict):
        fail("unoduo review: the server's answer is not a review")
    return answer


def review(
    match: str | None = typer.Argument(None, help="a finished match's id on the server (--url)"),
    replay: Path | None = typer.Option(None, "--replay", help="review a replay file (.jsonl) here instead"),
    seat: int = typer.Option(0, "--seat", help="the seat to review (0 to seats - 1)"),
    samples: int | None = typer.Option(
        None, "--samples", help="determinizations per decision (default 64; more: smaller error bars, slower)"
    ),
    every: bool = typer.Option(False, "--all", help="list every decision with a choice, not only the flagged"),
    as_json: bool = typer.Option(False, "--json", help="the whole review as JSON"),
    url: Url = DEFAULT_URL,
) -> None:
    """Game Review: each decision's loss in expected match points against the best option, banded
    (inaccuracy, mistake, blunder), the seat's accuracy and each hand's luck."""
    from engine.review.review import MAX_SAMPLES

    if (match is None) == (replay is None):
        fail("unoduo review: give a MATCH id, or --replay FILE", 2)
    if samples is not None and not 1 <= samples <= MAX_SAMPLES:
        fail(f"unoduo review: --samples must be between 1 and {MAX_SAMPLES}", 2)
    if seat < 0:
        fail("unoduo review: --seat is a seat number, 0 or more", 2)
    if replay is not None:
        result = _local(read_replay(replay, "review"), str(replay), seat, samples)
    else:
        assert match is not None
        result = _remote(url, match, seat, samples)
    if as_json:
        typer.echo(json.dumps(result, indent=1))
        return
    from cli.review_table import print_review

    print_review(result, every)


def register(app: typer.Typer) -> None:
    app.command("review")(review)
