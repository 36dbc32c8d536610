"""The pages' routes: thin handlers that ask :class:`~server.web.site.WebSite` for a page.

Every route is left out of the OpenAPI document (``include_in_schema=False``): pages are not
API. ``GET /`` is shared with the API's server information (``server.api.routes_meta``): a
request whose ``Accept`` names ``text/html`` (a browser) gets the club's front page, any other
(``curl``, ``httpx``, an API client) the JSON it always got — :class:`BrowserRoute` matches only
the former, and the app mounts ``browser_router`` before the API's routers.

An id that names nothing — or could not name anything (a character no id has) — is the friendly
404 page, never an error body; a query parameter out of its range is a 400 page.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import Scope

from server.domain_errors import NotFound
from server.store.models import ID_LEN
from server.web.render import render
from server.web.site import WALL_VIEWS, RoundNotFound, WebSite

ID_PATTERN: Final = re.compile(rf"[A-Za-z0-9_-]{{1,{ID_LEN}}}")
MAX_ROUND: Final = 1000  # more than any tournament has: a larger ?round= is a 400, not a search


def wants_html(scope: Scope) -> bool:
    """Whether the request's ``Accept`` header names ``text/html`` (browsers send it; API clients do not)."""
    for name, value in scope.get("headers", ()):
        if name == b"accept" and b"text/html" in value.lower():
            return True
    return False


class BrowserRoute(APIRoute):
    """A route that matches only a browser's request (:func:`wants_html`), so that another route
    of the same path answers everyone else."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        if match is not Match.NONE and not wants_html(scope):
            return Match.NONE, {}
        return match, child


browser_router = APIRouter(route_class=BrowserRoute, include_in_schema=False)
router = APIRouter(include_in_schema=False)


def site_of(request: Request) -> WebSite:
    site: WebSite = request.app.state.web
    return site


def page(template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """A template rendered as the answer."""
    return HTMLResponse(render(template, **context), status_code=status_code)


def not_found(message: str) -> HTMLResponse:
    """The friendly 404 page."""
    return page("not_found.html", 404, title="Not found", message=message)


async def answer(make: Callable[[], str]) -> HTMLResponse:
    """A page made in a worker thread (the services read the store); its 404 as the friendly page."""
    try:
        return HTMLResponse(await asyncio.to_thread(make))
    except (NotFound, RoundNotFound) as missing:
        return not_found(str(missing))


@browser_router.get("/", response_class=HTMLResponse)
async def front(request: Request) -> HTMLResponse:
    """The club's front page: live, upcoming and recent tournaments."""
    return await answer(site_of(request).front_html)


@router.get("/t/{tournament_id}", response_class=HTMLResponse)
async def tournament(
    request: Request,
    tournament_id: str,
    round: Annotated[int | None, Query(ge=1, le=MAX_ROUND)] = None,
) -> HTMLResponse:
    """A tournament: status, schedule, a round's pairings (the current one; ``?round=N``),
    standings, crosstable, bracket and season."""
    if not ID_PATTERN.fullmatch(tournament_id):
        return not_found("There is no tournament with that id.")
    site = site_of(request)
    return await answer(lambda: site.tournament_html(tournament_id, round))


@router.get("/t/{tournament_id}/wall", response_class=HTMLResponse)
async def wall(
    request: Request,
    tournament_id: str,
    view: Annotated[Literal["pairings", "standings"], Query()] = WALL_VIEWS[0],
) -> HTMLResponse:
    """The wall screen: large type, the current round's pairings and the standings in turn."""
    if not ID_PATTERN.fullmatch(tournament_id):
        return not_found("There is no tournament with that id.")
    site = site_of(request)
    return await answer(lambda: site.wall_html(tournament_id, view))


@router.get("/s/{season_id}", response_class=HTMLResponse)
async def season(request: Request, season_id: str) -> HTMLResponse:
    """A season's table and its tournaments."""
    if not ID_PATTERN.fullmatch(season_id):
        return not_found("There is no season with that id.")
    site = site_of(request)
    return await answer(lambda: site.season_html(season_id))
