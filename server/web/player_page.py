"""The player page's model (``/p/{name}``, ``/p/{name}/vs/{other}``), built from the very calls
``GET /api/players/{id}`` and ``GET /api/players/{id}/versus/{other}`` make for a spectator
(``resolve_player``, then ``PlayerPages.page`` / ``PlayerPages.versus``): the page shows what
that answer holds and nothing else. A duplicate round's match not revealed yet is in it as
``withheld`` (no scores, result or rating change), exactly as the API lists it.

A player's address is their name (stable, readable, shareable); an id, or the name in other
letters, redirects to it (:func:`canonical_path`). A name a path cannot hold (one with ``/``)
and a name several older players share keep the id address.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote

from engine.game.score_words import ordinal
from server.domain_errors import AmbiguousName, NotFound
from server.schemas import FamilyRating, HeadToHead, HistoryItem, PlayerPage, RatingPoint, TournamentPlayed, Versus
from server.schemas_reviews import ReviewFiguresPublic
from server.services.player_pages import DEFAULT_HISTORY, PlayerPages
from server.services.players import resolve_player
from server.store.event_store import EventStore
from server.store.models import PlayerPublic
from server.web.rating_chart import Chart, chart

FAMILY_ORDER: Final = ("uno-duo", "classic")
RESULT_WORDS: Final = {"won": "won", "lost": "lost", "drawn": "drawn"}


def player_path(player: PlayerPublic) -> str:
    """The page of ``player``: ``/p/{name}``, or ``/p/{id}`` for a name a path segment cannot hold."""
    name = player.name
    if "/" in name or name in (".", "..") or name != name.strip():
        return f"/p/{quote(player.id, safe='')}"
    return f"/p/{quote(name, safe='')}"


def match_path(match_id: str) -> str:
    return f"/m/{quote(match_id, safe='')}"


def tournament_path(tournament_id: str) -> str:
    return f"/t/{quote(tournament_id, safe='')}"


@dataclass(frozen=True)
class Found:
    """The player an address names, and the address their page is at."""

    player: PlayerPublic
    canonical: str  # the path of their page (a redirect target when the request named them otherwise)


@dataclass(frozen=True)
class Ambiguous:
    """A name several players have (players registered before names were unique): a list to choose from."""

    name: str
    players: list[PlayerPublic]


def find(store: EventStore, entry: str) -> Found | Ambiguous:
    """The player ``entry`` (an id, a name, ``bot:NAME``) names, as ``GET /api/players/{entry}``
    resolves it; ``NotFound`` for nobody. Blocking: call in a thread."""
    try:
        player = resolve_player(store, entry)
    except AmbiguousName as many:
        return Ambiguous(entry, [resolve_player(store, i) for i in many.ids])
    by_name = player_path(player)
    if by_name.startswith("/p/") and by_name != f"/p/{quote(player.id, safe='')}":
        try:
            same = resolve_player(store, player.name).id == player.id
        except (AmbiguousName, NotFound):
            same = False
        if not same:  # the name leads elsewhere (or to several): the id is this page's address
            by_name = f"/p/{quote(player.id, safe='')}"
    return Found(player, by_name)


@dataclass(frozen=True)
class RatingRow:
    family: str
    rating: FamilyRating | None  # None: no rated match in this family yet
    points: list[RatingPoint]
    chart: Chart


@dataclass(frozen=True)
class Opponent:
    name: str
    path: str
    kind: str


@dataclass(frozen=True)
class HistoryRow:
    match: str
    path: str
    at: str
    status: str
    ruleset: str | None
    tournament: str | None
    tournament_name: str | None
    tournament_path: str | None
    round: int | None
    opponents: list[Opponent]
    score: str  # "120–85", the player's first; "" where none is shown
    outcome: str  # won, lost, drawn, 2nd of 4, withheld, live, …
    result: str | None  # won, lost or drawn: a two-seat match's result, for its colour
    rating_change: str  # "+12.3", "−4.0", or "" (unrated, or not yet)
    unrated: str | None


@dataclass(frozen=True)
class VersusRow:
    opponent: Opponent
    played: int
    won: int
    lost: int
    drawn: int
    path: str  # the head-to-head page


@dataclass(frozen=True)
class PlayerView:
    player: PlayerPublic
    path: str
    ratings: list[RatingRow]
    history: list[HistoryRow]
    tournaments: list[tuple[TournamentPlayed, str]]  # with the tournament's path
    head_to_head: list[VersusRow]
    review: ReviewFiguresPublic | None  # the Game Review figures, as far as computed


@dataclass(frozen=True)
class VersusView:
    player: PlayerPublic
    opponent: Opponent
    path: str
    played: int
    won: int
    lost: int
    drawn: int
    matches: list[HistoryRow]


def signed(change: float) -> str:
    """``+12.3`` / ``−4`` (a real minus sign, read as one by screen readers)."""
    text = f"{abs(change):.1f}".rstrip("0").rstrip(".")
    return f"+{text}" if change > 0 else f"\u2212{text}" if change < 0 else "±0"


def _opponent(p: PlayerPublic) -> Opponent:
    return Opponent(p.name, player_path(p), p.kind)


def history_row(item: HistoryItem) -> HistoryRow:
    """One match of the player's as the page lists it (``item``: the API's history entry)."""
    others = [_opponent(p) for i, p in enumerate(item.seats) if p is not None and i != item.seat]
    shown_scores = item.status not in ("withheld", "waiting") and len(item.scores) > item.seat
    score = ""
    if shown_scores:
        mine = item.scores[item.seat]
        rest = [s for i, s in enumerate(item.scores) if i != item.seat]
        score = "\u2013".join(str(s) for s in [mine, *rest])
    if item.status == "finished" and item.result is not None:
        outcome = RESULT_WORDS[item.result]
    elif item.status == "finished" and item.place is not None:
        outcome = f"{ordinal(item.place)} of {len(item.seats)}"
    else:
        outcome = item.status
    return HistoryRow(
        match=item.match,
        path=match_path(item.match),
        at=item.at,
        status=item.status,
        ruleset=item.ruleset,
        tournament=item.tournament,
        tournament_name=item.tournament_name,
        tournament_path=None if item.tournament is None else tournament_path(item.tournament),
        round=item.round,
        opponents=others,
        score=score,
        outcome=outcome,
        result=item.result if item.status == "finished" else None,
        rating_change="" if item.rating_change is None else signed(item.rating_change),
        unrated=item.unrated,
    )


def versus_path(player: PlayerPublic, other: PlayerPublic) -> str:
    return f"{player_path(player)}/vs/{player_path(other).removeprefix('/p/')}"


def player_view(page: PlayerPage, path: str) -> PlayerView:
    """The page of ``page`` (the API's answer), at ``path`` (:func:`find`'s ``canonical``)."""
    me = PlayerPublic(id=page.id, name=page.name, kind=page.kind)
    families = [*FAMILY_ORDER, *sorted(set(page.ratings) - set(FAMILY_ORDER))]
    ratings = [
        RatingRow(
            family=f,
            rating=page.ratings.get(f),
            points=list(page.rating_history.get(f, [])),
            chart=chart(page.rating_history.get(f, []), f, f"rating-chart-{f}"),
        )
        for f in families
        if f in page.ratings or page.rating_history.get(f)
    ]
    return PlayerView(
        player=me,
        path=path,
        ratings=ratings,
        history=[history_row(h) for h in page.history],
        tournaments=[(t, tournament_path(t.id)) for t in page.tournaments],
        head_to_head=[_versus_row(me, h) for h in page.head_to_head],
        review=page.review,
    )


def _versus_row(me: PlayerPublic, h: HeadToHead) -> VersusRow:
    return VersusRow(_opponent(h.opponent), h.played, h.won, h.lost, h.drawn, versus_path(me, h.opponent))


def versus_view(versus: Versus) -> VersusView:
    return VersusView(
        player=versus.player,
        opponent=_opponent(versus.opponent),
        path=versus_path(versus.player, versus.opponent),
        played=versus.played,
        won=versus.won,
        lost=versus.lost,
        drawn=versus.drawn,
        matches=[history_row(h) for h in versus.matches],
    )


async def load_player(
    store: EventStore, pages: PlayerPages, entry: str, limit: int = DEFAULT_HISTORY
) -> PlayerView | Found | Ambiguous:
    """The page for ``entry``; a :class:`Found` when the page is at another address (redirect),
    :class:`Ambiguous` for a shared name. ``NotFound`` for nobody."""
    found = await asyncio.to_thread(find, store, entry)
    if isinstance(found, Ambiguous):
        return found
    if found.canonical != f"/p/{quote(entry, safe='')}":
        return found
    return player_view(await pages.page(found.player.id, limit), found.canonical)


async def load_versus(
    store: EventStore, pages: PlayerPages, entry: str, other: str, limit: int = DEFAULT_HISTORY
) -> VersusView | str | Ambiguous:
    """The head-to-head page; a path to redirect to when either is named otherwise than by its
    page's address; :class:`Ambiguous` for a name several players share. ``NotFound`` for nobody."""
    found, opponent = await asyncio.gather(asyncio.to_thread(find, store, entry), asyncio.to_thread(find, store, other))
    if isinstance(found, Ambiguous):
        return found
    if isinstance(opponent, Ambiguous):
        return opponent
    wanted = versus_path(found.player, opponent.player)
    if wanted != f"/p/{quote(entry, safe='')}/vs/{quote(other, safe='')}":
        return wanted
    return versus_view(await pages.versus(found.player.id, opponent.player.id, limit))
