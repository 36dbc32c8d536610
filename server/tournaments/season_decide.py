"""A season's Decider: ``decide(season, command) -> events``, pure, as the tournament's is
(docs/TOURNAMENTS.md "Seasons").

Every fact a decision needs that the season's own fold does not hold comes in its command, read by
the service first: the players a division names (as ids), the season it follows (its fold), each
finished tournament's final places and which tournaments are still in play, the season's seed.
Whether a tournament exists, and whether another season holds it, the service checks (the claim
stream, :mod:`server.tournaments.season_model`). A refusal is raised as the server's domain
errors; nothing is appended then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Final

from engine.game.errors import shown
from server.domain_errors import Malformed, NotNow
from server.tournaments.season_model import (
    DEFAULT_POINTS,
    DEFAULT_PROMOTE,
    DEFAULT_RELEGATE,
    FINISHED,
    Division,
    Season,
    SeasonCreated,
    SeasonEvent,
    SeasonFinished,
    TournamentAdded,
)
from server.tournaments.season_table import Places, divisions_after, moves_at_end, season_table

MAX_EVENTS: Final = 52  # a season of weekly nights lasts a year at most
MAX_PLACES: Final = (
    64  # points_by_place: one per place of the largest tournament (server.tournaments.decide.MAX_PLAYERS)
)
MAX_PLACE_POINTS: Final = 1000
MAX_DIVISIONS: Final = 8
MIN_DIVISIONS: Final = 2
MAX_DIVISION_PLAYERS: Final = 128
MAX_MOVES: Final = 16  # promote and relegate: at most this many each way per division
DIVISION_NAME_LEN: Final = 40


@dataclass(frozen=True)
class CreateSeason:
    """The director makes a season. ``divisions``: named ones (players as ids, resolved by the
    service), or a count (named "Division 1" ... at the top first, everyone starting in the
    lowest), or None. ``follows``: the finished season whose divisions after its moves this one
    starts from (its settings too, where this command leaves them out)."""

    name: str
    commitment: str
    best_of: int | None = None
    points_by_place: tuple[int, ...] | None = None
    divisions: tuple[Division, ...] | int | None = None
    promote: int | None = None
    relegate: int | None = None
    follows: Season | None = None


@dataclass(frozen=True)
class AddTournament:
    """The director adds ``tournament`` (which exists and no other season holds: the service checked)."""

    tournament: str


@dataclass(frozen=True)
class FinishSeason:
    """The director ends the season. ``finished``: each finished tournament's final places;
    ``in_play``: its tournaments not finished yet; ``seed``: the season's (the lots, revealed now)."""

    finished: Places
    in_play: tuple[str, ...]
    seed: bytes


SeasonCommand = CreateSeason | AddTournament | FinishSeason


@dataclass(frozen=True)
class SeasonDecision:
    events: list[SeasonEvent] = field(default_factory=list)
    command_id: str = ""


def decide(season: Season, command: SeasonCommand) -> SeasonDecision:
    match command:
        case CreateSeason():
            return _create(season, command)
        case AddTournament():
            return _add(season, command)
        case FinishSeason():
            return _finish(season, command)


# ---------------------------------------------------------------- creating


def _create(season: Season, command: CreateSeason) -> SeasonDecision:
    if season.version:
        raise NotNow(f"season {season.id!r} exists already")
    before = command.follows
    if before is not None and before.status != FINISHED:
        raise NotNow(f"season {before.id!r} has not finished: a season follows one whose end moved its divisions")
    if before is not None and command.divisions is not None:
        raise Malformed("a season follows another's divisions or names its own, not both ('follows' or 'divisions')")
    best_of = command.best_of if command.best_of is not None or before is None else before.best_of
    if best_of is not None and not 1 <= best_of <= MAX_EVENTS:
        raise Malformed(f"best_of must be 1 to {MAX_EVENTS} (a season has at most {MAX_EVENTS} events), not {best_of}")
    points = command.points_by_place
    if points is None:
        points = before.points_by_place if before is not None else DEFAULT_POINTS
    check_points(points)
    if before is not None:
        divisions = before.divisions_after
    else:
        divisions = _divisions(command.divisions)
    promote, relegate = _moves(command, divisions, before)
    created = SeasonCreated(
        name=command.name,
        best_of=best_of,
        points_by_place=points,
        commitment=command.commitment,
        divisions=divisions,
        promote=promote,
        relegate=relegate,
        follows=before.id if before is not None else None,
    )
    return SeasonDecision([created], "create")


def check_points(points: Sequence[int]) -> None:
    """``points_by_place``: 1 to 64 places, each 0 to 1000, never more for a worse place, first above 0."""
    if not 1 <= len(points) <= MAX_PLACES:
        raise Malformed(f"points_by_place gives 1 to {MAX_PLACES} places' points, not {len(points)}")
    if any(not 0 <= p <= MAX_PLACE_POINTS for p in points):
        raise Malformed(f"points_by_place: each place scores 0 to {MAX_PLACE_POINTS} points")
    if any(worse > better for better, worse in pairwise(points)):
        raise Malformed("points_by_place: a worse place never scores more than a better one")
    if points[0] == 0:
        raise Malformed("points_by_place: first place must score")


def _divisions(asked: tuple[Division, ...] | int | None) -> tuple[Division, ...]:
    if asked is None:
        return ()
    if isinstance(asked, int):
        if not MIN_DIVISIONS <= asked <= MAX_DIVISIONS:
            raise Malformed(f"divisions: {MIN_DIVISIONS} to {MAX_DIVISIONS}, not {asked}")
        return tuple(Division(f"Division {n}") for n in range(1, asked + 1))
    if not MIN_DIVISIONS <= len(asked) <= MAX_DIVISIONS:
        raise Malformed(f"divisions: {MIN_DIVISIONS} to {MAX_DIVISIONS}, not {len(asked)}")
    names = [d.name for d in asked]
    for name in names:
        if not 1 <= len(name) <= DIVISION_NAME_LEN or name != name.strip():
            raise Malformed(f"a division's name is 1 to {DIVISION_NAME_LEN} characters, not {shown(name)}")
    if len(set(names)) < len(names):
        raise Malformed("each division has a name of its own")
    seen: set[str] = set()
    for division in asked:
        if len(division.players) > MAX_DIVISION_PLAYERS:
            raise Malformed(f"a division names at most {MAX_DIVISION_PLAYERS} players")
        twice = seen.intersection(division.players) | {p for p in division.players if division.players.count(p) > 1}
        if twice:
            raise Malformed(f"a player is in one division: {', '.join(sorted(twice))} is named twice")
        seen.update(division.players)
    return asked


def _moves(command: CreateSeason, divisions: tuple[Division, ...], before: Season | None) -> tuple[int, int]:
    """``promote`` and ``relegate``: 0 to 16 each, only with divisions (2 and 2 unless said, or the season followed's)."""
    if not divisions:
        if command.promote or command.relegate:
            raise Malformed("promote and relegate need divisions")
        return 0, 0
    default_up = before.promote if before is not None else DEFAULT_PROMOTE
    default_down = before.relegate if before is not None else DEFAULT_RELEGATE
    up = default_up if command.promote is None else command.promote
    down = default_down if command.relegate is None else command.relegate
    for word, count in (("promote", up), ("relegate", down)):
        if not 0 <= count <= MAX_MOVES:
            raise Malformed(f"{word}: 0 to {MAX_MOVES} players per division, not {count}")
    return up, down


# ---------------------------------------------------------------- going on


def refuse_once_finished(season: Season) -> None:
    if season.status == FINISHED:
        raise NotNow(f"season {season.id!r} has finished: its table is final")


def _add(season: Season, command: AddTournament) -> SeasonDecision:
    refuse_once_finished(season)
    if command.tournament in season.tournaments:
        raise NotNow(f"tournament {command.tournament!r} is in this season already")
    if len(season.tournaments) >= MAX_EVENTS:
        raise NotNow(f"season {season.id!r} is full: {MAX_EVENTS} tournaments at most")
    return SeasonDecision([TournamentAdded(command.tournament)], f"add-{command.tournament}")


def _finish(season: Season, command: FinishSeason) -> SeasonDecision:
    refuse_once_finished(season)
    if command.in_play:
        which = (
            f"tournament {command.in_play[0]} is"
            if len(command.in_play) == 1
            else "tournaments {} are".format(", ".join(command.in_play))
        )
        raise NotNow(f"{which} still in play: a season ends once its tournaments have")
    table = season_table(season, command.finished, command.seed)
    moves = moves_at_end(season, table)
    after = divisions_after(season, table, moves) if season.divisions else ()
    return SeasonDecision([SeasonFinished(command.seed.hex(), moves, after)], "finish")
