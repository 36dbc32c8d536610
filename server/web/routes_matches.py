"""The match page's route, ``/m/{id}`` (``?at=SEQ``: the replay's step), and its live regions.

Thin: ``server.web.match_page.MatchPages`` builds the model from the calls the public match
routes make for a spectator; this renders it. An unknown match is the 404 page; a match of a
duplicate round not revealed yet is the 403 page saying why (the API's ``withheld``); an ``at``
that is not a number is 400, one outside the match is clamped to it.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from server.domain_errors import NotFound, Withheld
from server.limits import ID_LEN, MATCH_ID_PATTERN
from server.web.match_page import BadStep, MatchPage, MatchPages, card, cards, parse_at
from server.web.render import render_block
from server.web.routes import page

router = APIRouter(include_in_schema=False)

TEMPLATE = "match.html"
LIVE_REGIONS = ("score", "log", "replay", "challenges")  # the blocks (= element ids) a live update swaps
MATCH_ID = re.compile(MATCH_ID_PATTERN)


def match_pages(request: Request) -> MatchPages:
    pages: MatchPages = request.app.state.web_match_pages
    return pages


def context(model: MatchPage) -> dict[str, Any]:
    """The template's context for ``model``; a live match's page follows its live stream."""
    found: dict[str, Any] = {"title": f"Match {model.id}", "m": model, "card": card, "cards": cards}
    if model.live:
        found |= {"live_url": f"/live/m/{model.id}", "live_version": model.version}
    return found


async def match_page(pages: MatchPages, match_id: str) -> tuple[str, dict[str, Any], int]:
    """The match's page now as (template, context, version): what the page route renders, for
    the live stream. ``MatchNotFound`` and ``Withheld`` as ``GET /api/matches/{id}`` raises them."""
    model = await pages.page(match_id)
    return TEMPLATE, context(model), model.version


async def render_match_regions(pages: MatchPages, match_id: str) -> tuple[int, dict[str, str]]:
    """The live regions of a match's page now: its version and each region's whole element by id
    (``score``, ``log``, ``replay``, ``challenges``), for the live stream (server.web.live).
    ``MatchNotFound`` and ``Withheld`` as the page (and the API) raise them."""
    template, ctx, version = await match_page(pages, match_id)
    return version, {region: render_block(template, region, **ctx) for region in LIVE_REGIONS}


@router.get("/m/{match_id}", response_class=HTMLResponse)
async def match(request: Request, match_id: str, at: str | None = None) -> HTMLResponse:
    """A match: live, its seats, scores and log; finished, its result, replay and challenges."""
    if len(match_id) > ID_LEN or not MATCH_ID.match(match_id):
        return page("not_found.html", 404, title="Not found", message=f"No match {match_id[:ID_LEN]!r} here.")
    try:
        step = parse_at(at)
    except BadStep as bad:
        return page("problem.html", 400, title="Bad request", heading="Not an event number", message=str(bad))
    try:
        model = await match_pages(request).page(match_id, step)
    except Withheld as withheld:
        return page("problem.html", 403, title="Withheld", heading="Not shown yet", message=str(withheld))
    except NotFound:
        return page("not_found.html", 404, title="Not found", message=f"No match {match_id!r} here.")
    return page(TEMPLATE, **context(model))
