"""What moves each live page and how its regions are drawn: the hub's :class:`LiveSource` per kind.

Each region is the whole element carrying its id, rendered by the same template (block or
macro) that draws it in the page, so a region that arrives live looks exactly like one loaded
with the page; the models come from the page builders, that is from the same service calls the
public API makes for a spectator: nothing live shows more than the page does. The tournament's
and the match's regions come from their pages' own renderers (``WebSite``, cached per version;
``render_match_regions``); the front page's are its template's blocks, named as the region ids.

- ``front``: moved by any tournament stream (a tournament created, started, finished anywhere)
  and by the ``matches`` stream; its version is a digest of its regions (the front page has no
  stream of its own), equal for equal content, so a browser that has it is sent nothing again.
- ``t``: moved by the tournament's stream; its version is the one a spectator's page shows.
- ``m``: moved by the match's stream; its version is the match's.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from typing import Any, Final

from server.store.streams import MATCHES_STREAM, match_stream
from server.tournaments.model import TOURNAMENT_PREFIX, tournament_stream
from server.web import pages
from server.web.live import LiveSource, Rendered
from server.web.render import render_block
from server.web.routes_matches import render_match_regions
from server.web.site import WebSite

FRONT_TEMPLATE: Final = "front.html"
FRONT_REGIONS: Final = ("tournaments-live", "tournaments-upcoming", "tournaments-recent")


def block_of(region: str) -> str:
    """The template block that draws the element with id ``region``."""
    return region.replace("-", "_")


def regions_of(template: str, regions: tuple[str, ...], **context: Any) -> dict[str, str]:
    """Each region of ``template`` rendered alone with ``context``: ``{element id: outer HTML}``."""
    return {region: render_block(template, block_of(region), **context).strip() for region in regions}


def content_version(regions: Mapping[str, str]) -> int:
    """A version for a page without a stream of its own: a digest of its regions (48 bits, so it
    stays an exact number in JavaScript), the same for the same content after a restart too."""
    digest = hashlib.blake2b(digest_size=6)
    for region in sorted(regions):
        digest.update(region.encode())
        digest.update(b"\0")
        digest.update(regions[region].encode())
        digest.update(b"\0")
    return int.from_bytes(digest.digest(), "big")


def front_source(state: Any) -> LiveSource:
    """The front page's tournament lists (``state``: the app's, for its services)."""

    def regions() -> dict[str, str]:
        model = pages.front_page(state.tournament_listing, state.tournaments, state.seasons)
        return regions_of(FRONT_TEMPLATE, FRONT_REGIONS, front=model, title="Tournaments")

    async def render(_key: str) -> Rendered:
        found = await asyncio.to_thread(regions)
        return Rendered(content_version(found), found)

    return LiveSource(streams=lambda _key: (MATCHES_STREAM,), render=render, prefixes=(TOURNAMENT_PREFIX,))


def tournament_source(state: Any) -> LiveSource:
    """A tournament page's regions (``WebSite.render_tournament_regions``, cached per version)."""

    async def render(tournament_id: str) -> Rendered:
        site: WebSite = state.web
        version, regions = await asyncio.to_thread(site.render_tournament_regions, tournament_id)
        return Rendered(version, regions)

    return LiveSource(streams=lambda tournament_id: (tournament_stream(tournament_id),), render=render)


def match_source(state: Any) -> LiveSource:
    """A match page's regions (``render_match_regions``: the page's own model and template)."""

    async def render(match_id: str) -> Rendered:
        version, regions = await render_match_regions(state.web_match_pages, match_id)
        return Rendered(version, regions)

    return LiveSource(streams=lambda match_id: (match_stream(match_id),), render=render)


def live_sources(state: Any) -> dict[str, LiveSource]:
    """Every kind of live page, on the app's services (read from ``state`` when a page renders)."""
    return {"front": front_source(state), "t": tournament_source(state), "m": match_source(state)}
