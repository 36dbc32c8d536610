"""``GET /api/tournaments/{id}/fairplay``: the director's fair-play signals (docs/TOURNAMENTS.md
"Fair-play signals"): each entrant's move times and timeouts. Data to look at, not a verdict."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from server.api.routes_tournaments import TournamentId
from server.deps import DirectorDep
from server.errors import error_responses
from server.schemas import FairPlayReport
from server.services.fairplay import FairPlay

router = APIRouter(prefix="/api", tags=["tournaments"])


def get_fairplay(request: Request) -> FairPlay:
    """The app's one :class:`FairPlay` (it keeps finished matches' times), made on first use."""
    state = request.app.state
    found: FairPlay | None = getattr(state, "fairplay", None)
    if found is None:
        found = FairPlay(state.tournaments, state.reviews)
        state.fairplay = found
    return found


FairPlayDep = Annotated[FairPlay, Depends(get_fairplay)]


@router.get(
    "/tournaments/{tournament_id}/fairplay",
    response_model=FairPlayReport,
    responses=error_responses(400, 401, 404, 503),
)
async def fairplay(tournament_id: TournamentId, _director: DirectorDep, reports: FairPlayDep) -> FairPlayReport:
    """Per entrant, in pairing order: moves, mean / spread / median / 90th percentile / fastest /
    slowest move time in seconds, timeouts and timeout forfeits, matches. Move times are differences
    of the events' public ``at`` stamps (every viewer receives them); figures, not findings."""
    return await reports.report(tournament_id)
