"""``POST /api/players`` (register) and ``GET /api/me``."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from pydantic import Field, field_validator

from server.api.bodies import RequestBody
from server.api.text import readable_text
from server.deps import MatchServiceDep, PlayerDep, RegistrationsDep, StoreDep, TournamentServiceDep, client_address
from server.errors import error_responses
from server.schemas import Me, NextMatch, PlayerWithToken
from server.services.players import register_human

router = APIRouter(prefix="/api", tags=["players"])


class RegisterRequest(RequestBody):
    name: str = Field(min_length=1, max_length=100, description="a display name")

    @field_validator("name")
    @classmethod
    def _readable(cls, value: str) -> str:
        return readable_text(value, "a name")


@router.post("/players", status_code=201, response_model=PlayerWithToken, responses=error_responses(400, 413, 429, 503))
def register(
    body: RegisterRequest, store: StoreDep, request: Request, registrations: RegistrationsDep
) -> PlayerWithToken:
    """Register a human player; the token is returned this once (the server keeps its hash only)."""
    registrations.take(client_address(request))
    player, token = register_human(store, body.name)
    return PlayerWithToken(**player.model_dump(), token=token)


@router.get("/me", response_model=Me, responses=error_responses(401, 429, 503))
async def me(player: PlayerDep, matches: MatchServiceDep, tournaments: TournamentServiceDep) -> Me:
    """Who the token belongs to, their matches, and their next pairing in each running tournament."""
    current = await asyncio.to_thread(matches.matches_of, player)
    upcoming = [NextMatch(**n) for n in await tournaments.next_matches(player.id)]
    return Me(**player.model_dump(), matches=current, next=upcoming)
