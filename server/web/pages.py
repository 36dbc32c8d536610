"""Page models: what each page shows, from the calls the public API makes for a spectator.

Every function here asks the services exactly what the matching ``GET /api/...`` route asks
them for an anonymous caller (no token: ``full=False``, ``player_id=None``) and returns the
same public models the API returns. Nothing reads the store or a match state directly, so a
page shows nothing the API withholds (a duplicate round's pairings stay ``withheld``, an
unfinished match's hands stay hidden). Blocking (the services read the store): call them in a
thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.schemas import TournamentListed, TournamentPublic
from server.services.tournament_listing import MAX_PAGE, TournamentListing
from server.services.tournaments import TournamentService, TournamentViews
from server.tournaments.model import CREATED, FINISHED, RUNNING

RECENT_SHOWN = 20  # finished tournaments on the front page


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


def front_page(listing: TournamentListing, tournaments: TournamentService) -> FrontPage:
    """``GET /api/tournaments`` as a spectator (newest first), split by status; an upcoming one's
    start time is the one ``GET /api/tournaments/{id}`` gives. Blocking."""
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
    )


def tournament_public(tournaments: TournamentService, tournament_id: str) -> TournamentPublic:
    """``GET /api/tournaments/{id}`` as a spectator (``TournamentNotFound`` for none). Blocking."""
    return TournamentViews(tournaments).public(tournaments.load(tournament_id))
