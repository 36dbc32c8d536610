"""What a viewer reads of a match: summaries, views (now or at an event), events, live streams
(NDJSON and the socket's messages), replays.

Who sees what: every viewer receives the same event envelopes (hidden fields only as sealed
commitments, docs/FAIRNESS.md), each with the openings that viewer may see: a seat its own
hidden cards, anyone else nothing hidden; the director, and everyone once the match is over,
every opening. Views follow the same rule (``engine.protocol.views.view``). Every read passes
``MatchRegistry.gate`` first: a match of a duplicate round not revealed yet is read by its seats
and the director only (``Withheld`` for anyone else), and shows its seats no more at its end than
during play (docs/TOURNAMENTS.md "Duplicate rounds").
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator

from engine import ENGINE_VERSION
from engine.game.state import MatchState, Phase
from engine.protocol.views import Viewer
from engine.record.replay import header_line, replay_line
from server.domain_errors import Malformed, MatchLive
from server.schemas import MatchDetail, MatchOutcome, MatchSummaryShown, MatchView
from server.services.frames import Frames, run_text
from server.services.live_match import (
    ClosingItem,
    FeedItem,
    LiveMatch,
    annulled_view,
    deadline_of,
    live_view,
    store_reader,
)
from server.services.match_registry import MatchRegistry, Reader, replacement_in
from server.services.players import Caller
from server.store.models import EventPublic, MatchSummaryPublic, PlayerPublic
from server.store.read_models import ANNULLED, FINISHED, LIVE, WAITING, matches_of
from server.store.records import Envelope, StoredEvent
from server.store.streams import match_stream

PAST_STATES_KEPT = 256  # states at a past event kept for the next ?at= (a director scrubbing, a replay viewer)


class MatchReads:
    """Reads through the live copies of ``registry`` (a match is opened to be read)."""

    def __init__(self, registry: MatchRegistry, *, me_matches_listed: int, past_views_at_once: int = 1) -> None:
        self.registry = registry
        self.store = registry.store
        self.me_matches_listed = me_matches_listed
        self._past: OrderedDict[tuple[str, int], MatchState] = OrderedDict()  # recent past states, newest last
        self._past_lock = threading.Lock()
        self._folding = asyncio.Semaphore(past_views_at_once)

    # ------------------------------------------------------------ summaries

    def live_summary(self, live: LiveMatch) -> MatchSummaryShown:
        """The summary of a live match, from its state (what the read model will say once it has it);
        ``replaced_by`` as the copy knows it (:meth:`MatchRegistry.replacement` looks it up)."""
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
            places=live.places if state.phase is Phase.MATCH_OVER else None,
        )
        return shown(self.registry.summary_public(current), live.replaced_by)

    def matches_of(self, player: PlayerPublic) -> list[MatchSummaryShown]:
        """The matches ``player`` has a seat in (``GET /api/me``): live ones, then waiting, then the
        rest, each by match id; at most ``me_matches_listed`` of them, so the answer stays small.
        An annulled tournament match says which match replays it (blocking: call in a thread)."""
        found = matches_of(self.store.engine, player.id, limit=self.me_matches_listed)
        out: list[MatchSummaryShown] = []
        for s in found:
            replaced_by = None
            if s.status == ANNULLED and s.tournament is not None:
                replaced_by = replacement_in(self.store, s.tournament, s.id)
            out.append(shown(self.registry.summary_public(s), replaced_by))
        return out

    # ------------------------------------------------------------ views

    def state_at(self, match_id: str, version: int) -> MatchState:
        """The match just after event ``version``: from the recent past states kept, else from the
        nearest snapshot (``Snapshots.state_at``), never a fold of the whole match."""
        key = (match_id, version)
        with self._past_lock:  # read in threads
            found = self._past.get(key)
            if found is not None:
                self._past.move_to_end(key)
                return found
        found = self.registry.snapshots.state_at(match_stream(match_id), version)
        with self._past_lock:
            self._past[key] = found
            while len(self._past) > PAST_STATES_KEPT:
                self._past.popitem(last=False)
        return found

    @staticmethod
    def view(live: LiveMatch, viewer: Viewer) -> MatchView:
        """The viewer's view now; an annulled match's has nothing to do (no legal, no deadline)."""
        seen = live_view(live.state, viewer, live.deadline, live.move_seconds)
        if live.annulled:
            seen = annulled_view(seen, live.replaced_by)
        return MatchView.model_validate(seen)

    async def show(self, match_id: str, caller: Caller, at: int | None = None) -> MatchDetail:
        """The caller's view now, or just after event ``at`` (a director scrubbing to a dispute).

        Who the caller is comes from the match as it is now: once it is over, or for the
        director, that is the audit view, at any event; a seat sees its own view of then.
        """
        live = await self.registry.open(match_id)
        viewer = (await self.registry.gate(live.summary, caller)).at(live.state)
        if live.annulled:
            await asyncio.to_thread(self.registry.replacement, live)
        if at is None or at == live.state.version:
            return MatchDetail(match=self.live_summary(live), view=self.view(live, viewer))
        if not 1 <= at <= live.state.version:
            raise Malformed(f"at must name an event of this match: 1 to {live.state.version}, not {at}")
        async with self._folding:  # a cost cap: past views wait their turn, the event loop and commands do not
            state = await asyncio.to_thread(self.state_at, match_id, at)
        past = live_view(state, viewer, None, live.move_seconds)
        return MatchDetail(match=self.live_summary(live), view=MatchView.model_validate(past))

    # ------------------------------------------------------------ the answers to commands

    def outcome(self, live: LiveMatch, reader: Reader, appended: list[StoredEvent]) -> MatchOutcome:
        """The answer to a command just applied: its events and the bots' answers, the view after
        (``reader``: the seat's, from :meth:`MatchRegistry.gate`)."""
        viewer = reader.at(live.state)
        return MatchOutcome(
            match=self.live_summary(live),
            view=self.view(live, viewer),
            events=[EventPublic.model_validate(e.for_viewer(viewer)) for e in appended],
        )

    def stored_outcome(self, match_id: str, caller: Caller, command_id: str) -> MatchOutcome:
        """The outcome of a command run before (a retry), read back from the store."""
        stream = match_stream(match_id)
        first, last = self._stored_range(stream, command_id)
        state = self.state_at(match_id, last)
        summary = self.registry.summary(match_id)
        viewer = self.registry.reader(summary, caller).at(state)
        envelopes = self.store.read(stream, first, to_seq=last) if last >= first else []
        deadline = deadline_of(state, self.registry.awaiting_at(stream, state), summary.move_seconds)
        return MatchOutcome(
            match=shown(self.registry.summary_public(summary), None),
            view=MatchView.model_validate(live_view(state, viewer, deadline, summary.move_seconds)),
            events=[EventPublic.model_validate(e.for_viewer(viewer)) for e in envelopes],
        )

    def stored_version(self, stream: str, command_id: str) -> int:
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

    # ------------------------------------------------------------ events and replays

    async def events_since(self, match_id: str, caller: Caller, since: int) -> list[Envelope]:
        """The events after ``since`` as ``caller`` may see them (who that is, from the live copy)."""
        live = await self.registry.open(match_id)
        viewer = (await self.registry.gate(live.summary, caller)).at(live.state)

        def read() -> list[Envelope]:
            return [e.for_viewer(viewer) for e in self.store.iter_stream(live.stream, since + 1)]

        return await asyncio.to_thread(read)

    async def watch(
        self, match_id: str, caller: Caller, since: int, *, by_decision: bool = False
    ) -> AsyncIterator[list[FeedItem]]:
        """The match's events after ``since``, live, once each and in order, until its last event:
        one event a run, or (``by_decision``) one decision a run (``LiveMatch.runs``).

        Raises ``SlowWatcher`` if the watcher cannot keep up (it may resume with ``since``), and
        ``Withheld`` before the first run for someone who may not read the match.
        """
        await self.registry.gate((await self.registry.open(match_id)).summary, caller)  # before it is held
        live = await self.registry.open(match_id, hold=True)
        with self.registry.watched(live):
            async for run in live.runs(since, store_reader(self.store, live.stream), by_decision=by_decision):
                yield run
        if live.annulled:  # the last message says so, and where the pairing is played now
            yield [ClosingItem(live, await asyncio.to_thread(self.registry.replacement, live))]

    async def messages(
        self, match_id: str, caller: Caller, since: int, frames: Frames = Frames.EVENT
    ) -> AsyncIterator[str]:
        """The text messages of ``caller``'s socket on the match (docs/API.md ``WS /api/matches/{id}/ws``):
        one per event after ``since``, or per decision (``server.services.frames``), each with the
        viewer's view after it and encoded once for every viewer of the same kind. Ends after the
        match's last event; from the moment the match is over every viewer is an auditor."""
        live = await self.registry.open(match_id)
        base = self.registry.base_viewer(live.summary, caller)
        async for run in self.watch(match_id, caller, since, by_decision=frames is Frames.DECISION):
            yield run_text(run, base, frames)

    async def follow(self, match_id: str, caller: Caller, since: int) -> AsyncIterator[bytes]:
        """NDJSON lines of the events after ``since``, live, until the match's last event.

        Ends at once when the match is finished and ``since`` is at or past its last event, and
        when the server stops; a cancelled stream ends quietly.
        """
        live = await self.registry.open(match_id)
        base = self.registry.base_viewer(live.summary, caller)
        try:
            async for run in self.watch(match_id, caller, since):
                for item in run:
                    if not isinstance(item, ClosingItem):
                        yield item.line(base)
        except asyncio.CancelledError:  # the server is stopping or the client went away: end the stream
            return

    def replay(self, match_id: str) -> str:
        summary = self.registry.summary(match_id)
        state = self.registry.snapshots.load(match_stream(match_id))
        if state.phase is not Phase.MATCH_OVER:
            raise MatchLive()
        players = [p or "" for p in summary.seats]
        lines = [header_line(match_id, state.ruleset.name, players, ENGINE_VERSION)]
        for stored in self.store.iter_stream(match_stream(match_id)):
            lines.append(replay_line(stored.envelope(), stored.openings))
        return "\n".join(lines) + "\n"


def shown(summary: MatchSummaryPublic, replaced_by: str | None) -> MatchSummaryShown:
    """A summary as clients are shown it, with ``replaced_by``."""
    return MatchSummaryShown(**dict(summary), replaced_by=replaced_by)
