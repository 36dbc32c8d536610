"""A knockout's bracket as the page draws it, from the public tournament's ``bracket`` nodes.

The nodes (``GET /api/tournaments/{id}`` ``bracket``) are grouped by bracket — winners',
losers', the final, a table knockout's tables — and, within one, by round: each round a
column, drawn left to right, so the bracket reads as on a club's wall chart. A seat not known yet
shows where it comes from ("winner of W1-2"); a decided one its score (from the pairing that
played the node: same tournament answer, so nothing the API withholds) and who went on. A
pools tournament's pool nodes are its pools, drawn as tables elsewhere, not here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.schemas import BracketNodePublic, PairingPublic, RoundPublic

SECTIONS = (("winners", "Winners' bracket"), ("losers", "Losers' bracket"), ("final", "Final"), ("table", "Tables"))


@dataclass(frozen=True)
class Seat:
    player: str | None  # a player id; None: not known yet, or nobody (a bye)
    source: str  # "seed 3", "winner of W1-2"
    score: int | None
    place: int | None  # a table's place (1 first); None for two seats or undecided
    winner: bool


@dataclass(frozen=True)
class Node:
    id: str
    status: str
    match: str | None
    seats: list[Seat]


@dataclass(frozen=True)
class Column:
    round: int
    nodes: list[Node]
    feeds: int = 1  # how many of its nodes feed one node of the next column (2: a knockout's pairs); 0: the last

    @property
    def groups(self) -> list[list[Node]]:
        """The nodes by ``feeds``: each group is joined by one line to its node in the next column."""
        size = max(self.feeds, 1)
        return [self.nodes[i : i + size] for i in range(0, len(self.nodes), size)]


@dataclass(frozen=True)
class Section:
    bracket: str
    title: str
    columns: list[Column]


def sections(nodes: Sequence[BracketNodePublic], rounds: Sequence[RoundPublic]) -> list[Section]:
    """The bracket in drawing order; empty when the tournament has none (yet). A bracket without a
    losers' side draws its final as the winners' last column, so that it reads as one tree."""
    played = _pairings_by_node(rounds)
    single = not any(n.bracket == "losers" for n in nodes)
    out = []
    for bracket, title in SECTIONS:
        if single and bracket == "final":
            continue
        drawn = ("winners", "final") if single and bracket == "winners" else (bracket,)
        mine = [n for n in nodes if n.bracket in drawn]
        if not mine:
            continue
        by_round: dict[int, list[Node]] = {}
        for n in mine:
            by_round.setdefault(n.round, []).append(_node(n, played.get(n.id)))
        out.append(
            Section(bracket, "Knockout bracket" if single and bracket == "winners" else title, _columns(by_round))
        )
    return out


def _columns(by_round: dict[int, list[Node]]) -> list[Column]:
    """Columns left to right; each says how many of its nodes feed one of the next (a whole
    number, else 1: drawn as straight lines)."""
    numbers = sorted(by_round)
    out = []
    for i, number in enumerate(numbers):
        nodes = by_round[number]
        if i + 1 == len(numbers):
            feeds = 0
        else:
            following = len(by_round[numbers[i + 1]])
            feeds = len(nodes) // following if following and len(nodes) % following == 0 else 1
        out.append(Column(number, nodes, feeds))
    return out


def _pairings_by_node(rounds: Sequence[RoundPublic]) -> dict[str, PairingPublic]:
    """Each node's pairing (the last one, after a replay ruling)."""
    found: dict[str, PairingPublic] = {}
    for r in rounds:
        for p in r.pairings:
            if p.node is not None:
                found[p.node] = p
    return found


def _node(n: BracketNodePublic, pairing: PairingPublic | None) -> Node:
    scores: dict[str, int] = {}
    places: dict[str, int] = {}
    result = pairing.result if pairing is not None and pairing.status == "decided" else None
    if pairing is not None and result is not None:
        seat_ids = [s.id for s in pairing.seats]
        scores = {p: s for p, s in zip(seat_ids, result.scores, strict=False)}
        if result.places is not None:
            places = {p: s for p, s in zip(seat_ids, result.places, strict=False)}
    seats = [
        Seat(
            player=player,
            source=n.sources[i] if i < len(n.sources) else "",
            score=scores.get(player) if player is not None else None,
            place=places.get(player) if player is not None else None,
            winner=player is not None and player == n.winner,
        )
        for i, player in enumerate(n.seats)
    ]
    return Node(n.id, n.status, n.match, seats)
