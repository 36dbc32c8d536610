"""Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2012 revision), for two-seat
matches (issue 23, first piece: the algorithm alone, not yet folded from the event log).

Pure: the standard library only, no clock, no I/O. A rating is ``(rating, deviation,
volatility)`` on the Glicko scale (1500 / 350 / 0.06 for a newcomer); :func:`rate` takes one
player's rating and the results of a rating period and returns the new rating, following the
paper's steps 1 to 8 (the volatility by the Illinois variant of regula falsi, step 5.1-5.5).

As lichess does, a server rates **each match as a rating period of its own**
(:func:`rate_match`: both players updated from the ratings they had before it), so a rating moves
after every match rather than once a week; :data:`LICHESS` holds lichess's published constants
(``tau`` 0.75, a newcomer's deviation 500 and volatility 0.09, the deviation kept within 45 to
500), and :data:`GLICKMAN` the paper's (``tau`` 0.5, 350, 0.06), which the worked example uses.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "GLICKMAN",
    "LICHESS",
    "PROVISIONAL_DEVIATION",
    "RATING_PERIODS_PER_DAY",
    "SCALE",
    "Glicko2",
    "Opponent",
    "Rating",
    "periods_between",
    "rate",
    "rate_match",
]

SCALE: Final = 173.7178  # Glicko-2's scale factor, 400 / ln(10)
BASE: Final = 1500.0
CONVERGENCE: Final = 0.000001  # step 5's epsilon
# lila's ``ratingPeriodsPerDay``: the deviation of a player who stops playing grows back
# towards a newcomer's over about a year; of one who plays often it barely grows between matches.
RATING_PERIODS_PER_DAY: Final = 0.21436
PROVISIONAL_DEVIATION: Final = 110.0  # lichess marks a rating provisional at this deviation or more


@dataclass(frozen=True)
class Glicko2:
    """The system's constants: ``tau`` constrains the volatility's change; a newcomer starts at
    ``rating`` / ``deviation`` / ``volatility``; the deviation is kept within its bounds."""

    tau: float
    rating: float
    deviation: float
    volatility: float
    min_deviation: float = 0.0
    max_deviation: float = math.inf

    def newcomer(self) -> Rating:
        return Rating(self.rating, self.deviation, self.volatility)


GLICKMAN: Final = Glicko2(tau=0.5, rating=BASE, deviation=350.0, volatility=0.06)
LICHESS: Final = Glicko2(
    tau=0.75, rating=BASE, deviation=500.0, volatility=0.09, min_deviation=45.0, max_deviation=500.0
)


@dataclass(frozen=True)
class Rating:
    rating: float
    deviation: float
    volatility: float


@dataclass(frozen=True)
class Opponent:
    """One game of the period: the opponent's rating and deviation before it, and the score
    (1 a win, 0 a loss, 0.5 a draw, which UNO does not have)."""

    rating: float
    deviation: float
    score: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def rate(player: Rating, games: Sequence[Opponent], system: Glicko2 = GLICKMAN, periods: float = 1.0) -> Rating:
    """The player's rating after a rating period with ``games`` (none: only the deviation grows).
    ``periods``: how many rating periods have passed since the player's last one (the paper's
    step 6 assumes 1; lichess counts a fraction of a period per day since the last game)."""
    mu = (player.rating - BASE) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not games:  # step 6 alone: the deviation grows with the volatility
        return _bounded(Rating(player.rating, SCALE * math.sqrt(phi * phi + periods * sigma * sigma), sigma), system)
    # Step 3: the estimated variance v; step 4: the estimated improvement delta.
    weights = []
    for game in games:
        mu_j, phi_j = (game.rating - BASE) / SCALE, game.deviation / SCALE
        weights.append((_g(phi_j), _expected(mu, mu_j, phi_j), game.score))
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in weights)
    improvement = sum(g * (s - e) for g, e, s in weights)
    delta = v * improvement
    sigma_new = _volatility(delta, phi, v, sigma, system.tau)
    # Steps 6 and 7: the pre-period deviation, then the new deviation and rating.
    phi_star = math.sqrt(phi * phi + periods * sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    return _bounded(Rating(SCALE * mu_new + BASE, SCALE * phi_new, sigma_new), system)


def _volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5: the new volatility, the root of f by the Illinois algorithm (the paper's 5.1-5.5)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        top = ex * (delta * delta - phi * phi - v - ex)
        bottom = 2.0 * (phi * phi + v + ex) ** 2
        return top / bottom - (x - a) / (tau * tau)

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > CONVERGENCE:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    return math.exp(low / 2.0)


def _bounded(r: Rating, system: Glicko2) -> Rating:
    deviation = min(max(r.deviation, system.min_deviation), system.max_deviation)
    return Rating(r.rating, deviation, r.volatility)


def rate_match(
    white: Rating,
    black: Rating,
    white_won: bool,
    system: Glicko2 = LICHESS,
    periods: tuple[float, float] = (1.0, 1.0),
) -> tuple[Rating, Rating]:
    """One match as a rating period of its own (lichess's way): both players rated from the
    ratings they had before it; ``periods``: each one's rating periods since their last match."""
    score = 1.0 if white_won else 0.0
    new_white = rate(white, [Opponent(black.rating, black.deviation, score)], system, periods[0])
    new_black = rate(black, [Opponent(white.rating, white.deviation, 1.0 - score)], system, periods[1])
    return new_white, new_black


def periods_between(days: float) -> float:
    """lichess's clock for the deviation: :data:`RATING_PERIODS_PER_DAY` of a period per day since
    the player's last rated match."""
    return max(0.0, days) * RATING_PERIODS_PER_DAY
