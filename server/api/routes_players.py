"""``POST /api/players`` (register) and ``GET /api/me``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field, field_validator

from server.deps import MatchServiceDep, PlayerDep, StoreDep
from server.services.players import matches_of, register_human

router = APIRouter(prefix="/api", tags=["players"])


class RegisterRequest(BaseModel):
    name: str = Field(min_length=1, max_length=100, description="a display name")

    @field_validator("name")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip() or not value.isprintable():
            raise ValueError("a name needs printable characters, not only spaces")
        return value.strip()


@router.post("/players", status_code=201)
def register(body: RegisterRequest, store: StoreDep) -> dict[str, Any]:
    """Register a human player; the token is returned this once (the server keeps its hash only)."""
    player, token = register_human(store, body.name)
    return {**player.to_api(), "token": token}


@router.get("/me")
def me(player: PlayerDep, store: StoreDep, matches: MatchServiceDep) -> dict[str, Any]:
    """Who the token belongs to, and their matches."""
    return {**player.to_api(), "matches": [matches.summary_api(s) for s in matches_of(store, player.id)]}
