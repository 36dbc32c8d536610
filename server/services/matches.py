"""Casual matches: create, join, decide a seat's command, let house bots move, show views.

A match's state is its snapshot plus a fold of the events after it (``Snapshots.load``). A
command is decided against that state with the match's ``Dealer(server_seed)`` and appended
with ``expected_seq`` = the state's version (a race gives ``ConcurrencyError``: ``stale_version``) and
the client's ``command_id`` (a retry gets the first outcome back and appends nothing).

After every append, while a house bot has something to decide (its turn, or a UNO window it
may speak in), the bot chooses from its own seat's view with a ``random.Random`` seeded by the
match id and version, and its command goes through the same path under the command id
``bot-<version>``; so bot play is reproducible and a repeated drive appends nothing twice.
The caller's response covers its command and the bot moves that followed it.

Who sees what: every viewer receives the same event envelopes (hidden fields only as sealed
commitments, docs/FAIRNESS.md), each with the openings that viewer may see: a seat its own
hidden cards, anyone else nothing hidden; the director, and everyone once the match is over,
every opening. Views follow the same rule (``engine.views.view``).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import random
import secrets
from collections.abc import AsyncIterator
from typing import Any

from engine import ENGINE_VERSION
from engine.bots import get_bot
from engine.commands import CreateMatch, JoinSeat, SeatCommand, parse_action, parse_seat_command
from engine.decide import decide_step
from engine.errors import CommandRefused, shown
from engine.events import Event, EventType
from engine.evolve import fold
from engine.jsonfmt import ndjson_line
from engine.replay import header_line, replay_line
from engine.rulesets import RULESETS, get_ruleset
from engine.shuffle import Dealer, commitment_of
from engine.state import INITIAL_STATE, MatchState, Phase
from engine.views import AUDITOR, SPECTATOR, Viewer, legal_commands, view
from server.schemas import MatchDetail, MatchOutcome, MatchView
from server.services.errors import Malformed, MatchLive, MatchNotFound, NotASeat, NotNow, NotOpen, PlayerNotFound
from server.services.players import Caller, house_bot_of, resolve_opponent
from server.store.errors import ConcurrencyError
from server.store.event_store import EventStore
from server.store.models import EventPublic, MatchSummaryPublic, PlayerPublic
from server.store.players import get_player
from server.store.read_models import MatchSummary, match_summary, matches_of
from server.store.records import Envelope
from server.store.secrets import match_seed, match_seed_rows, new_server_seed
from server.store.snapshots import Snapshots
from server.store.streams import MATCHES_STREAM, ServerEventType, match_stream

log = logging.getLogger(__name__)

MAX_BOT_MOVES = 5000  # a safety bound per drive; a whole match takes a few hundred
CLOSING_EVENT = EventType.SEED_REVEALED  # the last event of every finished match


def seat_command_id(seat: int, client_id: str) -> str:
    """The stored id of a seat's command: per seat, and apart from the server's own ids.

    The server's ids (``create``, ``join-<seat>``, ``bot-<version>``) never start with ``s0:``
    or ``s1:``, so a client cannot pre-empt a bot's move or the other seat's retries.
    """
    return f"s{seat}:{client_id}"


def new_match_id() -> str:
    return "m_" + secrets.token_hex(8)


class MatchService:
    def __init__(self, store: EventStore, snapshot_every: int = 100) -> None:
        self.store = store
        self.snapshots = Snapshots(store, every=snapshot_every)
        self._players: dict[str, PlayerPublic] = {}  # a player's id, name and kind never change

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

    def matches_of(self, player: PlayerPublic) -> list[MatchSummaryPublic]:
        """Every match ``player`` has a seat in, by match id."""
        return [self.summary_public(s) for s in matches_of(self.store.engine, player.id)]

    def load(self, match_id: str) -> MatchState:
        return self.snapshots.load(match_stream(match_id))

    def state_at(self, match_id: str, version: int) -> MatchState:
        state = self.load(match_id)
        if state.version == version:
            return state
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

    def viewer_for(self, summary: MatchSummary, caller: Caller, state: MatchState) -> Viewer:
        if caller.director or state.phase is Phase.MATCH_OVER:
            return AUDITOR
        seat = self.seat_of(summary, caller)
        return SPECTATOR if seat is None else seat

    def show(self, match_id: str, caller: Caller) -> MatchDetail:
        summary = self.summary(match_id)
        state = self.drive_bots(match_id, summary, self.load(match_id))
        summary = self.summary(match_id)
        seen = view(state, self.viewer_for(summary, caller, state))
        return MatchDetail(match=self.summary_public(summary), view=MatchView.model_validate(seen))

    # ------------------------------------------------------------ creating and joining

    def create(self, caller: PlayerPublic, opponent_entry: str, ruleset_name: str | None) -> MatchSummaryPublic:
        name = ruleset_name or "uno-duo"
        if name not in RULESETS:
            raise Malformed(f"unknown ruleset {shown(name)}: choose one of {', '.join(RULESETS)}")
        ruleset = get_ruleset(name)
        opponent = resolve_opponent(self.store, opponent_entry)
        if opponent is None:
            raise PlayerNotFound(opponent_entry)
        if opponent.id == caller.id:
            raise Malformed("a match needs two different players")
        if opponent.kind == "bot" and house_bot_of(opponent) is None:
            raise Malformed(f"{opponent.id!r} is a bot that this server does not run")
        match_id = new_match_id()
        self.store.append(
            MATCHES_STREAM,
            [
                Event(
                    ServerEventType.MATCH_REGISTERED,
                    {
                        "match": match_id,
                        "seats": [caller.id, opponent.id],
                        "tournament": None,
                        "round": None,
                        "ruleset": ruleset.name,
                    },
                )
            ],
            expected_seq=None,
        )
        seed = new_server_seed()
        events, state = decide_step(INITIAL_STATE, CreateMatch(ruleset, commitment_of(seed)), Dealer(seed))
        stream = match_stream(match_id)
        self.store.append(
            stream,
            events,
            expected_seq=0,
            command_id="create",
            result={"ok": True},
            extra_rows=lambda at: match_seed_rows(match_id, seed, at),
            seal_seed=seed,
        )
        summary = self.summary(match_id)
        for seat, player_id in enumerate(summary.seats):
            bot = self._bot_of_player_id(player_id)
            if bot is not None:
                state = self._apply(match_id, state, JoinSeat(seat, ""), f"join-{seat}", Dealer(seed))
        return self.summary_public(self.summary(match_id))

    def join(self, match_id: str, caller: Caller, entropy: str) -> MatchOutcome:
        """Take the caller's seat with ``entropy``.

        A seat joins once. Joining again with the same entropy is a retry and gets the first
        join's outcome; with other entropy it is refused (``NotNow``) and nothing changes.
        """
        summary = self.summary(match_id)
        seat = self._require_seat(summary, caller)
        stream = match_stream(match_id)
        command_id = f"join-{seat}"
        if self.store.processed(stream, command_id) is None:
            state = self.load(match_id)
            if state.phase is Phase.NEW:
                raise NotOpen(f"match {match_id!r} was never opened; it cannot be joined")
            try:
                if state.phase is not Phase.WAITING or state.entropies[seat] is not None:
                    raise NotNow(f"seat {seat} has already joined this match")
                after = self._apply(match_id, state, JoinSeat(seat, entropy), command_id, self._dealer(match_id))
            except (ConcurrencyError, CommandRefused, NotNow):
                # Another request (a copy of this one?) may have taken the seat meanwhile.
                if self.store.processed(stream, command_id) is None:
                    raise
            else:
                if self._joined_with(after, seat, entropy):  # not so if a copy took the seat first
                    return self._respond(match_id, caller, command_id, after)
        if not self._joined_with(self.load(match_id), seat, entropy):
            raise NotNow(f"seat {seat} has already joined this match with other entropy; a seat joins once")
        return self._respond(match_id, caller, command_id)

    @staticmethod
    def _joined_with(state: MatchState, seat: int, entropy: str) -> bool:
        """Whether ``seat`` joined with ``entropy`` (compared in constant time: it is a secret until the end)."""
        joined = state.entropies[seat]
        return joined is not None and hmac.compare_digest(joined.encode(), entropy.encode())

    # ------------------------------------------------------------ a seat's command

    def command(
        self, match_id: str, caller: Caller, command_id: str, expected_version: int | None, command: dict[str, Any]
    ) -> MatchOutcome:
        summary = self.summary(match_id)
        seat = self._require_seat(summary, caller)
        stream = match_stream(match_id)
        command_id = seat_command_id(seat, command_id)
        if self.store.processed(stream, command_id) is None:
            try:
                state = self.load(match_id)
                action = parse_action(command)
                seat_command = SeatCommand(seat=seat, action=action, expected_version=expected_version)
                state = self._apply(match_id, state, seat_command, command_id, self._dealer(match_id))
            except (ConcurrencyError, CommandRefused):
                # A copy of this command (same id) sent at the same time may have been stored
                # between the check above and the decision: then its outcome is the answer.
                if self.store.processed(stream, command_id) is None:
                    raise
            else:
                return self._respond(match_id, caller, command_id, state)
        return self._respond(match_id, caller, command_id)

    def _respond(self, match_id: str, caller: Caller, command_id: str, state: MatchState | None = None) -> MatchOutcome:
        """The outcome of ``command_id`` (first run or retry): its events, the bots' answers, the view after.

        ``state``: the match right after the command, when the caller has it (saves a load).
        """
        stream = match_stream(match_id)
        summary = self.summary(match_id)
        state = self.drive_bots(match_id, summary, state or self.load(match_id))
        info = self.store.processed(stream, command_id)
        assert info is not None
        first = info.first_seq
        last = self._bot_chain_end(stream, info.first_seq + info.count - 1)
        if state.version != last:
            state = self.state_at(match_id, last)
        summary = self.summary(match_id)
        viewer = self.viewer_for(summary, caller, state)
        envelopes = self.store.read(stream, first, to_seq=last) if info.count else []
        return MatchOutcome(
            match=self.summary_public(summary),
            view=MatchView.model_validate(view(state, viewer)),
            events=[EventPublic.model_validate(e.for_viewer(viewer)) for e in envelopes],
        )

    def _bot_chain_end(self, stream: str, last: int) -> int:
        """The seq after the bot moves that answered the command ending at ``last``."""
        while True:
            info = self.store.processed(stream, f"bot-{last}")
            if info is None or info.count == 0:
                return last
            last = info.first_seq + info.count - 1

    # ------------------------------------------------------------ the house bots

    def _bot_of_player_id(self, player_id: str | None) -> str | None:
        """The engine bot playing for ``player_id``, if it is a house bot."""
        player = self.player(player_id)
        return None if player is None else house_bot_of(player)

    def drive_bots(self, match_id: str, summary: MatchSummary, state: MatchState) -> MatchState:
        """Let house bots move until a human must decide or the match is over."""
        bots = {seat: bot for seat, p in enumerate(summary.seats) if (bot := self._bot_of_player_id(p))}
        if not bots or state.phase in (Phase.NEW, Phase.WAITING, Phase.MATCH_OVER):
            return state
        dealer = self._dealer(match_id)
        for _ in range(MAX_BOT_MOVES):
            # Nobody has a legal command once the match is over, so that ends the loop too.
            movers = [s for s in bots if legal_commands(state, s)]
            if not movers:
                break
            pending = state.pending.seat
            seat = pending if pending in movers else movers[0]
            assert seat is not None
            rng = random.Random(f"{match_id}:{state.version}")
            choice = get_bot(bots[seat]).choose(view(state, seat), rng)
            before = state.version
            try:
                state = self._apply(match_id, state, parse_seat_command(seat, choice), f"bot-{before}", dealer)
            except ConcurrencyError:
                state = self.load(match_id)  # another request moved first; look again
            except CommandRefused as refusal:  # a bot bug: leave the match as it is, say so
                log.error("house bot %s in %s sent %r: %s", bots[seat], match_id, choice, refusal.message)
                break
            if state.version <= before:  # cannot happen (every command emits events); never spin
                log.error("house bot %s in %s made no progress at version %s", bots[seat], match_id, before)
                break
        return state

    # ------------------------------------------------------------ deciding and appending

    def _dealer(self, match_id: str) -> Dealer:
        seed = match_seed(self.store, match_id)
        if seed is None:
            raise NotOpen(f"match {match_id!r} was never opened (no seed); it cannot be played")
        return Dealer(seed)

    def _apply(
        self,
        match_id: str,
        state: MatchState,
        command: JoinSeat | SeatCommand,
        command_id: str,
        dealer: Dealer,
    ) -> MatchState:
        """Decide ``command`` on ``state`` and append its events; the state after them.

        Raises CommandRefused (nothing appended) or ConcurrencyError (the match moved on).
        """
        stream = match_stream(match_id)
        events, after = decide_step(state, command, dealer)
        result = self.store.append(
            stream,
            events,
            expected_seq=state.version,
            command_id=command_id,
            result={"ok": True},
            seal_seed=dealer.server_seed,
        )
        if result.duplicate:
            return self.load(match_id)
        self.snapshots.after_append(stream, after, result)
        return after

    def _require_seat(self, summary: MatchSummary, caller: Caller) -> int:
        seat = self.seat_of(summary, caller)
        if seat is None:
            raise NotASeat(summary.id)
        return seat

    # ------------------------------------------------------------ events and replays

    def viewer_of(self, match_id: str, caller: Caller) -> Viewer:
        return self.viewer_for(self.summary(match_id), caller, self.load(match_id))

    def events_since(self, match_id: str, caller: Caller, since: int) -> list[Envelope]:
        viewer = self.viewer_of(match_id, caller)
        stored = self.store.iter_stream(match_stream(match_id), since + 1)
        return [e.for_viewer(viewer) for e in stored]

    def closed_at(self, match_id: str) -> int | None:
        """The seq of a finished match's last event (``seed_revealed``); None while it is not finished."""
        stream = match_stream(match_id)
        head = self.store.head(stream)
        last = self.store.read(stream, head, to_seq=head) if head else []
        return head if last and last[0].type == CLOSING_EVENT else None

    async def follow(self, match_id: str, viewer: Viewer, since: int) -> AsyncIterator[bytes]:
        """NDJSON lines of the events after ``since``, live, until the match's last event.

        Ends at once when the match is finished and ``since`` is at or past its last event, and
        when the server stops (the store ends its follows); a cancelled stream ends quietly.
        """
        closed_at = await asyncio.to_thread(self.closed_at, match_id)
        if closed_at is not None and since >= closed_at:
            return
        try:
            async for stored in self.store.follow(match_stream(match_id), since):
                yield ndjson_line(stored.for_viewer(viewer))
                if stored.type == CLOSING_EVENT:
                    return
        except asyncio.CancelledError:  # the server is stopping or the client went away: end the stream
            return

    def replay(self, match_id: str) -> str:
        summary = self.summary(match_id)
        state = self.load(match_id)
        if state.phase is not Phase.MATCH_OVER:
            raise MatchLive()
        players = [p or "" for p in summary.seats]
        lines = [header_line(match_id, state.ruleset.name, players, ENGINE_VERSION)]
        for stored in self.store.iter_stream(match_stream(match_id)):
            lines.append(replay_line(stored.envelope(), stored.openings))
        return "\n".join(lines) + "\n"
