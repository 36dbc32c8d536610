"""Ratings for classic UNO at tables of 3 to 10 (issue 23, first piece): OpenSkill's
Plackett–Luce model (Weng and Lin, "A Bayesian Approximation Method for Online Ranking", JMLR
2011), from the maintained ``openskill`` package, one table a rating period.

A table's result is its places (D23: equal totals share a place; seats that left come last), so
it goes to the model as ranks, each seat a team of one. Ratings are ``(mu, sigma)`` on the
model's own scale (a newcomer 25 / 25/3); :func:`shown` puts one on the scale a Glicko-2 rating
is shown on, ``1500 + 60·(mu − 25)`` with the deviation ``60·sigma``: a newcomer shows 1500 / 500
as lichess's newcomer does, so one "provisional" threshold and one chart serve both families.
:func:`conservative` is TrueSkill's ``mu − 3·sigma`` on that scale (a newcomer 0), to seed by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

__all__ = ["MODEL", "TableRating", "conservative", "newcomer", "rate_table", "shown"]

MODEL: Final = PlackettLuce()
SHOWN_SCALE: Final = 60.0  # display points per unit of mu: a newcomer's sigma 25/3 shows as 500
SHOWN_BASE: Final = 1500.0


@dataclass(frozen=True)
class TableRating:
    mu: float
    sigma: float


def newcomer() -> TableRating:
    return TableRating(MODEL.mu, MODEL.sigma)


def rate_table(seats: Sequence[TableRating], places: Sequence[int]) -> list[TableRating]:
    """Every seat's rating after one table, in seat order; ``places`` as D23 gives them (1 first,
    a shared place for equal totals). ValueError for fewer than two seats or mismatched lengths."""
    if len(seats) < 2 or len(seats) != len(places):
        raise ValueError(f"a table needs two or more seats and one place each, not {len(seats)} and {len(places)}")
    if any(place < 1 for place in places):
        raise ValueError(f"places start at 1: {list(places)}")
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in seats]
    rated = MODEL.rate(teams, ranks=[float(place) for place in places])
    return [TableRating(team[0].mu, team[0].sigma) for team in rated]


def shown(r: TableRating) -> tuple[float, float]:
    """The rating and deviation to show: ``1500 + 60·(mu − 25)`` and ``60·sigma``."""
    return SHOWN_BASE + SHOWN_SCALE * (r.mu - MODEL.mu), SHOWN_SCALE * r.sigma


def conservative(r: TableRating) -> float:
    """The conservative estimate ``mu − 3·sigma`` on the shown scale (a newcomer 0)."""
    return SHOWN_SCALE * (r.mu - 3.0 * r.sigma)
