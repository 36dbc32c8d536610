"""Which server process owns each live match (issue 24; docs/SERVER.md "Several servers").

Only a match's owner holds it in memory, runs its move clock and moves its house bots; a
command or socket that reaches another server is forwarded to the owner (``server.api.forwarding``).

- :class:`SoleOwnership` (SQLite, one process): this process owns every match; nothing is
  recorded and nothing runs.
- :class:`LeasedOwnership` (PostgreSQL): ownership is a lease in ``match_leases``
  (``server.store.leases``). The server that starts a match (the join that deals it) claims it,
  so new matches spread over the servers as their requests do. Every :attr:`~LeasedOwnership.beat`
  seconds (a third of the lease) the owner renews all its leases in one statement and looks for
  *orphans*, live matches whose lease ran out (their owner died) or was never taken, and claims
  them: a killed owner's matches are taken over at most ``lease + beat`` seconds after its last
  renewal, plus the time to load them. A server that could not renew for a whole lease lets its
  matches go, since another server may have them by then. The store's unique ``(stream, seq)``
  fences every append, so an owner that lost its lease without noticing can never append over
  the new owner's events, and a clock both fire (``timeout-<version>``) lands once.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from server.services.clock import Clock, sleep
from server.store import leases
from server.store.errors import UNAVAILABLE
from server.store.event_store import EventStore

log = logging.getLogger(__name__)

BEATS_PER_LEASE = 3  # renewals (and looks for orphans) per lease length
MISSES_KEPT = 4096  # matches remembered as owned elsewhere (no claim tried, no owner looked up, for a beat)

Lost = Callable[[str], None]
"""Told the id of a match this server no longer owns (its lease was taken over)."""
Adopt = Callable[[str], Awaitable[None]]
"""Asked to hold and arm a match this server just claimed as an orphan."""


class SoleOwnership:
    """One process (SQLite): it owns every match."""

    server_id = "sole"

    def owns(self, match_id: str) -> bool:
        return True

    async def claim(self, match_id: str, *, handed_over: bool = False) -> bool:
        return True

    async def owner_url(self, match_id: str) -> str | None:
        return None

    def release(self, match_id: str) -> None:
        return None

    def unreachable(self, peer_url: str) -> None:
        return None

    async def give_up(self, match_id: str) -> bool:
        return False

    async def claim_orphans(self) -> list[str]:
        return []

    def start(self, lost: Lost, adopt: Adopt) -> None:
        return None

    async def stop(self) -> None:
        return None


class LeasedOwnership:
    """Leases in PostgreSQL: this server owns the matches whose lease it holds and renews."""

    def __init__(self, store: EventStore, clock: Clock, peer_url: str, seconds: float) -> None:
        self.store = store
        self.clock = clock
        self.peer_url = peer_url
        self.seconds = seconds
        self.beat = seconds / BEATS_PER_LEASE
        self.server_id = secrets.token_hex(8)
        self._owned: set[str] = set()
        self._misses: OrderedDict[str, float] = OrderedDict()  # match id -> monotonic time of a failed claim
        self._owners: OrderedDict[str, tuple[float, str]] = OrderedDict()  # match id -> (when looked up, peer URL)
        self._renewed_at = time.monotonic()
        self._task: asyncio.Task[None] | None = None
        self._registered = False
        self._releases: set[asyncio.Task[None]] = set()
        self._claims: set[asyncio.Future[bool]] = set()
        self._stopping = False

    def owns(self, match_id: str) -> bool:
        return match_id in self._owned

    def owned(self) -> set[str]:
        return set(self._owned)

    async def claim(self, match_id: str, *, handed_over: bool = False) -> bool:
        """Take ``match_id``'s lease if nobody holds a running one; whether this server owns it now.

        A claim that failed is not tried again for a beat (the owner is alive), so a busy match
        owned elsewhere costs its readers here no write each; unless the owner has just handed
        the match over (``handed_over``)."""
        if match_id in self._owned:
            return True
        missed = self._misses.get(match_id)
        if missed is not None and time.monotonic() - missed < self.beat and not handed_over:
            return False
        if self._stopping:
            return False
        await self._register()
        # Its own task, shielded: a caller cancelled meanwhile does not hide a claim the database
        # made from :meth:`stop`, which waits for every claim in flight before it leaves.
        attempt = asyncio.ensure_future(
            asyncio.to_thread(leases.claim, self.store.engine, match_id, self.server_id, self.seconds)
        )
        self._claims.add(attempt)
        attempt.add_done_callback(self._claims.discard)
        won = await asyncio.shield(attempt)
        if won and self._stopping:  # stop() is leaving: it gives this lease up with the rest
            return False
        if won:
            self._owned.add(match_id)
            self._misses.pop(match_id, None)
        else:
            self._misses[match_id] = time.monotonic()
            self._misses.move_to_end(match_id)
            while len(self._misses) > MISSES_KEPT:
                self._misses.popitem(last=False)
        return won

    async def owner_url(self, match_id: str) -> str | None:
        """Where to forward a command or socket on ``match_id``: the URL of the live server owning
        it, if that is another one (None: this server owns it, or nobody does)."""
        if match_id in self._owned:
            return None
        known = self._owners.get(match_id)
        if known is not None and time.monotonic() - known[0] < self.beat:
            return known[1]
        owner = await asyncio.to_thread(leases.owner_of, self.store.engine, match_id)
        url = None if owner is None or owner.server_id == self.server_id or not owner.peer_url else owner.peer_url
        if url is not None:  # remembered for a beat: a busy match's commands cost no query each
            self._owners[match_id] = (time.monotonic(), url)
            self._owners.move_to_end(match_id)
            while len(self._owners) > MISSES_KEPT:
                self._owners.popitem(last=False)
        return url

    def unreachable(self, peer_url: str) -> None:
        """Forwarding to ``peer_url`` failed: look its matches' owners up again next time."""
        for match_id in [m for m, (_, url) in self._owners.items() if url == peer_url]:
            del self._owners[match_id]

    async def give_up(self, match_id: str) -> bool:
        """Hand ``match_id`` over: this server stops owning it and its lease is gone when this
        returns (another server claims it next); whether this server owned it."""
        if match_id not in self._owned:
            return False
        self._owned.discard(match_id)
        await asyncio.to_thread(leases.release, self.store.engine, match_id, self.server_id)
        return True

    def release(self, match_id: str) -> None:
        """The match is over: its lease goes (in the background), so nothing renews it."""
        if match_id in self._owned:
            self._owned.discard(match_id)
            task = asyncio.create_task(self._forget(match_id))
            self._releases.add(task)
            task.add_done_callback(self._releases.discard)

    async def _forget(self, match_id: str) -> None:
        try:
            await asyncio.to_thread(leases.release, self.store.engine, match_id, self.server_id)
        except UNAVAILABLE as exc:  # it runs out by itself; a finished match is never an orphan
            log.warning("match %s: could not give up its lease (%s)", match_id, exc)

    def start(self, lost: Lost, adopt: Adopt) -> None:
        """From now on, every beat: renew, let go of what was taken over, claim orphans."""
        self._task = asyncio.create_task(self._beats(lost, adopt))

    async def stop(self) -> None:
        """Leave: the leases go at once, so the other servers take the matches over at their next beat."""
        self._stopping = True
        tasks: list[asyncio.Future[Any]] = [*self._releases, *self._claims]
        if self._task is not None:
            tasks.append(self._task)
        if self._task is not None:
            self._task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._owned.clear()
        try:
            await asyncio.to_thread(leases.leave, self.store.engine, self.server_id)
        except UNAVAILABLE as exc:  # the leases run out by themselves
            log.warning("leaving: could not give up the leases (%s); they run out in %.1f s", exc, self.seconds)

    async def _register(self) -> None:
        if not self._registered:
            await asyncio.to_thread(
                leases.register_server, self.store.engine, self.server_id, self.peer_url, self.seconds
            )
            self._registered = True

    async def _beats(self, lost: Lost, adopt: Adopt) -> None:
        while True:
            try:
                await self._beat(lost, adopt)
            except UNAVAILABLE as exc:
                log.warning("match leases: the database is unavailable (%s)", exc)
                if time.monotonic() - self._renewed_at > self.seconds:
                    self._let_go(set(self._owned), lost)  # another server may own them by now
            await sleep(self.clock, self.beat)

    async def _beat(self, lost: Lost, adopt: Adopt) -> None:
        await self._register()
        before = set(self._owned)
        started = time.monotonic()
        renewed = await asyncio.to_thread(leases.renew, self.store.engine, self.server_id, self.seconds)
        self._renewed_at = started
        self._let_go(before - renewed, lost)
        for match_id in await self.claim_orphans():
            log.info("took over match %s", match_id)
            await adopt(match_id)

    async def claim_orphans(self) -> list[str]:
        """Claim the live matches nobody holds a running lease on; the ones this server got."""
        found = await asyncio.to_thread(leases.orphans, self.store.engine)
        return [match_id for match_id in found if match_id not in self._owned and await self.claim(match_id)]

    def _let_go(self, gone: set[str], lost: Lost) -> None:
        for match_id in gone:
            if match_id in self._owned:
                self._owned.discard(match_id)
                log.warning("match %s is owned by another server now: letting it go", match_id)
                lost(match_id)


Ownership = SoleOwnership | LeasedOwnership
