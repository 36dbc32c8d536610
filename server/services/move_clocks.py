"""Move clocks (docs/SERVER.md "Move clocks"): one timer per held match, for its pending decision.

A decision's deadline is the ``at`` of the ``awaiting`` event that opened it plus the match's
``move_seconds``. When it passes, the server sends the engine's ``TimeOut`` for it under the
command id ``timeout-<version>``; two processes whose clocks both fire append it once (the id
and ``expected_seq``). A timer that fires a little early (the loop's clock is not the events'
clock) waits on for the rest; one that finds the database away tries again after
:data:`RETRY_SECONDS`. At start-up :meth:`MoveClocks.apply_expired` applies what ran out while
the server was down, in deadline order. All time comes from the injected ``Clock``.

The timers are lazy: a match's timer is set for the earliest deadline it was armed with, and a
move that only puts the deadline later (every move does: the next decision's clock starts when
it opens) leaves it as it is. When it fires it reads the match's deadline now: not reached, it
is set again for that; reached, the decision pending now times out.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from engine.game.commands import TimeOut
from engine.game.errors import CommandRefused
from server.services.clock import Clock, Timer
from server.services.house_bots import Apply
from server.services.live_match import LiveMatch
from server.services.match_registry import MatchRegistry
from server.store.errors import UNAVAILABLE, ConcurrencyError

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0  # a clock that found the database away tries again after this
EARLY_MARGIN = 0.002  # uvloop rounds a timer's delay down to whole milliseconds: add two


class MoveClocks:
    """The armed timer of each held match (at most one per match), due no later than its pending
    decision's deadline."""

    def __init__(self, registry: MatchRegistry, clock: Clock, apply: Apply) -> None:
        self.registry = registry
        self.clock = clock
        self._apply = apply
        self._timers: dict[str, tuple[datetime, Timer]] = {}  # match id -> (when its timer is due, the timer)

    def armed(self) -> int:
        """How many timers are armed (one per held match that waits for a clocked decision)."""
        return len(self._timers)

    def cancel(self, live: LiveMatch) -> None:
        found = self._timers.pop(live.id, None)
        if found is not None:
            found[1].cancel()

    def arm(self, live: LiveMatch) -> None:
        """The match moved: make sure its clock fires by the new decision's deadline (none once it
        is over or annulled).

        Speed: a timer already due by then is left as it is (when it fires it reads the deadline
        again), so a move does no timer work: 3.2-3.8 -> 0.5 us a command, the clock's share of
        the event loop's busy samples in bench live 3.0% -> 0.7% (py-spy, the same workload)."""
        if live.closed or live.annulled:
            self.cancel(live)
            return
        deadline = live.deadline
        if deadline is None:
            return  # nothing is on the clock: a timer left armed finds so when it fires
        current = self._timers.get(live.id)
        if current is not None and current[0] <= deadline:
            return
        self._set(live, deadline, max(0.0, (deadline - self.clock.now()).total_seconds()))

    def _set(self, live: LiveMatch, due: datetime, delay: float) -> None:
        """Set ``live``'s timer to fire after ``delay`` seconds (at ``due``), in place of any other."""
        self.cancel(live)
        timer = self.clock.call_later(delay, lambda: self._fire(live))
        self._timers[live.id] = (due, timer)

    def _fire(self, live: LiveMatch) -> None:
        """``live``'s timer came due: if the deadline moved on meanwhile, wait for it; else time out."""
        self._timers.pop(live.id, None)  # this timer: every other one was cancelled when it was replaced
        deadline = live.deadline
        if deadline is None or live.closed or live.annulled:
            return
        if self._wait_on(live, deadline):
            return
        self.registry.spawn(self.time_out(live))

    def _wait_on(self, live: LiveMatch, deadline: datetime) -> bool:
        """Whether ``deadline`` is still ahead; if it is, the timer is set for it (plus a margin:
        the loop's timer is another clock than the events' ``at``)."""
        now = self.clock.now()
        if deadline <= now:
            return False
        self._set(live, deadline, (deadline - now).total_seconds() + EARLY_MARGIN)
        return True

    async def time_out(self, live: LiveMatch) -> bool:
        """The pending decision's clock ran out: apply its default action (the engine's ``TimeOut``).

        Does nothing if its deadline is still ahead (the timer is set for it again) or nothing is
        pending; True if this call appended the timeout.
        """
        async with live.lock:
            state = live.state
            version, seat = state.version, state.pending.seat
            deadline = live.deadline
            if deadline is None or seat is None or live.closed or live.dealer is None or live.annulled:
                return False
            if self._wait_on(live, deadline):
                return False
            try:
                appended = await self._apply(live, TimeOut(seat, version), f"timeout-{version}")
            except (ConcurrencyError, CommandRefused):
                return False  # another process applied it, or the match moved: apply caught up
            except UNAVAILABLE as exc:  # the database is away: this clock tries again (it would never fire again)
                log.warning("clock of %s at %d: the database is unavailable (%s); trying again", live.id, version, exc)
                if not self.registry.stopping:
                    self._set(live, self.clock.now() + timedelta(seconds=RETRY_SECONDS), RETRY_SECONDS)
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
            if await self.time_out(live):
                applied += 1
        return applied
