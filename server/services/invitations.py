"""Open invitations: a casual match its creator made that has not started yet (not every seat joined).

Two bounds, so that one player cannot pile matches up on the server or on a victim's
``/api/me``: a player may have at most ``open_invitations_per_player`` open at once (more is
refused, 409 ``too_many_open``), and an invitation not started ``invitation_expiry_seconds``
after it was made is annulled (``match_annulled`` with reason ``expired: …``, so every read
model says ``annulled``, and a join is refused). Tournament matches are not invitations: their
rounds have join deadlines of their own.

The expiry costs nothing per idle match: one timer, for the oldest invitation's expiry. When it
fires, every invitation due is annulled (an indexed query finds them) and the timer is armed
again for the next oldest; a new invitation arms it only if none is armed. A server looks at
start-up too, so what expired while it was down is annulled then.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta

from server.domain_errors import TooManyOpen
from server.services.clock import Clock, Timer
from server.services.live_match import parse_at
from server.services.match_registry import MatchRegistry
from server.store.errors import UNAVAILABLE
from server.store.models import PlayerPublic
from server.store.read_models import earliest_invitation, invitations_created_before, open_invitations
from server.store.values import format_at

log = logging.getLogger(__name__)

SWEEP_BATCH = 100  # invitations annulled per query when many expire at once
RETRY_SECONDS = 5.0  # a sweep that found the database away looks again after this

Expire = Callable[[str, str], Awaitable[bool]]  # (match id, reason) -> annulled now


class Invitations:
    """The per-player limit on open invitations, and their expiry (one timer for the oldest)."""

    def __init__(
        self, registry: MatchRegistry, clock: Clock, expire: Expire, *, limit: int, expiry_seconds: int
    ) -> None:
        self.registry = registry
        self.clock = clock
        self._expire = expire
        self.limit = limit  # 0: no limit
        self.expiry_seconds = expiry_seconds  # 0: never
        self._making: dict[str, asyncio.Lock] = {}
        self._timer: Timer | None = None

    # ------------------------------------------------------------ the limit

    @asynccontextmanager
    async def making(self, creator: PlayerPublic) -> AsyncIterator[None]:
        """Around making a casual match: refuse (TooManyOpen) a creator at the limit. One creation
        per creator at a time in this process, so a burst of requests cannot pass the count together."""
        async with self._making.setdefault(creator.id, asyncio.Lock()):
            if self.limit:
                count = await asyncio.to_thread(open_invitations, self.registry.store.engine, creator.id)
                if count >= self.limit:
                    expiry = f"; each expires {self.expiry_seconds} s after it was made" if self.expiry_seconds else ""
                    raise TooManyOpen(
                        f"you have {count} matches that have not started yet, the most one player may have open "
                        f"(play one, or let it expire{expiry})"
                    )
            yield
        self.made()

    # ------------------------------------------------------------ the expiry

    def made(self) -> None:
        """An invitation was made now: the timer, if none is armed, is armed for its expiry."""
        if self.expiry_seconds and self._timer is None and not self.registry.stopping:
            self._arm(float(self.expiry_seconds))

    def start(self) -> None:
        """At start-up: annul what expired while no server ran, and arm the timer for the oldest."""
        if self.expiry_seconds:
            self.registry.spawn(self.sweep())

    def _arm(self, delay: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.clock.call_later(max(0.0, delay), lambda: self.registry.spawn(self.sweep()))

    async def sweep(self) -> int:
        """Annul every invitation past its expiry, then arm the timer for the next; how many were annulled."""
        self._timer = None
        annulled = 0
        reason = f"expired: not started within {self.expiry_seconds} s"
        engine = self.registry.store.engine
        try:
            while not self.registry.stopping:
                cutoff = format_at(self.clock.now() - timedelta(seconds=self.expiry_seconds))
                due = await asyncio.to_thread(invitations_created_before, engine, cutoff, SWEEP_BATCH)
                now_annulled = 0
                for match_id in due:
                    now_annulled += bool(await self._expire(match_id, reason))
                annulled += now_annulled
                if len(due) < SWEEP_BATCH or not now_annulled:
                    break
            oldest = await asyncio.to_thread(earliest_invitation, engine)
        except UNAVAILABLE as exc:
            log.warning("expiring invitations: the database is unavailable (%s); looking again shortly", exc)
            if not self.registry.stopping:
                self._arm(RETRY_SECONDS)
            return annulled
        if oldest is not None and not self.registry.stopping and self._timer is None:
            expires = parse_at(oldest) + timedelta(seconds=self.expiry_seconds)
            delay = (expires - self.clock.now()).total_seconds()
            self._arm(delay + 0.001 if delay > 0 else RETRY_SECONDS)  # past due yet still open: it was just started
        return annulled

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
