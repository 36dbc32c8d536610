"""Casual matches: create, join, decide a seat's command, let house bots move, run move clocks, show views.

Every match in play is held live in memory (``server.services.live_match.LiveMatch``): its
state is folded once and then kept up to date by the events this process appends and by those
other processes append (read by one follower per match). A command is decided against that
state with the match's ``Dealer(server_seed)`` and appended with ``expected_seq`` = the state's
version, so an out-of-date copy (another process moved first) fails its append, catches up
from the store and says ``stale_version``; the client's ``command_id`` makes a retry get the
first outcome back and append nothing. Commands on one match are decided one at a time (its
lock); commands on different matches share the store's group commit.

House bots act through the same path as people (decide, append, fan-out) under the command id
``bot-<version>``, choosing from their own seat's view with a ``random.Random`` seeded by the
match id and version, so bot play is reproducible and a repeated drive appends nothing twice.
With ``bot_think_seconds`` = 0 a bot answers inside the request that gave it the move (the
response covers the command and the bot moves that followed it); otherwise it moves after that
delay, and its events reach watchers like anyone's. The delay is fixed: how long a bot takes
tells nothing about its cards.

Move clocks (docs/SERVER.md "Move clocks"): when a decision's deadline passes, the server sends
the engine's ``TimeOut`` for it under the command id ``timeout-<version>``; two processes whose
clocks both fire append it once (the id and ``expected_seq``). At start-up :meth:`recover`
applies what ran out while the server was down, in deadline order.

Who sees what: every viewer receives the same event envelopes (hidden fields only as sealed
commitments, docs/FAIRNESS.md), each with the openings that viewer may see: a seat its own
hidden cards, anyone else nothing hidden; the director, and everyone once the match is over,
every opening. Views follow the same rule (``engine.views.view``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import logging
import random
import secrets
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

from engine import ENGINE_VERSION
from engine.bots import get_bot
from engine.commands import CreateMatch, Forfeit, JoinSeat, SeatCommand, TimeOut, parse_action, parse_seat_command
from engine.decide import decide_step
from engine.errors import CommandRefused, shown
from engine.events import Event, EventType
from engine.evolve import fold
from engine.replay import header_line, replay_line
from engine.rulesets import RULESETS, Ruleset, get_ruleset
from engine.shuffle import Dealer, commitment_of
from engine.state import INITIAL_STATE, MatchState, Phase
from engine.views import AUDITOR, SPECTATOR, Viewer, legal_commands, view
from server.schemas import MatchDetail, MatchOutcome, MatchView
from server.services.errors import Malformed, MatchLive, MatchNotFound, NotASeat, NotNow, NotOpen, PlayerNotFound
from server.services.live_match import FeedItem, LiveMatch, deadline_of, feed_items, live_view, parse_at
from server.services.players import Caller, house_bot_of, resolve_opponent
from server.store.errors import UNAVAILABLE, ConcurrencyError
from server.store.event_store import EventStore
from server.store.models import EventPublic, MatchSummaryPublic, PlayerPublic
from server.store.players import get_player
from server.store.read_models import (
    ANNULLED,
    FINISHED,
    LIVE,
    WAITING,
    MatchSummary,
    live_match_ids,
    match_summary,
    matches_of,
)
from server.store.records import AppendResult, ChainedAppend, Envelope, StoredEvent
from server.store.secrets import match_seed, match_seed_rows, new_server_seed
from server.store.snapshots import Snapshots
from server.store.streams import MATCHES_STREAM, ServerEventType, match_stream

log = logging.getLogger(__name__)

MAX_BOT_MOVES = 5000  # a safety bound per drive; a whole match takes a few hundred
# Speed: with no think delay, a match between two house bots appends this many moves per chain
# (one commit) instead of one: a 16-bot tournament took 118 s with one commit per move (bench
# tournament). Bounded so one chain holds the event loop for a few milliseconds only.
BOT_CHAIN = 64
OK = {"ok": True}  # the result stored with each processed command id
AWAITING_LOOKBACK = 64  # events read back at a time to find when the pending decision began
RETRY_SECONDS = 1.0  # a clock or a bot move that found the database away tries again after this
EARLY_MARGIN = 0.002  # uvloop rounds a timer's delay down to whole milliseconds: add two
HOLD_SECONDS = 2.0  # how often a server looks for live matches it does not hold (made by another server)


def seat_command_id(seat: int, client_id: str) -> str:
    """The stored id of a seat's command: per seat, and apart from the server's own ids.

    The server's ids (``create``, ``join-<seat>``, ``bot-<version>``, ``timeout-<version>``)
    never start with ``s0:`` or ``s1:``, so a client cannot pre-empt a bot's move, a clock or
    the other seat's retries.
    """
    return f"s{seat}:{client_id}"


def new_match_id() -> str:
    return "m_" + secrets.token_hex(8)


class MatchService:
    def __init__(
        self,
        store: EventStore,
        snapshot_every: int = 100,
        *,
        move_seconds: int = 60,
        bot_think_seconds: float = 0.0,
        finished_kept: int = 1000,
    ) -> None:
        self.store = store
        self.finished_kept = finished_kept
        self.snapshots = Snapshots(store, every=snapshot_every)
        self.move_seconds = move_seconds
        self.bot_think_seconds = bot_think_seconds
        self._players: dict[str, PlayerPublic] = {}  # a player's id, name and kind never change
        self._live: dict[str, LiveMatch] = {}
        self._loading: dict[str, asyncio.Future[LiveMatch]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()  # clocks and bot moves in flight
        self._stopping = False  # the server is stopping: no stream, clock or bot move starts any more
        # Told the id of each tournament match this process saw end (the tournament records its result).
        self.on_match_over: Callable[[str], None] | None = None

    # ------------------------------------------------------------ reading

    def summary(self, match_id: str) -> MatchSummary:
        found = match_summary(self.store.engine, match_id)
        if found is None:
            raise MatchNotFound(match_id)
        return found

    def player(self, player_id: str | None) -> PlayerPublic | None:
        """The player ``player_id`` (None: no such player); cached, as players never change."""
        if player_id is None:
            return None
        found = self._players.get(player_id)
        if found is None:
            found = get_player(self.store, player_id)
            if found is not None:
                self._players[player_id] = found
        return found

    def summary_public(self, summary: MatchSummary) -> MatchSummaryPublic:
        """docs/API.md's match summary: the seats as players."""
        return summary.public([self.player(p) for p in summary.seats])

    def live_summary(self, live: LiveMatch) -> MatchSummaryPublic:
        """The summary of a live match, from its state (what the read model will say once it has it)."""
        state, summary = live.state, live.summary
        status = summary.status
        if status in (WAITING, LIVE, FINISHED):
            status = FINISHED if state.phase is Phase.MATCH_OVER else LIVE if state.round else WAITING
        winner = None if state.winner is None else summary.seats[state.winner]
        current = dataclasses.replace(
            summary,
            status=status,
            player1=state.player1 if state.round else summary.player1,
            scores=list(state.scores),
            winner=winner,
            winner_seat=state.winner,
        )
        return self.summary_public(current)

    def matches_of(self, player: PlayerPublic) -> list[MatchSummaryPublic]:
        """Every match ``player`` has a seat in, by match id."""
        return [self.summary_public(s) for s in matches_of(self.store.engine, player.id)]

    def state_at(self, match_id: str, version: int) -> MatchState:
        events = self.store.read(match_stream(match_id), 1, to_seq=version)
        return fold((e.event() for e in events), INITIAL_STATE)

    @staticmethod
    def seat_of(summary: MatchSummary, caller: Caller) -> int | None:
        if caller.player is None:
            return None
        for seat, player_id in enumerate(summary.seats):
            if player_id == caller.player.id:
                return seat
        return None

    def base_viewer(self, summary: MatchSummary, caller: Caller) -> Viewer:
        """Who the caller is at this table while it is live: the director audits, a seat is its seat."""
        if caller.director:
            return AUDITOR
        seat = self.seat_of(summary, caller)
        return SPECTATOR if seat is None else seat

    def viewer_for(self, summary: MatchSummary, caller: Caller, state: MatchState) -> Viewer:
        if state.phase is Phase.MATCH_OVER:
            return AUDITOR
        return self.base_viewer(summary, caller)

    def _view(self, live: LiveMatch, viewer: Viewer) -> MatchView:
        return MatchView.model_validate(live_view(live.state, viewer, live.deadline, live.move_seconds))

    async def show(self, match_id: str, caller: Caller, at: int | None = None) -> MatchDetail:
        """The caller's view now, or just after event ``at`` (a director scrubbing to a dispute).

        Who the caller is comes from the match as it is now: once it is over, or for the
        director, that is the audit view, at any event; a seat sees its own view of then.
        """
        live = await self.open(match_id)
        viewer = self.viewer_for(live.summary, caller, live.state)
        if at is None or at == live.state.version:
            return MatchDetail(match=self.live_summary(live), view=self._view(live, viewer))
        if not 1 <= at <= live.state.version:
            raise Malformed(f"at must name an event of this match: 1 to {live.state.version}, not {at}")
        state = await asyncio.to_thread(self.state_at, match_id, at)
        past = live_view(state, viewer, None, live.move_seconds)
        return MatchDetail(match=self.live_summary(live), view=MatchView.model_validate(past))

    # ------------------------------------------------------------ matches held live

    async def open(self, match_id: str, *, arm: bool = True) -> LiveMatch:
        """The live copy of ``match_id`` (loaded from the store the first time); MatchNotFound if none.

        ``arm=False`` loads it without starting its clock or its bots (``recover`` starts them).
        """
        live = self._live.get(match_id)
        if live is not None:
            return live
        loading = self._loading.get(match_id)
        if loading is not None:  # another request is loading it: share its copy
            return await asyncio.shield(loading)
        future: asyncio.Future[LiveMatch] = asyncio.get_running_loop().create_future()
        self._loading[match_id] = future
        try:
            live = await asyncio.to_thread(self._load, match_id)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody else waited
            raise
        finally:
            self._loading.pop(match_id, None)
        self._live[match_id] = live
        future.set_result(live)
        if not live.closed and not self._stopping:
            live.follower = asyncio.create_task(live.follow(self.store, lambda: self._after_change(live)))
            if arm:
                self._after_change(live)
        self._forget_finished()
        return live

    def _load(self, match_id: str) -> LiveMatch:
        summary = self.summary(match_id)
        seed = match_seed(self.store, match_id)
        stream = match_stream(match_id)
        state = self.snapshots.load(stream)
        bots = {seat: bot for seat, p in enumerate(summary.seats) if (bot := self._bot_of_player_id(p))}
        return LiveMatch(summary, None if seed is None else Dealer(seed), state, self._awaiting_at(stream, state), bots)

    def _awaiting_at(self, stream: str, state: MatchState) -> datetime | None:
        """When the pending decision began: the ``at`` of the last ``awaiting`` event (None: no decision)."""
        if state.pending.seat is None:
            return None
        upto = state.version
        while upto >= 1:
            start = max(1, upto - AWAITING_LOOKBACK + 1)
            for stored in reversed(self.store.read(stream, start, to_seq=upto)):
                if stored.type == EventType.AWAITING:
                    return parse_at(stored.at)
            upto = start - 1
        return None

    def _forget_finished(self) -> None:
        """Finished matches need no live copy; keep the newest ``finished_kept`` of them for quick reads."""
        finished = [m for m, live in self._live.items() if live.closed and not live.lock.locked()]
        for match_id in finished[: max(0, len(finished) - self.finished_kept)]:
            del self._live[match_id]

    async def recover(self) -> int:
        """At start-up: hold every unfinished match live and apply, in deadline order, the clocks
        that ran out while no server was running. Returns how many timeouts were applied."""
        ids = await asyncio.to_thread(live_match_ids, self.store.engine)
        lives = [await self.open(match_id, arm=False) for match_id in ids]  # no clock fires before all are in
        now = datetime.now(UTC)
        expired = sorted(
            ((live.deadline, live.id, live) for live in lives if live.deadline is not None and live.deadline <= now),
            key=lambda entry: (entry[0], entry[1]),
        )
        applied = 0
        for _deadline, _match_id, live in expired:
            if await self.time_out(live, live.state.version):
                applied += 1
        for live in lives:
            self._after_change(live)
        return applied

    def hold_live_matches(self) -> None:
        """From now on, every :data:`HOLD_SECONDS`: hold every live match this process does not hold
        yet, so matches another server made (a tournament round it opened) get their clock and bots
        here too, and go on if that server dies. (At start-up :meth:`recover` holds those live then.)"""

        async def hold() -> None:
            while not self._stopping:
                await asyncio.sleep(HOLD_SECONDS)
                try:
                    ids = await asyncio.to_thread(live_match_ids, self.store.engine)
                    for match_id in ids:
                        if match_id not in self._live and not self._stopping:
                            await self.open(match_id)
                except UNAVAILABLE as exc:  # the database is away: look again later
                    log.warning("holding live matches: %s", exc)

        self._spawn(hold())

    async def stop(self) -> None:
        """The server is stopping: end every watcher's stream, clock, bot move and follower."""
        self.stop_watchers()
        tasks = [*self._tasks, *(live.follower for live in self._live.values() if live.follower is not None)]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    @property
    def stopping(self) -> bool:
        """The server is stopping: live streams are being ended (a socket says so as it closes)."""
        return self._stopping

    def stop_watchers(self) -> None:
        """The server starts to stop: end every open live stream now (their connections can then
        close) and arm no clock or bot move any more; :meth:`stop` ends the rest."""
        self._stopping = True
        for live in self._live.values():
            live.close()

    @property
    def bots_inline(self) -> bool:
        """With no think delay, a bot's answer is decided with the command that gives it the move."""
        return self.bot_think_seconds <= 0

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _after_change(self, live: LiveMatch) -> None:
        """The match moved: arm its clock for the new decision, and give a house bot its move."""
        if live.state.phase is Phase.MATCH_OVER and live.summary.tournament and not live.reported:
            live.reported = True
            if self.on_match_over is not None:
                self.on_match_over(live.id)
        if self._stopping or live.closed:
            return
        version = live.state.version
        if live.clock_version != version:
            if live.clock is not None:
                live.clock.cancel()
                live.clock = None
            live.clock_version = version
            deadline = live.deadline
            if deadline is not None:
                delay = max(0.0, (deadline - datetime.now(UTC)).total_seconds())
                live.clock = asyncio.get_running_loop().call_later(
                    delay, lambda: self._spawn(self.time_out(live, version))
                )
        if self._bot_move(live, live.state) is not None and (live.bot_move is None or live.bot_move.done()):
            live.bot_move = asyncio.create_task(self._bot_after_delay(live))

    # ------------------------------------------------------------ creating and joining

    async def create(
        self, caller: PlayerPublic, opponent_entry: str, ruleset_name: str | None, move_seconds: int | None = None
    ) -> MatchSummaryPublic:
        name = ruleset_name or "uno-duo"
        if name not in RULESETS:
            raise Malformed(f"unknown ruleset {shown(name)}: choose one of {', '.join(RULESETS)}")
        ruleset = get_ruleset(name)
        opponent = await asyncio.to_thread(resolve_opponent, self.store, opponent_entry)
        if opponent is None:
            raise PlayerNotFound(opponent_entry)
        if opponent.id == caller.id:
            raise Malformed("a match needs two different players")
        if opponent.kind == "bot" and house_bot_of(opponent) is None:
            raise Malformed(f"{opponent.id!r} is a bot that this server does not run")
        return await self._create(new_match_id(), [caller, opponent], ruleset, move_seconds or self.move_seconds)

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
        return await self._create(match_id, seats, ruleset, move_seconds, tournament, round_number)

    async def _create(
        self,
        match_id: str,
        seats: list[PlayerPublic],
        ruleset: Ruleset,
        move_seconds: int,
        tournament: str | None = None,
        round_number: int | None = None,
    ) -> MatchSummaryPublic:
        registered = {
            "match": match_id,
            "seats": [seats[0].id, seats[1].id],
            "tournament": tournament,
            "round": round_number,
            "ruleset": ruleset.name,
            "move_seconds": move_seconds,
        }
        await self.store.append_async(
            MATCHES_STREAM,
            [Event(ServerEventType.MATCH_REGISTERED, registered)],
            expected_seq=None,
            command_id=f"register-{match_id}",
            result=OK,
        )
        seed = new_server_seed()
        first_drafter = None if tournament is None else 0
        create = CreateMatch(ruleset, commitment_of(seed), first_drafter)
        events, _state = decide_step(INITIAL_STATE, create, Dealer(seed))
        with contextlib.suppress(ConcurrencyError):  # made before: a retry of the same match id
            await self.store.append_async(
                match_stream(match_id),
                events,
                expected_seq=0,
                command_id="create",
                result=OK,
                extra_rows=lambda at: match_seed_rows(match_id, seed, at),
                seal_seed=seed,
            )
        live = await self.open(match_id)
        async with live.lock:
            for seat in live.bots:
                if live.state.phase is Phase.WAITING and live.state.entropies[seat] is None:
                    await self._apply(live, JoinSeat(seat, ""), f"join-{seat}")
        return self.live_summary(live)

    async def forfeit(self, match_id: str, seat: int, reason: str) -> bool:
        """End ``match_id`` by ``seat``'s forfeit (a tournament's rule); False if it had ended already."""
        live = await self.open(match_id)
        async with live.lock:
            if live.dealer is None or live.state.phase in (Phase.NEW, Phase.MATCH_OVER) or live.annulled:
                return False
            try:
                appended = await self._apply(live, Forfeit(seat, reason), f"forfeit-{reason}")
            except (ConcurrencyError, CommandRefused):
                return False
            return appended is not None

    async def annul(self, match_id: str, reason: str) -> None:
        """Annul ``match_id`` (a tournament's ruling or withdrawal): it counts for nobody and, if
        it was live, stops: its clock and bots stop and every command is refused."""
        live = await self.open(match_id)
        async with live.lock:
            await self.store.append_async(
                MATCHES_STREAM,
                [Event(ServerEventType.MATCH_ANNULLED, {"match": match_id, "reason": reason})],
                expected_seq=None,
                command_id=f"annul-{match_id}",
                result=OK,
            )
            live.annulled = True
            live.summary = dataclasses.replace(live.summary, status=ANNULLED)
            if live.clock is not None:
                live.clock.cancel()
                live.clock = None
            live.close()

    async def join(self, match_id: str, caller: Caller, entropy: str) -> MatchOutcome:
        """Take the caller's seat with ``entropy``.

        A seat joins once. Joining again with the same entropy is a retry and gets the first
        join's outcome; with other entropy it is refused (``NotNow``) and nothing changes.
        """
        live = await self.open(match_id)
        seat = self._require_seat(live.summary, caller)
        command_id = f"join-{seat}"
        async with live.lock:
            state = live.state
            if state.phase is Phase.NEW or live.dealer is None:
                raise NotOpen(f"match {match_id!r} was never opened; it cannot be joined")
            if state.phase is Phase.WAITING and state.entropies[seat] is None:
                with contextlib.suppress(ConcurrencyError):  # another process took the seat: look below
                    appended = await self._apply(
                        live, JoinSeat(seat, entropy), command_id, bots_answer=self.bots_inline
                    )
                    if appended is not None:
                        return self._outcome(live, caller, appended)
            if not self._joined_with(live.state, seat, entropy):
                raise NotNow(f"seat {seat} has already joined this match with other entropy; a seat joins once")
        return await asyncio.to_thread(self._stored_outcome, match_id, caller, command_id)

    @staticmethod
    def _joined_with(state: MatchState, seat: int, entropy: str) -> bool:
        """Whether ``seat`` joined with ``entropy`` (compared in constant time: it is a secret until the end)."""
        joined = state.entropies[seat]
        return joined is not None and hmac.compare_digest(joined.encode(), entropy.encode())

    # ------------------------------------------------------------ a seat's command

    async def command(
        self, match_id: str, caller: Caller, command_id: str, expected_version: int | None, command: dict[str, Any]
    ) -> MatchOutcome:
        """Apply a seat's command; its outcome (a retry: the first outcome), as ``POST …/commands`` answers."""
        live, appended, stored_id = await self._command(match_id, caller, command_id, expected_version, command)
        if appended is not None:
            return self._outcome(live, caller, appended)
        return await asyncio.to_thread(self._stored_outcome, match_id, caller, stored_id)

    async def command_version(
        self, match_id: str, caller: Caller, command_id: str, expected_version: int | None, command: dict[str, Any]
    ) -> int:
        """:meth:`command` for the socket, whose events arrive on the feed: only the version after it."""
        live, appended, stored_id = await self._command(match_id, caller, command_id, expected_version, command)
        if appended is not None:
            return appended[-1].seq
        return await asyncio.to_thread(self._stored_version, live.stream, stored_id)

    async def _command(
        self, match_id: str, caller: Caller, command_id: str, expected_version: int | None, command: dict[str, Any]
    ) -> tuple[LiveMatch, list[StoredEvent] | None, str]:
        """Decide and append a seat's command and the bots' answers: the events appended, or None
        if its id was processed before (then the stored id, to read that first outcome back)."""
        live = await self.open(match_id)
        seat = self._require_seat(live.summary, caller)
        command_id = seat_command_id(seat, command_id)
        async with live.lock:
            try:
                if live.dealer is None:
                    raise NotOpen(f"match {match_id!r} was never opened (no seed); it cannot be played")
                if live.annulled:
                    raise NotNow(f"match {match_id!r} was annulled by the tournament director; it is not played on")
                action = parse_action(command)
                seat_command = SeatCommand(seat=seat, action=action, expected_version=expected_version)
                appended = await self._apply(live, seat_command, command_id, bots_answer=self.bots_inline)
            except (ConcurrencyError, CommandRefused):
                # A copy of this command (same id) may have been stored first, by this process
                # or another: then its outcome is the answer.
                if await asyncio.to_thread(self.store.processed, live.stream, command_id) is None:
                    raise
            else:
                if appended is not None:
                    return live, appended, command_id
        return live, None, command_id

    def _outcome(self, live: LiveMatch, caller: Caller, appended: list[StoredEvent]) -> MatchOutcome:
        """The answer to a command just applied: its events and the bots' answers, the view after."""
        viewer = self.viewer_for(live.summary, caller, live.state)
        return MatchOutcome(
            match=self.live_summary(live),
            view=self._view(live, viewer),
            events=[EventPublic.model_validate(e.for_viewer(viewer)) for e in appended],
        )

    def _stored_outcome(self, match_id: str, caller: Caller, command_id: str) -> MatchOutcome:
        """The outcome of a command run before (a retry), read back from the store."""
        stream = match_stream(match_id)
        first, last = self._stored_range(stream, command_id)
        state = self.state_at(match_id, last)
        summary = self.summary(match_id)
        viewer = self.viewer_for(summary, caller, state)
        envelopes = self.store.read(stream, first, to_seq=last) if last >= first else []
        deadline = deadline_of(state, self._awaiting_at(stream, state), summary.move_seconds)
        return MatchOutcome(
            match=self.summary_public(summary),
            view=MatchView.model_validate(live_view(state, viewer, deadline, summary.move_seconds)),
            events=[EventPublic.model_validate(e.for_viewer(viewer)) for e in envelopes],
        )

    def _stored_version(self, stream: str, command_id: str) -> int:
        """The version right after a processed command and the bot moves that answered it."""
        return self._stored_range(stream, command_id)[1]

    def _stored_range(self, stream: str, command_id: str) -> tuple[int, int]:
        """The seqs of a processed command's events and of the bot moves that answered it (first, last)."""
        info = self.store.processed(stream, command_id)
        assert info is not None
        return info.first_seq, self._bot_chain_end(stream, info.first_seq + info.count - 1)

    def _bot_chain_end(self, stream: str, last: int) -> int:
        """The seq after the bot moves that answered the command ending at ``last``."""
        while True:
            info = self.store.processed(stream, f"bot-{last}")
            if info is None or info.count == 0:
                return last
            last = info.first_seq + info.count - 1

    # ------------------------------------------------------------ the clock

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
            early = 0.0 if deadline is None else (deadline - datetime.now(UTC)).total_seconds()
            if early > 0:  # the loop's timer (another clock than the events' `at`) fired a little early: wait on
                live.clock = asyncio.get_running_loop().call_later(
                    early + EARLY_MARGIN, lambda: self._spawn(self.time_out(live, version))
                )
                return False
            try:
                appended = await self._apply(live, TimeOut(seat, version), f"timeout-{version}")
            except (ConcurrencyError, CommandRefused):
                return False  # another process applied it, or the match moved: _apply caught up
            except UNAVAILABLE as exc:  # the database is away: this clock tries again (it would never fire again)
                log.warning("clock of %s at %d: the database is unavailable (%s); trying again", live.id, version, exc)
                if not self._stopping:
                    live.clock = asyncio.get_running_loop().call_later(
                        RETRY_SECONDS, lambda: self._spawn(self.time_out(live, version))
                    )
                return False
            return appended is not None

    # ------------------------------------------------------------ the house bots

    def _bot_of_player_id(self, player_id: str | None) -> str | None:
        """The engine bot playing for ``player_id``, if it is a house bot."""
        player = self.player(player_id)
        return None if player is None else house_bot_of(player)

    @staticmethod
    def _bot_move(live: LiveMatch, state: MatchState) -> tuple[int, dict[str, Any]] | None:
        """The house bot's next command on ``state``, if one has something to decide (its turn, or a UNO window)."""
        if not live.bots or live.dealer is None or state.phase in (Phase.NEW, Phase.WAITING, Phase.MATCH_OVER):
            return None
        if state.pending.seat not in live.bots and not any(state.uno_open):
            return None  # a bot may act only on its own decision or in a UNO window (D14): nothing to look up
        movers = [s for s in live.bots if legal_commands(state, s)]
        if not movers:
            return None
        pending = state.pending.seat
        seat = pending if pending in movers else movers[0]
        rng = random.Random(f"{live.id}:{state.version}")
        return seat, get_bot(live.bots[seat]).choose(view(state, seat), rng)

    async def _bot_step(self, live: LiveMatch) -> None:
        """One house bot move, through the same path as a person's (the lock is held)."""
        move = self._bot_move(live, live.state)
        if move is None:
            return
        seat, choice = move
        chain = BOT_CHAIN if self.bots_inline and len(live.bots) == 2 else 0
        try:
            appended = await self._apply(
                live,
                parse_seat_command(seat, choice),
                f"bot-{live.state.version}",
                bots_answer=chain > 0,
                max_moves=chain,
            )
        except ConcurrencyError:
            return  # another process moved first; _apply caught up and the next look decides again
        except CommandRefused as refusal:
            self._bot_refused(live, seat, choice, refusal)
            return
        if appended is None:  # made before by another process: take its events
            await self._catch_up(live)

    @staticmethod
    def _bot_refused(live: LiveMatch, seat: int, choice: dict[str, Any], refusal: CommandRefused) -> None:
        """A bot bug: the match is left as it is, and the log says so."""
        log.error("house bot %s in %s sent %r: %s", live.bots[seat], live.id, choice, refusal.message)

    async def _bot_after_delay(self, live: LiveMatch) -> None:
        """A house bot's move after the think delay, through the same path as a person's."""
        await asyncio.sleep(self.bot_think_seconds)
        async with live.lock:
            if live.annulled:
                return
            try:
                await self._bot_step(live)
            except UNAVAILABLE as exc:  # the database is away: move again shortly (nothing else would ask it to)
                log.warning("house bot in %s: the database is unavailable (%s); trying again", live.id, exc)
                unavailable = True
            else:
                unavailable = False
        if unavailable:
            await asyncio.sleep(RETRY_SECONDS)
        live.bot_move = None
        self._after_change(live)

    # ------------------------------------------------------------ deciding and appending

    async def _apply(
        self,
        live: LiveMatch,
        command: JoinSeat | SeatCommand | TimeOut | Forfeit,
        command_id: str,
        *,
        bots_answer: bool = False,
        max_moves: int = MAX_BOT_MOVES,
    ) -> list[StoredEvent] | None:
        """Decide ``command`` on the live state and append its events (the match's lock is held).

        With ``bots_answer``, the house bot moves that follow are decided too, each on the state
        the one before leads to, and appended in the same chain (``append_chain_async``: each
        only if the one before it was, usually in one commit). Returns the stored events, or
        None if ``command_id`` was already processed (nothing appended). Raises CommandRefused
        (nothing appended) or ConcurrencyError (another process moved the match first; the live
        copy has caught up).
        """
        dealer = live.dealer
        assert dealer is not None
        state = live.state
        events, after = decide_step(state, command, dealer)
        steps = [ChainedAppend(events, state.version, command_id, OK, dealer.server_seed)]
        states = [after]
        while bots_answer and len(steps) <= max_moves:
            move = self._bot_move(live, states[-1])
            if move is None:
                break
            seat, choice = move
            before = states[-1]
            try:
                events, after = decide_step(before, parse_seat_command(seat, choice), dealer)
            except CommandRefused as refusal:
                self._bot_refused(live, seat, choice, refusal)
                break
            steps.append(ChainedAppend(events, before.version, f"bot-{before.version}", OK, dealer.server_seed))
            states.append(after)
        live.appending_to = states[-1].version
        try:
            outcomes = await self.store.append_chain_async(live.stream, steps)
        finally:
            live.appending_to = 0
        first = outcomes[0]
        if isinstance(first, ConcurrencyError):
            await self._catch_up(live)
            raise first
        if not isinstance(first, AppendResult):
            raise first
        if first.duplicate:
            # Stored before, maybe by another process (a clock both ran): take what it appended. Its
            # notification may have come while this append was in flight, and been skipped then.
            await self._catch_up(live)
            return None
        appended: list[StoredEvent] = []
        for outcome, after in zip(outcomes, states, strict=True):
            if not isinstance(outcome, AppendResult) or outcome.duplicate:
                await self._catch_up(live)  # a bot move lost to another process: take what it did
                break
            stored = [StoredEvent.from_append(e, o) for e, o in zip(outcome.events, outcome.openings, strict=True)]
            live.advance(after, stored)
            if self.snapshots.due(outcome):
                await asyncio.to_thread(self.snapshots.after_append, live.stream, after, outcome)
            appended += stored
        self._after_change(live)
        return appended

    async def _catch_up(self, live: LiveMatch) -> None:
        """Read what other processes appended beyond the live copy, and take it."""
        events = await asyncio.to_thread(self.store.read, live.stream, live.feed_version + 1)
        live.publish(events)
        self._after_change(live)

    def _require_seat(self, summary: MatchSummary, caller: Caller) -> int:
        seat = self.seat_of(summary, caller)
        if seat is None:
            raise NotASeat(summary.id)
        return seat

    # ------------------------------------------------------------ events and replays

    async def events_since(self, match_id: str, caller: Caller, since: int) -> list[Envelope]:
        """The events after ``since`` as ``caller`` may see them (who that is, from the live copy)."""
        live = await self.open(match_id)
        viewer = self.viewer_for(live.summary, caller, live.state)

        def read() -> list[Envelope]:
            return [e.for_viewer(viewer) for e in self.store.iter_stream(live.stream, since + 1)]

        return await asyncio.to_thread(read)

    async def watch(self, match_id: str, caller: Caller, since: int) -> AsyncIterator[FeedItem]:
        """The match's events after ``since``, live, once each and in order, until its last event.

        Raises ``SlowWatcher`` if the watcher cannot keep up (it may resume with ``since``).
        """
        live = await self.open(match_id)

        async def history(after: int, upto: int) -> list[FeedItem]:
            return await asyncio.to_thread(self._history, live, after, upto)

        async for item in live.items(since, history):
            yield item

    def _history(self, live: LiveMatch, after: int, upto: int) -> list[FeedItem]:
        """The items from seq ``after`` + 1 to ``upto``, read from the store and folded from the start."""
        events = self.store.read(live.stream, 1, to_seq=upto)
        items, _state, _at = feed_items(events, INITIAL_STATE, None, live.move_seconds)
        return [item for item in items if item.seq > after]

    async def follow(self, match_id: str, caller: Caller, since: int) -> AsyncIterator[bytes]:
        """NDJSON lines of the events after ``since``, live, until the match's last event.

        Ends at once when the match is finished and ``since`` is at or past its last event, and
        when the server stops; a cancelled stream ends quietly.
        """
        live = await self.open(match_id)
        base = self.base_viewer(live.summary, caller)
        try:
            async for item in self.watch(match_id, caller, since):
                yield item.line(base)
        except asyncio.CancelledError:  # the server is stopping or the client went away: end the stream
            return

    def replay(self, match_id: str) -> str:
        summary = self.summary(match_id)
        state = self.snapshots.load(match_stream(match_id))
        if state.phase is not Phase.MATCH_OVER:
            raise MatchLive()
        players = [p or "" for p in summary.seats]
        lines = [header_line(match_id, state.ruleset.name, players, ENGINE_VERSION)]
        for stored in self.store.iter_stream(match_stream(match_id)):
            lines.append(replay_line(stored.envelope(), stored.openings))
        return "\n".join(lines) + "\n"
