"""``POST /api/players`` (register) and ``GET /api/me``."""

from __future__ import annotations

import unicodedata

from fastapi import APIRouter
from pydantic import BaseModel, Field, field_validator

from server.deps import MatchServiceDep, PlayerDep, StoreDep
from server.errors import error_responses
from server.schemas import Me, PlayerWithToken
from server.services.players import register_human

router = APIRouter(prefix="/api", tags=["players"])


class RegisterRequest(BaseModel):
    name: str = Field(min_length=1, max_length=100, description="a display name")

    @field_validator("name")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        hidden = next((c for c in value if unicodedata.category(c) in ("Cc", "Cf")), None)
        if hidden is not None:  # e.g. U+202E turns the rest of a name around on screen
            raise ValueError(
                f"a name cannot contain control or format characters (it has U+{ord(hidden):04X}, "
                f"{unicodedata.name(hidden, 'a control character')})"
            )
        if not value.strip():
            raise ValueError("a name needs printable characters, not only spaces")
        if not value.isprintable():
            raise ValueError("a name can only contain printable characters (no line breaks)")
        return value.strip()


@router.post("/players", status_code=201, response_model=PlayerWithToken, responses=error_responses(400, 413, 503))
def register(body: RegisterRequest, store: StoreDep) -> PlayerWithToken:
    """Register a human player; the token is returned this once (the server keeps its hash only)."""
    player, token = register_human(store, body.name)
    return PlayerWithToken(**player.model_dump(), token=token)


@router.get("/me", response_model=Me, responses=error_responses(401, 503))
def me(player: PlayerDep, matches: MatchServiceDep) -> Me:
    """Who the token belongs to, and their matches."""
    return Me(**player.model_dump(), matches=matches.matches_of(player))
