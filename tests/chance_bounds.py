"""Bounds for tests that must tell "no better than chance" from "predicts": exact binomial tails.

A guesser that cannot see the secret hits decision ``i`` with probability ``p_i`` (one over the
number of equally likely answers), independently, so its hits follow a Poisson binomial law.
The tests compare what a guesser got with the bound that chance reaches with probability
below ``ALPHA``: a correct tree fails such a test about once in a million runs.
"""

from __future__ import annotations

from collections.abc import Sequence

ALPHA = 1e-6


def distribution(ps: Sequence[float]) -> list[float]:
    """P(exactly k hits) for k = 0 … len(ps), hit i having probability ``ps[i]``."""
    out = [1.0]
    for p in ps:
        nxt = [0.0] * (len(out) + 1)
        for k, mass in enumerate(out):
            nxt[k] += mass * (1.0 - p)
            nxt[k + 1] += mass * p
        out = nxt
    return out


def most_hits_by_chance(ps: Sequence[float], alpha: float = ALPHA) -> int:
    """The largest hit count that chance alone exceeds with probability >= ``alpha``:
    P(hits > bound) < alpha. A guesser with more hits than this predicts."""
    dist = distribution(ps)
    tail = 0.0
    for k in range(len(dist) - 1, -1, -1):
        tail += dist[k]
        if tail >= alpha:
            return k
    return 0


def fewest_hits_by_chance(ps: Sequence[float], alpha: float = ALPHA) -> int:
    """The smallest hit count that chance alone falls under with probability >= ``alpha``:
    P(hits < bound) < alpha. A count under this is too regular to be chance."""
    dist = distribution(ps)
    tail = 0.0
    for k, mass in enumerate(dist):
        tail += mass
        if tail >= alpha:
            return k
    return len(dist) - 1
