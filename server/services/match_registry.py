"""The matches this process holds live in memory, and how they are found, loaded and let go.

Every match being played is held live (``server.services.live_match.LiveMatch``): its state
is folded once (from the newest snapshot) and then kept up to date by the events this process
appends and by those other processes append (read by one follower per held match). Loading is
shared: two requests that open the same match at once get one copy.

A match nobody has started yet (or one annulled) is not held: nothing runs for it — no
follower, no clock, no poll. Its copy is idle, loaded on demand and brought up to date from the
store each time it is opened (a bounded number are kept); the join that starts it holds it live
(:meth:`MatchRegistry.settle`), and so does a watcher while it watches. A thousand unjoined
invitations cost nothing while nobody touches them.

Finished matches need no live copy; the newest ``finished_kept`` of them are kept for quick
reads.

With several servers on one PostgreSQL database (``server.services.ownership``) a match being
played is held only by its owner: the server that started it claims it, and another server
keeps at most an idle copy for reads (or a held one while a watcher of its own reads it; the
routes forward sockets to the owner, so that is rare) and never arms its clock or bots. Orphans
(a dead owner's matches) are claimed and held by the survivors. With one process (SQLite)
every :data:`HOLD_SECONDS` the process looks for live matches it does not hold and holds them.

The registry also answers the plain look-ups every other part needs: a match's summary (the
read model), a player (cached: players never change), and who a caller is at a table — with
:meth:`MatchRegistry.reader`, the one gate every read of a match passes (a duplicate round's
match, until the round is revealed, is read by its seats and the director only).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.game.duplicate import dealer_of_secret
from engine.game.events import EventType
from engine.game.state import MatchState, Phase
from engine.protocol.views import AUDITOR, SPECTATOR, Viewer
from server.domain_errors import MatchNotFound, NotASeat, NotNow, Withheld
from server.services.clock import Clock, sleep
from server.services.live_match import LiveMatch, parse_at
from server.services.ownership import Ownership, SoleOwnership
from server.services.players import Caller, house_bot_of
from server.services.secrecy import RoundSecrecy
from server.store.errors import UNAVAILABLE
from server.store.event_store import EventStore
from server.store.models import MatchSummaryPublic, PlayerPublic
from server.store.players import get_player
from server.store.read_models import ANNULLED, MatchSummary, live_match_ids, match_summaries, match_summary
from server.store.secrets import match_seed
from server.store.snapshots import Snapshots
from server.store.streams import match_stream
from server.tournaments.model import fold, tournament_stream

log = logging.getLogger(__name__)

AWAITING_LOOKBACK = 64  # events read back at a time to find when the pending decision began
HOLD_SECONDS = 2.0  # how often a server looks for live matches it does not hold (made by another server)
STOP_SECONDS = 5.0  # how long a stop waits for background work to end
IDLE_KEPT = 256  # copies of matches not held live (not started, annulled) kept for the next request
PLAYERS_KEPT = 4096  # players kept for match summaries (a few hundred bytes each); the least recently used go

Changed = Callable[[LiveMatch], None]


@dataclass(frozen=True, slots=True)
class Reader:
    """Who may read a match, as :meth:`MatchRegistry.reader` decided: ``viewer`` is who they are at
    the table while it is played (the director audits, a seat is its seat, anyone else a
    spectator); ``secret``: the match's round is a duplicate round not revealed yet."""

    viewer: Viewer
    secret: bool

    def at(self, state: MatchState) -> Viewer:
        """Who they are at ``state``: once the match is over everyone audits it, but a match of a
        secret round shows its seats no more at its end than it did during play."""
        if state.phase is Phase.MATCH_OVER and not self.secret:
            return AUDITOR
        return self.viewer


class MatchAnnulled(NotNow):
    """A command or a join on an annulled match (409), naming the match that replays it, if any."""

    def __init__(self, match_id: str, replaced_by: str | None) -> None:
        if replaced_by is None:
            message = (
                f"match {match_id!r} was annulled (by the tournament director, or it expired before it started); "
                "it is not played on"
            )
        else:
            message = (
                f"match {match_id!r} was annulled by the director's replay ruling: the pairing is played again "
                f"as match {replaced_by!r}"
            )
        super().__init__(message)
        self.replaced_by = replaced_by


def replacement_in(store: EventStore, tournament_id: str, match_id: str) -> str | None:
    """The match of ``tournament_id`` that replays ``match_id`` (a replay ruling), if any; read from
    the tournament's stream (blocking)."""
    events = store.read(tournament_stream(tournament_id))
    return fold(tournament_id, ((e.type, e.data, e.at) for e in events)).replaced_by(match_id) if events else None


def needs_holding(live: LiveMatch) -> bool:
    """Whether the match needs this process: it is being played (seats joined, not over, not annulled)."""
    return not live.closed and not live.annulled and live.state.phase not in (Phase.NEW, Phase.WAITING)


class MatchRegistry:
    """This process's live copies of matches (``live``), loaded on demand, and the look-ups around them.

    ``changed(live)`` is called whenever a held match moved (a new copy, or what another process
    appended): the service arms that match's clock and bots from it.
    """

    def __init__(
        self,
        store: EventStore,
        snapshots: Snapshots,
        clock: Clock,
        *,
        finished_kept: int,
        changed: Changed,
        ownership: Ownership | None = None,
    ) -> None:
        self.store = store
        self.ownership: Ownership = ownership or SoleOwnership()
        self.snapshots = snapshots
        self.clock = clock
        self.finished_kept = finished_kept
        self._changed = changed
        self._players: OrderedDict[str, PlayerPublic] = OrderedDict()  # id, name and kind never change
        self.live: dict[str, LiveMatch] = {}  # held: followed, clocked (and the newest finished ones)
        self._idle: OrderedDict[str, LiveMatch] = OrderedDict()  # not held: loaded on demand
        self._watchers: dict[str, int] = {}  # match id -> watchers reading it now
        self._loading: dict[str, asyncio.Future[LiveMatch]] = {}
        self._claiming: dict[str, asyncio.Task[None]] = {}  # match id -> its claim after a join here
        self.tasks: set[asyncio.Task[Any]] = set()  # clocks, bot moves and sweeps in flight
        self.stopping = False  # the server is stopping: no stream, clock or bot move starts any more
        self.secrecy = RoundSecrecy(store)  # which rounds of duplicate tournaments are still secret

    # ------------------------------------------------------------ look-ups

    def summary(self, match_id: str) -> MatchSummary:
        found = match_summary(self.store.engine, match_id)
        if found is None:
            raise MatchNotFound(match_id)
        return found

    def summaries(self, match_ids: Sequence[str]) -> dict[str, MatchSummary]:
        """The summaries of those of ``match_ids`` that exist, by id, in one read (blocking)."""
        return match_summaries(self.store.engine, match_ids)

    def player(self, player_id: str | None) -> PlayerPublic | None:
        """The player ``player_id`` (None: no such player); cached, as players never change."""
        if player_id is None:
            return None
        found = self._players.get(player_id)
        if found is not None:
            self._players.move_to_end(player_id)
            return found
        found = get_player(self.store, player_id)
        if found is not None:
            self._players[player_id] = found
            while len(self._players) > PLAYERS_KEPT:
                self._players.popitem(last=False)
        return found

    def summary_public(self, summary: MatchSummary) -> MatchSummaryPublic:
        """docs/API.md's match summary: the seats as players."""
        return summary.public([self.player(p) for p in summary.seats])

    def replacement(self, live: LiveMatch) -> str | None:
        """The match that replays ``live`` after a replay ruling (None: not annulled, or not replayed),
        remembered on the copy once known (blocking: call in a thread)."""
        tournament = live.summary.tournament
        if live.replaced_by is None and live.annulled and tournament is not None:
            live.replaced_by = replacement_in(self.store, tournament, live.id)
        return live.replaced_by

    def annulled(self, live: LiveMatch, replaced_by: str | None) -> None:
        """``live``'s match was annulled (its ``match_annulled`` appended, here or by another process;
        ``replaced_by``: the match a replay ruling plays instead): the copy says so and stops, so its
        clock, bots and commands stop and its watchers are told."""
        live.annulled = True
        live.replaced_by = replaced_by or live.replaced_by
        live.summary = dataclasses.replace(live.summary, status=ANNULLED)
        live.close()
        self._changed(live)

    def annulled_elsewhere(self, match_id: str, replaced_by: str | None) -> None:
        """Another process annulled ``match_id``: the copy here (if any) is annulled and closed too."""
        live = self.live.get(match_id) or self._idle.get(match_id)
        if live is not None and not live.annulled:
            self.annulled(live, replaced_by)

    async def refuse_if_annulled(self, live: LiveMatch) -> None:
        """Raise :class:`MatchAnnulled` (naming the replay, if any) for a command on an annulled match."""
        if live.annulled:
            raise MatchAnnulled(live.id, await asyncio.to_thread(self.replacement, live))

    def bot_of_player_id(self, player_id: str | None) -> str | None:
        """The engine bot playing for ``player_id``, if it is a house bot."""
        player = self.player(player_id)
        return None if player is None else house_bot_of(player)

    @staticmethod
    def seat_of(summary: MatchSummary, caller: Caller) -> int | None:
        if caller.player is None:
            return None
        for seat, player_id in enumerate(summary.seats):
            if player_id == caller.player.id:
                return seat
        return None

    def require_seat(self, summary: MatchSummary, caller: Caller) -> int:
        seat = self.seat_of(summary, caller)
        if seat is None:
            raise NotASeat(summary.id)
        return seat

    def base_viewer(self, summary: MatchSummary, caller: Caller) -> Viewer:
        """Who the caller is at this table while it is live: the director audits, a seat is its seat."""
        if caller.director:
            return AUDITOR
        seat = self.seat_of(summary, caller)
        return SPECTATOR if seat is None else seat

    # ------------------------------------------------------------ the one gate of every read

    def reader(self, summary: MatchSummary, caller: Caller) -> Reader:
        """May ``caller`` read this match now, and as whom: the one decision behind every read of a
        match (views at any event, events, follow streams, sockets, replays). A match of a duplicate
        round not revealed yet is read by its seats and the director only: anyone else (a spectator,
        another entrant, nobody) is refused with :class:`Withheld`, whatever the match's state
        (docs/TOURNAMENTS.md "Duplicate rounds"). Blocking: it may read the tournament's new events."""
        viewer = self.base_viewer(summary, caller)
        secret = self.secrecy.secret(summary.tournament, summary.round)
        if secret and viewer == SPECTATOR:
            raise Withheld(summary.id, summary.round or 0)
        return Reader(viewer, secret)

    async def gate(self, summary: MatchSummary, caller: Caller) -> Reader:
        """:meth:`reader` from the event loop: answered at once where the round is known public (every
        casual match, every round of a tournament without duplicate rounds, a revealed round), else
        in a thread."""
        if self.secrecy.known_public(summary.tournament, summary.round):
            return Reader(self.base_viewer(summary, caller), False)
        return await asyncio.to_thread(self.reader, summary, caller)

    async def may_read(self, match_id: str, caller: Caller) -> MatchSummary:
        """Refuse, before a stream or a socket starts (or is forwarded to the match's owner), a
        caller who may not read the match: MatchNotFound, or Withheld (:meth:`reader`). The
        match's summary, for one who may."""
        summary = await asyncio.to_thread(self.summary, match_id)
        await self.gate(summary, caller)
        return summary

    def secret(self, summary: MatchSummary) -> bool:
        """Whether this match's round is a duplicate round not revealed yet (blocking)."""
        return self.secrecy.secret(summary.tournament, summary.round)

    # ------------------------------------------------------------ live copies

    async def open(self, match_id: str, *, arm: bool = True, hold: bool = False) -> LiveMatch:
        """The copy of ``match_id`` (loaded from the store the first time); MatchNotFound if none.

        A match that needs this process (it is being played: its clock and bots, what other
        processes append) is held live with a follower; ``arm=False`` holds it without starting
        its clock or its bots (``recover`` starts them). A match that has not started (or was
        annulled) is not held: its copy is idle (no follower, no clock, no poll), kept among the
        last :data:`IDLE_KEPT` read and brought up to date from the store each time it is opened.
        ``hold=True`` holds it all the same (a watcher waits for its events).
        """
        live = self.live.get(match_id)
        if live is not None:
            return live
        idle = self._idle.get(match_id)
        if idle is not None:
            self._idle.move_to_end(match_id)
            await self._refresh(idle)
            live = idle
        else:
            live = await self._load_shared(match_id)
        if match_id in self.live:  # held meanwhile (another request took it live)
            return self.live[match_id]
        if hold or live.closed:  # a finished one joins the finished kept for reads
            self._hold(live, arm=arm)
        elif needs_holding(live) and await self.ownership.claim(match_id):
            if match_id in self.live:  # held while the claim was on its way
                return self.live[match_id]
            self._hold(live, arm=arm)
        elif match_id not in self._idle:
            self._keep_idle(live)  # not started, annulled, or played on another server
        return live

    async def _load_shared(self, match_id: str) -> LiveMatch:
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
        future.set_result(live)
        return live

    def _hold(self, live: LiveMatch, *, arm: bool) -> None:
        """Hold ``live`` live: a follower reads what other processes append; armed unless ``arm=False``."""
        self._idle.pop(live.id, None)
        self.live[live.id] = live
        if not live.closed and not self.stopping and live.follower is None:
            live.follower = asyncio.create_task(live.follow(self.store, lambda: self._changed(live)))
            if arm:
                self._changed(live)
        self._forget_finished()

    def _keep_idle(self, live: LiveMatch) -> None:
        self._idle[live.id] = live
        while len(self._idle) > IDLE_KEPT:
            oldest = next(iter(self._idle))
            if self._idle[oldest].lock.locked():
                self._idle.move_to_end(oldest)
                break
            del self._idle[oldest]

    async def _refresh(self, idle: LiveMatch) -> None:
        """Bring an idle copy up to date: what any process appended to it, and its summary (annulled?)."""
        head = await asyncio.to_thread(self.store.head, idle.stream)
        if head > idle.feed_version:
            await self.catch_up(idle)
        summary = await asyncio.to_thread(self.summary, idle.id)
        if summary.status == ANNULLED and not idle.annulled:
            idle.annulled = True
            idle.summary = dataclasses.replace(idle.summary, status=ANNULLED)

    def settle(self, live: LiveMatch) -> None:
        """``live`` moved: an idle copy that now needs this process (its match started) is held live.

        If another copy of the match is held already (two requests raced), that one reads what this
        one appended. With leases, a match started here is claimed first (and armed once it is
        this server's), also when a watcher already holds it."""
        if not needs_holding(live):
            return
        held = self.live.get(live.id)
        if held is not None and held is not live:
            self._idle.pop(live.id, None)
            self.spawn(self.catch_up(held))
            return
        if self.ownership.owns(live.id):
            if held is None:
                self._hold(live, arm=False)
        elif live.id not in self._claiming:  # the join that started it was made here: claim it
            task = asyncio.create_task(self._claim_and_hold(live))
            self._claiming[live.id] = task
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _claim_and_hold(self, live: LiveMatch) -> None:
        try:
            try:
                claimed = await self.ownership.claim(live.id)
            except UNAVAILABLE as exc:  # nobody's yet: an orphan, which a server's next beat claims
                log.warning(
                    "match %s: not claimed, the database is unavailable (%s); left to the next beat", live.id, exc
                )
                return
            if not claimed or self.stopping:
                return
            held = self.live.get(live.id)
            if held is None:
                self._hold(live, arm=True)
            elif not held.closed:
                self._changed(held)  # held for a watcher until now: arm it
        finally:
            self._claiming.pop(live.id, None)

    async def settled(self, match_id: str) -> None:
        """Wait until a claim of ``match_id`` started by :meth:`settle` is over (the join that
        started the match answers once this server holds it, or knows another one does)."""
        claiming = self._claiming.get(match_id)
        if claiming is not None:
            await asyncio.shield(claiming)

    def let_go(self, match_id: str) -> LiveMatch | None:
        """Another server owns ``match_id`` now: the copy here stops being held (unless a watcher of
        this server reads it) and is returned, so the caller stops its clock and bots."""
        live = self.live.get(match_id)
        if live is not None and not live.closed and match_id not in self._watchers:
            self._release(live)
        return live

    @contextlib.contextmanager
    def watched(self, live: LiveMatch) -> Iterator[None]:
        """While a watcher reads ``live``: it is held (its events reach the watcher); an idle match goes
        back to idle when its last watcher leaves."""
        self._watchers[live.id] = self._watchers.get(live.id, 0) + 1
        try:
            yield
        finally:
            left = self._watchers[live.id] - 1
            if left:
                self._watchers[live.id] = left
            else:
                del self._watchers[live.id]
                unneeded = not needs_holding(live) or not self.ownership.owns(live.id)
                if self.live.get(live.id) is live and not live.closed and unneeded:
                    self._release(live)

    def _release(self, live: LiveMatch) -> None:
        del self.live[live.id]
        if live.follower is not None:
            live.follower.cancel()
            live.follower = None
        self._keep_idle(live)

    def idle(self) -> int:
        """How many idle copies are kept (at most :data:`IDLE_KEPT`)."""
        return len(self._idle)

    def _load(self, match_id: str) -> LiveMatch:
        summary = self.summary(match_id)
        seed = match_seed(self.store, match_id)
        stream = match_stream(match_id)
        state = self.snapshots.load(stream)
        bots = {seat: bot for seat, p in enumerate(summary.seats) if (bot := self.bot_of_player_id(p))}
        dealer = None if seed is None else dealer_of_secret(seed, match_id, state.commitment)  # a duplicate's: its deal
        history = lambda: [e.event() for e in self.store.read(stream, 1, to_seq=state.version)]  # noqa: E731
        return LiveMatch(summary, dealer, state, self.awaiting_at(stream, state), bots, history)

    def awaiting_at(self, stream: str, state: MatchState) -> datetime | None:
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
        finished = [m for m, live in self.live.items() if live.closed and not live.lock.locked()]
        for match_id in finished[: max(0, len(finished) - self.finished_kept)]:
            del self.live[match_id]

    async def catch_up(self, live: LiveMatch) -> None:
        """Read what other processes appended beyond the live copy, and take it."""
        events = await asyncio.to_thread(self.store.read, live.stream, live.feed_version + 1)
        live.publish(events)
        self._changed(live)

    async def open_all_live(self) -> list[LiveMatch]:
        """Every match being played, held live (not armed: the caller arms them)."""
        ids = await asyncio.to_thread(live_match_ids, self.store.engine)
        return [await self.open(match_id, arm=False) for match_id in ids]

    def hold_live_matches(self) -> None:
        """One process (:class:`SoleOwnership`), from now on, every :data:`HOLD_SECONDS`: hold every
        live match this process does not hold yet. (At start-up ``recover`` holds those live then.)"""

        async def hold() -> None:
            while not self.stopping:
                await sleep(self.clock, HOLD_SECONDS)
                try:
                    ids = await asyncio.to_thread(live_match_ids, self.store.engine)
                    for match_id in ids:
                        if match_id not in self.live and not self.stopping:
                            await self.open(match_id)
                except UNAVAILABLE as exc:  # the database is away: look again later
                    log.warning("holding live matches: %s", exc)

        self.spawn(hold())

    # ------------------------------------------------------------ background work and stopping

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def stop_watchers(self) -> None:
        """The server starts to stop: end every open live stream now (their connections can then
        close) and arm no clock or bot move any more; :meth:`stop` ends the rest."""
        self.stopping = True
        for live in self.live.values():
            live.close()

    async def stop(self) -> None:
        """The server is stopping: end every watcher's stream, clock, bot move and follower.

        The store's follows are ended as well as cancelled: a follower cancelled while it waits
        for PostgreSQL's LISTEN to start can lose the cancellation (``asyncio.wait_for`` on 3.11)
        and would otherwise run on; and the wait for them all is bounded, so a stop never hangs."""
        self.stop_watchers()
        self.store.end_follows()
        tasks = [*self.tasks, *(live.follower for live in self.live.values() if live.follower is not None)]
        for task in tasks:
            task.cancel()
        if tasks:
            _done, left = await asyncio.wait(tasks, timeout=STOP_SECONDS)
            for task in left:
                log.warning("stopping: %s did not end within %.0f s; left behind", task.get_name(), STOP_SECONDS)
        for task in tasks:
            if task.done() and not task.cancelled():
                task.exception()  # retrieved: nothing to report at a stop
