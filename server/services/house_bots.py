"""House bots at a table: what a bot chooses, and its move after the think delay.

House bots act through the same path as people (decide, append, fan-out) under the command id
``bot-<version>``, choosing from their own seat's view with the chance ``Dealer.bot_chance`` draws
from the secret server seed (docs/FAIRNESS.md "House bots' chance"): nobody can foresee a bot's
choice, and ``unoduo audit --bots`` re-derives it after the reveal. With ``bot_think_seconds`` = 0 a bot
answers inside the request that gave it the move (``MatchCommands.apply`` decides its answers
with the command); otherwise it moves after that delay, and its events reach watchers like
anyone's. The delay is fixed: how long a bot takes tells nothing about its cards.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from engine.bots import bot_choice, get_bot, reads_events
from engine.game.commands import Forfeit, JoinSeat, SeatCommand, TimeOut, parse_seat_command
from engine.game.errors import CommandRefused
from engine.game.events import Event
from engine.game.seating import active_seats
from engine.game.state import MatchState, Phase
from engine.protocol.views import legal_commands, view
from engine.search.knowledge import looking_at
from server.services.clock import Clock, sleep
from server.services.live_match import LiveMatch
from server.store.errors import UNAVAILABLE, ConcurrencyError
from server.store.records import StoredEvent

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0  # a bot move that found the database away tries again after this
# Speed: with no think delay, a match of house bots only (or whose people have all left) appends
# this many moves per chain (one commit) instead of one: a 16-bot tournament took 118 s with one
# commit per move (bench tournament). Bounded so one chain holds the event loop for a few
# milliseconds only.
BOT_CHAIN = 64


def bot_move(live: LiveMatch, state: MatchState, unstored: Sequence[Event] = ()) -> tuple[int, dict[str, Any]] | None:
    """The house bot's next command on ``state``, if one has something to decide (its turn, or a UNO window).

    ``unstored``: the events from the live copy's feed to ``state`` not stored yet (a chain of
    moves decided together). An event-reading bot (the coach) gets its seat's events exactly: the
    live copy's fold of the stored ones (``LiveMatch.memories``) and these; when the fold lags
    behind (another process appended), the bot waits for the feed to catch up (None)."""
    if not live.bots or live.dealer is None or state.phase in (Phase.NEW, Phase.WAITING, Phase.MATCH_OVER):
        return None
    if state.pending.seat not in live.bots and not any(state.uno_open):
        return None  # a bot may act only on its own decision or in a UNO window (D14): nothing to look up
    movers = [s for s in live.bots if legal_commands(state, s)]
    if not movers:
        return None
    pending = state.pending.seat
    seat = pending if pending in movers else movers[0]  # a UNO window at a table: the first bot seat catches
    rng = live.dealer.bot_chance(live.id, state.version, seat)  # secret until the seed is revealed
    bot = get_bot(live.bots[seat])
    seen = view(state, seat)
    knowledge = None
    if reads_events(bot):
        fold = live.memories.folds.get(seat)
        if fold is None or fold.picture.version + len(unstored) != state.version:
            return None  # no knowledge, or the feed has not caught up with this state yet (another process moved)
        if unstored:
            fold = fold.copy()
            fold.see_all(unstored)
        knowledge = fold.knowledge(looking_at(seen))
    return seat, bot_choice(bot, seen, rng, knowledge)


def bot_refused(live: LiveMatch, seat: int, choice: dict[str, Any], refusal: CommandRefused) -> None:
    """A bot bug: the match is left as it is, and the log says so."""
    log.error("house bot %s in %s sent %r: %s", live.bots[seat], live.id, choice, refusal.message)


class Apply(Protocol):
    """``MatchCommands.apply``: decide a command on the live state and append it (and the bots' answers)."""

    def __call__(
        self,
        live: LiveMatch,
        command: JoinSeat | SeatCommand | TimeOut | Forfeit,
        command_id: str,
        *,
        bots_answer: bool = False,
        max_moves: int = ...,
    ) -> Awaitable[list[StoredEvent] | None]: ...


class HouseBots:
    """Gives a house bot its move after the think delay (with no delay, the command path answers for it)."""

    def __init__(
        self,
        clock: Clock,
        think_seconds: float,
        apply: Apply,
        catch_up: Callable[[LiveMatch], Awaitable[None]],
        changed: Callable[[LiveMatch], None],
    ) -> None:
        self.clock = clock
        self.think_seconds = think_seconds
        self._apply = apply
        self._catch_up = catch_up
        self._changed = changed

    @property
    def inline(self) -> bool:
        """With no think delay, a bot's answer is decided with the command that gives it the move."""
        return self.think_seconds <= 0

    def arm(self, live: LiveMatch) -> None:
        """Give a house bot its move, if one has something to decide and none is on its way."""
        if bot_move(live, live.state) is not None and (live.bot_move is None or live.bot_move.done()):
            live.bot_move = asyncio.create_task(self._after_delay(live))

    async def step(self, live: LiveMatch) -> None:
        """One house bot move, through the same path as a person's (the lock is held)."""
        move = bot_move(live, live.state)
        if move is None:
            return
        seat, choice = move
        # Chained only while nobody but bots is left to play (every seat a bot, or the people have left).
        chain = BOT_CHAIN if self.inline and all(s in live.bots for s in active_seats(live.state)) else 0
        try:
            appended = await self._apply(
                live,
                parse_seat_command(seat, choice),
                f"bot-{live.state.version}",
                bots_answer=chain > 0,
                max_moves=chain,
            )
        except ConcurrencyError:
            return  # another process moved first; apply caught up and the next look decides again
        except CommandRefused as refusal:
            bot_refused(live, seat, choice, refusal)
            return
        if appended is None:  # made before by another process: take its events
            await self._catch_up(live)

    async def _after_delay(self, live: LiveMatch) -> None:
        """A house bot's move after the think delay, through the same path as a person's."""
        await sleep(self.clock, self.think_seconds)
        async with live.lock:
            if live.annulled:
                return
            try:
                await self.step(live)
            except UNAVAILABLE as exc:  # the database is away: move again shortly (nothing else would ask it to)
                log.warning("house bot in %s: the database is unavailable (%s); trying again", live.id, exc)
                unavailable = True
            else:
                unavailable = False
        if unavailable:
            await sleep(self.clock, RETRY_SECONDS)
        live.bot_move = None
        self._changed(live)
