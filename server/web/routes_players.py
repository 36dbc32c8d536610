"""The player pages' routes: ``/p`` (find a player), ``/p/{name}`` and ``/p/{name}/vs/{other}``.

Thin: each asks ``server.web.player_page`` for the page's model (the calls ``GET /api/players``,
``GET /api/players/{id}`` and ``GET /api/players/{id}/versus/{other}`` make) and renders it. An
id, or the name in other letters, redirects (302) to the page's address; nobody is the 404 page.
"""

from __future__ import annotations

import asyncio
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from server.domain_errors import NotFound
from server.names import name_key
from server.services.player_pages import PlayerPages
from server.store.event_store import EventStore
from server.store.players import players_starting
from server.web.player_page import Ambiguous, Found, load_player, load_versus, player_path
from server.web.routes import page

router = APIRouter(include_in_schema=False)

FOUND_LISTED = 50  # players the search lists at most (GET /api/players's limit)


def _services(request: Request) -> tuple[EventStore, PlayerPages]:
    state = request.app.state
    return state.store, state.player_pages


def _not_found(what: str) -> HTMLResponse:
    return page("not_found.html", 404, title="Not found", message=what)


def _ambiguous(many: Ambiguous) -> HTMLResponse:
    """The players a shared name names, each by its id's page (300: choose one)."""
    listed = [(p, f"/p/{quote(p.id, safe='')}") for p in many.players]
    return page("players.html", 300, title=many.name, query=many.name, players=listed, many=True)


@router.get("/p", response_class=HTMLResponse)
async def find_players(
    request: Request, name: Annotated[str, Query(max_length=100, description="the start of a name")] = ""
) -> HTMLResponse:
    """Players whose name starts with ``name`` (every player without it), at most 50, in name order."""
    store, _ = _services(request)
    listed = (
        [] if not name.isprintable() else await asyncio.to_thread(players_starting, store, name_key(name), FOUND_LISTED)
    )
    return page("players.html", title="Players", query=name, players=[(p, player_path(p)) for p in listed], many=False)


@router.get("/p/{entry}", response_class=HTMLResponse)
async def player(request: Request, entry: str) -> Response:
    """A player's page: ratings with their chart, matches, tournaments, head to head."""
    store, pages = _services(request)
    try:
        model = await load_player(store, pages, entry)
    except NotFound:
        return _not_found(f"No player is called {entry!r} here.")
    if isinstance(model, Found):
        return RedirectResponse(model.canonical, status_code=302)
    if isinstance(model, Ambiguous):
        return _ambiguous(model)
    return page("player.html", title=model.player.name, p=model)


@router.get("/p/{entry}/vs/{other}", response_class=HTMLResponse)
async def versus(request: Request, entry: str, other: str) -> Response:
    """Head to head: the record of one player against another and the matches they met in."""
    store, pages = _services(request)
    try:
        model = await load_versus(store, pages, entry, other)
    except NotFound:
        return _not_found(f"No player is called {entry!r}, or none {other!r}.")
    if isinstance(model, str):
        return RedirectResponse(model, status_code=302)
    if isinstance(model, Ambiguous):
        return _ambiguous(model)
    title = f"{model.player.name} vs {model.opponent.name}"
    return page("versus.html", title=title, v=model, player_href=player_path(model.player))
