"""Move clocks (docs/SERVER.md "Move clocks"): one timer per held match, for its pending decision.

A decision's deadline is the ``at`` of the ``awaiting`` event that opened it plus the match's
``move_seconds``. When it passes, the server sends the engine's ``TimeOut`` for it under the
command id ``timeout-<version>``; two processes whose clocks both fire append it once (the id
and ``expected_seq``). A timer that fires a little early (the loop's clock is not the events'
clock) waits on for the rest; one that finds the database away tries again after
:data:`RETRY_SECONDS`. At start-up :meth:`MoveClocks.apply_expired` applies what ran out while
the server was down, in deadline order. All time comes from the injected ``Clock``.
"""

from __future__ import annotations

import logging

from engine.commands import TimeOut
from engine.errors import CommandRefused
from server.services.clock import Clock, Timer
from server.services.house_bots import Apply
from server.services.live_match import LiveMatch
from server.services.match_registry import MatchRegistry
from server.store.errors import UNAVAILABLE, ConcurrencyError

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0  # a clock that found the database away tries again after this
EARLY_MARGIN = 0.002  # uvloop rounds a timer's delay down to whole milliseconds: add two


class MoveClocks:
    """The armed timer of each held match's pending decision (at most one per match)."""

    def __init__(self, registry: MatchRegistry, clock: Clock, apply: Apply) -> None:
        self.registry = registry
        self.clock = clock
        self._apply = apply
        self._timers: dict[str, tuple[int, Timer]] = {}  # match id -> (the version it belongs to, its timer)

    def armed(self) -> int:
        """How many timers are armed (one per held match that waits for a clocked decision)."""
        return len(self._timers)

    def cancel(self, live: LiveMatch) -> None:
        found = self._timers.pop(live.id, None)
        if found is not None:
            found[1].cancel()

    def arm(self, live: LiveMatch) -> None:
        """The match moved: arm its clock for the new decision (none once it is over or annulled)."""
        if live.closed or live.annulled:
            self.cancel(live)
            return
        version = live.state.version
        current = self._timers.get(live.id)
        if current is not None and current[0] == version:
            return
        self.cancel(live)
        deadline = live.deadline
        if deadline is not None:
            delay = max(0.0, (deadline - self.clock.now()).total_seconds())
            self._set(live, version, delay)

    def _set(self, live: LiveMatch, version: int, delay: float) -> None:
        timer = self.clock.call_later(delay, lambda: self.registry.spawn(self.time_out(live, version)))
        self._timers[live.id] = (version, timer)

    async def time_out(self, live: LiveMatch, version: int) -> bool:
        """The decision at ``version`` ran out: apply its default action (the engine's ``TimeOut``).

        Does nothing if the match has moved on since; True if this call appended the timeout.
        """
        async with live.lock:
            state = live.state
            seat = state.pending.seat
            if state.version != version or seat is None or live.closed or live.dealer is None or live.annulled:
                return False
            deadline = live.deadline
            early = 0.0 if deadline is None else (deadline - self.clock.now()).total_seconds()
            if early > 0:  # the timer (another clock than the events' `at`) fired a little early: wait on
                self._set(live, version, early + EARLY_MARGIN)
                return False
            try:
                appended = await self._apply(live, TimeOut(seat, version), f"timeout-{version}")
            except (ConcurrencyError, CommandRefused):
                return False  # another process applied it, or the match moved: apply caught up
            except UNAVAILABLE as exc:  # the database is away: this clock tries again (it would never fire again)
                log.warning("clock of %s at %d: the database is unavailable (%s); trying again", live.id, version, exc)
                if not self.registry.stopping:
                    self._set(live, version, RETRY_SECONDS)
                return False
            return appended is not None

    async def apply_expired(self, lives: list[LiveMatch]) -> int:
        """Apply, in deadline order, the clocks of ``lives`` that have run out; how many were applied."""
        now = self.clock.now()
        expired = sorted(
            ((live.deadline, live.id, live) for live in lives if live.deadline is not None and live.deadline <= now),
            key=lambda entry: (entry[0], entry[1]),
        )
        applied = 0
        for _deadline, _match_id, live in expired:
            if await self.time_out(live, live.state.version):
                applied += 1
        return applied
