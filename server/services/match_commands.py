"""Commands on a match: decide on the live state, append, hand the events to the live copy.

A command is decided against the live copy's state with the match's ``Dealer(server_seed)``
and appended with ``expected_seq`` = the state's version, so an out-of-date copy (another
process moved first) fails its append, catches up from the store and says ``stale_version``;
the client's ``command_id`` makes a retry get the first outcome back and append nothing.
Commands on one match are decided one at a time (its lock); commands on different matches
share the store's group commit. Seats' commands, joins, forfeits and annulments live here; the
answers a client sees are built by ``server.services.match_reads``.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from engine.game.commands import CallTime, Forfeit, JoinSeat, SeatCommand, TimeOut, parse_action, parse_seat_command
from engine.game.decide import decide_step
from engine.game.errors import CommandRefused
from engine.game.state import MatchState, Phase
from server.domain_errors import NotNow, NotOpen
from server.services.house_bots import bot_move, bot_refused
from server.services.live_match import LiveMatch
from server.services.match_registry import MatchRegistry
from server.services.players import Caller
from server.services.to_the_end import to_the_end
from server.store.errors import ConcurrencyError
from server.store.records import AppendResult, ChainedAppend, StoredEvent
from server.store.server_events import MatchAnnulled
from server.store.streams import MATCHES_STREAM

log = logging.getLogger(__name__)

JOIN_RACES = 5  # a join that lost a race to another process's append (another seat's join) tries again
CALL_RACES = 20  # time called that lost a race to a move appended meanwhile tries again (it must land)
TIME_CALLED_ID = "time-called"  # the command id of a match's one time_called (RULES.md D26)
MAX_BOT_MOVES = 5000  # a safety bound per drive; a whole match takes a few hundred
OK = {"ok": True}  # the result stored with each processed command id

# What a command did: the live copy, the events appended (None: its id was processed before),
# and the stored command id (to read that first outcome back).
Applied = tuple[LiveMatch, list[StoredEvent] | None, str]


def seat_command_id(seat: int, client_id: str) -> str:
    """The stored id of a seat's command: per seat, and apart from the server's own ids.

    The server's ids (``create``, ``join-<seat>``, ``bot-<version>``, ``timeout-<version>``,
    ``forfeit-…``) never start with ``s<seat>:``, so a client cannot pre-empt a bot's move, a
    clock or another seat's retries.
    """
    return f"s{seat}:{client_id}"


class MatchCommands:
    """Decides and appends commands on live copies (``registry``); ``changed(live)`` after each move."""

    def __init__(self, registry: MatchRegistry, *, bots_inline: bool, changed: Callable[[LiveMatch], None]) -> None:
        self.registry = registry
        self.store = registry.store
        self.snapshots = registry.snapshots
        self.bots_inline = bots_inline
        self._changed = changed

    # ------------------------------------------------------------ deciding and appending

    async def apply(
        self,
        live: LiveMatch,
        command: JoinSeat | SeatCommand | TimeOut | Forfeit | CallTime,
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
        steps = [ChainedAppend(events, state.version, command_id, OK, dealer.seal_seed)]
        states = [after]
        unstored = list(events)  # the chain's events beyond the live copy (an event-reading bot's seat receives them)
        while bots_answer and len(steps) <= max_moves:
            move = bot_move(live, states[-1], unstored)
            if move is None:
                break
            seat, choice = move
            before = states[-1]
            try:
                events, after = decide_step(before, parse_seat_command(seat, choice), dealer)
            except CommandRefused as refusal:
                bot_refused(live, seat, choice, refusal)
                break
            steps.append(ChainedAppend(events, before.version, f"bot-{before.version}", OK, dealer.seal_seed))
            states.append(after)
            unstored.extend(events)
        return await to_the_end(self._land(live, steps, states))

    async def _land(
        self, live: LiveMatch, steps: list[ChainedAppend], states: list[MatchState]
    ) -> list[StoredEvent] | None:
        """Append ``steps`` and let the live copy take them (``states``: the match after each), then
        tell ``changed``. Run to its end (:func:`to_the_end`): once the store has the events, the
        live copy, the clock, the bots and the tournament have to hear of them."""
        live.appending_to = states[-1].version
        try:
            outcomes = await self.store.append_chain_async(live.stream, steps)
        finally:
            live.appending_to = 0
        first = outcomes[0]
        if isinstance(first, ConcurrencyError):
            await self.registry.catch_up(live)
            raise first
        if not isinstance(first, AppendResult):
            raise first
        if first.duplicate:
            # Stored before, maybe by another process (a clock both ran): take what it appended. Its
            # notification may have come while this append was in flight, and been skipped then.
            await self.registry.catch_up(live)
            return None
        appended: list[StoredEvent] = []
        for outcome, after in zip(outcomes, states, strict=True):
            if not isinstance(outcome, AppendResult) or outcome.duplicate:
                await self.registry.catch_up(live)  # a bot move lost to another process: take what it did
                break
            stored = [StoredEvent.from_append(e, o) for e, o in zip(outcome.events, outcome.openings, strict=True)]
            live.advance(after, stored)
            if self.snapshots.due(outcome):
                await self._snapshot(live, after, outcome)
            appended += stored
        self._changed(live)
        return appended

    async def _snapshot(self, live: LiveMatch, state: MatchState, appended: AppendResult) -> None:
        """A snapshot after ``appended`` (a shortcut for later loads, never needed): one that cannot
        be written now (the database busy or away) is left out, said in the log; the move stands."""
        try:
            await asyncio.to_thread(self.snapshots.after_append, live.stream, state, appended)
        except SQLAlchemyError as exc:
            log.warning(
                "match %s: no snapshot at %d (%s); the next load folds a little more", live.id, state.version, exc
            )

    # ------------------------------------------------------------ joining

    async def join(self, match_id: str, caller: Caller, entropy: str) -> Applied:
        """Take the caller's seat with ``entropy``.

        A seat joins once. Joining again with the same entropy is a retry and gets the first
        join's outcome; with other entropy it is refused (``NotNow``) and nothing changes.
        """
        live = await self.registry.open(match_id)
        seat = self.registry.require_seat(live.summary, caller)
        command_id = f"join-{seat}"
        async with live.lock:
            state = live.state
            if state.phase is Phase.NEW or live.dealer is None:
                raise NotOpen(f"match {match_id!r} was never opened; it cannot be joined")
            await self.registry.refuse_if_annulled(live)
            for _ in range(JOIN_RACES):
                if live.state.phase is not Phase.WAITING or live.state.entropies[seat] is not None:
                    break
                try:
                    appended = await self.apply(live, JoinSeat(seat, entropy), command_id, bots_answer=self.bots_inline)
                except ConcurrencyError:
                    # The match moved in another process (the other seat joined there at the same
                    # moment, or this seat did): the copy has caught up; look again.
                    continue
                if appended is not None:
                    return live, appended, command_id
                break
            if not self._joined_with(live.state, seat, entropy):
                raise NotNow(f"seat {seat} has already joined this match with other entropy; a seat joins once")
        return live, None, command_id

    @staticmethod
    def _joined_with(state: MatchState, seat: int, entropy: str) -> bool:
        """Whether ``seat`` joined with ``entropy`` (compared in constant time: it is a secret until the end)."""
        joined = state.entropies[seat]
        return joined is not None and hmac.compare_digest(joined.encode(), entropy.encode())

    async def join_bots(self, live: LiveMatch) -> None:
        """Every house bot at the table takes its seat (a new match)."""
        async with live.lock:
            for seat in live.bots:
                if live.state.phase is Phase.WAITING and live.state.entropies[seat] is None:
                    await self.apply(live, JoinSeat(seat, ""), f"join-{seat}")

    # ------------------------------------------------------------ a seat's command

    async def command(
        self, match_id: str, caller: Caller, command_id: str, expected_version: int | None, command: dict[str, Any]
    ) -> Applied:
        """Decide and append a seat's command and the bots' answers: the events appended, or None
        if its id was processed before (then the stored id, to read that first outcome back)."""
        live = await self.registry.open(match_id)
        seat = self.registry.require_seat(live.summary, caller)
        command_id = seat_command_id(seat, command_id)
        async with live.lock:
            try:
                if live.dealer is None:
                    raise NotOpen(f"match {match_id!r} was never opened (no seed); it cannot be played")
                await self.registry.refuse_if_annulled(live)
                action = parse_action(command)
                seat_command = SeatCommand(seat=seat, action=action, expected_version=expected_version)
                appended = await self.apply(live, seat_command, command_id, bots_answer=self.bots_inline)
            except (ConcurrencyError, CommandRefused):
                # A copy of this command (same id) may have been stored first, by this process
                # or another: then its outcome is the answer.
                if await asyncio.to_thread(self.store.processed, live.stream, command_id) is None:
                    raise
            else:
                if appended is not None:
                    return live, appended, command_id
        return live, None, command_id

    # ------------------------------------------------------------ a tournament's rulings

    async def forfeit(self, match_id: str, seat: int, reason: str) -> bool:
        """``seat`` forfeits ``match_id`` (a tournament's rule, the director): at two seats the match
        ends; at a table of three or more the seat leaves and play goes on without it (the engine's
        rule) until one seat is left. False if the match had ended, or the seat had left already."""
        live = await self.registry.open(match_id)
        async with live.lock:
            if live.dealer is None or live.state.phase in (Phase.NEW, Phase.MATCH_OVER) or live.annulled:
                return False
            # Two seats: the id it always had (one forfeit ends the match). A table: one per seat.
            command_id = f"forfeit-{reason}" if live.state.seats == 2 else f"forfeit-{seat}-{reason}"
            try:
                appended = await self.apply(live, Forfeit(seat, reason), command_id)
            except (ConcurrencyError, CommandRefused):
                return False
            return appended is not None

    async def call_time(self, match_id: str, moment: str) -> bool:
        """RULES.md D26: a timed round ran out; time is called in ``match_id`` at ``moment``. Under
        one command id (``time-called``), so two processes (or a retry) record it once; a race lost
        to a move appended meanwhile tries again, as the call must land. False if the match was never
        opened, was annulled, is over, or had time called already: nothing changes."""
        live = await self.registry.open(match_id)
        for _ in range(CALL_RACES):
            async with live.lock:
                state = live.state
                if live.dealer is None or state.phase in (Phase.NEW, Phase.MATCH_OVER) or live.annulled:
                    return False
                if state.time_called is not None:
                    return False
                try:
                    appended = await self.apply(live, CallTime(moment), TIME_CALLED_ID)
                except ConcurrencyError:
                    continue  # the copy has caught up with the move that came first: look again
                except CommandRefused:
                    return False
                return appended is not None
        log.warning("match %s: time could not be called after %d races", match_id, CALL_RACES)
        return False

    async def expire(self, match_id: str, reason: str) -> bool:
        """Annul ``match_id`` if it has still not started (an invitation that expired); True if it was."""
        live = await self.registry.open(match_id)
        if live.annulled or live.state.phase not in (Phase.NEW, Phase.WAITING):
            return False
        await self.annul(match_id, reason, only_unstarted=True)
        return live.annulled

    async def annul(
        self, match_id: str, reason: str, *, only_unstarted: bool = False, replaced_by: str | None = None
    ) -> None:
        """Annul ``match_id`` (a tournament's ruling or withdrawal): it counts for nobody and, if
        it was live, stops: its clock and bots stop and every command is refused."""
        live = await self.registry.open(match_id)
        async with live.lock:
            if only_unstarted and live.state.phase not in (Phase.NEW, Phase.WAITING):
                return  # a seat's join went first
            await to_the_end(self._land_annulment(live, reason, replaced_by))

    async def _land_annulment(self, live: LiveMatch, reason: str, replaced_by: str | None) -> None:
        """Append the annulment and stop the live copy (run to its end, as :meth:`_land`)."""
        await self.store.append_async(
            MATCHES_STREAM,
            [MatchAnnulled(live.id, reason, replaced_by).event()],
            expected_seq=None,
            command_id=f"annul-{live.id}",
            result=OK,
        )
        self.registry.annulled(live, replaced_by)
