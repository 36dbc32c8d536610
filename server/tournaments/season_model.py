"""A season as the fold of its own stream ``season-<id>`` (docs/TOURNAMENTS.md "Seasons").

Pure: no I/O. A season groups tournaments (a club's weekly nights) into one table; its events say
what the director did (made it, added a tournament, finished it) and, at the finish, who went up
and who went down. The table itself is never stored: it is computed from the fold and the
tournaments' final places (:mod:`server.tournaments.season_table`).

A tournament belongs to at most one season. Each season's stream is its own, so the rule is kept
by a second, tiny stream per tournament, ``season-claim-<tournament id>``: the service appends a
``season_claimed`` there (on the version it read, so two seasons cannot both claim the tournament)
before it appends ``season_tournament_added`` to the season. A refusal after the claim releases it
(``season_claim_released``); a server stopped in between leaves the claim to that season, and
adding the same tournament to the same season again completes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Final

from engine.record.event_codec import CODEC, Recorded, recorded_when_set

SEASON_PREFIX: Final = "season-"
CLAIM_PREFIX: Final = "seasonclaim-"  # not under SEASON_PREFIX: listing the seasons lists no claim
OPEN: Final = "open"
FINISHED: Final = "finished"
DEFAULT_POINTS: Final = (25, 18, 15, 12, 10, 8, 6, 4, 2, 1)  # places beyond the list score nothing
DEFAULT_PROMOTE: Final = 2
DEFAULT_RELEGATE: Final = 2


class SeasonEventType(StrEnum):
    CREATED = "season_created"
    ADDED = "season_tournament_added"
    FINISHED = "season_finished"
    CLAIMED = "season_claimed"
    RELEASED = "season_claim_released"


def season_stream(season_id: str) -> str:
    return f"{SEASON_PREFIX}{season_id}"


def claim_stream(tournament_id: str) -> str:
    return f"{CLAIM_PREFIX}{tournament_id}"


@dataclass(frozen=True)
class Division:
    """One division of a season: its name and the players who start the season in it, best
    first (a player named in none plays in the lowest division, the last one)."""

    name: str
    players: tuple[str, ...] = ()


@dataclass(frozen=True)
class Move:
    """At the season's end: ``player`` goes from division ``source`` to ``target`` (up or down)."""

    player: str
    source: str
    target: str


@dataclass
class Season:
    id: str
    name: str = ""
    best_of: int | None = None  # a player's best N events count (None: every event)
    points_by_place: tuple[int, ...] = DEFAULT_POINTS
    divisions: tuple[Division, ...] = ()
    promote: int = 0  # how many of each division but the top go up at the end
    relegate: int = 0  # how many of each division but the lowest go down at the end
    follows: str | None = None  # the season whose divisions (after its moves) this one started from
    commitment: str = ""  # to the season's seed, which draws the lots (revealed at the finish)
    created_at: str = ""
    status: str = OPEN
    tournaments: list[str] = field(default_factory=list)  # in the order they were added
    moves: tuple[Move, ...] = ()
    divisions_after: tuple[Division, ...] = ()  # at the finish: the divisions with the moves made
    server_seed: str | None = None
    finished_at: str = ""
    version: int = 0

    def division_of(self, player: str) -> str | None:
        """The division ``player`` plays in: the one naming them, else the lowest; None without divisions."""
        if not self.divisions:
            return None
        for division in self.divisions:
            if player in division.players:
                return division.name
        return self.divisions[-1].name


# ---------------------------------------------------------------- the events, typed


@CODEC.register
@dataclass(frozen=True, slots=True)
class SeasonCreated(Recorded):
    TYPE: ClassVar[SeasonEventType] = SeasonEventType.CREATED
    VERSION: ClassVar[int] = 1

    name: str
    best_of: int | None
    points_by_place: tuple[int, ...]
    commitment: str  # to the season's seed (the lots), revealed by ``season_finished``
    divisions: tuple[Division, ...] = recorded_when_set(())
    promote: int = recorded_when_set(0)
    relegate: int = recorded_when_set(0)
    follows: str | None = recorded_when_set(None)


@CODEC.register
@dataclass(frozen=True, slots=True)
class TournamentAdded(Recorded):
    TYPE: ClassVar[SeasonEventType] = SeasonEventType.ADDED
    VERSION: ClassVar[int] = 1

    tournament: str


@CODEC.register
@dataclass(frozen=True, slots=True)
class SeasonFinished(Recorded):
    TYPE: ClassVar[SeasonEventType] = SeasonEventType.FINISHED
    VERSION: ClassVar[int] = 1

    server_seed: str  # hex: the seed the creation committed to
    moves: tuple[Move, ...] = recorded_when_set(())
    divisions: tuple[Division, ...] = recorded_when_set(())  # the divisions after the moves, best first


@CODEC.register
@dataclass(frozen=True, slots=True)
class SeasonClaimed(Recorded):
    """On ``season-claim-<tournament>``: the tournament is (being) added to ``season``."""

    TYPE: ClassVar[SeasonEventType] = SeasonEventType.CLAIMED
    VERSION: ClassVar[int] = 1

    season: str


@CODEC.register
@dataclass(frozen=True, slots=True)
class ClaimReleased(Recorded):
    """On ``season-claim-<tournament>``: ``season``'s claim let go (its adding was refused)."""

    TYPE: ClassVar[SeasonEventType] = SeasonEventType.RELEASED
    VERSION: ClassVar[int] = 1

    season: str


SeasonEvent = SeasonCreated | TournamentAdded | SeasonFinished
EVENT_CLASSES: Final[dict[str, type[SeasonEvent]]] = {
    cls.TYPE.value: cls for cls in (SeasonCreated, TournamentAdded, SeasonFinished)
}


def parse_event(type_: str, data: Mapping[str, Any]) -> SeasonEvent:
    """A stored season event as its typed class (KeyError for a type no class has)."""
    return EVENT_CLASSES[type_].from_payload(data)


# ---------------------------------------------------------------- the folds


def evolve(s: Season, event: SeasonEvent, at: str) -> None:
    """Apply one event to ``s`` in place (the fold owns its copy)."""
    s.version += 1
    if isinstance(event, SeasonCreated):
        s.name = event.name
        s.best_of = event.best_of
        s.points_by_place = event.points_by_place
        s.divisions = event.divisions
        s.promote = event.promote
        s.relegate = event.relegate
        s.follows = event.follows
        s.commitment = event.commitment
        s.created_at = at
    elif isinstance(event, TournamentAdded):
        if event.tournament not in s.tournaments:
            s.tournaments.append(event.tournament)
    elif isinstance(event, SeasonFinished):
        s.status = FINISHED
        s.server_seed = event.server_seed
        s.moves = event.moves
        s.divisions_after = event.divisions
        s.finished_at = at


def fold(season_id: str, events: Iterable[tuple[str, Mapping[str, Any], str]]) -> Season:
    """The season that ``(type, data, at)`` events make, in order."""
    s = Season(season_id)
    for type_, data, at in events:
        if type_ in EVENT_CLASSES:
            evolve(s, parse_event(type_, data), at)
        else:  # a type this code does not know (a newer server's): it changes nothing here
            s.version += 1
    return s


def claim_holder(events: Iterable[tuple[str, Mapping[str, Any]]]) -> str | None:
    """The season that holds a tournament's claim, from its claim stream (None: nobody)."""
    holder: str | None = None
    for type_, data in events:
        if type_ == SeasonEventType.CLAIMED:
            holder = SeasonClaimed.from_payload(data).season
        elif type_ == SeasonEventType.RELEASED and ClaimReleased.from_payload(data).season == holder:
            holder = None
    return holder
