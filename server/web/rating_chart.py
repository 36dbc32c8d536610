"""A player's rating over time as an inline SVG, drawn on the server (no script, no library).

The chart is one family's points as the player API gives them (``PlayerPage.rating_history``:
oldest first, at most ``CHART_POINTS``): the rating as a line, the rating ± its deviation as a
band behind it, the lowest and highest value and the first and last date on the axes. It is
accessible by itself: ``role="img"`` named by its ``<title>`` and described by its ``<desc>``
(what a screen reader says: how many matches, from what to what, the highest and lowest), and
the page puts the same points in a table beside it (``templates/player.html``). Every text in
it is escaped; its size follows the page's width (a ``viewBox``, no fixed width).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from markupsafe import Markup, escape

from server.schemas import RatingPoint

WIDTH: Final = 480  # a phone shows it at about 370 px: the labels stay readable
HEIGHT: Final = 200
LEFT, RIGHT, TOP, BOTTOM = 44, 10, 10, 26  # room for the axis labels
TICK_STEP: Final = 50  # rating gridlines fall on multiples of this


@dataclass(frozen=True)
class Chart:
    """What the chart says in words (its title and description) and its drawing."""

    title: str
    description: str
    svg: Markup


def _day(at: str) -> str:
    """The date of an ISO 8601 time (``2026-12-07T15:00:00Z`` → ``2026-12-07``)."""
    return at[:10]


def axis_labels(first: str, last: str) -> tuple[str, str]:
    """The x axis's two ends: the dates, or on one day the times (``15:03 UTC``)."""
    if _day(first) != _day(last):
        return _day(first), _day(last)
    return f"{_day(first)} {first[11:16]}", f"{last[11:16]} UTC"


def describe(points: Sequence[RatingPoint], family: str) -> str:
    """The chart in one sentence, for its ``<desc>`` (and anyone who cannot see it)."""
    if not points:
        return f"No rated {family} match yet."
    first, last = points[0], points[-1]
    ratings = [p.rating for p in points]
    played = f"{len(points)} rated match{'es' if len(points) != 1 else ''}"
    span = _day(first.at) if _day(first.at) == _day(last.at) else f"{_day(first.at)} to {_day(last.at)}"
    return (
        f"{family} rating after each of the last {played} ({span}): from {first.rating:.0f} to "
        f"{last.rating:.0f}; highest {max(ratings):.0f}, lowest {min(ratings):.0f}."
    )


def _bounds(points: Sequence[RatingPoint]) -> tuple[float, float]:
    """The rating range drawn: every point with its deviation band, widened to whole ticks."""
    low = min(p.rating - p.deviation for p in points)
    high = max(p.rating + p.deviation for p in points)
    low = (low // TICK_STEP) * TICK_STEP
    high = -((-high) // TICK_STEP) * TICK_STEP
    return low, max(high, low + TICK_STEP)


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def chart(points: Sequence[RatingPoint], family: str, chart_id: str) -> Chart:
    """The chart of ``points`` (oldest first) for ``family``; ``chart_id`` makes its ids unique
    on the page (its title and description are referred to by id)."""
    title = f"{family} rating over time"
    description = describe(points, family)
    ids = {"title": f"{chart_id}-title", "desc": f"{chart_id}-desc"}
    head = (
        f'<svg class="rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="{escape(ids["title"])} {escape(ids["desc"])}" preserveAspectRatio="xMidYMid meet">'
        f'<title id="{escape(ids["title"])}">{escape(title)}</title>'
        f'<desc id="{escape(ids["desc"])}">{escape(description)}</desc>'
    )
    if not points:
        body = f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle" class="chart-empty">{escape(description)}</text>'
        return Chart(title, description, Markup(head + body + "</svg>"))
    low, high = _bounds(points)
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        # Evenly by match, as lichess's chart reads: an evening of ten matches is not squeezed into a dot.
        return LEFT + (inner_w * i / (len(points) - 1) if len(points) > 1 else inner_w / 2)

    def y(rating: float) -> float:
        return TOP + inner_h * (high - rating) / (high - low)

    parts = [head]
    step = TICK_STEP * max(1, round((high - low) / TICK_STEP / 5))  # about five gridlines
    tick = low
    while tick <= high:
        parts.append(
            f'<line class="chart-grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{_fmt(y(tick))}" y2="{_fmt(y(tick))}"/>'
            f'<text class="chart-label" x="{LEFT - 6}" y="{_fmt(y(tick) + 4)}" text-anchor="end">{tick:.0f}</text>'
        )
        tick += step
    upper = [f"{_fmt(x(i))},{_fmt(y(p.rating + p.deviation))}" for i, p in enumerate(points)]
    lower = [f"{_fmt(x(i))},{_fmt(y(p.rating - p.deviation))}" for i, p in reversed(list(enumerate(points)))]
    parts.append(f'<polygon class="chart-band" points="{" ".join(upper + lower)}"/>')
    line = " ".join(f"{_fmt(x(i))},{_fmt(y(p.rating))}" for i, p in enumerate(points))
    parts.append(f'<polyline class="chart-line" points="{line}"/>')
    for i, p in enumerate(points):
        label = f"{_day(p.at)}: {_fmt(p.rating)} ± {_fmt(p.deviation)}"
        parts.append(
            f'<circle class="chart-point" cx="{_fmt(x(i))}" cy="{_fmt(y(p.rating))}" r="3">'
            f"<title>{escape(label)}</title></circle>"
        )
    baseline = HEIGHT - BOTTOM + 18
    start, end = axis_labels(points[0].at, points[-1].at)
    parts.append(f'<text class="chart-label" x="{LEFT}" y="{baseline}">{escape(start)}</text>')
    if len(points) > 1:
        parts.append(
            f'<text class="chart-label" x="{WIDTH - RIGHT}" y="{baseline}" text-anchor="end">{escape(end)}</text>'
        )
    parts.append("</svg>")
    return Chart(title, description, Markup("".join(parts)))
