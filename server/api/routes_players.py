"""Players and their sessions: register, sign in and out, sign-in codes, find a player, ``GET /api/me``.

docs/SERVER.md "Accounts" says how names compare, and what passwords, codes and tokens are.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response
from pydantic import BaseModel, Field, StrictBool, field_validator, model_validator

from server.api.bodies import RequestBody
from server.api.text import readable_text
from server.deps import (
    BearerDep,
    CallersDep,
    DirectorDep,
    MatchReadsDep,
    PlayerDep,
    PlayerPagesDep,
    RegistrationsDep,
    SignInGateDep,
    StoreDep,
    TournamentServiceDep,
    client_address,
)
from server.domain_errors import TooManyRequests, Unauthorized
from server.errors import error_responses
from server.names import name_key
from server.schemas import Me, PlayerPage, PlayerWithToken, Versus
from server.services.lobby import me_state
from server.services.player_pages import DEFAULT_HISTORY, MAX_HISTORY
from server.services.players import register, resolve_player
from server.services.sessions import CODE_MINUTES, SIGN_IN_REFUSED, issue_code, sign_in
from server.store.event_store import format_at
from server.store.models import PlayerPublic
from server.store.players import drop_token, players_starting

router = APIRouter(prefix="/api", tags=["players"])

FIND_LIMIT = 50  # players one GET /api/players answers with at most
MIN_PASSWORD, MAX_PASSWORD = 8, 256
PlayerEntry = Annotated[
    str, Path(min_length=1, max_length=200, description="a player's id or name (compared as names are)")
]


class RegisterRequest(RequestBody):
    name: str = Field(min_length=1, max_length=100, description="a display name, unique on the server")
    password: str | None = Field(
        default=None,
        min_length=MIN_PASSWORD,
        max_length=MAX_PASSWORD,
        description=f"optional, {MIN_PASSWORD}-{MAX_PASSWORD} characters: lets you sign in on another device "
        "(POST /api/sessions); the server keeps only its argon2id hash",
    )

    bot: StrictBool = Field(
        default=False,
        description="true: a bot account (kind bot_account), a program that plays through this API "
        "(docs/BOTS.md), labelled as a bot wherever it is shown",
    )

    @field_validator("name")
    @classmethod
    def _readable(cls, value: str) -> str:
        return readable_text(value, "a name")


class SignInRequest(RequestBody):
    name: str = Field(min_length=1, max_length=200, description="your name (or, for an older duplicate name, your id)")
    password: str | None = Field(default=None, min_length=1, max_length=MAX_PASSWORD)
    code: str | None = Field(
        default=None, min_length=1, max_length=32, description="a director's one-time code, XXXX-XXXX, any case"
    )

    @model_validator(mode="after")
    def _one_secret(self) -> SignInRequest:
        if (self.password is None) == (self.code is None):
            raise ValueError("send a password or a code, one of the two")
        return self


class SignInCode(BaseModel):
    """A one-time sign-in code for ``player``: tell it to them; it works once, until ``expires``."""

    player: PlayerPublic
    code: str = Field(description="XXXX-XXXX; accepted in any case, with or without the dash")
    expires: str = Field(description=f"ISO 8601 UTC, {CODE_MINUTES} minutes from now")


@router.post(
    "/players", status_code=201, response_model=PlayerWithToken, responses=error_responses(400, 409, 413, 429, 503)
)
async def register_player(
    body: RegisterRequest, store: StoreDep, request: Request, registrations: RegistrationsDep
) -> PlayerWithToken:
    """Register a human player, or with `bot: true` a bot account (`kind: bot_account`, docs/BOTS.md);
    the token is returned this once (the server keeps its hash only).

    A name another player has, or one that looks like it (compared case-insensitively after NFKC,
    by Unicode's confusable skeletons: `adrnin` is `admin`), is 409 `name_taken`, naming it.
    """
    address = client_address(request)
    registrations.take(address)
    player, token = await register(store, body.name, body.password, bot=body.bot, source=address)
    return PlayerWithToken(**player.model_dump(), token=token)


@router.post(
    "/sessions", status_code=201, response_model=PlayerWithToken, responses=error_responses(400, 401, 413, 429, 503)
)
async def sign_in_session(
    body: SignInRequest, store: StoreDep, request: Request, gate: SignInGateDep
) -> PlayerWithToken:
    """Sign in on another device with your name and password, or a director's code: a new token.

    Your other tokens keep working (at most 20; a 21st drops the oldest). A wrong password or
    code, or an unknown name, is the same 401, and counts against the address's wrong-token limit
    and the name's wrong-password limit; each attempt is reserved against both before the password
    is checked, and one over either, or a third at once from one address or to one name, is 429
    with `Retry-After` (docs/SERVER.md "Accounts").
    """
    address = client_address(request)
    admission = gate.admit(address, name_key(body.name) if body.name.isprintable() else body.name)
    counted = True
    try:
        found = await sign_in(store, body.name, password=body.password, code=body.code, source=address)
        counted = found is None
    except TooManyRequests:
        counted = False  # the hasher refused it unchecked
        raise
    finally:
        admission.done(counted=counted)
    if found is None:
        raise Unauthorized(SIGN_IN_REFUSED)
    player, token = found
    return PlayerWithToken(**player.model_dump(), token=token)


@router.delete("/sessions/current", status_code=204, response_class=Response, responses=error_responses(401, 503))
async def sign_out(player: PlayerDep, credentials: BearerDep, store: StoreDep, callers: CallersDep) -> Response:
    """Sign this token out: it stops working at once (your other tokens keep working)."""
    del player  # the dependency checked that the token is a player's
    assert credentials is not None
    token = credentials.credentials.strip()
    await asyncio.to_thread(drop_token, store, token)
    callers.forget(token)
    return Response(status_code=204)


@router.post(
    "/players/{player}/codes",
    status_code=201,
    response_model=SignInCode,
    responses=error_responses(400, 401, 404, 409, 503),
)
async def new_sign_in_code(player: PlayerEntry, _director: DirectorDep, store: StoreDep) -> SignInCode:
    """A one-time sign-in code for a player (by id or name), for about 15 minutes: the way in on a
    new device without a password. A player has one code at most: this one replaces the last."""
    who, code, expires = await issue_code(store, player)
    return SignInCode(player=who, code=code, expires=format_at(expires))


@router.get("/players", response_model=list[PlayerPublic], responses=error_responses(400, 503))
async def find_players(
    store: StoreDep,
    name: Annotated[
        str, Query(max_length=100, description="the start of a name, compared case-insensitively after NFKC")
    ] = "",
) -> list[PlayerPublic]:
    """Players whose name starts with `name` (every player without it), in name order, at most 50."""
    if not name.isprintable():
        return []  # no name has a control character
    return await asyncio.to_thread(players_starting, store, name_key(name), FIND_LIMIT)


@router.get("/players/{player}", response_model=PlayerPage, responses=error_responses(400, 404, 409, 503))
async def show_player(
    player: PlayerEntry,
    store: StoreDep,
    pages: PlayerPagesDep,
    limit: Annotated[int, Query(ge=1, le=MAX_HISTORY, description="history rows, newest first")] = DEFAULT_HISTORY,
) -> PlayerPage:
    """A player's page, by id, name or `bot:NAME`: `{id, name, kind}`, ratings by family, the rating
    chart, the match history, tournaments with places and the record against each opponent
    (docs/RATINGS.md). Public: it shows only finished results and who sits where."""
    found = await asyncio.to_thread(resolve_player, store, player)
    return await pages.page(found.id, limit)


@router.get("/players/{player}/versus/{other}", response_model=Versus, responses=error_responses(400, 404, 409, 503))
async def show_versus(
    player: PlayerEntry,
    other: PlayerEntry,
    store: StoreDep,
    pages: PlayerPagesDep,
    limit: Annotated[int, Query(ge=1, le=MAX_HISTORY, description="matches, newest first")] = DEFAULT_HISTORY,
) -> Versus:
    """Head to head: `player`'s record against `other` and the matches they met in."""
    found = await asyncio.to_thread(resolve_player, store, player)
    opponent = await asyncio.to_thread(resolve_player, store, other)
    return await pages.versus(found.id, opponent.id, limit)


@router.get("/me", response_model=Me, responses=error_responses(401, 429, 503))
async def me(player: PlayerDep, reads: MatchReadsDep, tournaments: TournamentServiceDep) -> Me:
    """Who the token belongs to, their matches, and their next pairing in each running tournament
    (the same body as the lobby socket's ``state`` message: ``server.services.lobby.me_state``)."""
    return await me_state(reads, tournaments, player)
