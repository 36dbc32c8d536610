"""The crosstable of a two-seat tournament, from its public pairings (``GET /api/tournaments/{id}``).

Two shapes, as clubs print them:

- a round robin (and each pool of a pools tournament): a grid of players by players, ranked as
  the standings rank them, each cell the results of the two players' meetings from the row
  player's side (two in a double round robin);
- a Swiss: one column per round, each cell the opponent's rank, the colour (``w``/``b``) and the
  result.

A result is ``1`` (won), ``0`` (lost), ``+``/``−`` (won/lost by forfeit), ``½`` (shared). Only
decided pairings count: a withheld or live one is an empty cell, exactly as the standings leave it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.schemas import PairingPublic, RoundPublic, StandingPublic

WON, LOST, FORFEIT_WON, FORFEIT_LOST, SHARED = "1", "0", "+", "−", "½"


@dataclass(frozen=True)
class Cell:
    text: str  # "1 0" (a grid) or "3w1" (a Swiss round)
    title: str  # the same in words, for a screen reader and a mouse
    match: str | None = None  # the match to link to (the last one of the cell)


@dataclass(frozen=True)
class Row:
    rank: int
    player: str  # id
    name: str
    cells: list[Cell]
    score: float  # the standings' score (the template writes halves as ½)


@dataclass(frozen=True)
class Crosstable:
    caption: str
    columns: list[str]  # header texts after rank and player: ranks (a grid) or "R1", "R2"… (a Swiss)
    rows: list[Row]
    grid: bool  # a grid (players by players) or rounds


def result_for(pairing: PairingPublic, player: str) -> str | None:
    """The pairing's result from ``player``'s side, or None while undecided (or withheld)."""
    result = pairing.result
    if pairing.status != "decided" or result is None:
        return None
    if result.winner is None:
        return LOST if result.forfeit else SHARED
    won = result.winner == player
    if result.forfeit:
        return FORFEIT_WON if won else FORFEIT_LOST
    return WON if won else LOST


WORDS = {WON: "won", LOST: "lost", FORFEIT_WON: "won by forfeit", FORFEIT_LOST: "lost by forfeit", SHARED: "shared"}


def _two_seat(pairings: Sequence[PairingPublic]) -> list[PairingPublic]:
    return [p for p in pairings if len(p.seats) == 2]


def grid(caption: str, standings: Sequence[StandingPublic], rounds: Sequence[RoundPublic]) -> Crosstable:
    """Players by players (a round robin, a pool), in standings order."""
    order = [s.player for s in standings]
    rank_of = {s.player: s.rank for s in standings}
    meetings: dict[tuple[str, str], list[tuple[str, str | None]]] = {}
    for r in rounds:
        for p in _two_seat(r.pairings):
            a, b = p.white.id, p.black.id
            if a not in rank_of or b not in rank_of:
                continue
            for me, other in ((a, b), (b, a)):
                mark = result_for(p, me)
                if mark is not None:
                    meetings.setdefault((me, other), []).append((mark, p.match))
    rows = []
    names = {s.player: s.name for s in standings}
    for s in standings:
        cells = []
        for other in order:
            if other == s.player:
                cells.append(Cell("■", "the same player"))
                continue
            met = meetings.get((s.player, other), [])
            text = " ".join(mark for mark, _ in met)
            title = (
                f"{s.name} against {names[other]}: " + ", ".join(WORDS[mark] for mark, _ in met)
                if met
                else f"{s.name} against {names[other]}: not played yet"
            )
            cells.append(Cell(text, title, met[-1][1] if met else None))
        rows.append(Row(s.rank, s.player, s.name, cells, s.score))
    return Crosstable(caption, [str(rank_of[p]) for p in order], rows, grid=True)


def by_round(caption: str, standings: Sequence[StandingPublic], rounds: Sequence[RoundPublic]) -> Crosstable:
    """One column per round (a Swiss): opponent's rank, colour, result."""
    rank_of = {s.player: s.rank for s in standings}
    names = {s.player: s.name for s in standings}
    shown_rounds = [r for r in rounds if r.pairings or r.bye]
    rows = []
    for s in standings:
        cells = []
        for r in shown_rounds:
            cells.append(_round_cell(s, r, rank_of, names))
        rows.append(Row(s.rank, s.player, s.name, cells, s.score))
    return Crosstable(caption, [f"R{r.number}" for r in shown_rounds], rows, grid=False)


def _round_cell(s: StandingPublic, r: RoundPublic, rank_of: dict[str, int], names: dict[str, str]) -> Cell:
    if r.bye == s.player:
        return Cell("bye", f"round {r.number}: a bye")
    for p in _two_seat(r.pairings):
        if s.player not in (p.white.id, p.black.id):
            continue
        white = p.white.id == s.player
        other = p.black.id if white else p.white.id
        colour = "w" if white else "b"
        mark = result_for(p, s.player)
        text = f"{rank_of.get(other, '?')}{colour}{mark or ''}"
        words = WORDS[mark] if mark is not None else "not decided yet"
        title = f"round {r.number}: {'white' if white else 'black'} against {names.get(other, other)}, {words}"
        return Cell(text, title, p.match)
    return Cell("", f"round {r.number}: not paired")
