"""Tournament standings: the table's columns, its ranks and the tie-break chain (docs/TOURNAMENTS.md
"Standings and tie-breaks").

Pure: no I/O, no randomness, the standard library only. The same players, results, byes and lots
always give the same table, whatever order the results come in.

Every player gets one row. ``won`` and ``lost`` count forfeits; a double forfeit (``winner`` None) is
a loss for both seats and a win for nobody. Points are summed over the matches actually played:
a forfeit's scores are ignored. Byes are a column of their own: not played, not a win, and no
tie-break looks at them.

Rows are ordered by :data:`TIEBREAKS`, each name consulted only when all earlier ones are equal.
The last one, ``lot``, is the player's index in ``lots`` (a permutation of the players the caller
draws from the tournament's committed seed), so no two rows ever tie and ranks run ``1 … n`` —
except among players who have played nothing yet (:func:`places`): level on everything before the
lot, they share one place and are listed by pairing number (their order in ``players``), so
before round 1 nobody is ranked by lot.

Points have a direction. In ``uno-duo`` only the loser of a round scores and whoever reaches the
target loses the match, so a player's own total is bad for them: ``points_difference`` is
``points_against - points_for`` and ``points_conceded`` is ``points_for``. In ``classic-2p`` the
winner scores (``lower_total_wins=False``): ``points_for - points_against`` and ``points_against``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

__all__ = [
    "SWISS_TIEBREAKS",
    "TIEBREAKS",
    "Result",
    "StandingRow",
    "chain_sort_key",
    "check_players",
    "first_difference",
    "lot_index",
    "places",
    "row_score",
    "standings",
]

TIEBREAKS: tuple[str, ...] = (
    "match_wins",
    "head_to_head",
    "sonneborn_berger",
    "points_difference",
    "points_conceded",
    "lot",
)

# A Swiss ranks by score (a win, a forfeit win and a bye each 1, a half-point bye ½), then Buchholz (the sum of the
# scores of every opponent met), then Sonneborn-Berger (the sum of the scores of the opponents
# beaten); a round robin has no need of a score (everyone has the same byes by the end) and its
# Sonneborn-Berger counts the beaten opponents' match wins, as it always has.
SWISS_TIEBREAKS: tuple[str, ...] = (
    "score",
    "buchholz",
    "sonneborn_berger",
    "match_wins",
    "points_difference",
    "points_conceded",
    "lot",
)

# The tie-breaks where the smaller value ranks higher; for all others the larger one does.
_FEWER_RANKS_HIGHER = frozenset({"points_conceded", "lot"})


@dataclass(frozen=True)
class Result:
    """The outcome of one finished match."""

    white: str  # player id (seat 0)
    black: str  # player id (seat 1)
    winner: str | None  # a player id; None only for a double forfeit
    scores: tuple[int, int]  # final totals (white's, black's); ignored when forfeit
    forfeit: bool = False


@dataclass(frozen=True)
class StandingRow:
    """One player's line of the table."""

    rank: int  # 1-based place; lots break every tie but among players who have played nothing (places)
    player: str
    played: int  # won + lost (forfeits included)
    won: int
    lost: int
    byes: int
    forfeits: int  # matches of this player decided by forfeit (won or lost)
    points_for: int  # the player's own final totals summed over played (non-forfeit) matches
    points_against: int  # the opponents' totals in those matches
    tiebreaks: dict[str, float]  # every column of the chain, by name (whole but for a Swiss's halves)
    decided_by: (
        str | None
    )  # the tie-break that put this row above the next row; None: the last row, or one sharing its place with the next
    same_deal: float | None = None  # duplicate rounds: the matchpoint percentage (server.tournaments.duplicate)
    half_byes: int = 0  # a Swiss: half-point byes (asked for, or a late entrant's missed rounds)


@dataclass
class _Tally:
    """What one player's results add up to, before any tie-break."""

    won: int = 0
    lost: int = 0
    forfeits: int = 0
    points_for: int = 0
    points_against: int = 0
    beaten: list[str] = field(default_factory=list)  # one entry per win, so a double round-robin counts twice
    met: list[str] = field(default_factory=list)  # one entry per result, forfeits included


def standings(
    players: Sequence[str],
    results: Iterable[Result],
    byes: Mapping[str, int],
    lots: Sequence[str],
    *,
    lower_total_wins: bool = True,
    chain: Sequence[str] = TIEBREAKS,
    half_byes: Mapping[str, int] | None = None,
) -> list[StandingRow]:
    """The table of ``players``, best first (see the module's docstring for the columns and the
    chain; ``chain`` is :data:`TIEBREAKS` or :data:`SWISS_TIEBREAKS`).

    ``byes`` maps a player to the byes they had (players left out had none); ``half_byes`` (a
    Swiss) to the half-point byes, each ½ to the score. Raises ValueError for a
    player listed twice, a result or bye naming someone not in ``players``, a result whose winner did
    not play it, a played result without a winner or with a negative total, and ``lots`` that are not
    a permutation of ``players``.
    """
    check_players(players)
    lots_at = lot_index(players, lots)
    bye_count = _bye_count(players, byes)
    known = frozenset(players)
    played = tuple(results)
    for result in played:
        _check_result(result, known)
    tallies = _tally(players, played)
    wins = {player: tally.won for player, tally in tallies.items()}
    h2h = _head_to_head(played, wins)
    swiss = tuple(chain) == SWISS_TIEBREAKS
    if not swiss and tuple(chain) != TIEBREAKS:
        raise ValueError(f"unknown tie-break chain {chain!r}")
    halves = _bye_count(players, half_byes or {})
    scores = {player: half_points(2 * (t.won + bye_count[player]) + halves[player]) for player, t in tallies.items()}
    columns = {
        player: _tiebreaks(tally, scores if swiss else wins, h2h[player], lots_at[player], lower_total_wins, chain)
        for player, tally in tallies.items()
    }
    if swiss:
        for player, tally in tallies.items():
            columns[player]["score"] = scores[player]
            columns[player]["buchholz"] = half_points(sum(round(2 * scores[opponent]) for opponent in tally.met))
            columns[player] = {name: columns[player][name] for name in chain}  # in the chain's order
    return [
        replace(
            _row(rank, player, tallies[player], bye_count[player], columns[player], decided), half_byes=halves[player]
        )
        for player, rank, decided in places(players, columns, {p: t.won + t.lost for p, t in tallies.items()}, chain)
    ]


def half_points(halves: int) -> float:
    """A score counted in halves, as shown: a whole number stays an ``int`` (3, not 3.0), so a
    table without half points reads and serialises as it always has; otherwise 2.5."""
    return halves // 2 if halves % 2 == 0 else halves / 2


def places(
    players: Sequence[str], columns: Mapping[str, Mapping[str, float]], played: Mapping[str, int], chain: Sequence[str]
) -> list[tuple[str, int, str | None]]:
    """The one ranking of every format's table: ``players`` ordered by ``chain`` (which ends with
    ``lot``), each with their place and the tie-break that put them above the next row.

    The lot separates players level on everything before it only once one of them has played:
    players level on everything before the lot who have all played nothing (``played`` 0, e.g.
    everyone before round 1) share one place, listed in their order in ``players`` (the pairing
    numbers), ``decided_by`` None between them: a drawn lot never looks like a ranking.
    """
    order = sorted(players, key=lambda player: chain_sort_key(columns[player], chain))
    before_lot = [name for name in chain if name != "lot"]
    pairing = {player: index for index, player in enumerate(players)}
    runs: list[list[str]] = []
    for player in order:
        if runs and all(columns[player][n] == columns[runs[-1][0]][n] for n in before_lot):
            runs[-1].append(player)
        else:
            runs.append([player])
    out: list[tuple[str, int, str | None]] = []
    for index, run in enumerate(runs):
        shared = len(run) > 1 and all(played[player] == 0 for player in run)
        members = sorted(run, key=pairing.__getitem__) if shared else run
        below = runs[index + 1][0] if index + 1 < len(runs) else None
        for k, player in enumerate(members):
            rank = len(out) + 1 - (k if shared else 0)
            if k + 1 < len(members):
                decided = None if shared else first_difference(columns[player], columns[members[k + 1]], chain)
            else:
                decided = first_difference(columns[player], None if below is None else columns[below], chain)
            out.append((player, rank, decided))
    return out


def row_score(row: StandingRow) -> float:
    """What ranks first in the row's format: a Swiss's score, a tables tournament's placement
    points, a round robin's match wins (the points column of every export)."""
    for name in ("score", "placement_points"):
        if name in row.tiebreaks:
            return row.tiebreaks[name]
    return row.won


def check_players(players: Sequence[str]) -> None:
    """Every player once."""
    seen: set[str] = set()
    for player in players:
        if player in seen:
            raise ValueError(f"player {player!r} is listed twice")
        seen.add(player)


def lot_index(players: Sequence[str], lots: Sequence[str]) -> dict[str, int]:
    """Each player's position in ``lots``, which must hold every player exactly once and nobody else."""
    index = {player: i for i, player in enumerate(lots)}
    missing = [player for player in players if player not in index]
    if missing:
        raise ValueError(f"lots lack players {missing!r}")
    if len(index) != len(lots) or len(lots) != len(players):
        raise ValueError("lots must be a permutation of the players (each once, nobody else)")
    return index


def _bye_count(players: Sequence[str], byes: Mapping[str, int]) -> dict[str, int]:
    """Each player's byes; a bye for someone not in the tournament, or a negative count, is refused."""
    known = frozenset(players)
    for player, count in byes.items():
        if player not in known:
            raise ValueError(f"bye for {player!r}, who is not among the players")
        if count < 0:
            raise ValueError(f"negative bye count {count} for {player!r}")
    return {player: byes.get(player, 0) for player in players}


def _check_result(result: Result, known: frozenset[str]) -> None:
    """A result between two different known players, won by one of them (or by nobody in a double forfeit)."""
    for player in (result.white, result.black):
        if player not in known:
            raise ValueError(f"result names {player!r}, who is not among the players")
    if result.white == result.black:
        raise ValueError(f"result of {result.white!r} against themselves")
    if result.winner is None:
        if not result.forfeit:
            raise ValueError(f"result {result.white!r}-{result.black!r} has no winner and is not a double forfeit")
    elif result.winner not in (result.white, result.black):
        raise ValueError(f"winner {result.winner!r} did not play {result.white!r}-{result.black!r}")
    if not result.forfeit and min(result.scores) < 0:
        raise ValueError(f"result {result.white!r}-{result.black!r} has a negative total {result.scores}")


def _tally(players: Sequence[str], results: Iterable[Result]) -> dict[str, _Tally]:
    """Wins, losses, forfeits, points and beaten opponents of every player (zeros for those without results)."""
    tallies = {player: _Tally() for player in players}
    for result in results:
        seats = ((result.white, result.black, 0), (result.black, result.white, 1))
        for player, opponent, seat in seats:
            tally = tallies[player]
            tally.met.append(opponent)
            if result.winner == player:
                tally.won += 1
                tally.beaten.append(opponent)
            else:
                tally.lost += 1
            if result.forfeit:
                tally.forfeits += 1
            else:
                tally.points_for += result.scores[seat]
                tally.points_against += result.scores[1 - seat]
    return tallies


def _head_to_head(results: Iterable[Result], wins: Mapping[str, int]) -> dict[str, int]:
    """Each player's wins against players with as many match wins as they have (their whole wins group)."""
    h2h = dict.fromkeys(wins, 0)
    for result in results:
        if result.winner is not None and wins[result.white] == wins[result.black]:
            h2h[result.winner] += 1
    return h2h


def _tiebreaks(
    tally: _Tally, basis: Mapping[str, float], h2h: int, lot: int, lower_total_wins: bool, chain: Sequence[str]
) -> dict[str, float]:
    """One player's value for every name in ``chain`` but a Swiss's score and Buchholz (the caller
    adds those); Sonneborn-Berger sums ``basis`` (match wins, or a Swiss's scores) of those beaten."""
    difference, conceded = _points_columns(tally, lower_total_wins)
    columns: dict[str, float] = {
        "match_wins": tally.won,
        "head_to_head": h2h,
        "sonneborn_berger": sum(basis[opponent] for opponent in tally.beaten),
        "points_difference": difference,
        "points_conceded": conceded,
        "lot": lot,
    }
    return {name: value for name, value in columns.items() if name in chain}


def _points_columns(tally: _Tally, lower_total_wins: bool) -> tuple[int, int]:
    """(points difference, points conceded), each the way round that the ruleset makes good or bad."""
    if lower_total_wins:
        return tally.points_against - tally.points_for, tally.points_for
    return tally.points_for - tally.points_against, tally.points_against


def chain_sort_key(columns: Mapping[str, float], chain: Sequence[str]) -> tuple[float, ...]:
    """Ascending sort key: the chain in order, negated where more ranks higher."""
    return tuple(columns[name] if name in _FEWER_RANKS_HIGHER else -columns[name] for name in chain)


def first_difference(upper: Mapping[str, float], lower: Mapping[str, float] | None, chain: Sequence[str]) -> str | None:
    """The first tie-break on which two adjacent rows differ (None when there is no row below)."""
    if lower is None:
        return None
    return next((name for name in chain if upper[name] != lower[name]), None)


def _row(
    rank: int,
    player: str,
    tally: _Tally,
    byes: int,
    columns: dict[str, float],
    decided_by: str | None,
) -> StandingRow:
    """One line of the table."""
    return StandingRow(
        rank=rank,
        player=player,
        played=tally.won + tally.lost,
        won=tally.won,
        lost=tally.lost,
        byes=byes,
        forfeits=tally.forfeits,
        points_for=tally.points_for,
        points_against=tally.points_against,
        tiebreaks=dict(columns),
        decided_by=decided_by,
    )
