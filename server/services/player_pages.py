"""A player's page (``GET /api/players/{id}``): ratings, the rating chart, the match history,
tournaments with places, and the record against each opponent (docs/API.md).

Everything here is public already (finished results, ratings from them, a live match's
seats): the page reads the read models and never a hidden field. A match of a duplicate round
not revealed yet is listed ``withheld`` (no scores, result or rating change), counts in no
record against an opponent and no tournament rank, and its rating waits for the reveal
(docs/TOURNAMENTS.md "Duplicate rounds"): the page is the same for everyone, the player
included. Each list is bounded:
:data:`MAX_HISTORY` matches, :data:`CHART_POINTS` points per family, :data:`MAX_OPPONENTS`
opponents, :data:`MAX_TOURNAMENTS` tournaments.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Final, Literal, cast

from server.domain_errors import NotFound
from server.ratings.book import FAMILIES, family_of
from server.schemas import (
    FamilyRating,
    HeadToHead,
    HistoryItem,
    PlayerPage,
    RatingPoint,
    TournamentPlayed,
    Versus,
)
from server.schemas_reviews import ReviewFiguresPublic
from server.services.match_registry import MatchRegistry
from server.services.ratings import Ratings, family_ratings, identity_of
from server.services.reviews import Reviews, figures
from server.services.tournaments import TournamentService
from server.store import ratings as rating_rows
from server.store.models import PlayerPublic
from server.store.read_models import MatchSummary, Meeting, meetings_of, recent_matches_of, tournaments_played_by
from server.tournaments.places import standings_of

MAX_HISTORY: Final = 200
DEFAULT_HISTORY: Final = 50
CHART_POINTS: Final = 100
MAX_OPPONENTS: Final = 20
MAX_TOURNAMENTS: Final = 50
RECENT_REVIEWED: Final = 20  # finished matches whose Game Reviews the page sums
MAX_MEETINGS: Final = 20_000  # seats met that the head-to-head counts (a house bot meets thousands)
WITHHELD_ITEM: Final[dict[str, object]] = {  # a secret duplicate round's match: that it is, not how it went
    "status": "withheld",
    "places": None,
    "result": None,
    "place": None,
    "rating_change": None,
    "unrated": None,
}


@dataclass
class _Record:
    opponent: PlayerPublic
    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0
    matches: list[str] = field(default_factory=list)


def _outcome(m: Meeting) -> Literal["won", "lost", "drawn"]:
    """How ``m``'s player fared against the other seat: places where the match has them, else the winner."""
    if m.place is not None and m.other_place is not None:
        if m.place == m.other_place:
            return "drawn"
        return "won" if m.place < m.other_place else "lost"
    return "won" if m.winner_seat == m.seat else "lost"


class PlayerPages:
    def __init__(
        self, registry: MatchRegistry, tournaments: TournamentService, ratings: Ratings, reviews: Reviews | None = None
    ) -> None:
        self.registry = registry
        self.reviews = reviews
        self.tournaments = tournaments
        self.ratings = ratings
        self.store = registry.store
        self.secrecy = registry.secrecy

    def _player(self, player_id: str) -> PlayerPublic:
        player = self.registry.player(player_id)
        if player is None:
            raise NotFound(f"no player {player_id!r}")
        return player

    async def page(self, player_id: str, limit: int = DEFAULT_HISTORY) -> PlayerPage:
        return await asyncio.to_thread(self._page, player_id, limit)

    async def versus(self, player_id: str, other_id: str, limit: int = DEFAULT_HISTORY) -> Versus:
        return await asyncio.to_thread(self._versus, player_id, other_id, limit)

    # ------------------------------------------------------------ building

    def _page(self, player_id: str, limit: int) -> PlayerPage:
        player = self._player(player_id)
        current = self.ratings.current([player.id])[player.id]  # catches the ratings up first
        identity = identity_of(player.id)
        with self.store.engine.connect() as conn:
            chart = {
                family: [
                    RatingPoint(match=p.match, at=p.at, rating=round(p.rating, 1), deviation=round(p.deviation, 1))
                    for p in rating_rows.history_of(conn, identity, family, CHART_POINTS)
                ]
                for family in FAMILIES
            }
        records = self._records(player.id)
        ranked = sorted(records.values(), key=lambda r: (-r.played, r.opponent.name, r.opponent.id))
        history = self._history(player.id, limit)
        return PlayerPage(
            id=player.id,
            name=player.name,
            kind=player.kind,
            ratings={f: FamilyRating(**cast(Any, v)) for f, v in family_ratings(current).items()},
            rating_history=chart,
            history=history,
            tournaments=self._tournaments(player.id),
            head_to_head=[self._h2h(r) for r in ranked[:MAX_OPPONENTS]],
            review=self._reviewed(history),
        )

    def _reviewed(self, history: list[HistoryItem]) -> ReviewFiguresPublic | None:
        """The Game Reviews of the last finished matches, as far as computed; the rest are queued."""
        if self.reviews is None:
            return None
        finished = [h for h in history if h.status == "finished"][:RECENT_REVIEWED]
        kept = []
        for item in finished:
            review = self.reviews.kept_figures(item.match, item.seat)
            if review is None:
                self.reviews.queue(item.match, item.seat)
            else:
                kept.append(review)
        f = figures(kept)
        return ReviewFiguresPublic(
            matches=f.matches,
            of_matches=len(finished),
            decisions=f.decisions,
            accuracy=f.accuracy,
            average_loss=f.average_loss,
            agreement=f.agreement,
        )

    def _versus(self, player_id: str, other_id: str, limit: int) -> Versus:
        player, other = self._player(player_id), self._player(other_id)
        record = self._records(player.id).get(identity_of(other.id)) or _Record(other)
        self.ratings.catch_up()
        met = set(record.matches)
        history = [h for h in self._history(player.id, MAX_HISTORY, met) if h.match in met][:limit]
        return Versus(**self._h2h(record).model_dump(), player=player, matches=history)

    @staticmethod
    def _h2h(r: _Record) -> HeadToHead:
        return HeadToHead(opponent=r.opponent, played=r.played, won=r.won, lost=r.lost, drawn=r.drawn)

    def _records(self, player_id: str) -> dict[str, _Record]:
        """The record against each opponent, by their rating identity (every ``greedy-N`` is one)."""
        records: dict[str, _Record] = {}
        me = identity_of(player_id)
        counted: set[tuple[str, str]] = set()  # (match, opponent): once, if the bot held two seats
        for m in meetings_of(self.store.engine, player_id, MAX_MEETINGS):
            key = identity_of(m.other)
            if key == me or (m.match_id, m.other) in counted or self.secrecy.secret(m.tournament, m.round):
                continue
            counted.add((m.match_id, m.other))
            if key not in records:
                records[key] = _Record(
                    self.registry.player(m.other) or PlayerPublic(id=m.other, name=m.other, kind="human")
                )
            r = records[key]
            r.played += 1
            r.matches.append(m.match_id)
            setattr(r, _outcome(m), getattr(r, _outcome(m)) + 1)
        return records

    def _history(self, player_id: str, limit: int, only: set[str] | None = None) -> list[HistoryItem]:
        found = recent_matches_of(self.store.engine, player_id, MAX_HISTORY if only is not None else limit)
        if only is not None:
            found = [(s, at) for s, at in found if s.id in only]
        ids = [s.id for s, _ in found]
        identity = identity_of(player_id)
        with self.store.engine.connect() as conn:
            changes = rating_rows.changes_in(conn, identity, ids)
            unrated = rating_rows.unrated_reasons(conn, ids)
        names: dict[str, str] = {}
        return [self._item(s, at, player_id, changes, unrated, names) for s, at in found]

    def _item(
        self,
        s: MatchSummary,
        at: str,
        player_id: str,
        changes: dict[str, float],
        unrated: dict[str, str | None],
        names: dict[str, str],
    ) -> HistoryItem:
        shown = self.registry.summary_public(s)
        me = identity_of(player_id)
        seat = next(i for i, p in enumerate(s.seats) if p is not None and identity_of(p) == me)
        result: Literal["won", "lost", "drawn"] | None = None
        place = None
        if s.tournament is not None and s.tournament not in names:
            names[s.tournament] = self._tournament_name(s.tournament)
        if s.status == "finished":
            if s.places is not None and len(s.seats) > 2:
                place = s.places[seat]
            elif s.places is not None:
                result = "drawn" if s.places[0] == s.places[1] else ("won" if s.places[seat] == 1 else "lost")
            elif s.winner_seat is not None:
                result = "won" if s.winner_seat == seat else "lost"
        change = changes.get(s.id)
        item = HistoryItem(
            match=s.id,
            at=at,
            status=s.status,
            ruleset=s.ruleset,
            family=family_of(s.ruleset),
            tournament=s.tournament,
            tournament_name=None if s.tournament is None else names[s.tournament],
            round=s.round,
            seat=seat,
            seats=shown.seats,
            scores=list(s.scores),
            places=None if s.places is None else list(s.places),
            result=result,
            place=place,
            rating_change=None if change is None else round(change, 1),
            unrated=unrated.get(s.id),
        )
        if self.secrecy.secret(s.tournament, s.round):  # neither how it stands nor how it ended
            return item.model_copy(update=WITHHELD_ITEM | {"scores": [0] * len(s.seats)})
        return item

    def _tournament_name(self, tournament_id: str) -> str:
        try:
            return self.tournaments.load(tournament_id).name
        except NotFound:
            return tournament_id

    def _tournaments(self, player_id: str) -> list[TournamentPlayed]:
        """The player's last tournaments, the latest first, each with the player's rank."""
        out: list[TournamentPlayed] = []
        for tid in tournaments_played_by(self.store.engine, player_id, MAX_TOURNAMENTS):
            try:
                t = self.tournaments.load(tid)
            except NotFound:
                continue
            me = identity_of(player_id)
            rows = standings_of(t.revealed_only(), self.tournaments.seed(tid))  # a secret round counts once revealed
            rank = next((row.rank for row in rows if identity_of(row.player) == me), None)
            out.append(
                TournamentPlayed(
                    id=t.id,
                    name=t.name,
                    format=t.format.value,
                    status=cast(Any, t.status),
                    rank=rank,
                    players=len(t.players),
                )
            )
        return out
