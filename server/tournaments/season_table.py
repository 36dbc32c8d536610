"""A season's table, from its fold and its finished tournaments' final places (docs/TOURNAMENTS.md
"Seasons").

Pure: no I/O, no clock, no randomness of its own. The same season, places and seed always give the
same table, whatever order the places come in.

* **Points per event by place**: a player's place in an event (``server.tournaments.places``)
  scores ``points_by_place[place - 1]``, nothing beyond the list. With divisions, a player's
  place is counted among the event's players of their own division ("1, 2, 2, 4": one more
  than those of the division strictly ahead), so a division's nights may be its own or shared.
* **Best N of M**: with ``best_of`` N, a player's N highest-scoring events count (all of them
  when they played fewer); ``counted`` names them. Among events of equal points, the earlier counts.
* **Tie-breaks**, in order (:data:`TIEBREAKS`): counted points, then event wins (first places),
  then the best single place, then the later event (the points of the last event of the season,
  then of the one before, ...). Players equal on all of them share a rank; among them the
  season's lot (drawn from the seed its creation committed to, revealed at the finish: the
  tournaments' ``lots``) orders the listing, and so decides who goes up or down at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from server.tournaments.model import lots
from server.tournaments.season_model import Division, Move, Season

__all__ = ["TIEBREAKS", "EventResult", "SeasonRow", "divisions_after", "moves_at_end", "season_table"]

TIEBREAKS: tuple[str, ...] = ("points", "wins", "best_place", "later_events", "lot")

Places = Mapping[str, Mapping[str, int]]  # a finished tournament's id -> each of its players' final place


@dataclass(frozen=True)
class EventResult:
    """One player's event of the season: the place counted (within the division, if any) and its points."""

    tournament: str
    place: int
    points: int
    counted: bool


@dataclass(frozen=True)
class SeasonRow:
    rank: int  # 1-based; shared by players equal on every tie-break before the lot
    player: str
    division: str | None
    events: int  # finished events played
    points: int  # the counted events' points
    counted: tuple[str, ...]  # the tournaments whose points count, in season order
    results: tuple[EventResult, ...]  # every finished event played, in season order
    wins: int  # first places
    best_place: int | None


def place_points(points_by_place: Sequence[int], place: int) -> int:
    return points_by_place[place - 1] if 1 <= place <= len(points_by_place) else 0


def _division_places(places: Mapping[str, int], players: Sequence[str]) -> dict[str, int]:
    """The places of ``players`` (those of one division who played the event) among themselves."""
    return {p: 1 + sum(1 for q in players if places[q] < places[p]) for p in players}


def _results(season: Season, finished: Places) -> dict[str, list[EventResult]]:
    """Each player's finished events, in season order, before the best N are chosen."""
    out: dict[str, list[EventResult]] = {}
    for tournament in season.tournaments:
        places = finished.get(tournament)
        if places is None:
            continue
        groups: dict[str | None, list[str]] = {}
        for player in places:
            groups.setdefault(season.division_of(player), []).append(player)
        for members in groups.values():
            for player, place in _division_places(places, members).items():
                points = place_points(season.points_by_place, place)
                out.setdefault(player, []).append(EventResult(tournament, place, points, False))
    return out


def _with_counted(results: list[EventResult], best_of: int | None) -> list[EventResult]:
    """``results`` with the best ``best_of`` marked counted (every one, for None)."""
    chosen = sorted(range(len(results)), key=lambda i: (-results[i].points, i))
    keep = set(chosen if best_of is None else chosen[:best_of])
    return [EventResult(r.tournament, r.place, r.points, i in keep) for i, r in enumerate(results)]


def _row_key(row: SeasonRow, order: Sequence[str]) -> tuple[object, ...]:
    """The published tie-breaks but the lot, as one key: smaller ranks higher."""
    by_event = {r.tournament: r.points for r in row.results}
    later = tuple(-by_event.get(t, -1) for t in reversed(order))
    best = row.best_place if row.best_place is not None else 1 << 30
    return (-row.points, -row.wins, best, later)


def season_table(season: Season, finished: Places, seed: bytes) -> list[SeasonRow]:
    """The table: one row per player of a finished event (and per division member, with divisions),
    by division (best first), then by rank; ``seed``: the season's, which draws the lots."""
    results = _results(season, finished)
    players = set(results)
    for division in season.divisions:
        players.update(division.players)
    drawn = {p: i for i, p in enumerate(lots(seed, sorted(players)))}
    order = [t for t in season.tournaments if t in finished]
    rows: list[SeasonRow] = []
    for player in players:
        marked = _with_counted(results.get(player, []), season.best_of)
        rows.append(
            SeasonRow(
                rank=0,
                player=player,
                division=season.division_of(player),
                events=len(marked),
                points=sum(r.points for r in marked if r.counted),
                counted=tuple(r.tournament for r in marked if r.counted),
                results=tuple(marked),
                wins=sum(1 for r in marked if r.place == 1),
                best_place=min((r.place for r in marked), default=None),
            )
        )
    division_index = {d.name: i for i, d in enumerate(season.divisions)}
    rows.sort(key=lambda r: (division_index.get(r.division or "", 0), _row_key(r, order), drawn[r.player]))
    ranked: list[SeasonRow] = []
    first, rank = 0, 1  # the division's first row, and the rank of the row above
    for i, row in enumerate(rows):
        above = rows[i - 1] if i else None
        if above is None or above.division != row.division:
            first, rank = i, 1
        elif _row_key(above, order) != _row_key(row, order):
            rank = i - first + 1  # competition ranking: one more than those strictly ahead
        ranked.append(replace(row, rank=rank))
    return ranked


def moves_at_end(season: Season, table: Sequence[SeasonRow]) -> tuple[Move, ...]:
    """Promotion and relegation: in each division (the table's listing order, lots included) the
    first ``promote`` go up one division (none from the top), then the last ``relegate`` of the
    rest go down one (none from the lowest). Nobody moves without divisions."""
    moves: list[Move] = []
    names = [d.name for d in season.divisions]
    for i, name in enumerate(names):
        members = [r.player for r in table if r.division == name]
        up = members[: season.promote] if i > 0 else []
        rest = members[len(up) :]
        down = rest[max(0, len(rest) - season.relegate) :] if i < len(names) - 1 and season.relegate else []
        moves.extend(Move(p, name, names[i - 1]) for p in up)
        moves.extend(Move(p, name, names[i + 1]) for p in down)
    return tuple(moves)


def divisions_after(season: Season, table: Sequence[SeasonRow], moves: Sequence[Move]) -> tuple[Division, ...]:
    """The divisions for the next season: each one's stayers in table order, then those who came
    down into it, then those who came up (each group in table order)."""
    moved = {m.player for m in moves}
    out: list[Division] = []
    for i, division in enumerate(season.divisions):
        above = season.divisions[i - 1].name if i > 0 else None
        stayers = [r.player for r in table if r.division == division.name and r.player not in moved]
        came_down = [m.player for m in moves if m.target == division.name and m.source == above]
        came_up = [m.player for m in moves if m.target == division.name and m.source != above]
        out.append(Division(division.name, tuple(stayers + came_down + came_up)))
    return tuple(out)
