"""The tournaments' process manager: it follows the store and turns what happened into what comes
next (docs/TOURNAMENTS.md "How a tournament decides").

Every server process runs one. It follows each running tournament's stream and the stream of
each match its open pairings play, as the lobby and the ratings follow the store (woken by this
process's appends, and by LISTEN/NOTIFY for other processes' on PostgreSQL), and:

- a match of a tournament that ends (its ``seed_revealed``, the last event of every finished
  match) becomes the tournament's ``RecordResult``, with how it ended read from its own events;
- a round opened (``round_opened``) or a replay ruling (``match_replayed``) has its matches
  followed from their first event, so a match that ended before the round was recorded as open
  (two house bots, no think delay) is recorded all the same, and its join deadline armed;
- whatever may make something due (a start, a result, a reveal, a ruling, a withdrawal) asks
  the tournament to ``advance``; a ruling tells the ratings a result may have changed.

Nothing is told by callbacks between the services, and no process needs to be the one that
appended: each step is appended under its command id, so two processes deciding the same step
record it once. At the start it picks up whatever was left while no server ran (results of
matches that ended, join deadlines, due rounds).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Final

from engine.game.events import EventType
from server.services.tournament_folds import TournamentNotFound
from server.services.tournament_streams import TournamentStreams
from server.services.tournaments import TournamentService
from server.store.event_store import EventStore
from server.store.records import StoredEvent
from server.store.streams import match_stream
from server.tournaments.decide import MatchEnd
from server.tournaments.model import (
    EVENT_CLASSES,
    RUNNING,
    DisputeRuled,
    MatchReplayed,
    RoundOpened,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    parse_event,
    stored_time,
    tournament_stream,
)
from server.tournaments.timed import round_deadline

log = logging.getLogger(__name__)

STOP_SECONDS: Final = 5.0  # how long a stop waits for the followers to end
# Tournament events after which something may be due: the service is asked to advance.
ADVANCING: Final = frozenset(
    {"tournament_started", "result_recorded", "duplicate_revealed", "dispute_ruled", "player_withdrew"}
)


class TournamentManager:
    def __init__(
        self,
        store: EventStore,
        tournaments: TournamentService,
        result_changed: Callable[[str], None] | None = None,
    ) -> None:
        """``result_changed``: told a tournament's id when a ruling may have changed a result (the ratings')."""
        self.store = store
        self.tournaments = tournaments
        self.result_changed = result_changed
        self.followed: set[str] = set()  # tournaments followed
        self.watched: set[str] = set()  # matches followed for their end
        self._tasks: set[asyncio.Task[None]] = set()
        self.new_tournaments = TournamentStreams(store, self._found, lambda t: t in self.followed)
        self.stopping = False

    # ------------------------------------------------------------ starting and stopping

    async def start(self) -> None:
        """Follow every running tournament (and any made later, here or elsewhere), pick up what
        was left undone while no server ran, and do what is due."""
        self.new_tournaments.start()
        for t in await self.tournaments.all():
            self.tournaments.arm_start(t)  # one that starts by itself and has not yet
            if t.status != RUNNING:
                continue
            self._follow(t.id, t.version)
            for slot in t.open_slots():
                assert slot.match is not None
                self._watch(t.id, slot.match)
            if t.opened:
                opened = stored_time(t.opened_at[t.opened])
                if opened is not None:
                    self.tournaments.arm_join_deadline(t.id, t.opened, opened.timestamp() + t.join_seconds)
            for number in sorted({slot.round for slot in t.open_slots()}):  # timed rounds still being played
                deadline = t.round_deadline(number)
                if deadline is not None:
                    self.tournaments.arm_round_deadline(t.id, number, deadline)
            self._spawn(self.tournaments.advance_later(t.id))

    def _found(self, tournament_id: str) -> None:
        """A tournament stream this process does not follow grew: followed from its start (a
        tournament made here or elsewhere; a finished one's follower ends at once)."""
        if not self.stopping and tournament_id not in self.followed:
            self._follow(tournament_id, 0)

    async def stop(self) -> None:
        self.stopping = True
        sweep = self.new_tournaments.stop()
        tasks = [*self._tasks, *([sweep] if sweep is not None else [])]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_SECONDS)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        if self.stopping:
            coroutine.close()
            return
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------ a tournament's stream

    def _follow(self, tournament_id: str, after: int) -> None:
        self.followed.add(tournament_id)
        self._spawn(self._each(tournament_stream(tournament_id), after, lambda e: self._tournament(tournament_id, e)))

    async def _tournament(self, tournament_id: str, stored: StoredEvent) -> bool:
        """One event of a followed tournament; True once it has finished (its follower ends)."""
        if stored.type not in EVENT_CLASSES:
            return False  # a newer server's event type: nothing to do here
        event: TournamentEvent = parse_event(stored.type, stored.data)
        if isinstance(event, RoundOpened):
            for match_id in event.matches.values():
                self._watch(tournament_id, match_id)
            opened = stored_time(stored.at)
            if opened is not None:
                t = await self.tournaments.get(tournament_id)
                self.tournaments.arm_join_deadline(tournament_id, event.round, opened.timestamp() + t.join_seconds)
                if t.round_minutes is not None:  # a timed round (RULES.md D26)
                    self.tournaments.arm_round_deadline(
                        tournament_id, event.round, round_deadline(opened, t.round_minutes)
                    )
        elif isinstance(event, MatchReplayed):
            self._watch(tournament_id, event.new)
        elif isinstance(event, TournamentCreated) and (event.starts_at or event.check_in_minutes is not None):
            self.tournaments.arm_start(await self.tournaments.get(tournament_id))
        if isinstance(event, DisputeRuled) and self.result_changed is not None:
            self.result_changed(tournament_id)
        if isinstance(event, TournamentFinished):
            return True
        if stored.type in ADVANCING:
            self._spawn(self.tournaments.advance_later(tournament_id))
        return False

    # ------------------------------------------------------------ a match's end

    def _watch(self, tournament_id: str, match_id: str) -> None:
        """Follow ``match_id`` from its first event until it ends (once per process)."""
        if match_id in self.watched:
            return
        self.watched.add(match_id)
        ending = MatchEnding()

        async def event(stored: StoredEvent) -> bool:
            end = ending.read(stored)
            if end is None:
                return False
            self.watched.discard(match_id)
            await self.tournaments.record_result_later(tournament_id, match_id, end)
            return True

        self._spawn(self._each(match_stream(match_id), 0, event))

    async def _each(self, stream: str, after: int, handle: Callable[[StoredEvent], Coroutine[Any, Any, bool]]) -> None:
        """Follow ``stream`` after seq ``after`` and hand each event to ``handle`` until it returns True."""
        with contextlib.suppress(asyncio.CancelledError):
            async for stored in self.store.follow(stream, after):
                try:
                    if await handle(stored):
                        return
                except TournamentNotFound:
                    return
                except Exception:  # a bug: said, and the next event handled
                    log.exception("tournaments: %s #%d could not be handled", stream, stored.seq)


class MatchEnding:
    """How a match ended, read from its events as they pass: the end's record (``match_ended``) and
    the forfeit that ended it if one did, and when time was called in it (RULES.md D26); complete
    at ``seed_revealed``, its last event."""

    def __init__(self) -> None:
        self.ended: dict[str, Any] | None = None
        self.forfeit: str | None = None
        self.time_called: str | None = None

    def read(self, stored: StoredEvent) -> MatchEnd | None:
        if stored.type == EventType.TIME_CALLED:
            self.time_called = str(stored.data["moment"])
        elif stored.type == EventType.MATCH_FORFEITED:
            self.forfeit = str(stored.data["reason"])  # at two seats a forfeit ends the match
        elif stored.type == EventType.MATCH_ENDED:
            self.ended = dict(stored.data)
        elif stored.type == EventType.SEED_REVEALED and self.ended is not None:
            scores = tuple(int(s) for s in self.ended["scores"])
            places = self.ended.get("places")
            return MatchEnd(
                winner=int(self.ended["winner"]),
                scores=scores,
                seated=(),  # a table's seats: read by the service (the match's stream names no player)
                forfeit=self.forfeit if len(scores) == 2 else None,  # at a table, a seat that left is no reason
                places=tuple(int(p) for p in places) if places is not None else None,
                time_called=self.time_called,
            )
        return None
