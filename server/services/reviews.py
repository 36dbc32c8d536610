"""Game Reviews on the server (issue 37): ``GET /api/matches/{id}/review`` and the fair-play figures.

A review is computed from the match's replay (``TournamentService.replay``: finished matches only,
409 while live; a duplicate round's only once its round is revealed; the same read gate as every
read of the match), so it can never see a live match. Reviews are cached per match, seat and
settings (the last :data:`KEPT`): a finished match never changes. One review is computed at a
time (:data:`WORKERS`): a review is a CPU-bound minute, and requests beyond it wait their turn.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Final

from engine.review.replay_events import replay_events
from engine.review.report import player_of, review_dict
from engine.review.review import ReviewSettings, ReviewUnavailable, review_seat
from server.domain_errors import Malformed
from server.services.players import Caller
from server.services.tournaments import TournamentService

KEPT: Final = 512  # reviews kept (one per match, seat and settings)
WORKERS: Final = 1  # reviews computed at once

Key = tuple[str, int, str]


class Reviews:
    """Computes and keeps Game Reviews; one per app."""

    def __init__(self, tournaments: TournamentService) -> None:
        self.tournaments = tournaments
        self._kept: OrderedDict[Key, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._working = threading.BoundedSemaphore(WORKERS)

    def kept(self, match_id: str, seat: int, settings: ReviewSettings) -> dict[str, Any] | None:
        """A review already computed, or None (nothing is computed here)."""
        with self._lock:
            found = self._kept.get((match_id, seat, settings.words()))
            if found is not None:
                self._kept.move_to_end((match_id, seat, settings.words()))
            return found

    def review(self, match_id: str, seat: int, caller: Caller | None, settings: ReviewSettings) -> dict[str, Any]:
        """Seat ``seat``'s review of a finished match (the replay's errors: 404, 403, 409). Blocking."""
        text = self.tournaments.replay(match_id, caller)  # the read gate, finished only, duplicate reveal
        found = self.kept(match_id, seat, settings)
        if found is not None:
            return found
        with self._working:
            found = self.kept(match_id, seat, settings)  # computed while this request waited
            if found is not None:
                return found
            header, events = replay_events(text)
            try:
                review = review_seat(events, seat, settings)
            except ReviewUnavailable as exc:
                raise Malformed(str(exc)) from None
            answer = review_dict(review, match_id, player_of(header, events, seat))
        with self._lock:
            self._kept[(match_id, seat, settings.words())] = answer
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        return answer
