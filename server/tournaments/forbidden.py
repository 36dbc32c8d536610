"""Forbidden pairings in a knockout's first round: seeds swapped so that no pair the director
forbade meets, where that can be done (docs/TOURNAMENTS.md "Forbidden pairings").

A Swiss avoids forbidden pairs inside its pairing (``server.tournaments.swiss``, an absolute
criterion relaxed only when no pairing exists otherwise). A bracket's first round is fixed by the
seeding instead, so a bracket builder calls :func:`avoid_forbidden` on it: for each pair that is
forbidden, the lower-placed player of that pair changes places with the lower-placed player of
the nearest other pair (nearest in bracket order, so the seeding moves as little as possible)
such that neither new pair is forbidden. A pair no swap can fix is kept and reported, so the
builder can say so. Byes (``None``) are never forbidden and may be swapped like anyone.

Pure and deterministic: the same pairs and prohibitions always give the same answer.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from server.tournaments.brackets import bracket_size, seed_positions

Seat = str | None
Pair = tuple[Seat, Seat]


def is_forbidden(a: Seat, b: Seat, forbidden: Collection[frozenset[str]]) -> bool:
    return a is not None and b is not None and frozenset((a, b)) in forbidden


def avoid_forbidden(
    first_round_pairs: Sequence[Pair], forbidden: Collection[frozenset[str]]
) -> tuple[list[Pair], list[Pair]]:
    """The first round with forbidden pairs swapped apart where one swap of the lower seats can
    do it, and the forbidden pairs left (``unavoidable``), in board order. Each pair keeps its
    top (first) seat: the seeds that earned the top of the bracket stay where they are."""
    pairs = list(first_round_pairs)
    unavoidable: list[Pair] = []
    for i in range(len(pairs)):
        top, low = pairs[i]
        if not is_forbidden(top, low, forbidden):
            continue
        for j in sorted((j for j in range(len(pairs)) if j != i), key=lambda j: (abs(j - i), j)):
            other_top, other_low = pairs[j]
            if is_forbidden(top, other_low, forbidden) or is_forbidden(other_top, low, forbidden):
                continue
            pairs[i], pairs[j] = (top, other_low), (other_top, low)
            break
        else:
            unavoidable.append((top, low))
    return pairs, unavoidable


def seeded_apart(seeded: Sequence[str], forbidden: Collection[frozenset[str]]) -> tuple[list[str], list[Pair]]:
    """A two-seat bracket's seeded order with round 1's forbidden pairs swapped apart (the swapped
    players trade seed numbers), and the pairs no swap could fix. Round 1 is read from the
    standard seed positions (``server.tournaments.brackets``); a top seed's bye stays a bye:
    only pairings of two players take part in the swaps."""
    order = list(seeded)
    lines = seed_positions(bracket_size(len(order)))
    full = [(a, b) for a, b in zip(lines[::2], lines[1::2], strict=True) if a < len(order) and b < len(order)]
    pairs: list[Pair] = [(order[a], order[b]) for a, b in full]
    fixed, unavoidable = avoid_forbidden(pairs, forbidden)
    for (a, b), (top, low) in zip(full, fixed, strict=True):
        assert top is not None and low is not None  # only pairings of two players were passed
        order[a], order[b] = top, low
    return order, unavoidable
