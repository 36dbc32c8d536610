"""The pages' routes: thin handlers that build a page model (``pages``) and render it (``render``).

Every route is left out of the OpenAPI document (``include_in_schema=False``): pages are not
API. ``GET /`` is shared with the API's server information (``server.api.routes_meta``): a
request whose ``Accept`` names ``text/html`` (a browser) gets the club's front page, any other
(``curl``, ``httpx``, an API client) the JSON it always got — :class:`BrowserRoute` matches only
the former, and the app mounts this router before the API's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import Scope

from server.web import pages
from server.web.render import render


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


def page(template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(render(template, **context), status_code=status_code)


@browser_router.get("/", response_class=HTMLResponse)
async def front(request: Request) -> HTMLResponse:
    """The club's front page: live, upcoming and recent tournaments."""
    state = request.app.state
    model = await asyncio.to_thread(pages.front_page, state.tournament_listing, state.tournaments)
    return page("front.html", front=model, title="Tournaments")
