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


@dataclass(frozen=True)
class Section:
    bracket: str
    title: str
    columns: list[Column]


def sections(nodes: Sequence[BracketNodePublic], rounds: Sequence[RoundPublic]) -> list[Section]:
    """The bracket in drawing order; empty when the tournament has none (yet)."""
    played = _pairings_by_node(rounds)
    out = []
    for bracket, title in SECTIONS:
        mine = [n for n in nodes if n.bracket == bracket]
        if not mine:
            continue
        by_round: dict[int, list[Node]] = {}
        for n in mine:
            by_round.setdefault(n.round, []).append(_node(n, played.get(n.id)))
        out.append(Section(bracket, title, [Column(r, by_round[r]) for r in sorted(by_round)]))
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
