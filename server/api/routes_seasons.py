"""Seasons (docs/TOURNAMENTS.md "Seasons"): the director makes one, adds tournaments, ends it; anyone reads the table."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request
from pydantic import Field, StrictInt, StrictStr, field_validator

from server.api.bodies import RequestBody
from server.api.routes_matches import BEARER_OPTIONAL
from server.api.routes_tournaments import TournamentId
from server.api.text import readable_text
from server.deps import CallerDep, DirectorDep
from server.errors import error_responses
from server.schemas_seasons import SeasonListed, SeasonOfTournament, SeasonPublic
from server.services.seasons import NewSeason, SeasonService, SeasonViews
from server.store.models import ID_LEN
from server.tournaments.season_decide import (
    DIVISION_NAME_LEN,
    MAX_DIVISION_PLAYERS,
    MAX_DIVISIONS,
    MAX_EVENTS,
    MAX_MOVES,
    MAX_PLACE_POINTS,
    MAX_PLACES,
)

router = APIRouter(prefix="/api", tags=["seasons"])

SeasonId = Annotated[str, Path(min_length=1, max_length=ID_LEN, pattern=r"^[A-Za-z0-9_-]+$")]
PlayerEntry = Annotated[StrictStr, Field(min_length=1, max_length=100)]


def get_season_service(request: Request) -> SeasonService:
    service: SeasonService = request.app.state.seasons
    return service


SeasonServiceDep = Annotated[SeasonService, Depends(get_season_service)]


class DivisionRequest(RequestBody):
    name: StrictStr = Field(min_length=1, max_length=DIVISION_NAME_LEN)
    players: list[PlayerEntry] = Field(
        default_factory=list,
        max_length=MAX_DIVISION_PLAYERS,
        description="the players who start in it, by id or name, best first (a player named in none plays in the "
        "lowest division)",
    )

    @field_validator("name")
    @classmethod
    def _readable(cls, value: str) -> str:
        return readable_text(value, "a division's name")


class CreateSeasonRequest(RequestBody):
    name: StrictStr = Field(min_length=1, max_length=100)
    best_of: StrictInt | None = Field(
        default=None,
        ge=1,
        le=MAX_EVENTS,
        description=f"a player's best N events count (1 to {MAX_EVENTS}); all if left out",
    )
    points_by_place: list[Annotated[StrictInt, Field(ge=0, le=MAX_PLACE_POINTS)]] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PLACES,
        description="points for 1st, 2nd, … place in an event, never more for a worse place; places beyond score 0 "
        "(default 25, 18, 15, 12, 10, 8, 6, 4, 2, 1)",
    )
    divisions: StrictInt | list[DivisionRequest] | None = Field(
        default=None,
        description=f"2 to {MAX_DIVISIONS} divisions, best first: a count (Division 1, Division 2, …; everyone starts "
        "in the lowest) or each one's name and players",
    )
    promote: StrictInt | None = Field(
        default=None, ge=0, le=MAX_MOVES, description="with divisions: how many of each division go up at the end (2)"
    )
    relegate: StrictInt | None = Field(
        default=None, ge=0, le=MAX_MOVES, description="with divisions: how many of each division go down at the end (2)"
    )
    follows: StrictStr | None = Field(
        default=None,
        min_length=1,
        max_length=ID_LEN,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="a finished season: this one starts from its divisions after the moves, and takes its settings "
        "where this request leaves them out",
    )

    @field_validator("name")
    @classmethod
    def _readable(cls, value: str) -> str:
        return readable_text(value, "a name")


class AddTournamentRequest(RequestBody):
    tournament: StrictStr = Field(min_length=1, max_length=ID_LEN, pattern=r"^[A-Za-z0-9_-]+$")


def _views(service: SeasonServiceDep) -> SeasonViews:
    return SeasonViews(service)


async def _public(service: SeasonService, season_id: str) -> SeasonPublic:
    season = await service.get(season_id)
    return await asyncio.to_thread(_views(service).public, season)


@router.post(
    "/seasons", status_code=201, response_model=SeasonPublic, responses=error_responses(400, 401, 404, 409, 413, 503)
)
async def create_season(body: CreateSeasonRequest, _director: DirectorDep, seasons: SeasonServiceDep) -> SeasonPublic:
    """A season: tournaments added to it make one table (points by place, the best N events count)."""
    divisions: tuple[tuple[str, tuple[str, ...]], ...] | int | None
    if isinstance(body.divisions, list):
        divisions = tuple((d.name, tuple(d.players)) for d in body.divisions)
    else:
        divisions = body.divisions
    request = NewSeason(
        name=body.name,
        best_of=body.best_of,
        points_by_place=None if body.points_by_place is None else tuple(body.points_by_place),
        divisions=divisions,
        promote=body.promote,
        relegate=body.relegate,
        follows=body.follows,
    )
    season = await seasons.create(request)
    return await _public(seasons, season.id)


@router.get(
    "/seasons",
    response_model=list[SeasonListed],
    responses=error_responses(400, 401, 503),
    openapi_extra=BEARER_OPTIONAL,
)
async def list_seasons(_caller: CallerDep, seasons: SeasonServiceDep) -> list[SeasonListed]:
    """Every season, newest first."""
    return await asyncio.to_thread(_views(seasons).listed)


@router.get(
    "/seasons/{season_id}",
    response_model=SeasonPublic,
    responses=error_responses(400, 401, 404, 503),
    openapi_extra=BEARER_OPTIONAL,
)
async def get_season(season_id: SeasonId, _caller: CallerDep, seasons: SeasonServiceDep) -> SeasonPublic:
    """The season table (``standings``), its tournaments (those not finished are in play and count nothing yet)."""
    return await _public(seasons, season_id)


@router.post(
    "/seasons/{season_id}/tournaments",
    response_model=SeasonPublic,
    responses=error_responses(400, 401, 404, 409, 413, 503),
)
async def add_tournament(
    season_id: SeasonId, body: AddTournamentRequest, _director: DirectorDep, seasons: SeasonServiceDep
) -> SeasonPublic:
    """Add a tournament (404 for none, 409 if in this or another season already, once finished, or when full)."""
    await seasons.add(season_id, body.tournament)
    return await _public(seasons, season_id)


@router.post(
    "/seasons/{season_id}/finish",
    response_model=SeasonPublic,
    responses=error_responses(400, 401, 404, 409, 503),
)
async def finish_season(season_id: SeasonId, _director: DirectorDep, seasons: SeasonServiceDep) -> SeasonPublic:
    """End the season (409 while a tournament of it is in play): the table is final, the divisions' moves recorded."""
    await seasons.finish(season_id)
    return await _public(seasons, season_id)


@router.get(
    "/tournaments/{tournament_id}/season",
    response_model=SeasonOfTournament,
    responses=error_responses(400, 401, 503),
    openapi_extra=BEARER_OPTIONAL,
)
async def season_of_tournament(
    tournament_id: TournamentId, _caller: CallerDep, seasons: SeasonServiceDep
) -> SeasonOfTournament:
    """The season a tournament is in (``season`` null: none)."""
    return await asyncio.to_thread(_views(seasons).of_tournament, tournament_id)
