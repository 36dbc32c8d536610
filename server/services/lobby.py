"""The lobby, live (``WS /api/me/ws``, docs/SERVER.md "The lobby socket"): what concerns a player, as it happens.

Every message is derived from events appended to the store, by whichever server process
appended them, so two servers on one PostgreSQL database tell a player the same things: this
process follows (``EventStore.follow``, woken by LISTEN/NOTIFY on PostgreSQL) the ``matches``
stream, every tournament that has not finished, and the streams of the matches a connected
player is seated in, and turns what it reads into messages:

- ``pairing`` ``{tournament, round, match, join_deadline, opponent, white, seats, label}``: a round opened a
  match for the player (``round_opened``), or a replay ruling made a new one (``match_replayed``);
- ``match`` ``{match, status, tournament, round, replaced_by}``: one of the player's matches was
  made (``waiting``, a casual invitation), started (``live``), ended (``finished``) or was
  annulled (``annulled``, with ``replaced_by`` when a replay ruling plays it again);
- ``ruling`` ``{dispute, tournament, match, seq, decision, note, rule}``: the director ruled on
  a dispute of a match the player is seated in (they raised it, or it is about their match);
- ``tournament`` ``{tournament, name, status}``: a tournament the player is entered in started
  (``running``) or finished.

Nothing hidden is in any of them: ids, statuses, times and the director's ruling note.

A socket opened with ``?lobby=1`` also gets ``lobby`` ``{version, lobby}``: everything the lobby
draws for the player (``server.services.lobby_state.LobbyState``), right after ``state`` and
again whenever it changed. Any event that could change a line marks the lobbies dirty (a
tournament's events, the ``matches`` stream, the followed matches' joins, hands, forfeits and
ends, a tournament stream this process has not seen: ``LocalNotifier.on_prefix``); at most
:data:`COALESCE` seconds later each such player's state is built once and sent to their sockets
only if it differs from the last one sent (``version`` counts the states sent on that socket).
The live matches a state shows are followed while they are live, so their scores stay current.

Bounds: at most :data:`SOCKETS_PER_PLAYER` sockets per player (a new one closes the oldest,
4409); each socket's queue holds at most :data:`QUEUED` messages (a reader that falls further
behind is dropped, 1013, and reconnects to a fresh ``state``); a player's entries and the
followers of their matches go when their last socket does. The ``matches`` stream and the
tournaments are followed from the server's start, whoever is connected (one follower each):
the ``matches`` follower also stops this process's copy of a match that another process
annulled (``MatchRegistry.annulled_elsewhere``), so its table sockets end and its commands are
refused here too.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from engine.game.events import EventType
from engine.protocol.socket_protocol import Close, MatchMessage, PairingMessage, RulingMessage, TournamentMessage
from server.services.live_match import parse_at
from server.services.lobby_state import LobbyReader, me_state
from server.services.matches import MatchService
from server.services.tournament_streams import TournamentStreams
from server.services.tournaments import TournamentService
from server.store.errors import UNAVAILABLE
from server.store.event_store import EventStore
from server.store.models import PlayerPublic
from server.store.read_models import ANNULLED, FINISHED, LIVE, WAITING
from server.store.records import StoredEvent
from server.store.server_events import MatchAnnulled, MatchRegistered
from server.store.streams import MATCHES_STREAM, ServerEventType, match_stream
from server.store.values import format_at
from server.tournaments.match_labels import slot_label
from server.tournaments.model import (
    FINISHED as TOURNAMENT_FINISHED,
)
from server.tournaments.model import (
    DisputeRuled,
    MatchReplayed,
    PlayerWithdrew,
    ResultRecorded,
    RoundOpened,
    Tournament,
    TournamentEvent,
    TournamentFinished,
    TournamentStarted,
    evolve,
    parse_event,
    tournament_stream,
)

log = logging.getLogger(__name__)

SOCKETS_PER_PLAYER: Final = 4
QUEUED: Final = 256
STOP_SECONDS: Final = 5.0  # how long a stop waits for the followers to end
COALESCE: Final = 0.2  # seconds: events closer than this make one lobby state
# A followed match's events that change a lobby line (a join, a hand's score, a forfeit, the end).
CHANGES_A_LINE: Final = frozenset(
    {
        EventType.SEAT_JOINED,
        EventType.ROUND_STARTED,
        EventType.ROUND_ENDED,
        EventType.MATCH_FORFEITED,
        EventType.MATCH_ENDED,
    }
)

__all__ = ["Lobby", "LobbySocket", "me_state"]

Message = Mapping[str, Any]  # one of engine/protocol/socket_protocol.py's lobby messages


@dataclass(frozen=True)
class Closing:
    """Put in a socket's queue to end it: the close code and reason the route sends."""

    code: int
    reason: str


@dataclass(eq=False)
class LobbySocket:
    """One connected lobby: its player and its queue (messages, then at most one :class:`Closing`)."""

    player: str
    queue: asyncio.Queue[Message | Closing] = field(default_factory=asyncio.Queue)
    closed: bool = False
    wants_state: bool = False  # opened with ?lobby=1: sent each new lobby state
    last: dict[str, Any] | None = None  # the lobby state last sent
    version: int = 0  # lobby states sent on this socket

    def put(self, message: Message, limit: int) -> bool:
        """Queue ``message``; False (and the socket ends) if the reader is ``limit`` behind."""
        if self.closed:
            return True
        if self.queue.qsize() >= limit:
            self.end(Close.TRY_AGAIN, "you fell too far behind: reconnect for a fresh state")
            return False
        self.queue.put_nowait(message)
        return True

    def end(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(Closing(code, reason))


@dataclass(eq=False)
class Tracked:
    """A match the lobby follows because a connected player is seated in it."""

    seats: tuple[str | None, ...]
    tournament: str | None
    round: int | None
    task: asyncio.Task[None] | None = None


class Lobby:
    """This process's lobby sockets and the followers that feed them."""

    def __init__(
        self,
        store: EventStore,
        matches: MatchService,
        tournaments: TournamentService,
        *,
        sockets_per_player: int = SOCKETS_PER_PLAYER,
        queued: int = QUEUED,
    ) -> None:
        self.store = store
        self.registry = matches.registry
        self.reads = matches.reads
        self.tournaments = tournaments
        self.sockets_per_player = sockets_per_player
        self.queued = queued
        self.sockets: dict[str, list[LobbySocket]] = {}  # player id -> their sockets, oldest first
        self.tracked: dict[str, Tracked] = {}  # match id -> the match followed for its seats
        self.followed: dict[str, Tournament] = {}  # tournament id -> its fold, kept up to date
        self._tasks: set[asyncio.Task[None]] = set()
        self._start: asyncio.Task[None] | None = None
        self.stopping = False
        self.reader = LobbyReader(store, matches, tournaments)
        self.people: dict[str, PlayerPublic] = {}  # player id -> the player, while they have a socket
        self.seen: set[str] = set()  # tournaments this process knows of (followed, or finished)
        self._flush: asyncio.Task[None] | None = None
        self._building = asyncio.Lock()  # one build at a time: an older state never overtakes a newer
        self.new_tournaments = TournamentStreams(store, self._found, lambda t: t in self.seen)

    # ------------------------------------------------------------ sockets

    async def connect(self, player: PlayerPublic, wants_state: bool = False) -> tuple[LobbySocket, Message]:
        """A new socket of ``player`` and its ``state`` message: the socket is registered before the
        state is read, so that whatever happens after that read reaches it (what happened before
        is in the state); the player's waiting and live matches in it are followed from now on.
        ``wants_state``: its first ``lobby`` message is queued now (then each change)."""
        await self._started()
        socket = LobbySocket(player.id, wants_state=wants_state)
        self.people[player.id] = player
        mine = self.sockets.setdefault(player.id, [])
        while len(mine) >= self.sockets_per_player:
            mine.pop(0).end(
                Close.REPLACED,
                f"too_many_open: a newer lobby socket of this player took this one's place ({self.sockets_per_player} "
                "at most); do not reconnect by itself",
            )
        mine.append(socket)
        try:
            state = await me_state(self.reads, self.tournaments, player)
            for summary in state.matches:
                if summary.status in (WAITING, LIVE):
                    seats = tuple(p.id if p is not None else None for p in summary.seats)
                    head = await asyncio.to_thread(self.store.head, match_stream(summary.id))
                    self._track(summary.id, Tracked(seats, summary.tournament, summary.round), head)
            if wants_state:
                async with self._building:
                    await self._send_state(player, [socket])
        except BaseException:
            self.disconnect(socket)
            raise
        return socket, {"type": "state", **state.model_dump(mode="json")}

    def disconnect(self, socket: LobbySocket) -> None:
        """The socket has gone: forget it; with the player's last socket, what was kept for them."""
        socket.closed = True
        mine = self.sockets.get(socket.player)
        if mine is None:
            return
        with contextlib.suppress(ValueError):
            mine.remove(socket)
        if mine:
            return
        del self.sockets[socket.player]
        self.people.pop(socket.player, None)
        for match_id, tracked in list(self.tracked.items()):
            if socket.player in tracked.seats and not self._wanted(tracked.seats):
                self._untrack(match_id)

    def count(self) -> int:
        return sum(len(s) for s in self.sockets.values())

    def _send(self, players: Iterable[str | None], message: Message | Callable[[str], Message]) -> None:
        for player in dict.fromkeys(p for p in players if p is not None):
            for socket in list(self.sockets.get(player, ())):
                body = message(player) if callable(message) else message
                if not socket.put(body, self.queued):
                    self.disconnect(socket)

    def _wanted(self, players: Iterable[str | None]) -> bool:
        return any(p in self.sockets for p in players)

    # ------------------------------------------------------------ starting and stopping

    async def start(self) -> None:
        """Start the followers (at the server's start): they also stop this process's copy of a match
        that another process annulled."""
        await self._started()

    async def _started(self) -> None:
        """The followers run from the start (one start, shared; tried again if it failed)."""
        start = self._start
        if start is None or (start.done() and (start.cancelled() or start.exception() is not None)):
            start = self._start = asyncio.ensure_future(self._begin())
        await asyncio.shield(start)

    async def _begin(self) -> None:
        self.new_tournaments.start()
        head = await asyncio.to_thread(self.store.head, MATCHES_STREAM)
        for t in await self.tournaments.all():
            self.seen.add(t.id)
            if t.status != TOURNAMENT_FINISHED:
                self._follow_tournament(t)
        self._spawn(self._follow_matches(head))

    def _found(self, tournament_id: str) -> None:
        """A tournament stream this process did not know grew (a tournament created here or on
        another process): followed from its start, and the lobbies drawn again."""
        if tournament_id in self.seen or self.stopping:
            return
        self._follow_from_start(tournament_id)
        self._dirty()

    def stop_sockets(self) -> None:
        """The server is stopping: every socket closes (1012) and nothing new starts."""
        self.stopping = True
        self.new_tournaments.stop()
        for sockets in self.sockets.values():
            for socket in sockets:
                socket.end(Close.RESTART, "the server is restarting: reconnect")

    async def stop(self) -> None:
        """The server is stopping: the sockets close, the follows end (``end_follows``, as a follower
        cancelled while LISTEN starts may lose the cancellation), and the wait for them is bounded."""
        self.stop_sockets()
        self.store.end_follows()
        tasks = [*self._tasks, *(t.task for t in self.tracked.values() if t.task is not None)]
        sweep = self.new_tournaments.stop()
        if sweep is not None:
            tasks.append(sweep)
        if self._start is not None:
            tasks.append(self._start)
        if self._flush is not None:
            tasks.append(self._flush)
        for task in tasks:
            task.cancel()
        if tasks:
            _done, left = await asyncio.wait(tasks, timeout=STOP_SECONDS)
            for task in left:
                log.warning(
                    "stopping: the lobby's %s did not end within %.0f s; left behind", task.get_name(), STOP_SECONDS
                )
        for task in tasks:
            if task.done() and not task.cancelled():
                task.exception()  # retrieved: nothing to report at a stop
        self.tracked.clear()
        self.followed.clear()

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _each(self, stream: str, after: int, handle: Callable[[StoredEvent], Any]) -> None:
        """Follow ``stream`` after seq ``after`` and hand each event to ``handle`` (until it returns True)."""
        with contextlib.suppress(asyncio.CancelledError):
            async for stored in self.store.follow(stream, after):
                try:
                    done = handle(stored)
                    if asyncio.iscoroutine(done):
                        done = await done
                except UNAVAILABLE as exc:  # a look-up found the database away: that message is lost, not the rest
                    log.warning("lobby: %s #%d: the database is unavailable (%s)", stream, stored.seq, exc)
                    continue
                except Exception:  # a bug: say so, and go on with the next event
                    log.exception("lobby: %s #%d could not be handled", stream, stored.seq)
                    continue
                if done is True:
                    return

    # ------------------------------------------------------------ the matches stream

    async def _follow_matches(self, head: int) -> None:
        await self._each(MATCHES_STREAM, head, self._registry_event)

    async def _registry_event(self, stored: StoredEvent) -> None:
        self._dirty()
        if stored.type == ServerEventType.MATCH_REGISTERED:
            registered = MatchRegistered.from_payload(stored.data)
            tournament = registered.tournament
            if tournament is not None and tournament not in self.followed:
                await self._discover(tournament)
            if self._wanted(registered.seats):
                self._track(registered.match, Tracked(registered.seats, tournament, registered.round), 0)
                if tournament is None:  # a tournament's match is announced by its pairing
                    self._send(registered.seats, _match(registered.match, WAITING, None, None))
        elif stored.type == ServerEventType.MATCH_ANNULLED:
            annulled = MatchAnnulled.from_payload(stored.data)
            self.registry.annulled_elsewhere(annulled.match, annulled.replaced_by)  # appended here: nothing to do
            summary = await asyncio.to_thread(self.registry.summary, annulled.match)
            self._untrack(annulled.match)
            if summary.tournament is None:  # a tournament's annulments are told from its own stream
                self._send(summary.seats, _match(annulled.match, ANNULLED, None, None))

    async def _discover(self, tournament_id: str) -> None:
        """A tournament this process has not followed (made since it started): followed from its start.

        Its first match is made as its round 1 opens, so what it holds then is its creation, its
        entries and its start: the start is told now, the rest tells nobody anything.
        """
        self._follow_from_start(tournament_id)

    def _follow_from_start(self, tournament_id: str) -> None:
        t = Tournament(tournament_id)
        self.seen.add(tournament_id)
        self.followed[tournament_id] = t
        self._spawn(self._each(tournament_stream(tournament_id), 0, lambda e: self._tournament_event(t, e)))

    # ------------------------------------------------------------ tournaments

    def _follow_tournament(self, found: Tournament) -> None:
        """Follow ``found`` (the service's cached fold) from its version, folding into a copy of it:
        a fold handed out is never changed (server.services.tournament_folds)."""
        t = copy.deepcopy(found)
        self.seen.add(t.id)
        self.followed[t.id] = t
        self._spawn(self._each(tournament_stream(t.id), t.version, lambda e: self._tournament_event(t, e)))

    def _tournament_event(self, t: Tournament, stored: StoredEvent) -> bool:
        """Fold one event into ``t`` and tell whom it concerns; True once the tournament has finished."""
        try:
            event = parse_event(stored.type, stored.data)
        except KeyError:  # a newer server's event type: it changes nothing here
            t.version += 1
            return False
        evolve(t, event, stored.at)
        self._dirty()
        self._tell(t, event, stored)
        if isinstance(event, TournamentFinished):
            self.followed.pop(t.id, None)
            return True
        return False

    def _tell(self, t: Tournament, event: TournamentEvent, stored: StoredEvent) -> None:
        if isinstance(event, TournamentStarted | TournamentFinished):
            status = "running" if isinstance(event, TournamentStarted) else "finished"
            said: TournamentMessage = {"type": "tournament", "tournament": t.id, "name": t.name, "status": status}
            self._send(t.players, said)
        elif isinstance(event, RoundOpened):
            deadline = t.join_deadline(event.round)
            shown = format_at(deadline) if deadline is not None else None
            for key, match_id in event.matches.items():
                self._pairing(t, key, match_id, shown)
        elif isinstance(event, MatchReplayed):
            slot = t.slots[event.slot]
            self._send(slot.seats, _match(event.old, ANNULLED, t.id, slot.round, replaced_by=event.new))
            deadline = t.join_deadline(slot.round)  # a replay keeps its round's deadline, if it is still to come
            in_time = deadline is not None and deadline > parse_at(stored.at)
            self._pairing(t, event.slot, event.new, format_at(deadline) if deadline is not None and in_time else None)
        elif isinstance(event, DisputeRuled):
            dispute = t.disputes[event.dispute]
            disputed = t.slots.get(dispute.slot)
            seated = disputed.seats if disputed is not None else ()
            ruled: RulingMessage = {
                "type": "ruling",
                "dispute": dispute.id,
                "tournament": t.id,
                "match": dispute.match,
                "seq": dispute.seq,
                "decision": event.decision,
                "note": event.note,
                "rule": event.rule,
            }
            self._send((dispute.player, *seated), ruled)
        elif isinstance(event, ResultRecorded) and event.reason == "no_show" and event.match is not None:
            slot = t.slots[event.slot]
            self._send(slot.seats, _match(event.match, ANNULLED, t.id, slot.round))
        elif isinstance(event, PlayerWithdrew) and event.annulled:
            # Their matches still being played are annulled next (``TournamentService.withdraw``).
            for slot in t.scheduled_of(event.player):
                if slot.match is not None and slot.result is None and slot.round <= t.opened:
                    self._send(slot.seats, _match(slot.match, ANNULLED, t.id, slot.round))

    def _pairing(self, t: Tournament, key: str, match_id: str, deadline: str | None) -> None:
        slot = t.slots[key]
        label = slot_label(t, slot)

        def message(player: str) -> PairingMessage:
            others = slot.others(player)
            opponent = others[0]
            found = self.registry.player(opponent)
            return {
                "type": "pairing",
                "tournament": t.id,
                "name": t.name,
                "round": slot.round,
                "match": match_id,
                "join_deadline": deadline,
                "opponent": found.model_dump() if found is not None else {"id": opponent, "name": opponent},
                "white": player == slot.white,
                "seats": len(slot.seats),
                "label": label,
            }

        if self._wanted(slot.seats):
            self._send(slot.seats, message)

    # ------------------------------------------------------------ matches of connected players

    def _track(self, match_id: str, tracked: Tracked, after: int) -> None:
        if match_id in self.tracked or self.stopping:
            return
        self.tracked[match_id] = tracked
        tracked.task = asyncio.ensure_future(self._each(match_stream(match_id), after, self._match_event(match_id)))
        tracked.task.add_done_callback(lambda _task: self._forget(match_id, tracked))

    def _forget(self, match_id: str, tracked: Tracked) -> None:
        if self.tracked.get(match_id) is tracked:
            del self.tracked[match_id]

    def _untrack(self, match_id: str) -> None:
        tracked = self.tracked.pop(match_id, None)
        if tracked is not None and tracked.task is not None:
            tracked.task.cancel()

    def _match_event(self, match_id: str) -> Callable[[StoredEvent], bool]:
        def handle(stored: StoredEvent) -> bool:
            tracked = self.tracked.get(match_id)
            if tracked is None:
                return True
            if stored.type in CHANGES_A_LINE:
                self._dirty()
            if starts_play(stored):
                self._send(tracked.seats, _match(match_id, LIVE, tracked.tournament, tracked.round))
            elif stored.type == EventType.MATCH_ENDED:
                self._send(tracked.seats, _match(match_id, FINISHED, tracked.tournament, tracked.round))
                return True
            return False

        return handle

    # ------------------------------------------------------------ the lobby state

    def _dirty(self) -> None:
        """Something a lobby line shows may have changed: the states are built again within
        :data:`COALESCE` seconds (one build for every event until then)."""
        if self.stopping or (self._flush is not None and not self._flush.done()):
            return
        if not any(s.wants_state for sockets in self.sockets.values() for s in sockets):
            return
        self._flush = asyncio.ensure_future(self._flush_later())

    async def _flush_later(self) -> None:
        await asyncio.sleep(COALESCE)
        self._flush = None  # an event from now on makes another build
        try:
            async with self._building:
                await self._build_all()
        except UNAVAILABLE as exc:  # the database is away: the next event builds them again
            log.warning("lobby: the states could not be built: the database is unavailable (%s)", exc)
        except Exception:
            log.exception("lobby: the states could not be built")

    async def _build_all(self) -> None:
        shared = await self.reader.shared()
        for player_id, sockets in list(self.sockets.items()):
            wanting = [s for s in sockets if s.wants_state and not s.closed]
            person = self.people.get(player_id)
            if wanting and person is not None:
                await self._send_state(person, wanting, shared)

    async def _send_state(self, player: PlayerPublic, sockets: list[LobbySocket], shared: Any = None) -> None:
        """Build ``player``'s lobby state and send it to each of ``sockets`` that has not had it;
        the live matches it shows are followed (their scores move its lines)."""
        if shared is None:
            shared = await self.reader.shared()
        state = await self.reader.state(player, shared)
        body = state.model_dump(mode="json")
        mine = {t.id for t in shared[0] if player.id in t.players}
        coming = [m for tid, current in shared[1].items() if tid in mine for m in current]  # watch lines to be
        for summary in [*state.me.matches, *state.watch, *coming]:
            if summary.status in (WAITING, LIVE) and summary.id not in self.tracked:
                seats = tuple(p.id if p is not None else None for p in summary.seats)
                head = await asyncio.to_thread(self.store.head, match_stream(summary.id))
                self._track(summary.id, Tracked(seats, summary.tournament, summary.round), head)
        for socket in sockets:
            if socket.closed or socket.last == body:
                continue
            socket.last = body
            socket.version += 1
            if not socket.put({"type": "lobby", "version": socket.version, "lobby": body}, self.queued):
                self.disconnect(socket)


def starts_play(stored: StoredEvent) -> bool:
    """The event that makes a match live: round 1's first start (a classic Wild starter starts
    round 1 again, ``restart`` 1, 2, …, and that is no news)."""
    return stored.type == EventType.ROUND_STARTED and stored.data.get("round") == 1 and not stored.data.get("restart")


def _match(
    match_id: str, status: str, tournament: str | None, round_number: int | None, *, replaced_by: str | None = None
) -> MatchMessage:
    return {
        "type": "match",
        "match": match_id,
        "status": status,
        "tournament": tournament,
        "round": round_number,
        "replaced_by": replaced_by,
    }
