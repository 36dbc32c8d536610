"""FastAPI dependencies: the store and services of the app, and who the caller is."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from server.errors import unauthorized
from server.services.matches import MatchService
from server.services.players import Caller, authenticate
from server.store.event_store import EventStore
from server.store.players import PlayerInfo


def get_store(request: Request) -> EventStore:
    store: EventStore = request.app.state.store
    return store


def get_match_service(request: Request) -> MatchService:
    service: MatchService = request.app.state.matches
    return service


StoreDep = Annotated[EventStore, Depends(get_store)]
MatchServiceDep = Annotated[MatchService, Depends(get_match_service)]


def bearer_token(authorization: str | None) -> str | None:
    if authorization is None:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthorized("use 'Authorization: Bearer TOKEN'")
    return token.strip()


def get_caller(store: StoreDep, authorization: Annotated[str | None, Header()] = None) -> Caller:
    """Anyone: no token is a spectator; a token must name a player or the director (else 401)."""
    token = bearer_token(authorization)
    if token is None:
        return Caller()
    caller = authenticate(store, token)
    if caller is None:
        raise unauthorized("this token belongs to nobody")
    return caller


CallerDep = Annotated[Caller, Depends(get_caller)]


def get_player(caller: CallerDep) -> PlayerInfo:
    """A registered player (401 without a player's token)."""
    if caller.player is None:
        raise unauthorized("this needs a player's token: 'Authorization: Bearer TOKEN' (POST /api/players gives one)")
    return caller.player


PlayerDep = Annotated[PlayerInfo, Depends(get_player)]
