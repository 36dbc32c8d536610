"""The pages as HTML, each rendered once per version of what it shows and kept (``cache``).

:class:`WebSite` is the one place that turns a page model (``pages``) into HTML: the routes
ask it for whole pages, the live updates (``server.web.live``) for a tournament's regions at its
current version (:meth:`WebSite.render_tournament_regions`), both from the same caches, so a
room of open pages costs one render per version. Blocking (it reads the services): call it in a
thread.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final

from server.schemas_seasons import SeasonPublic
from server.services.seasons import SeasonService
from server.services.tournament_listing import TournamentListing
from server.services.tournaments import TournamentService
from server.web import pages
from server.web.cache import PageCache
from server.web.render import render, render_macro

WALL_SECONDS: Final = 20  # the wall screen shows pairings, then standings, this long each
WALL_VIEWS: Final = ("pairings", "standings")
MODELS_KEPT: Final = 64  # tournament page models (one per tournament version a page was asked at)
# A tournament's regions a live page swaps by id, each the macro of _tournament.html that draws it.
LIVE_REGIONS: Final = {
    "status": "status_region",
    "pairings": "pairings_region",
    "standings": "standings_region",
    "crosstable": "crosstable_region",
    "bracket": "bracket_region",
    "schedule": "schedule_region",
}


class RoundNotFound(LookupError):
    """``?round=N`` names a round the tournament does not have."""


def _regions_size(value: tuple[int, dict[str, str]]) -> int:
    return sum(len(html) for html in value[1].values())


class WebSite:
    def __init__(self, tournaments: TournamentService, seasons: SeasonService, listing: TournamentListing) -> None:
        self.tournaments = tournaments
        self.seasons = seasons
        self.listing = listing
        self.html: PageCache[str] = PageCache(len)
        self.regions: PageCache[tuple[int, dict[str, str]]] = PageCache(_regions_size)
        self.models: PageCache[pages.TournamentPage] = PageCache(lambda _: 1, max_entries=MODELS_KEPT)

    # ------------------------------------------------------------ the pages

    def front_html(self) -> str:
        """The front page (not cached: it reads the listing, kept up to date per request by the service)."""
        return render(
            "front.html",
            title="Tournaments",
            front=pages.front_page(self.listing, self.tournaments, self.seasons),
            live_url="/live/front",
        )

    def tournament_html(self, tournament_id: str, round_number: int | None = None) -> str:
        """``/t/{id}`` (``TournamentNotFound``; :class:`RoundNotFound` for a round it lacks)."""
        season_key = self._season_key(tournament_id)
        page = self._model(tournament_id)
        shown = self._round(page, round_number)

        def make() -> str:
            listed = pages.season_of(self.seasons, tournament_id)
            return render(
                "tournament.html",
                title=page.t.name,
                page=page,
                shown=shown,
                season_listed=listed,
                season=pages.season_public(self.seasons, listed.id) if listed is not None else None,
                # A past round (?round=N) is history: no live updates, which bring the current round.
                **({"live_url": f"/live/t/{page.t.id}", "live_version": page.version} if shown == page.current else {}),
            )

        return self.html.get(("t", tournament_id, page.stream_version, season_key, round_number), make)

    def wall_html(self, tournament_id: str, view: str) -> str:
        """``/t/{id}/wall``: the current round's pairings and the standings, ``view`` shown first."""
        page = self._model(tournament_id)
        other = WALL_VIEWS[1 - WALL_VIEWS.index(view)]

        def make() -> str:
            return render(
                "wall.html",
                title=page.t.name,
                page=page,
                shown=page.current,
                view=view,
                other_view=other,
                cycle_seconds=WALL_SECONDS,
                live_url=f"/live/t/{page.t.id}",
                live_version=page.version,
            )

        return self.html.get(("wall", tournament_id, page.stream_version, view), make)

    def season_html(self, season_id: str) -> str:
        """``/s/{id}`` (``SeasonNotFound`` for none)."""
        key = pages.season_signature(self.seasons, self.tournaments, season_id)

        def make() -> str:
            season: SeasonPublic = pages.season_public(self.seasons, season_id)
            return render("season.html", title=season.name, season=season)

        return self.html.get(("s", season_id, key), make)

    # ------------------------------------------------------------ live regions

    def render_tournament_regions(self, tournament_id: str) -> tuple[int, dict[str, str]]:
        """The tournament page's live regions now, by region id (``status``, ``pairings``,
        ``standings``, ``crosstable``, ``bracket``, ``schedule``): each the whole element with that
        id (a region the tournament does not have yet, e.g. a bracket before the start, an empty
        ``hidden`` element), rendered once per stream version for every listener. The version is
        :func:`pages.public_version`, the one the page's ``data-live-version`` shows: it does not
        move while a duplicate round's results are withheld. ``TournamentNotFound`` for none."""
        page = self._model(tournament_id)

        def make() -> tuple[int, dict[str, str]]:
            return page.version, {
                region: render_macro("_tournament.html", macro, *self._region_args(page, region))
                for region, macro in LIVE_REGIONS.items()
            }

        return self.regions.get(("regions", tournament_id, page.stream_version), make)

    @staticmethod
    def _region_args(page: pages.TournamentPage, region: str) -> tuple[object, ...]:
        link_base = f"/t/{page.t.id}"
        if region == "pairings":
            return (page, page.current, link_base)
        if region == "schedule":
            return (page, link_base)
        return (page,)

    # ------------------------------------------------------------ helpers

    def _model(self, tournament_id: str) -> pages.TournamentPage:
        version = pages.tournament_version(self.tournaments, tournament_id)
        return self.models.get(
            ("model", tournament_id, version), lambda: pages.tournament_page(self.tournaments, tournament_id)
        )

    def _season_key(self, tournament_id: str) -> Hashable:
        """What the tournament page's season part is made from (None: in no season)."""
        holder = self.seasons.holder(tournament_id)
        return None if holder is None else (holder, pages.season_signature(self.seasons, self.tournaments, holder))

    @staticmethod
    def _round(page: pages.TournamentPage, number: int | None) -> int | None:
        if number is None:
            return page.current
        if page.round(number) is None:
            raise RoundNotFound(f"{page.t.name} has no round {number}")
        return number
