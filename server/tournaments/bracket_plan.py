"""A knockout's plan: the matches of an elimination event as a graph, fixed at the start
(docs/TOURNAMENTS.md "Knockouts").

Pure: no I/O. Every knockout format (single and double elimination, table knockout, pools into a
bracket) is a :class:`Plan` of :class:`Node` s built from the seeded entrants alone, so every
process and every restart draws the same bracket from the same events. A node is one match (two
seats, or a table of 3-10); its seats are filled from :data:`Source` s: an entrant by seed, a
place at an earlier node (the winner is place 1, a two-seat match's loser place 2), or a place in
a pool. Results fill the plan in (:func:`server.tournaments.brackets.resolve`): a node whose
sources are all known is ready; one with a single entrant is a walkover (a bye: no match, that
entrant takes place 1), one with none is void.

Final places follow one published rule for every knockout: the further a player got (the
``stage`` of the node where they went out: higher is further), the better; at the same stage,
the better place at that node; otherwise tied (two semi-final losers share 3rd).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Bracket = Literal["winners", "losers", "final", "table", "pool"]
BRACKETS: Final[tuple[Bracket, ...]] = ("winners", "losers", "final", "table", "pool")


@dataclass(frozen=True)
class Seed:
    """The entrant with this seed (0-based: 0 is the top seed) in the tournament's seeded order."""

    index: int


@dataclass(frozen=True)
class PlaceOf:
    """Whoever finished ``place`` (1-based) at node ``node``: the winner is place 1."""

    node: str
    place: int


@dataclass(frozen=True)
class PoolPlace:
    """Whoever finished ``place`` (1-based) in pool ``pool`` (0-based) of a pools phase."""

    pool: int
    place: int


Source = Seed | PlaceOf | PoolPlace


@dataclass(frozen=True)
class Node:
    """One match of the plan.

    ``id``: stable and readable ("W1-1": winners' round 1, match 1; "L2-3"; "GF", "GF2" the bracket
    reset; "T1-2": table round 1, table 2; "F": the final table). ``round``: the tournament round
    that plays it (a pools phase's rounds come first). ``stage``: how far a player who goes out
    here got (final places). ``reset_of``: a double elimination's bracket reset, played only when
    the side from the losers' bracket won the grand final ``reset_of``.
    """

    id: str
    round: int
    bracket: Bracket
    sources: tuple[Source, ...]
    stage: int
    reset_of: str | None = None


@dataclass(frozen=True)
class Plan:
    """A knockout's whole plan. ``pools``: a pools phase's seeds per pool (empty: none), played
    over ``pool_rounds`` rounds before the bracket's first; ``advance``: how many of each table
    go on (a two-seat bracket: 1)."""

    nodes: tuple[Node, ...]
    pools: tuple[tuple[int, ...], ...] = ()
    pool_rounds: int = 0
    advance: int = 1

    def node(self, node_id: str) -> Node:
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    @property
    def rounds(self) -> int:
        """The most rounds it can take (a bracket reset included)."""
        return max((n.round for n in self.nodes), default=self.pool_rounds)
