"""Casual and tournament matches: the parts, built and tied together.

``MatchService`` builds the modules that do the work, each with one job, and hands them out
(``registry``, ``reads``, ``commands``, ``creation``; ``server.app`` gives them to the routes and
services, which call them directly):

- ``match_registry``: the matches held live in memory, loaded on demand, and the look-ups
  (summaries, players, who a caller is at a table) and the read gate;
- ``match_creation``: registering and creating matches;
- ``match_commands``: deciding a seat's command (and joins, forfeits, annulments) and appending it;
- ``move_clocks``: the move clocks (docs/SERVER.md "Move clocks");
- ``house_bots``: the house bots' moves;
- ``match_reads``: views, events, live streams and replays;
- ``invitations``: the per-player limit on open invitations and their expiry.

What the service does itself is what spans them: :meth:`MatchService._after_change` (whenever a
match moved, its clock is armed for the new decision and a house bot gets its move; a
tournament hears of a match's end from the store: ``server.services.tournament_manager``),
start-up recovery, hand-over between servers, stopping, and creating, joining and a seat's
command with the answer it gets (decided by ``match_commands``, built by ``match_reads``). All
time comes from one injected :class:`~server.services.clock.Clock`; all tunables from
:class:`~server.settings.Settings`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Iterator
from typing import Any

from engine.game.rulesets import Ruleset
from server.schemas import MatchOutcome
from server.services.clock import Clock, SystemClock
from server.services.house_bots import HouseBots
from server.services.invitations import Invitations
from server.services.live_match import LiveMatch
from server.services.match_commands import MatchCommands, seat_command_id
from server.services.match_creation import MatchCreation, new_match_id
from server.services.match_reads import MatchReads
from server.services.match_registry import HOLD_SECONDS, MatchRegistry, Reader
from server.services.move_clocks import MoveClocks
from server.services.ownership import Ownership, SoleOwnership
from server.services.players import Caller
from server.settings import Settings
from server.store.event_store import EventStore
from server.store.models import MatchSummaryPublic, PlayerPublic
from server.store.records import StoredEvent
from server.store.snapshots import Snapshots

__all__ = ["HOLD_SECONDS", "MatchService", "new_match_id", "seat_command_id"]


class MatchService:
    """Matches: the parts (``registry``, ``reads``, ``commands``…), create, join, a seat's command,
    recovery, hand-over and stop. Tunables come from ``settings``
    (``Settings()`` if None); a keyword given here overrides its setting (tools and tests)."""

    def __init__(
        self,
        store: EventStore,
        settings: Settings | None = None,
        *,
        clock: Clock | None = None,
        snapshot_every: int | None = None,
        move_seconds: int | None = None,
        bot_think_seconds: float | None = None,
        finished_kept: int | None = None,
        ownership: Ownership | None = None,
    ) -> None:
        settings = settings or Settings()
        self.ownership: Ownership = ownership or SoleOwnership()
        self._seat_sockets: Counter[str] = Counter()  # match id -> seats' own sockets open here
        self.store = store
        self.clock = clock or SystemClock()
        self.move_seconds = settings.move_seconds if move_seconds is None else move_seconds
        self.bot_think_seconds = settings.bot_think_seconds if bot_think_seconds is None else bot_think_seconds
        self.snapshots = Snapshots(store, every=settings.snapshot_every if snapshot_every is None else snapshot_every)
        self.registry = MatchRegistry(
            store,
            self.snapshots,
            self.clock,
            finished_kept=settings.finished_matches_kept if finished_kept is None else finished_kept,
            changed=self._after_change,
            ownership=self.ownership,
        )
        self.commands = MatchCommands(
            self.registry, bots_inline=self.bot_think_seconds <= 0, changed=self._after_change
        )
        self.bots = HouseBots(
            self.clock, self.bot_think_seconds, self.commands.apply, self.registry.catch_up, self._after_change
        )
        self.clocks = MoveClocks(self.registry, self.clock, self.commands.apply)
        self.invitations = Invitations(
            self.registry,
            self.clock,
            self.commands.expire,
            limit=settings.open_invitations_per_player,
            expiry_seconds=settings.invitation_expiry_seconds,
        )
        self.creation = MatchCreation(self.registry, self.commands, self.invitations, move_seconds=self.move_seconds)
        self.reads = MatchReads(
            self.registry,
            me_matches_listed=settings.me_matches_listed,
            past_views_at_once=settings.past_views_at_once,
        )

    # ------------------------------------------------------------ what ties the parts together

    def _after_change(self, live: LiveMatch) -> None:
        """The match moved: hold it live if it just started, and, if this server owns it, arm its
        clock and give a bot its move (a finished match's lease goes)."""
        self.registry.settle(live)
        if live.closed or live.annulled:
            self.ownership.release(live.id)
        if self.registry.stopping or live.closed or not self.ownership.owns(live.id):
            self.clocks.cancel(live)
            return
        self.clocks.arm(live)
        self.bots.arm(live)

    def _lost(self, match_id: str) -> None:
        """Another server took ``match_id`` over: its clock and bot move here stop."""
        live = self.registry.let_go(match_id)
        if live is not None:
            self.clocks.cancel(live)
            if live.bot_move is not None:
                live.bot_move.cancel()
                live.bot_move = None

    @contextlib.contextmanager
    def seat_socket(self, match_id: str) -> Iterator[None]:
        """While a seat's own socket (not one forwarded by another server) is open here."""
        self._seat_sockets[match_id] += 1
        try:
            yield
        finally:
            self._seat_sockets[match_id] -= 1
            if self._seat_sockets[match_id] <= 0:
                del self._seat_sockets[match_id]

    async def hand_over(self, match_id: str) -> bool:
        """Another server, where a seat of ``match_id`` just connected, asks for the match: it is
        handed over (this server stops its clock and bots and gives its lease up) unless no seat
        would gain, i.e. a seat's own socket is open here. Whether it was handed over."""
        if not self.ownership.owns(match_id) or self._seat_sockets.get(match_id):
            return False
        live = self.registry.live.get(match_id)
        if live is None:
            return await self.ownership.give_up(match_id)
        async with live.lock:  # a command or bot move in flight lands first
            if not await self.ownership.give_up(match_id):
                return False
            self._lost(match_id)
        return True

    async def _adopt(self, match_id: str) -> None:
        """This server claimed an orphan (its owner died): hold it, apply what ran out, arm it."""
        live = await self.registry.open(match_id, arm=False)
        await self.clocks.apply_expired([live])
        self._after_change(live)

    # ------------------------------------------------------------ start-up and stop

    async def recover(self) -> int:
        """At start-up: hold every unfinished match live and apply, in deadline order, the clocks
        that ran out while no server was running. Returns how many timeouts were applied.

        With leases (several servers) only the orphans are: the live matches no running server
        owns (all of them when this is the only server); the others stay their owners'."""
        if isinstance(self.ownership, SoleOwnership):
            lives = await self.registry.open_all_live()  # no clock fires before all are in
        else:
            lives = [await self.registry.open(m, arm=False) for m in await self.ownership.claim_orphans()]
        applied = await self.clocks.apply_expired(lives)
        for live in lives:
            self._after_change(live)
        self.invitations.start()
        return applied

    def hold_live_matches(self) -> None:
        """From now on, hold the live matches this server owns: with leases, renew them and take
        over orphans every beat; with one process, every live match."""
        if isinstance(self.ownership, SoleOwnership):
            self.registry.hold_live_matches()
        else:
            self.ownership.start(self._lost, self._adopt)

    async def stop(self) -> None:
        self.invitations.stop()
        await self.registry.stop()
        await self.ownership.stop()  # after the clocks: the leases go, the others take over at once

    # ------------------------------------------------------------ creating and joining

    async def create(
        self,
        caller: PlayerPublic,
        opponents: str | list[str],
        ruleset_name: str | None,
        move_seconds: int | None = None,
        seat: int | None = None,
    ) -> MatchSummaryPublic:
        """A casual match against one opponent (a str) or a table (a list of 1 to 9: ``MatchCreation.create``)."""
        entries = [opponents] if isinstance(opponents, str) else opponents
        live = await self.creation.create(caller, entries, ruleset_name, move_seconds, seat)
        return self.reads.live_summary(live)

    async def create_scheduled(
        self,
        match_id: str,
        seats: list[PlayerPublic],
        ruleset: Ruleset,
        move_seconds: int,
        tournament: str,
        round_number: int,
    ) -> MatchSummaryPublic:
        """A tournament's match: ``seats[0]`` (the Berger table's white) drafts first in round 1.

        Idempotent on ``match_id`` (a retry after a crash finds the match made before).
        """
        live = await self.creation.make(match_id, seats, ruleset, move_seconds, tournament, round_number)
        return self.reads.live_summary(live)

    async def join(self, match_id: str, caller: Caller, entropy: str) -> MatchOutcome:
        reader = await self._seat_reader(match_id, caller)
        live, appended, command_id = await self.commands.join(match_id, caller, entropy)
        await self.registry.settled(match_id)
        return await self._answer(live, reader, caller, appended, command_id)

    async def _seat_reader(self, match_id: str, caller: Caller) -> Reader | None:
        """Before a seat's command or join: how the seat reads the match (``MatchRegistry.reader``),
        decided now so that the answer is built the moment the command is applied. None for
        someone without a seat, whom the command refuses (as it refuses a command on an annulled
        match, under the match's lock: ``MatchCommands``)."""
        live = await self.registry.open(match_id)
        if self.registry.seat_of(live.summary, caller) is None:
            return None
        return await self.registry.gate(live.summary, caller)

    # ------------------------------------------------------------ a seat's command

    async def command(
        self, match_id: str, caller: Caller, command_id: str, expected_version: int | None, command: dict[str, Any]
    ) -> MatchOutcome:
        """Apply a seat's command; its outcome (a retry: the first outcome), as ``POST …/commands`` answers."""
        reader = await self._seat_reader(match_id, caller)
        live, appended, stored_id = await self.commands.command(match_id, caller, command_id, expected_version, command)
        return await self._answer(live, reader, caller, appended, stored_id)

    async def command_version(
        self, match_id: str, caller: Caller, command_id: str, expected_version: int | None, command: dict[str, Any]
    ) -> int:
        """:meth:`command` for the socket, whose events arrive on the feed: only the version after it."""
        await self._seat_reader(match_id, caller)
        live, appended, stored_id = await self.commands.command(match_id, caller, command_id, expected_version, command)
        if appended is not None:
            return appended[-1].seq
        return await asyncio.to_thread(self.reads.stored_version, live.stream, stored_id)

    async def _answer(
        self,
        live: LiveMatch,
        reader: Reader | None,
        caller: Caller,
        appended: list[StoredEvent] | None,
        command_id: str,
    ) -> MatchOutcome:
        if appended is not None:
            if reader is None:  # pragma: no cover - only a seat's command is applied
                reader = Reader(self.registry.base_viewer(live.summary, caller), secret=True)
            return self.reads.outcome(live, reader, appended)
        return await asyncio.to_thread(self.reads.stored_outcome, live.id, caller, command_id)
