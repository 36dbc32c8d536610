"""The standings of a tables tournament (issue 22: classic UNO at tables of 3 to 10).

Pure: no I/O, no randomness, the standard library only. The same players, tables, lots and
points always give the same rows, whatever order the tables come in.

Every table hands out placement points by place (``points[place - 1]``, the director's published
list; by default ``k-1, k-2, ..., 0`` for the preferred table size ``k``). Seats that share a place
(equal totals, RULES.md D23) each get that place's points; a place past the end of the list gets
0, so a table larger than the list gives its last seats nothing. The chain, :data:`TABLE_TIEBREAKS`:

1. ``placement_points``: their sum over the player's tables, more ranks higher;
2. ``match_points``: the player's own final totals summed, more ranks higher (at a classic table
   the winner of a round scores, so a higher total is better);
3. ``firsts``: the tables the player won (place 1), more ranks higher;
4. ``lot``: the player's index in ``lots`` (a permutation the caller draws from the tournament's
   committed seed), lower ranks higher; no two players share it, so ranks run ``1 ... n`` —
   except among players who have played no table yet, who share one place in pairing order
   (:func:`server.tournaments.standings.places`, the one ranking of every format).

Rows are :class:`server.tournaments.standings.StandingRow`, the shape every format shares:
``played`` tables, ``won`` = firsts, ``lost`` = the rest, no byes, ``forfeits`` = tables where the
player's place came from a forfeit, ``points_for`` their totals and ``points_against`` the other
seats' totals at their tables. A forfeit does not void a table's totals here (unlike a two-seat
forfeit in ``standings``): at a table the others played the match out, and the totals stand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from server.tournaments.standings import StandingRow, check_players, lot_index, places

__all__ = [
    "TABLE_TIEBREAKS",
    "TableResult",
    "default_placement_points",
    "placement_points_for",
    "table_standings",
]

TABLE_TIEBREAKS: tuple[str, ...] = ("placement_points", "match_points", "firsts", "lot")


@dataclass(frozen=True)
class TableResult:
    """One decided table: its seats (player ids, in seat order) and, seat by seat, the final place
    (1 = first; equal totals share a place, D23), the final total and whether the place came from
    a forfeit (timeouts, no-show, left the table; ``()`` when nobody forfeited)."""

    seats: tuple[str, ...]
    places: tuple[int, ...]
    scores: tuple[int, ...]
    forfeit: tuple[bool, ...] = ()


def default_placement_points(table_size: int) -> tuple[int, ...]:
    """``(k-1, k-2, ..., 0)`` for the preferred table size ``k``: 4 gives ``(3, 2, 1, 0)``."""
    if table_size < 1:
        raise ValueError(f"a table seats at least one player, not {table_size}")
    return tuple(range(table_size - 1, -1, -1))


def placement_points_for(place: int, points: Sequence[int]) -> int:
    """The points for finishing ``place`` (1-based): ``points[place - 1]``, 0 past the list's end."""
    if place < 1:
        raise ValueError(f"places start at 1, not {place}")
    return points[place - 1] if place <= len(points) else 0


@dataclass
class _Tally:
    """What one player's tables add up to, before any ordering."""

    played: int = 0
    firsts: int = 0
    forfeits: int = 0
    placement_points: int = 0
    points_for: int = 0
    points_against: int = 0


def table_standings(
    players: Sequence[str], results: Iterable[TableResult], lots: Sequence[str], points: Sequence[int]
) -> list[StandingRow]:
    """The table of ``players``, best first (see the module's docstring for the chain).

    Raises ValueError for a player listed twice, ``lots`` that are not a permutation of
    ``players``, a table naming someone not in ``players`` or someone twice, a table whose
    places, scores or forfeit flags do not match its seats one for one, and a place below 1.
    """
    check_players(players)
    lots_at = lot_index(players, lots)
    known = frozenset(players)
    tallies = {player: _Tally() for player in players}
    for result in results:
        _check_table(result, known)
        _add_table(tallies, result, points)
    columns = {player: _columns(tally, lots_at[player]) for player, tally in tallies.items()}
    played = {player: tally.played for player, tally in tallies.items()}
    return [
        _row(rank, player, tallies[player], columns[player], decided)
        for player, rank, decided in places(players, columns, played, TABLE_TIEBREAKS)
    ]


def _check_table(result: TableResult, known: frozenset[str]) -> None:
    seats = result.seats
    for player in seats:
        if player not in known:
            raise ValueError(f"a table names {player!r}, who is not among the players")
    if len(set(seats)) != len(seats):
        raise ValueError(f"a table seats someone twice: {seats!r}")
    if len(result.places) != len(seats) or len(result.scores) != len(seats):
        raise ValueError(f"a table of {len(seats)} seats needs {len(seats)} places and {len(seats)} scores")
    if result.forfeit and len(result.forfeit) != len(seats):
        raise ValueError(f"a table of {len(seats)} seats needs no forfeit flags or {len(seats)} of them")
    if any(place < 1 for place in result.places):
        raise ValueError(f"places start at 1: {result.places!r}")


def _add_table(tallies: Mapping[str, _Tally], result: TableResult, points: Sequence[int]) -> None:
    table_total = sum(result.scores)
    for index, player in enumerate(result.seats):
        tally = tallies[player]
        place, score = result.places[index], result.scores[index]
        tally.played += 1
        tally.firsts += 1 if place == 1 else 0
        tally.forfeits += 1 if result.forfeit and result.forfeit[index] else 0
        tally.placement_points += placement_points_for(place, points)
        tally.points_for += score
        tally.points_against += table_total - score


def _columns(tally: _Tally, lot: int) -> dict[str, int]:
    """One player's value for every name in :data:`TABLE_TIEBREAKS`."""
    return {
        "placement_points": tally.placement_points,
        "match_points": tally.points_for,
        "firsts": tally.firsts,
        "lot": lot,
    }


def _row(rank: int, player: str, tally: _Tally, columns: dict[str, int], decided_by: str | None) -> StandingRow:
    return StandingRow(
        rank=rank,
        player=player,
        played=tally.played,
        won=tally.firsts,
        lost=tally.played - tally.firsts,
        byes=0,
        forfeits=tally.forfeits,
        points_for=tally.points_for,
        points_against=tally.points_against,
        tiebreaks=dict(columns),
        decided_by=decided_by,
    )
