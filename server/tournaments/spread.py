"""Seeding that spreads a field: snake groups, and tiers placed so that players from one group
are kept apart (docs/TOURNAMENTS.md "Table knockout", "Pools into a bracket").

Pure: no I/O, no randomness. Two questions, shared by the table knockout (who sits at which
table of the next round) and the pools (who goes into a pool; where each pool's qualifiers go in
the bracket):

- :func:`snake`: seeds 0..n-1 into groups of given sizes, row by row, every other row backwards
  (1..G, G..1, ...), a group once full skipped: each group gets one of the best, one of the next
  best, and so on.
- :func:`place_tiers`: a field made of tiers (all the winners of a round's tables, then all the
  runners-up; all the pools' winners, then the runners-up, ...), each member from a group (the
  table or pool it came from), put into the tier's slots so that the cost of sitting near one's
  own group is as low as it can be, tier by tier: an optimal assignment (a maximum-weight
  matching) of each tier given the tiers placed before it, nearest to the natural order
  (group order) among the equally good ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["place_tiers", "snake"]


def snake(count: int, sizes: Sequence[int]) -> list[list[int]]:
    """Seeds ``0 .. count - 1`` into groups of ``sizes`` (summing to ``count``) in snake order."""
    if sum(sizes) != count or any(s < 0 for s in sizes):
        raise ValueError(f"group sizes {list(sizes)} do not seat {count}")
    groups: list[list[int]] = [[] for _ in sizes]
    order = list(range(len(sizes)))
    seed = 0
    forward = True
    while seed < count:
        for g in order if forward else reversed(order):
            if seed < count and len(groups[g]) < sizes[g]:
                groups[g].append(seed)
                seed += 1
        forward = not forward
    return groups


def place_tiers(
    tiers: Sequence[Sequence[int]],
    slots: Sequence[Sequence[int]],
    cost: Callable[[int, int, Sequence[tuple[int, int]]], int],
) -> list[list[int]]:
    """Each tier's members (their group numbers, natural order) put into the tier's ``slots``
    (as many as members): the answer gives, per tier, the group whose member takes each slot.

    ``cost(group, slot, placed)``: what it costs to put a member of ``group`` at ``slot`` given
    ``placed``, every (group, slot) of the tiers already placed; 0 means no harm. Each tier is an
    optimal assignment given the ones before it; among equal costs, the least displacement from
    the natural order (member i at slot i)."""
    from networkx import Graph, max_weight_matching  # Speed: imported on first use, as swiss.py does

    placed: list[tuple[int, int]] = []
    out: list[list[int]] = []
    for members, tier_slots in zip(tiers, slots, strict=True):
        if len(members) != len(tier_slots):
            raise ValueError(f"a tier of {len(members)} for {len(tier_slots)} slots")
        n = len(members)
        displacement_unit = n * n + 1  # a unit of cost outweighs any displacement of a whole tier
        costs = [[cost(g, s, placed) for s in tier_slots] for g in members]
        top = max((c for row in costs for c in row), default=0) * displacement_unit + displacement_unit
        graph: Graph[tuple[str, int]] = Graph()
        for i in range(n):
            for j in range(n):
                weight = top - costs[i][j] * displacement_unit - abs(i - j)
                graph.add_edge(("m", i), ("s", j), weight=weight)
        matching = max_weight_matching(graph, maxcardinality=True)
        at_slot = [-1] * n
        for a, b in matching:
            member, slot = (a, b) if a[0] == "m" else (b, a)
            at_slot[slot[1]] = members[member[1]]
        assert -1 not in at_slot  # a complete bipartite graph has a perfect matching
        out.append(at_slot)
        placed.extend(zip(at_slot, tier_slots, strict=True))
    return out
