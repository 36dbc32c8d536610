"""Page models: what each page shows, from the calls the public API makes for a spectator.

Every function here asks the services exactly what the matching ``GET /api/...`` route asks
them for an anonymous caller (no token: ``full=False``, ``player_id=None``) and keeps the
public models the API returns. Nothing reads a match state or the store's events directly, so
a page shows nothing the API withholds (a duplicate round's pairings stay ``withheld``, an
unfinished match's hands stay hidden). The versions read here (a tournament's, a season's) only
name what a cached page was made from. Blocking (the services read the store): call them in a
thread.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from server.schemas import RoundPublic, TournamentListed, TournamentPublic
from server.schemas_seasons import SeasonListed, SeasonPublic
from server.services.seasons import SeasonService, SeasonViews
from server.services.tournament_listing import MAX_PAGE, TournamentListing
from server.services.tournaments import TournamentService, TournamentViews
from server.tournaments.model import CREATED, FINISHED, RUNNING, Format, Tournament
from server.web import bracket, crosstable

RECENT_SHOWN = 20  # finished tournaments on the front page
GRID_FORMATS = frozenset({Format.ROUND_ROBIN.value})
ROUND_FORMATS = frozenset({Format.SWISS.value})


@dataclass(frozen=True)
class Upcoming:
    """A tournament not started yet, with its start time (None: the director starts it)."""

    listed: TournamentListed
    starts_at: str | None


@dataclass(frozen=True)
class FrontPage:
    """The club's front page: tournaments being played, to come, and just finished."""

    live: list[TournamentListed] = field(default_factory=list)
    upcoming: list[Upcoming] = field(default_factory=list)
    recent: list[TournamentListed] = field(default_factory=list)
    seasons: list[SeasonListed] = field(default_factory=list)


def front_page(listing: TournamentListing, tournaments: TournamentService, seasons: SeasonService) -> FrontPage:
    """``GET /api/tournaments`` as a spectator (newest first), split by status; an upcoming one's
    start time is the one ``GET /api/tournaments/{id}`` gives; ``GET /api/seasons``. Blocking."""
    lines = listing.page(None, MAX_PAGE).lines
    views = TournamentViews(tournaments)
    upcoming = [
        Upcoming(line, views.public(tournaments.load(line.id)).starts_at) for line in lines if line.status == CREATED
    ]
    upcoming.sort(key=lambda u: (u.starts_at is None, u.starts_at or ""))
    return FrontPage(
        live=[line for line in lines if line.status == RUNNING],
        upcoming=upcoming,
        recent=[line for line in lines if line.status == FINISHED][:RECENT_SHOWN],
        seasons=SeasonViews(seasons).listed()[:RECENT_SHOWN],
    )


@dataclass(frozen=True)
class TournamentPage:
    """``GET /api/tournaments/{id}`` as a spectator, and what the page draws from it."""

    t: TournamentPublic
    stream_version: int  # the tournament's stream version it was read at (cache keys)
    version: int  # the version a spectator is shown (public_version)
    names: dict[str, str]  # player id → name, for every player the page mentions
    current: int | None  # the round the page opens on: the one being played, else the last
    crosstables: list[crosstable.Crosstable]
    bracket: list[bracket.Section]

    def round(self, number: int) -> RoundPublic | None:
        return next((r for r in self.t.rounds if r.number == number), None)

    @property
    def standings_caption(self) -> str:
        """What the standings are: final, after a round, or with a round still being played."""
        if self.t.status == FINISHED:
            return "Final standings"
        shown = self.round(self.current) if self.current is not None else None
        if shown is None:
            return "Standings"
        if shown.status == "running":
            return f"Standings while round {shown.number} is played"
        return f"Standings after round {shown.number}"


def tournament_version(tournaments: TournamentService, tournament_id: str) -> int:
    """The tournament's stream version (``TournamentNotFound`` for none): what a cached page is
    keyed by, never shown. Blocking."""
    return tournaments.load(tournament_id).version


def public_version(t: Tournament) -> int:
    """The version a spectator is shown (a live page's ``data-live-version``, its updates' ``version``):
    the stream version less the events of a duplicate round not revealed yet (a table's result, a
    dispute and its ruling), which the public answer withholds. Showing the stream's own version
    would tell a spectator — or a player at the other table — that a table has just ended. It
    never goes back: each withheld event adds one to both; the reveal counts them all at once."""
    secret = t.secret_rounds()
    if not secret:
        return t.version
    withheld = sum(1 for slot in t.slots.values() if slot.round in secret and slot.result is not None)
    for d in t.disputes.values():
        if t.slots[d.slot].round in secret:
            withheld += 1 if d.open else 2  # opened, and ruled
    return t.version - withheld


def tournament_page(tournaments: TournamentService, tournament_id: str) -> TournamentPage:
    """The tournament page's model (``TournamentNotFound`` for none). Blocking."""
    fold = tournaments.load(tournament_id)
    t = TournamentViews(tournaments).public(fold)  # what GET /api/tournaments/{id} answers a spectator
    names = {p.id: p.name for p in t.players}
    for r in t.rounds:
        for p in r.pairings:
            names.update((s.id, s.name) for s in p.seats)
    for s in t.standings:
        names.setdefault(s.player, s.name)
    return TournamentPage(
        t=t,
        stream_version=fold.version,
        version=public_version(fold),
        names=names,
        current=current_round(t),
        crosstables=crosstables(t),
        bracket=bracket.sections([n for n in t.bracket if n.bracket != "pool"], t.rounds),
    )


def current_round(t: TournamentPublic) -> int | None:
    """The round being played (the latest running one), else the last one paired; None before any."""
    running = [r.number for r in t.rounds if r.status == "running"]
    if running:
        return max(running)
    paired = [r.number for r in t.rounds if r.status != "pending" or (r.pairings and t.status != CREATED)]
    return max(paired) if paired else None


def crosstables(t: TournamentPublic) -> list[crosstable.Crosstable]:
    """A round robin's grid, a Swiss's rounds, a pools tournament's grid (or rounds) per pool; none
    for the other formats (a bracket, tables of many seats) or before the start."""
    if t.status == CREATED:
        return []
    if t.format in GRID_FORMATS:
        return [crosstable.grid("Crosstable", t.standings, t.rounds)]
    if t.format in ROUND_FORMATS:
        return [crosstable.by_round("Crosstable by round", t.standings, t.rounds)]
    if t.format == Format.POOLS.value:
        make = crosstable.by_round if t.pool_format == Format.SWISS.value else crosstable.grid
        return [make(f"Pool {pool.pool}", pool.standings, _node_rounds(t.rounds, pool.node)) for pool in t.pools]
    return []


def _node_rounds(rounds: list[RoundPublic], node: str) -> list[RoundPublic]:
    """The rounds with only the pairings of one node (a pool's: not its players' bracket matches)."""
    return [r.model_copy(update={"pairings": [p for p in r.pairings if p.node == node]}) for r in rounds]


def season_of(seasons: SeasonService, tournament_id: str) -> SeasonListed | None:
    """``GET /api/tournaments/{id}/season``: the season the tournament is in. Blocking."""
    return SeasonViews(seasons).of_tournament(tournament_id).season


def season_signature(seasons: SeasonService, tournaments: TournamentService, season_id: str) -> Hashable:
    """What a season's table is made from: its own stream's version and each of its tournaments'
    status (a tournament's places count once it has finished). Blocking."""
    season = seasons.load(season_id)
    return (season.version, tuple(tournaments.load(t).status for t in season.tournaments))


def season_public(seasons: SeasonService, season_id: str) -> SeasonPublic:
    """``GET /api/seasons/{id}`` (``SeasonNotFound`` for none). Blocking."""
    return SeasonViews(seasons).public(seasons.load(season_id))
