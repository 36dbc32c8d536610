"""One match held live in memory: its state, its move clock, and one fan-out to all its watchers.

The store stays the only truth. A :class:`LiveMatch` is this process's folded copy of one
match's stream, validated by version: every append names the version it was decided on
(``expected_seq``), so a copy that another process has overtaken fails its append and catches
up from the store instead of deciding on an old state.

Fan-out: each event reaches this process once (the command path publishes what it appended;
one follower per match reads what other processes appended, woken by LISTEN/NOTIFY on
PostgreSQL) and is handed to every watcher's queue as one :class:`FeedItem`. The item builds
each kind of viewer's message once (a seat's, the spectators', the auditors'), so three
hundred spectators cost one spectator view per event, not three hundred.

The move clock (docs/SERVER.md "Move clocks") is derived from events: a decision's deadline is
the ``at`` of the ``awaiting`` event that opened it plus the match's ``move_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

import orjson

from engine.bots import SeatMemories, get_bot
from engine.game.events import HEAD_TYPES, Event, EventType
from engine.game.evolve import evolve
from engine.game.shuffle import Dealer
from engine.game.state import INITIAL_STATE, MatchState, Phase
from engine.protocol.views import AUDITOR, Viewer, view
from engine.record.jsonfmt import ndjson_line
from server.store.event_store import EventStore
from server.store.read_models import MatchSummary
from server.store.records import StoredEvent
from server.store.streams import match_stream
from server.store.values import format_at

CLOSING_EVENT = EventType.SEED_REVEALED  # the last event of every finished match
MAX_QUEUED = 1000  # items a watcher may fall behind by before it is cut off (it resumes with since)
HISTORY_PAGE = 100  # events read and folded at a time for a watcher that starts behind the match
_CLOCKED = (Phase.DRAFT, Phase.PLAY, Phase.ROUND_OVER)  # ROUND_OVER: a last Wild Draw Four to answer

log = logging.getLogger(__name__)


FrameKey = tuple[int, Viewer, Viewer]
"""A message that ends with an event, as ``server.services.frames`` keys it: its first seq, and the
viewer its first and its last event are opened to."""


class SlowWatcher(Exception):
    """A watcher fell more than ``MAX_QUEUED`` events behind; it was cut off and may resume with ``since``."""


def parse_at(at: str) -> datetime:
    """An envelope's ``at`` (ISO 8601, UTC, ``Z``) as an aware datetime."""
    return datetime.fromisoformat(at)


def deadline_of(state: MatchState, awaiting_at: datetime | None, move_seconds: int | None) -> datetime | None:
    """When the pending decision runs out: None without a clock, a decision, or its start."""
    if move_seconds is None or awaiting_at is None or state.phase not in _CLOCKED or state.pending.seat is None:
        return None
    return awaiting_at + timedelta(seconds=move_seconds)


# Speed: every view of a decision shows the same deadline (3% when profiled). Only the deadlines
# of decisions open now are asked for again (one per match being played), so a few hundred are
# plenty; 4,096 held about 1.1 MB (270 bytes an entry) and filled only minutes into a run.
@functools.lru_cache(maxsize=256)
def format_deadline(deadline: datetime | None) -> str | None:
    return None if deadline is None else format_at(deadline)


def live_view(state: MatchState, viewer: Viewer, deadline: datetime | None, move_seconds: int | None) -> dict[str, Any]:
    """The engine's view plus the clock: ``deadline`` (ISO time or null) and ``move_seconds``."""
    seen = view(state, viewer)
    seen["deadline"] = format_deadline(deadline)
    seen["move_seconds"] = move_seconds
    return seen


class FeedItem:
    """One event as every watcher receives it; each viewer's message is built once and shared.

    The match right after the event (:attr:`state`) is folded when first asked for, from the item
    before it: a decision's message needs only the state after its last event, which the command
    path hands over (:meth:`LiveMatch.publish`), and whether the match is over (:attr:`over`).
    """

    __slots__ = ("_after", "_awaiting_at", "_kept", "_prior", "keep_back", "move_seconds", "over", "stored")

    def __init__(
        self,
        stored: StoredEvent,
        prior: FeedItem | MatchState,
        awaiting_at: datetime | None,
        move_seconds: int | None,
        state: MatchState | None = None,
    ) -> None:
        self.stored = stored
        self._after = state  # the match right after this event, once known
        self._prior: FeedItem | MatchState | None = None if state is not None else prior  # what it folds from
        self._awaiting_at = awaiting_at  # when the decision open after this event started
        self.move_seconds = move_seconds
        self.keep_back = False  # a duplicate round's match: no audit at its end (LiveMatch.keeps_back)
        before_over: bool = prior.over if isinstance(prior, FeedItem) else prior.phase is Phase.MATCH_OVER
        self.over: bool = before_over or stored.type == EventType.MATCH_ENDED  # the match is over after it
        # Speed: one dict of what each viewer was sent, not six (their making was 3% of a command, profiled).
        self._kept: dict[tuple[str, Any], Any] = {}

    @property
    def state(self) -> MatchState:
        """The match right after this event (folded from the nearest item whose state is known)."""
        if self._after is not None:
            return self._after
        unfolded: list[FeedItem] = []
        node: FeedItem | MatchState | None = self
        while isinstance(node, FeedItem) and node._after is None:
            unfolded.append(node)
            node = node._prior
        assert node is not None  # an item without a state always has a prior
        state = node._after if isinstance(node, FeedItem) else node
        assert state is not None
        for item in reversed(unfolded):
            state = evolve(state, item.stored.event())
            item._after, item._prior = state, None
        return state

    @property
    def deadline(self) -> datetime | None:
        return deadline_of(self.state, self._awaiting_at, self.move_seconds)

    @property
    def seq(self) -> int:
        return self.stored.seq

    @property
    def starts_decision(self) -> bool:
        """The first event of one append (one command, bot move, timeout, join…): its head event."""
        return self.stored.type in HEAD_TYPES

    def viewer(self, base: Viewer) -> Viewer:
        """Once the match is over every viewer is an auditor (docs/FAIRNESS.md), but at a duplicate
        round's match, whose cards other matches of the round may still be playing."""
        return AUDITOR if self.over and not self.keep_back else base

    def _once(self, kind: str, key: Any, make: Callable[[], Any]) -> Any:
        found = self._kept.get((kind, key))
        if found is None:
            found = self._kept[(kind, key)] = make()
        return found

    def envelope(self, base: Viewer) -> dict[str, Any]:
        """The envelope and ``open``: the openings this viewer may see."""
        viewer = self.viewer(base)
        envelope: dict[str, Any] = self._once("envelope", viewer, lambda: self.stored.for_viewer(viewer))
        return envelope

    def view(self, base: Viewer) -> dict[str, Any]:
        """This viewer's view right after the event, with the clock."""
        viewer = self.viewer(base)
        seen: dict[str, Any] = self._once(
            "view", viewer, lambda: live_view(self.state, viewer, self.deadline, self.move_seconds)
        )
        return seen

    def message(self, base: Viewer) -> dict[str, Any]:
        """The WebSocket message: the envelope, this viewer's openings, its view after the event."""
        message: dict[str, Any] = self._once(
            "message",
            self.viewer(base),
            lambda: {"type": "event", "event": self.envelope(base), "view": self.view(base)},
        )
        return message

    def text(self, base: Viewer) -> str:
        """:meth:`message` as the JSON text of a WebSocket frame, encoded once per kind of viewer."""
        # Speed: orjson, not json.dumps; encoding the views was the largest cost of a socket (profiled).
        text: str = self._once("text", self.viewer(base), lambda: orjson.dumps(self.message(base)).decode())
        return text

    def frame(self, key: FrameKey, make: Callable[[], str]) -> str:
        """The text of a message ending with this event, made once per ``key`` and kept with the event."""
        text: str = self._once("frame", key, make)
        return text

    def line(self, base: Viewer) -> bytes:
        """The NDJSON line of ``GET …/events?follow=1``: the envelope and this viewer's openings."""
        line: bytes = self._once("line", self.viewer(base), lambda: ndjson_line(self.envelope(base)))
        return line


def annulled_view(seen: dict[str, Any], replaced_by: str | None) -> dict[str, Any]:
    """The view of an annulled match: nothing to do (no ``legal``, no ``deadline``), and where it went on."""
    seen["legal"] = []
    seen["deadline"] = None
    seen["annulled"] = True
    seen["replaced_by"] = replaced_by
    return seen


def annulled_message(match_id: str, replaced_by: str | None) -> str:
    if replaced_by is None:
        return f"match {match_id} was annulled: it is not played on"
    return f"match {match_id} was annulled by the director's replay ruling: it is played again as match {replaced_by}"


class ClosingItem(FeedItem):
    """The last message of a socket on an annulled match (after every event it holds):
    ``{"type": "annulled", "match", "replaced_by", "message", "view"}``, the view with no
    ``legal`` and no ``deadline``. It is not an event: the NDJSON stream leaves it out."""

    __slots__ = ("match_id", "replaced_by")

    def __init__(self, live: LiveMatch, replaced_by: str | None) -> None:  # no event: ``stored`` stays unset
        self._after = live.state
        self._prior = None
        self._awaiting_at = None
        self.move_seconds = live.move_seconds
        self.keep_back = live.keeps_back
        self.over = live.state.phase is Phase.MATCH_OVER
        self._kept = {}
        self.match_id = live.id
        self.replaced_by = replaced_by

    @property
    def seq(self) -> int:
        return self.state.version

    @property
    def starts_decision(self) -> bool:
        return True  # a message of its own

    @property
    def deadline(self) -> datetime | None:
        return None

    def message(self, base: Viewer) -> dict[str, Any]:
        viewer = self.viewer(base)

        def make() -> dict[str, Any]:
            seen = annulled_view(live_view(self.state, viewer, None, self.move_seconds), self.replaced_by)
            return {
                "type": "annulled",
                "match": self.match_id,
                "replaced_by": self.replaced_by,
                "message": annulled_message(self.match_id, self.replaced_by),
                "view": seen,
            }

        message: dict[str, Any] = self._once("message", viewer, make)
        return message

    def line(self, base: Viewer) -> bytes:
        return b""  # not an event: ``follow`` leaves it out


def feed_items(
    events: Iterable[StoredEvent],
    before: FeedItem | MatchState,
    awaiting_at: datetime | None,
    move_seconds: int | None,
    *,
    last_state: MatchState | None = None,
) -> tuple[list[FeedItem], datetime | None]:
    """One item per event of ``events``, which follow ``before``; also when the decision open after
    them started. Their states are folded when asked for; ``last_state``, the state after the last
    event (the command path has it), spares that fold."""
    events = list(events)
    items: list[FeedItem] = []
    prior = before
    for i, stored in enumerate(events, 1):
        if stored.type == EventType.AWAITING:
            awaiting_at = parse_at(stored.at)
        prior = FeedItem(stored, prior, awaiting_at, move_seconds, last_state if i == len(events) else None)
        items.append(prior)
    return items, awaiting_at


EventReader = Callable[[int, int], list[StoredEvent]]
"""``read(first, last)``: the stored events of one match from seq ``first`` to ``last`` (blocking)."""


class LiveMatch:
    """This process's copy of one match. Touched only from the event loop; commands hold ``lock``."""

    def __init__(
        self,
        summary: MatchSummary,
        dealer: Dealer | None,
        state: MatchState,
        awaiting_at: datetime | None,
        bots: dict[int, str],
        history: Callable[[], Iterable[Event]] | None = None,
    ) -> None:
        self.id = summary.id
        self.stream = match_stream(summary.id)
        self.summary = summary
        self.dealer = dealer
        self.bots = bots  # seat -> engine bot name, for the house bots at this table
        # What each event-reading house bot's seat has received, folded to ``feed_version`` (issue 37):
        # ``history`` gives the match's events up to ``state.version``, read only when such a bot sits here.
        self.memories = SeatMemories({seat: get_bot(name) for seat, name in bots.items()})
        if self.memories.folds and history is not None:
            self.memories.see(history())
        self.state = state
        self.awaiting_at = awaiting_at
        self.lock = asyncio.Lock()
        self.feed_version = state.version  # the last seq handed to the watchers
        self.appending_to = 0  # the head an append in flight will reach (0: none in flight)
        self.feed_awaiting_at = awaiting_at
        self.feed_state = state
        self._watchers: set[asyncio.Queue[FeedItem | SlowWatcher | None]] = set()
        self.closed = state.phase is Phase.MATCH_OVER
        self.annulled = summary.status == "annulled"
        self.replaced_by: str | None = None  # an annulled match: the match a replay ruling plays instead
        self.follower: asyncio.Task[None] | None = None
        self.bot_move: asyncio.Task[None] | None = None
        self.places: list[int] | None = summary.places  # each seat's final place, from ``match_ended``

    @property
    def move_seconds(self) -> int | None:
        return self.summary.move_seconds

    @property
    def keeps_back(self) -> bool:
        """A duplicate round's match (its dealer has the round's deal key): its feed never turns to
        the audit view at the end; once the round is revealed the match's reads do (docs/FAIRNESS.md)."""
        return self.dealer is not None and self.dealer.deal_key is not None

    @property
    def deadline(self) -> datetime | None:
        return deadline_of(self.state, self.awaiting_at, self.move_seconds)

    # ------------------------------------------------------------ the match moves

    def advance(self, state: MatchState, appended: Iterable[StoredEvent]) -> None:
        """The command path appended ``appended`` and got ``state``: take it, and publish the events."""
        events = list(appended)
        for stored in reversed(events):
            if stored.type == EventType.AWAITING:
                self.awaiting_at = parse_at(stored.at)
                break
        if state.version > self.state.version:
            self.state = state
        self.publish(events, state)

    def publish(self, events: Iterable[StoredEvent], last_state: MatchState | None = None) -> None:
        """Hand every event after ``feed_version`` to the watchers, in order, once. ``last_state``:
        the match after the last of ``events``, if the caller has it (the command path)."""
        fresh = [e for e in events if e.seq > self.feed_version]
        if not fresh:
            return
        if fresh[0].seq != self.feed_version + 1:  # a gap: the follower will read it in order
            return
        if last_state is not None and last_state.version != fresh[-1].seq:
            last_state = None
        items, self.feed_awaiting_at = feed_items(
            fresh, self.feed_state, self.feed_awaiting_at, self.move_seconds, last_state=last_state
        )
        self.feed_state = items[-1].state  # given, or folded here: only a decision's own items fold from each other
        for item in items:
            item.keep_back = self.keeps_back
        self.feed_version = items[-1].seq
        try:
            self.memories.see(stored.event() for stored in fresh)
        except Exception:  # a bug in the fold must not stop the feed: those bots then wait (timeouts act)
            log.exception("house bots' knowledge in %s could not follow the match", self.id)
            self.memories = SeatMemories({})
        if self.feed_version > self.state.version:  # another process moved the match: take its state
            self.state, self.awaiting_at = self.feed_state, self.feed_awaiting_at
        for item in items:
            for queue in list(self._watchers):
                if queue.qsize() >= MAX_QUEUED:
                    self._watchers.discard(queue)
                    queue.put_nowait(SlowWatcher())
                else:
                    queue.put_nowait(item)
            if item.stored.type == EventType.MATCH_ENDED:
                places = item.stored.data.get("places")
                self.places = list(places) if isinstance(places, list) else None
            if item.stored.type == CLOSING_EVENT:
                self.close()

    def close(self) -> None:
        """The match is over (or the server stops): every watcher's stream ends after what it has."""
        self.closed = True
        for queue in self._watchers:
            queue.put_nowait(None)
        self._watchers.clear()
        # The follower ends too: after an end this process appended, nothing more comes, and a
        # follower left waiting would be one task and one waiter held for as long as the process
        # runs (one per match finished here). From inside the follower it returns by itself.
        follower = self.follower
        with contextlib.suppress(RuntimeError):  # no running loop: no follower can be running either
            if follower is not None and follower is not asyncio.current_task():
                follower.cancel()

    async def follow(self, store: EventStore, moved: Callable[[], None] | None = None) -> None:
        """Publish what other processes append, until the match is over (the follower task).

        What this process appends is published by the command path: the follower does not read
        it again (``known``), so on one server it never reads after its first (no poll; on
        PostgreSQL the process's one sweep wakes it only if another process moved the match).
        (If an append in flight fails or was a duplicate, the command path reads what it missed
        itself.) ``moved()`` is called after each event it publishes: the match moved in another
        process, so this one arms its clock and its bots for the new position too (if that
        process dies, this one carries on).
        """

        def known() -> int:
            return max(self.feed_version, self.appending_to)

        with contextlib.suppress(asyncio.CancelledError):
            async for stored in store.follow(self.stream, self.feed_version, known=known):
                if stored.seq > self.feed_version + 1:
                    # The follow skipped events as this process's own (an append in flight) that the
                    # feed does not have yet: an append of another process landed meanwhile, or this
                    # one's will be published after it. Read them now, or the feed would wait for
                    # them for ever (a table that stopped on both servers, found in a club evening).
                    missing = await asyncio.to_thread(
                        store.read, self.stream, self.feed_version + 1, to_seq=stored.seq - 1
                    )
                    self.publish(missing)
                self.publish([stored])
                if moved is not None:
                    moved()
                if self.closed:
                    return

    # ------------------------------------------------------------ watching

    async def runs(self, since: int, read: EventReader, *, by_decision: bool) -> AsyncIterator[list[FeedItem]]:
        """Every event after ``since``, in seq order, once each, then each new one until the match is
        over: in runs of one event, or (``by_decision``) of the events of one decision each.

        What the store already holds (a watcher that reconnects, or joins late) is read with
        ``read`` and folded a page at a time (:func:`history`), so a socket that does not read
        holds one page, not the whole match. Raises :class:`SlowWatcher` if the watcher falls
        too far behind.

        A decision is the events one append produced (one command, one bot move, one timeout,
        one join…): a head event (``engine.game.events.HEAD_TYPES``) and what follows it up to the
        next head. A run is handed over once its decision is complete: the next head arrived, or
        nothing more is queued (an append is published whole, so that is its end; the events of
        another process's append may come in more than one run when its follower reads them in
        parts). Only one decision is held out of the queue, so ``MAX_QUEUED`` still bounds a
        watcher that falls behind.
        """
        queue: asyncio.Queue[FeedItem | SlowWatcher | None] = asyncio.Queue()
        upto, closed = self.feed_version, self.closed
        if not closed:
            self._watchers.add(queue)
        try:
            last = since
            if since < upto:
                async for page in history(read, since, upto, self.move_seconds):
                    for item in page:
                        item.keep_back = self.keeps_back
                    for part in split_runs(page, by_decision):
                        yield part
                    last = page[-1].seq
            if closed:
                return
            run: list[FeedItem] = []
            while True:
                if run:
                    try:
                        got = queue.get_nowait()
                    except asyncio.QueueEmpty:  # the decision is complete: nothing more was published with it
                        yield run
                        run = []
                        continue
                else:
                    got = await queue.get()
                if got is None or isinstance(got, SlowWatcher):
                    if run:
                        yield run
                    if got is None:
                        return
                    raise got
                if got.seq <= last:
                    continue
                if run and got.starts_decision:  # the decision held is complete
                    yield run
                    run = []
                run.append(got)
                last = got.seq
                if not by_decision:
                    yield run
                    run = []
        finally:
            self._watchers.discard(queue)


def split_runs(items: list[FeedItem], by_decision: bool) -> list[list[FeedItem]]:
    """``items`` (in seq order) one event a run, or (``by_decision``) cut before each head event."""
    if not by_decision:
        return [[item] for item in items]
    runs: list[list[FeedItem]] = []
    for item in items:
        if item.starts_decision or not runs:
            runs.append([item])
        else:
            runs[-1].append(item)
    return runs


def store_reader(store: EventStore, stream: str) -> EventReader:
    """The events of ``stream`` from ``first`` to ``last`` seq, read from ``store`` (blocking)."""

    def read(first: int, last: int) -> list[StoredEvent]:
        return store.read(stream, first, to_seq=last)

    return read


async def history(read: EventReader, after: int, upto: int, move_seconds: int | None) -> AsyncIterator[list[FeedItem]]:
    """The items of seq ``after`` + 1 to ``upto`` in pages, read and folded ``HISTORY_PAGE`` events at a time.

    The fold starts at the first event (a view needs the state); the events up to ``after``
    are folded without making items. Each page is read and folded in a thread. A page ends
    where a decision ends (before a head event): the events of a decision a page cut in two
    wait for the next page; the last page ends at ``upto``.
    """
    state, awaiting_at, first = INITIAL_STATE, None, 1
    held: list[FeedItem] = []
    while first <= upto:
        last = min(first + HISTORY_PAGE - 1, upto)
        items, state, awaiting_at = await asyncio.to_thread(
            _page, read, first, last, after, state, awaiting_at, move_seconds
        )
        page = held + items
        cut = len(page) if last == upto else max((i for i, item in enumerate(page) if item.starts_decision), default=0)
        held = page[cut:]
        if cut:
            yield page[:cut]
        first = last + 1


def _page(
    read: EventReader,
    first: int,
    last: int,
    after: int,
    state: MatchState,
    awaiting_at: datetime | None,
    move_seconds: int | None,
) -> tuple[list[FeedItem], MatchState, datetime | None]:
    """One page of :func:`history`: the items after ``after`` among seq ``first`` to ``last``."""
    events = read(first, last)
    early = [e for e in events if e.seq <= after]
    for stored in early:  # before what the watcher asked for: only the state is needed
        state = evolve(state, stored.event())
        if stored.type == EventType.AWAITING:
            awaiting_at = parse_at(stored.at)
    items, awaiting_at = feed_items(events[len(early) :], state, awaiting_at, move_seconds)
    return items, items[-1].state if items else state, awaiting_at  # folded here, in the page's thread
