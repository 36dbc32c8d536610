"""Game Reviews on the server (issue 37): ``GET /api/matches/{id}/review``, the player page's
reviewed accuracy and the fair-play page's agreement and average loss.

A review is computed from the match's replay (``TournamentService.replay``: finished matches only,
409 while live; a duplicate round's only once its round is revealed; the same read gate as every
read of the match), so it can never see a live match. It runs in one worker *process*
(:data:`WORKERS`): a review is up to a minute of pure Python, which in a thread of the server
would hold the interpreter's lock away from live matches. Reviews are kept per match, seat and
settings (the last :data:`KEPT`, and the summary figures of many more for the pages): a
finished match never changes.

The player page and the fair-play page never wait for a review: they show what is kept and
:meth:`Reviews.queue` the rest (at most :data:`MAX_QUEUED` waiting), so their figures fill in as
the worker gets through them.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from multiprocessing.pool import AsyncResult, Pool
from typing import Any, Final

from engine.review.report import review_of_replay
from engine.review.review import ReviewSettings, ReviewUnavailable
from server.domain_errors import DomainError, Malformed, TooManyRequests
from server.services.players import Caller
from server.services.tournaments import TournamentService

KEPT: Final = 256  # whole reviews kept (one per match, seat and settings; each some 100-300 kB)
KEPT_FIGURES: Final = 65_536  # their summary figures kept for the pages (a few numbers each)
FIGURES: Final = ("reviewed", "accuracy", "average_loss", "agreement")
WORKERS: Final = 1  # worker processes
MAX_QUEUED: Final = 256  # background reviews waiting at once (the player and fair-play pages)
MAX_ASKED: Final = 8  # reviews asked for over the API and not done yet; past it, 429 (the worker is busy)
BUSY_SECONDS: Final = 60  # Retry-After of that 429: about one long review

Key = tuple[str, int, str]


@dataclass(frozen=True, slots=True)
class ReviewFigures:
    """Reviews summed over several matches of one player: decision-weighted means."""

    matches: int  # matches reviewed
    decisions: int  # decisions with a choice among them
    accuracy: float | None
    average_loss: float | None
    agreement: float | None


def figures(reviews: Iterable[dict[str, Any]]) -> ReviewFigures:
    matches = decisions = 0
    accuracy = loss = agreed = 0.0
    for review in reviews:
        matches += 1
        n = int(review["reviewed"])
        decisions += n
        if n:
            accuracy += float(review["accuracy"]) * n
            loss += float(review["average_loss"]) * n
            agreed += float(review["agreement"]) * n
    if not decisions:
        return ReviewFigures(matches, 0, None, None, None)
    return ReviewFigures(
        matches,
        decisions,
        round(accuracy / decisions, 2),
        round(loss / decisions, 4),
        round(agreed / decisions, 4),
    )


class Reviews:
    """Computes and keeps Game Reviews; one per app."""

    def __init__(self, tournaments: TournamentService, settings: ReviewSettings | None = None) -> None:
        self.tournaments = tournaments
        self.settings = settings or ReviewSettings()  # the pages' setting: the API's default
        self._kept: OrderedDict[Key, dict[str, Any]] = OrderedDict()
        self._figures: OrderedDict[Key, dict[str, Any]] = OrderedDict()  # what the pages sum
        self._queued: dict[Key, AsyncResult[dict[str, Any]]] = {}
        self._asked: set[Key] = set()  # of those, the ones the API asked for
        self._lock = threading.Lock()
        self._pool: Pool | None = None

    def _workers(self) -> Pool:
        with self._lock:
            if self._pool is None:  # spawned, not forked: the server has threads and open connections
                self._pool = multiprocessing.get_context("spawn").Pool(WORKERS)
            return self._pool

    def close(self) -> None:
        """Stop the worker at once, dropping the review it was computing and those queued (at the
        app's shutdown: a server stops without waiting for a minute of review)."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._queued.clear()
        if pool is not None:
            pool.terminate()

    def kept(self, match_id: str, seat: int, settings: ReviewSettings | None = None) -> dict[str, Any] | None:
        """A review already computed, or None (nothing is computed here)."""
        key = (match_id, seat, (settings or self.settings).words())
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def kept_figures(self, match_id: str, seat: int) -> dict[str, Any] | None:
        """The summary figures of a review at the pages' setting, if computed (kept longer than reviews)."""
        key = (match_id, seat, self.settings.words())
        with self._lock:
            found = self._figures.get(key)
            if found is not None:
                self._figures.move_to_end(key)
            return found

    def _keep(self, key: Key, review: dict[str, Any]) -> None:
        with self._lock:
            self._kept[key] = review
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
            self._figures[key] = {name: review[name] for name in FIGURES}
            while len(self._figures) > KEPT_FIGURES:
                self._figures.popitem(last=False)

    def _submit(self, key: Key, text: str, settings: ReviewSettings) -> AsyncResult[dict[str, Any]]:
        """The review's pending result, one per key however many ask (kept once it is done)."""
        pool = self._workers()
        with self._lock:
            running = self._queued.get(key)
            if running is not None:
                return running

            def done(review: dict[str, Any]) -> None:
                self._keep(key, review)
                with self._lock:
                    self._queued.pop(key, None)

            def failed(_error: BaseException) -> None:
                with self._lock:
                    self._queued.pop(key, None)

            pending = pool.apply_async(
                review_of_replay, (text, key[0], key[1], settings.samples), callback=done, error_callback=failed
            )
            self._queued[key] = pending
            return pending

    def review(self, match_id: str, seat: int, caller: Caller | None, settings: ReviewSettings) -> dict[str, Any]:
        """Seat ``seat``'s review of a finished match (the replay's errors: 404, 403, 409). Blocking."""
        text = self.tournaments.replay(match_id, caller)  # the read gate, finished only, duplicate reveal
        found = self.kept(match_id, seat, settings)
        if found is not None:
            return found
        key = (match_id, seat, settings.words())
        with self._lock:
            if key not in self._queued and len(self._asked) >= MAX_ASKED:
                raise TooManyRequests(
                    f"{MAX_ASKED} reviews are being computed; ask again in a minute", retry_after=BUSY_SECONDS
                )
            self._asked.add(key)
        try:
            return self._submit(key, text, settings).get()
        except ReviewUnavailable as exc:
            raise Malformed(str(exc)) from None
        finally:
            with self._lock:
                self._asked.discard(key)

    def queue(self, match_id: str, seat: int) -> None:
        """Review this seat in the background at the pages' setting, unless kept, queued, not
        reviewable (live, a duplicate round not revealed) or too many are waiting."""
        key = (match_id, seat, self.settings.words())
        with self._lock:
            if key in self._figures or key in self._queued or len(self._queued) >= MAX_QUEUED:
                return
        try:
            text = self.tournaments.replay(match_id)
        except DomainError:
            return
        self._submit(key, text, self.settings)

    def join(self) -> None:
        """Wait until every queued review is done (tests, and a command that wants them all)."""
        with self._lock:
            pending = list(self._queued.values())
        for result in pending:
            result.wait()
