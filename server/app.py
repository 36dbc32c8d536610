"""The FastAPI application: ``make_app(settings)``.

At creation the store is opened (and migrated to the latest schema), the house bots are
registered if they are not yet, and the director's token is made known (generated once if
``UNODUO_DIRECTOR_TOKEN`` is unset: ``app.state.new_director_token`` holds it for the one
print). Request bodies over ``max_body_bytes`` are refused before parsing (``server.limits``).
:func:`begin_shutdown` ends the open event streams when the server starts to stop; the store
is closed when the app shuts down. At start-up every unfinished match is held live and the
move clocks that ran out while the server was down are applied (``MatchService.recover``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from engine import ENGINE_VERSION
from server.api import (
    routes_live,
    routes_lobby,
    routes_matches,
    routes_meta,
    routes_players,
    routes_seasons,
    routes_tournaments,
)
from server.api.forwarding import Peers
from server.api.peer_port import PeerPortGuard
from server.api.routes_fairplay import router as fairplay_router
from server.api.routes_reviews import router as reviews_router
from server.db import is_postgres
from server.errors import install_error_handlers
from server.limits import BodySizeLimit
from server.services.clock import Clock, SystemClock
from server.services.lobby import Lobby
from server.services.match_registry import MatchRegistry
from server.services.matches import MatchService
from server.services.ownership import LeasedOwnership, Ownership, SoleOwnership
from server.services.player_pages import PlayerPages
from server.services.players import Callers, ensure_house_bots
from server.services.rate_limits import RateLimit
from server.services.ratings import Ratings
from server.services.reviews import Reviews
from server.services.seasons import SeasonService
from server.services.sign_in_gate import NAME_BUCKETS, SignInGate
from server.services.tournament_folds import TournamentFolds
from server.services.tournament_listing import TournamentListing
from server.services.tournament_manager import TournamentManager
from server.services.tournaments import TournamentService
from server.settings import Settings
from server.store.event_store import EventStore
from server.store.secrets import ensure_director_token, peer_key
from server.web import live_routes
from server.web import routes as web_routes
from server.web import routes_matches as web_matches
from server.web import routes_players as web_players
from server.web.live import LiveHub
from server.web.live_sources import live_sources
from server.web.match_page import MatchPages
from server.web.not_found import install_page_not_found
from server.web.render import STATIC_DIR
from server.web.site import WebSite


def ownership_of(store: EventStore, settings: Settings, clock: Clock) -> Ownership:
    """Leases on PostgreSQL (several servers may share it); one owner of everything on SQLite."""
    if is_postgres(store.engine):
        return LeasedOwnership(store, clock, settings.peer_url, settings.lease_seconds)
    return SoleOwnership()


def make_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """The app; ``clock`` (the real one if None) is the time of its matches and of its store's events."""
    settings = settings or Settings()
    clock = clock or SystemClock()
    store = EventStore.open(settings.database_url, settings, clock=clock.now)
    try:
        ensure_house_bots(store)
        new_director_token = ensure_director_token(store, settings.director_token)
    except BaseException:
        store.close()
        raise

    matches = MatchService(store, settings, clock=clock, ownership=ownership_of(store, settings, clock))
    folds = TournamentFolds(store)
    # A duplicate round's matches count in no rating until the round is revealed (docs/RATINGS.md).
    ratings = Ratings(store, settings.rate_casual, folds.find, matches.registry.secrecy)
    tournaments = TournamentService(store, matches, settings, seeding=ratings.seeding, folds=folds)
    manager = TournamentManager(store, tournaments, result_changed=ratings.result_changed)
    lobby = Lobby(store, matches, tournaments)

    peers = Peers()  # forwarding to the owners of matches (server.api.forwarding)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            await matches.recover()
            await manager.start()
            matches.hold_live_matches()
            await lobby.start()
            yield
        finally:
            await _app.state.live.aclose()
            await lobby.stop()
            await peers.aclose()
            await manager.stop()
            await tournaments.stop()
            _app.state.reviews.close()
            await matches.stop()
            await store.aclose()

    app = FastAPI(
        title="unoduo",
        version=ENGINE_VERSION,
        summary="UNO Duo tournament server: casual matches against players and house bots",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.peers = peers
    app.state.peer_key = peer_key(store) if isinstance(matches.ownership, LeasedOwnership) else None
    app.state.store = store
    app.state.matches = matches  # creating, joining, a seat's commands, hand-over
    app.state.match_reads = matches.reads  # views, events, streams, replays
    app.state.match_registry = matches.registry  # look-ups, the read gate, the live copies
    app.state.tournaments = tournaments
    app.state.seasons = SeasonService(store, tournaments)  # seasons: tournaments grouped into one table
    app.state.tournament_listing = TournamentListing(store)  # GET /api/tournaments, a page at a time
    app.state.lobby = lobby
    app.state.ratings = ratings
    app.state.reviews = Reviews(tournaments)  # Game Reviews of finished matches (issue 37), kept
    app.state.player_pages = PlayerPages(matches.registry, tournaments, ratings, app.state.reviews)
    app.state.web = WebSite(tournaments, app.state.seasons, app.state.tournament_listing)  # the pages (server/web)
    app.state.callers = Callers(store)
    app.state.registrations = RateLimit("registrations", settings.register_per_minute)
    app.state.bad_tokens = RateLimit("wrong tokens", settings.bad_tokens_per_minute)
    app.state.sign_ins = SignInGate(
        app.state.bad_tokens,
        RateLimit("wrong passwords", settings.wrong_passwords_per_name_per_minute, size=NAME_BUCKETS),
    )
    app.state.new_director_token = new_director_token
    app.state.live = LiveHub(  # the live pages' event streams (server.web.live)
        store,
        live_sources(app.state),
        max_pages=settings.live_pages_max,
        pages_per_address=settings.live_pages_per_address,
    )
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(PeerPortGuard, state=app.state)  # a worker's peer port: the servers' key or nothing
    app.include_router(web_routes.browser_router)  # GET / for a browser: before the API's GET / (server.web.routes)
    app.include_router(routes_meta.router)
    install_error_handlers(app)
    install_page_not_found(app)  # a browser's unknown page address: the 404 page, not JSON
    app.include_router(routes_players.router)
    app.include_router(routes_matches.router)
    app.include_router(routes_live.router)
    app.include_router(routes_lobby.router)
    app.include_router(routes_tournaments.router)
    app.include_router(routes_seasons.router)
    app.include_router(fairplay_router)
    app.include_router(reviews_router)
    app.include_router(live_routes.router)  # /live/…: the pages' server-sent events
    app.include_router(web_routes.router)  # the club's pages (issue 38): /t/…, /p/…, /m/…, /s/…
    app.state.web_match_pages = MatchPages(matches.reads, tournaments)  # match pages, with finished replays kept
    app.include_router(web_players.router)  # /p, /p/{name}, /p/{name}/vs/{other}
    app.include_router(web_matches.router)  # /m/{id}
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def begin_shutdown(app: FastAPI) -> None:
    """The server is stopping: end every open event stream now, so that its connection can close.

    Call it before waiting for connections to finish (``unoduo serve`` does, when Ctrl-C
    arrives); the lifespan's shutdown comes only after they have.
    """
    store: EventStore = app.state.store
    store.end_follows()
    registry: MatchRegistry = app.state.match_registry
    registry.stop_watchers()
    lobby: Lobby = app.state.lobby
    lobby.stop_sockets()
    live: LiveHub = app.state.live
    live.stop()
