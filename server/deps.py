"""FastAPI dependencies: the store and services of the app, and who the caller is."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.requests import HTTPConnection

from server.domain_errors import Unauthorized
from server.services.match_reads import MatchReads
from server.services.match_registry import MatchRegistry
from server.services.matches import MatchService
from server.services.player_pages import PlayerPages
from server.services.players import Caller, Callers
from server.services.rate_limits import RateLimit
from server.services.reviews import Reviews
from server.services.sign_in_gate import SignInGate
from server.services.tournaments import TournamentService
from server.store.event_store import EventStore
from server.store.models import PlayerPublic

T = TypeVar("T")


def get_store(request: Request) -> EventStore:
    store: EventStore = request.app.state.store
    return store


def get_match_service(request: Request) -> MatchService:
    service: MatchService = request.app.state.matches
    return service


def get_match_reads(request: Request) -> MatchReads:
    reads: MatchReads = request.app.state.match_reads
    return reads


def get_match_registry(request: Request) -> MatchRegistry:
    registry: MatchRegistry = request.app.state.match_registry
    return registry


StoreDep = Annotated[EventStore, Depends(get_store)]
MatchServiceDep = Annotated[MatchService, Depends(get_match_service)]  # creating, joining, a seat's commands
MatchReadsDep = Annotated[MatchReads, Depends(get_match_reads)]  # views, events, streams
MatchRegistryDep = Annotated[MatchRegistry, Depends(get_match_registry)]  # look-ups and the read gate

# auto_error=False: no header is a spectator, not an error; get_caller answers the rest.
bearer = HTTPBearer(
    auto_error=False,
    description="a player's token (from POST /api/players) or the director's; without one you are a spectator",
)
BearerDep = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


async def authenticate(connection: HTTPConnection, query_token: str | None = None) -> Caller:
    """Who is calling, for HTTP and the socket alike: the one way in.

    ``Authorization: Bearer TOKEN`` names the caller; the socket also takes ``?token=``
    (``query_token``) for a client that cannot set headers. Neither is a spectator. A header that
    is not ``Bearer TOKEN``, or a token nobody has, is :class:`Unauthorized`. An address that sent
    too many wrong tokens is refused (:class:`TooManyRequests`) before its token is looked up,
    whatever it sends; the address is the TCP peer's unless ``UNODUO_TRUSTED_PROXIES`` names the
    proxy it came through (docs/SERVER.md).
    """
    header = connection.headers.get("authorization")
    token = query_token
    if header is not None:
        scheme, _, value = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise Unauthorized("use 'Authorization: Bearer TOKEN'")
        token = value
    if token is None:
        return Caller()
    callers: Callers = connection.app.state.callers
    return await limited(connection, lambda: callers.of(token.strip()), "this token belongs to nobody")


async def limited(connection: HTTPConnection, attempt: Callable[[], Awaitable[T | None]], refusal: str) -> T:
    """A token tried under the address's wrong-token limit (:func:`authenticate`).

    An address that tried too many wrong ones is refused (:class:`TooManyRequests`) before
    ``attempt`` runs, whatever it sends; an attempt that finds nothing (None) counts one more
    and is :class:`Unauthorized` with ``refusal``. Tokens are checked, then counted: a token is
    256 random bits and its look-up one indexed read, so requests arriving together may pass the
    limit by a few; a password, which can be guessed and costs a hash, is reserved against the
    limit before it is checked instead (``server.services.sign_in_gate``, ``POST /api/sessions``).
    """
    bad_tokens: RateLimit = connection.app.state.bad_tokens
    address = client_address(connection)
    bad_tokens.check(address)
    found = await attempt()
    if found is None:
        bad_tokens.take(address)
        raise Unauthorized(refusal)
    return found


async def get_caller(request: Request, _credentials: BearerDep) -> Caller:
    """Anyone: no token is a spectator; a token must name a player or the director (else 401).

    ``_credentials`` is there for /openapi.json (the bearer scheme); :func:`authenticate` reads the header.
    """
    return await authenticate(request)


def client_address(connection: HTTPConnection) -> str:
    return connection.client.host if connection.client is not None else "unknown"


def get_registrations(request: Request) -> RateLimit:
    limit: RateLimit = request.app.state.registrations
    return limit


RegistrationsDep = Annotated[RateLimit, Depends(get_registrations)]


def get_sign_in_gate(request: Request) -> SignInGate:
    gate: SignInGate = request.app.state.sign_ins
    return gate


SignInGateDep = Annotated[SignInGate, Depends(get_sign_in_gate)]


CallerDep = Annotated[Caller, Depends(get_caller)]


async def get_player(caller: CallerDep) -> PlayerPublic:
    """A registered player (401 without a player's token)."""
    if caller.player is None:
        raise Unauthorized("this needs a player's token: 'Authorization: Bearer TOKEN' (POST /api/players gives one)")
    return caller.player


PlayerDep = Annotated[PlayerPublic, Depends(get_player)]


def get_callers(request: Request) -> Callers:
    callers: Callers = request.app.state.callers
    return callers


CallersDep = Annotated[Callers, Depends(get_callers)]


async def get_director(caller: CallerDep) -> Caller:
    """The tournament director (401 without the director's token)."""
    if not caller.director:
        raise Unauthorized("this needs the director's token: 'Authorization: Bearer DIRECTOR_TOKEN'")
    return caller


DirectorDep = Annotated[Caller, Depends(get_director)]


def get_tournament_service(request: Request) -> TournamentService:
    service: TournamentService = request.app.state.tournaments
    return service


TournamentServiceDep = Annotated[TournamentService, Depends(get_tournament_service)]


def get_player_pages(request: Request) -> PlayerPages:
    pages: PlayerPages = request.app.state.player_pages
    return pages


PlayerPagesDep = Annotated[PlayerPages, Depends(get_player_pages)]


def get_reviews(request: Request) -> Reviews:
    reviews: Reviews = request.app.state.reviews
    return reviews


ReviewsDep = Annotated[Reviews, Depends(get_reviews)]  # Game Reviews, kept per match, seat and settings
