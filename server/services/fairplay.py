"""Fair-play signals of a tournament (docs/TOURNAMENTS.md "Fair-play signals"), read from the store.

The figures are :mod:`server.tournaments.fairplay`'s; this module finds the tournament's matches
(every pairing's match, and the matches a replay ruling annulled), reads each match's events in
chunks of :data:`CHUNK` and hands their public envelopes (``type``, ``data``, ``at``: never an
opening) to it. A match whose log ends with ``seed_revealed`` is over and its events never
change, so its seats and per-seat times are kept (the last :data:`KEPT` such matches): asking
again reads only the matches still being played. The work is bounded by the tournament's
matches (64 entrants at most). Beside the times, each player's Game Review figures
(``server.services.reviews``): those of the finished matches reviewed so far; the rest are
queued, so the figures fill in as the reviews are computed.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any, Final, cast

from engine.game.events import EventType
from server.domain_errors import MatchNotFound
from server.schemas import FairPlayReport, FairPlayRow
from server.services.reviews import ReviewFigures, Reviews, figures
from server.services.tournaments import TournamentService
from server.store.models import PlayerPublic
from server.store.streams import match_stream
from server.tournaments.fairplay import MatchTimes, PlayerSignals, match_times, signals
from server.tournaments.model import Tournament

CHUNK: Final = 500  # events read at a time
KEPT: Final = 8192  # finished matches whose times are kept (a double round robin of 64 has 4032)
PRECISION: Final = 6  # seconds, to the microsecond of the stamps
REVIEW_NOTE: Final = (
    "agreement and average_loss come from the Game Review of each finished match (docs/REVIEW.md): how often the"
    " player chose what the coach (the top house-bot level's criterion) chose in the review's playouts, and how"
    " much expected match points the choices lost by the review's estimate. They are statistics with noise, from a search that is itself imperfect; a strong honest"
    " player agrees often, and a weak search disagrees with good moves. They are not proof of cheating: look at"
    " them beside move times, over many decisions, against other players of the same event. Reviews are computed"
    " in the background: reviewed_matches says how many are in yet."
)

Seated = tuple[tuple[str | None, ...], MatchTimes]
"""One match: the player in each seat (seat order) and its per-seat times."""


class FairPlay:
    """Builds a tournament's :class:`FairPlayReport`; one per app (it keeps finished matches' times)."""

    def __init__(self, tournaments: TournamentService, reviews: Reviews | None = None) -> None:
        self.tournaments = tournaments
        self.reviews = reviews
        self._kept: OrderedDict[str, Seated] = OrderedDict()
        self._lock = threading.Lock()

    def kept(self) -> int:
        """How many finished matches are kept."""
        with self._lock:
            return len(self._kept)

    async def report(self, tournament_id: str) -> FairPlayReport:
        """The report (:class:`TournamentNotFound` for an unknown id); the reading runs in a thread."""
        return await asyncio.to_thread(self.read, tournament_id)

    def read(self, tournament_id: str) -> FairPlayReport:
        t = self.tournaments.load(tournament_id)
        found = [(match_id, seated) for match_id in _match_ids(t) if (seated := self.match(match_id)) is not None]
        matches = [seated for _, seated in found]
        rows = signals(t.players, matches)
        reviewed = self._reviewed([(match_id, seated[0]) for match_id, seated in found if self._over(match_id)])
        return FairPlayReport(
            tournament=t.id,
            name=t.name,
            status=cast(Any, t.status),
            move_seconds=t.move_seconds,
            matches=len(matches),
            players=[self._row(r, reviewed.get(r.player)) for r in rows],
            review_note=REVIEW_NOTE,
        )

    def _over(self, match_id: str) -> bool:
        with self._lock:
            return match_id in self._kept

    def _reviewed(self, finished: list[tuple[str, tuple[str | None, ...]]]) -> dict[str, ReviewFigures]:
        """Per player, the Game Reviews of their finished matches so far; the missing ones queued."""
        if self.reviews is None:
            return {}
        by_player: dict[str, list[dict[str, Any]]] = {}
        for match_id, seats in finished:
            for seat, player in enumerate(seats):
                if player is None:
                    continue
                review = self.reviews.kept_figures(match_id, seat)
                if review is None:
                    self.reviews.queue(match_id, seat)
                else:
                    by_player.setdefault(player, []).append(review)
        return {player: figures(reviews) for player, reviews in by_player.items()}

    def match(self, match_id: str) -> Seated | None:
        """The player in each seat of one match and its per-seat times (None: no such match); kept
        once the match is over, else read again each time."""
        with self._lock:
            kept = self._kept.get(match_id)
            if kept is not None:
                self._kept.move_to_end(match_id)
                return kept
        try:
            seats = tuple(self.tournaments.registry.summary(match_id).seats)
        except MatchNotFound:
            return None
        last: list[str] = []

        def envelopes() -> Iterator[dict[str, Any]]:
            for stored in self.tournaments.store.iter_stream(match_stream(match_id), chunk=CHUNK):
                last[:] = [stored.type]
                yield {"type": stored.type, "data": stored.data, "at": stored.at}

        found: Seated = (seats, match_times(envelopes()))
        if last == [EventType.SEED_REVEALED]:  # over: its seats and events never change again
            with self._lock:
                self._kept[match_id] = found
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
        return found

    def _row(self, r: PlayerSignals, reviewed: ReviewFigures | None) -> FairPlayRow:
        player = self.tournaments.registry.player(r.player) or PlayerPublic(id=r.player, name=r.player, kind="human")
        return FairPlayRow(
            player=player,
            matches=r.matches,
            moves=r.moves,
            mean_seconds=_rounded(r.mean),
            stdev_seconds=_rounded(r.stdev),
            median_seconds=_rounded(r.median),
            p90_seconds=_rounded(r.p90),
            fastest_seconds=_rounded(r.fastest),
            slowest_seconds=_rounded(r.slowest),
            timeouts=r.timeouts,
            timeout_forfeits=r.timeout_forfeits,
            reviewed_matches=0 if reviewed is None else reviewed.matches,
            reviewed_decisions=0 if reviewed is None else reviewed.decisions,
            agreement=None if reviewed is None else reviewed.agreement,
            average_loss=None if reviewed is None else reviewed.average_loss,
        )


def _match_ids(t: Tournament) -> Iterator[str]:
    """Every match of ``t``, round and board order: each pairing's annulled matches, then its match."""
    for slot in sorted(t.slots.values(), key=lambda s: (s.round, s.board)):
        yield from slot.annulled
        if slot.match is not None:
            yield slot.match


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, PRECISION)
