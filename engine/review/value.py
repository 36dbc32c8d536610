"""The unit of the review: expected match points, the probability that the seat wins the match.

A playout stops at the end of the hand (``engine.review.estimate``); what the new scores are worth
is read from a model of the rest of the match (:func:`match_value`): the hands still to come are
independent; each is won by either of two seats with probability 1/2 (equal players), and its
points are spread evenly from 5 to ``2 × mean − 5``, the mean hand measured from greedy self-play
(``mean_hand_points``). At a table of 3+ each seat's chance is the product of its two-seat races
against every other seat, normalised over the seats (exact at equal totals: 1/seats; an
approximation elsewhere). The value of the end of a match is
exact: 1 for a win, 0 otherwise. docs/REVIEW.md says why this unit and what the model leaves out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

from engine.game.rulesets import Ruleset, Scoring
from engine.game.state import MatchState, Phase

UNIT = 5  # points per step of the model's grid (scores are rounded up to it)
# Measured (unoduo simulate, greedy v greedy, 30 matches each): uno-duo 43.3, classic-2p 43.9
# at two seats, classic 108 at four; ~32 more per further seat.
TWO_SEAT_MEAN_HAND_POINTS = 45
EXTRA_SEAT_HAND_POINTS = 32


def mean_hand_points(seats: int) -> int:
    return TWO_SEAT_MEAN_HAND_POINTS + EXTRA_SEAT_HAND_POINTS * (seats - 2)


@cache
def _race(target_units: int, mean_units: int, p_num: int, p_den: int) -> tuple[tuple[float, ...], ...]:
    """``table[a][b]``: the chance that side A, ``a`` steps from the target, gets there before side B
    at ``b`` steps, when each hand gives its points to A with probability ``p_num / p_den``."""
    p = p_num / p_den
    top = max(1, 2 * mean_units - 1)
    spread = 1.0 / top  # each of 1..top steps equally likely
    n = target_units + 1
    table = [[0.0] * n for _ in range(n)]
    for a in range(n):
        for b in range(n):
            if a == 0:
                table[a][b] = 1.0
                continue
            if b == 0:
                continue
            a_gets = sum(table[max(0, a - k)][b] for k in range(1, top + 1)) * spread
            b_gets = sum(table[a][max(0, b - k)] for k in range(1, top + 1)) * spread
            table[a][b] = p * a_gets + (1 - p) * b_gets
    return tuple(tuple(row) for row in table)


def race_value(to_go_a: int, to_go_b: int, target: int, seats: int, a_gets_with: tuple[int, int]) -> float:
    """:func:`_race` read at point distances (rounded up to the model's grid)."""
    units = math.ceil(target / UNIT)
    table = _race(units, max(1, round(mean_hand_points(seats) / UNIT)), *a_gets_with)
    a = min(units, max(0, math.ceil(to_go_a / UNIT)))
    b = min(units, max(0, math.ceil(to_go_b / UNIT)))
    return table[a][b]


def match_value(state: MatchState, seat: int) -> float:
    """The seat's expected match points in ``state`` (between hands, or at the match's end)."""
    over = state.phase is Phase.MATCH_OVER
    return value_of(state.scores, state.departed, state.ruleset, seat, state.winner if over else None)


def value_of(
    scores: Sequence[int], departed: Sequence[bool], ruleset: Ruleset, seat: int, winner: int | None = None
) -> float:
    """The seat's expected match points with these totals; ``winner``: the match is over, won by that seat."""
    if winner is not None:
        return 1.0 if winner == seat else 0.0
    seats = len(scores)
    staying = [s for s in range(seats) if not departed[s]]
    if seat not in staying:
        return 0.0
    target = ruleset.target
    if seats == 2 and ruleset.scoring is Scoring.LOSER_SCORES:
        # uno-duo (D16): the hand's loser scores and reaching the target loses: the seat wins the
        # race when the other seat gets to the target first.
        other = 1 - seat
        return race_value(target - scores[other], target - scores[seat], target, seats, (1, 2))
    strength = {s: 1.0 for s in staying}
    for s in staying:
        for o in staying:
            if o != s:
                strength[s] *= race_value(target - scores[s], target - scores[o], target, seats, (1, 2))
    total = sum(strength.values())
    return strength[seat] / total if total > 0 else 1.0 / len(staying)
