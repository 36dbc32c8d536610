"""What the lobby draws for one player (``LobbyState``): the lobby socket's ``lobby`` message and
``GET /api/me/lobby`` (docs/SERVER.md "The lobby socket").

One state holds everything the client's lobby shows, built from the same reads the HTTP API
answers with, so that a line never differs from what the API says at that moment:

- ``me``: ``GET /api/me`` (:func:`me_state`): the player's matches, each finished or annulled one
  with how it ended (:class:`Endings`), and the next pairings, soonest first across all their
  tournaments (an open round's waiting match first, then by start time);
- ``watch``: the live matches of the player's running tournaments that the tournament page lists
  (never a duplicate round's before its reveal: ``Tournament.secret_rounds``), less their own;
- ``tournaments``: ``GET /api/tournaments``'s first page for the player (entries, whether they
  are in, rounds opened of planned);
- ``byes``: a round of theirs, opened or paired, in which they have the bye; ``coming``: a
  running tournament's next round not paired yet (a Swiss pairs each round as it opens);
- ``names``: every tournament id above by name;
- ``disputes``: ``GET /api/me/disputes`` (:func:`disputes_shown`).

Nothing hidden is in it: summaries, ids, names, times, and disputes as the player may read them.
Blocking parts run in threads.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterable
from typing import Final

from engine.game.events import EventType
from server.schemas import (
    DisputePublic,
    LobbyBye,
    LobbyComing,
    LobbyState,
    MatchEnding,
    MatchSummaryShown,
    Me,
    MyMatch,
    NextMatch,
    SeatForfeit,
)
from server.services.match_reads import MatchReads, shown
from server.services.match_registry import MatchRegistry
from server.services.matches import MatchService
from server.services.tournament_listing import TournamentListing
from server.services.tournaments import TournamentService, dispute_public, match_timing
from server.store.event_store import EventStore
from server.store.models import PlayerPublic
from server.store.read_models import ANNULLED, FINISHED, LIVE, WAITING
from server.store.streams import match_stream
from server.store.values import format_at
from server.tournaments.match_labels import coming_label
from server.tournaments.model import RUNNING, Tournament

LISTED: Final = 20  # the tournaments' first page the lobby shows
ENDINGS_KEPT: Final = 4096  # finished matches whose ending a process remembers (they never change)
OTHER_SEAT_NOTE: Final = "(the other seat's note is shown once the match is over)"
TAIL: Final = 12  # events read at a two-seat match's end to find a forfeit (it ends the match)


class Endings:
    """How each finished match ended, read once from its stream and remembered (bounded)."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._kept: OrderedDict[str, MatchEnding] = OrderedDict()
        self._lock = threading.Lock()

    def finished(self, match: MatchSummaryShown) -> MatchEnding:
        """A finished match's ending (blocking: reads its stream's first event and its tail; a
        table's whole stream, as a seat may have forfeited long before the end)."""
        with self._lock:
            found = self._kept.get(match.id)
            if found is not None:
                self._kept.move_to_end(match.id)
                return found
        stream = match_stream(match.id)
        head = self.store.head(stream)
        created = self.store.read(stream, 1, limit=1)
        rules = created[0].data.get("ruleset", {}) if created else {}
        start = 1 if len(match.seats) > 2 else max(1, head - TAIL)
        forfeits: list[SeatForfeit] = []
        rounds: int | None = None
        for stored in self.store.read(stream, start):
            if stored.type == EventType.MATCH_FORFEITED:
                forfeits.append(SeatForfeit(seat=int(stored.data["seat"]), reason=str(stored.data["reason"])))
            elif stored.type == EventType.MATCH_ENDED:
                rounds = int(stored.data.get("rounds") or 0)
        limit = int(rules.get("round_limit") or 0)
        target = int(rules.get("target") or 0)
        if forfeits and len(match.seats) == 2:
            how = "forfeit"
        elif limit and rounds is not None and rounds >= limit and max(match.scores, default=0) < target:
            how = "round_limit"
        else:
            how = "played"
        ending = MatchEnding(how=how, forfeits=forfeits, rounds=rounds)  # type: ignore[arg-type]
        with self._lock:
            self._kept[match.id] = ending
            while len(self._kept) > ENDINGS_KEPT:
                self._kept.popitem(last=False)
        return ending


def annulled_reason(match: MatchSummaryShown, t: Tournament | None) -> str:
    """Why a match was annulled, from its tournament's fold: a replay ruling, nobody joined
    (``no_show``), a withdrawal; a casual match: an invitation nobody took up (``expired``)."""
    if t is None:
        return "expired"
    for slot in t.slots.values():
        if match.id in slot.annulled:
            return "ruling"
        if slot.match == match.id:
            if slot.result is not None and slot.result.reason == "no_show":
                return "no_show"
            if any(t.withdrawn.get(p) for p in slot.seats):
                return "withdrawal"
    return "ruling"


def ended(endings: Endings, match: MatchSummaryShown, tournaments: dict[str, Tournament]) -> MatchEnding | None:
    """How ``match`` ended (None while it is waiting or live). Blocking."""
    if match.status == FINISHED:
        ending = endings.finished(match)
        t = tournaments.get(match.tournament) if match.tournament else None
        slot = t.slot_of_match(match.id) if t is not None else None
        if ending.how == "played" and t is not None and slot is not None and t.match_time_called(slot):
            return ending.model_copy(update={"how": "time_called"})  # its result remembers the call (D26)
        return ending
    if match.status == ANNULLED:
        t = tournaments.get(match.tournament) if match.tournament else None
        return MatchEnding(how="annulled", reason=annulled_reason(match, t))
    return None


def _soonest(n: NextMatch, names: dict[str, str]) -> tuple[int, str, str, int]:
    """The order of the next pairings: an open round's match first, then by start time (none last)."""
    return (0 if n.match else 1, n.starts_at or "~", names.get(n.tournament, n.tournament), n.round)


async def me_state(
    reads: MatchReads,
    tournaments: TournamentService,
    player: PlayerPublic,
    endings: Endings | None = None,
    folds: list[Tournament] | None = None,
) -> Me:
    """What ``GET /api/me`` says: the player, their matches (with how each ended), their next
    pairings soonest first across all their tournaments (with join deadlines)."""
    if endings is None:
        endings = _ENDINGS.get(reads.store)
        if endings is None:
            endings = _ENDINGS[reads.store] = Endings(reads.store)
    every = folds if folds is not None else await tournaments.all()
    by_id = {t.id: t for t in every}
    current = await asyncio.to_thread(reads.matches_of, player)
    mine = [
        MyMatch(**dict(m), ended=await asyncio.to_thread(ended, endings, m, by_id))
        if m.status in (FINISHED, ANNULLED)
        else MyMatch(**{**dict(m), **match_timing(by_id.get(m.tournament or ""), m.id)})  # a timed round's clock
        for m in current
    ]
    names = {t.id: t.name for t in every}
    upcoming = sorted(
        (NextMatch(**n) for n in await tournaments.next_matches(player.id)), key=lambda n: _soonest(n, names)
    )
    return Me(**player.model_dump(), matches=mine, next=upcoming)


_ENDINGS: weakref.WeakKeyDictionary[EventStore, Endings] = weakref.WeakKeyDictionary()  # GET /api/me's, per store


async def disputes_shown(tournaments: TournamentService, player_id: str) -> list[DisputePublic]:
    """``GET /api/me/disputes``: the disputes this player raised or whose match they played, oldest
    first; the other seat's note only once the match is over and not a secret duplicate round's."""
    out: list[DisputePublic] = []
    finished: dict[str, bool] = {}
    for t, d in await tournaments.disputes_of(player_id):
        public = dispute_public(t, d)
        if d.player != player_id:
            if d.match not in finished:
                summary = await asyncio.to_thread(tournaments.registry.summary, d.match)
                secret = await asyncio.to_thread(tournaments.registry.secret, summary)
                finished[d.match] = summary.status == FINISHED and not secret
            if not finished[d.match]:
                public = public.model_copy(update={"note": OTHER_SEAT_NOTE})
        out.append(public)
    return out


def live_of(registry: MatchRegistry, t: Tournament) -> list[MatchSummaryShown]:
    """The live and waiting matches of ``t``'s opened rounds its page lists (no secret round's):
    the live ones are watch lines; a waiting one becomes one as it starts, so the lobby follows
    it (its start may be appended by another process). Blocking."""
    secret = t.secret_rounds()
    listed = [
        slot.match
        for number in range(1, t.opened + 1)
        if number not in secret
        for slot in t.round_slots(number)
        if slot.match is not None
    ]
    found = registry.summaries(listed)  # one read, not one a match
    return [
        shown(registry.summary_public(summary), None)
        for match_id in listed
        if (summary := found.get(match_id)) is not None and summary.status in (LIVE, WAITING)
    ]


def byes_and_coming(
    t: Tournament, player_id: str, me: Me, knockout: tuple[bool, str | None] | None = None
) -> tuple[list[LobbyBye], list[LobbyComing]]:
    """The player's byes in ``t`` (the round open now, or paired already) and, when nothing of
    theirs is paired ahead, the next round still to be paired. A knockout's (``knockout``:
    :func:`server.tournaments.match_labels.coming_label`, whether the player is still in and the
    name of what comes): none once they are out, else with its name (``losers' round 2``)."""
    if t.status != RUNNING or player_id not in t.players or player_id in t.withdrawn:
        return [], []
    byes = []
    for scheduled in t.rounds:
        number = scheduled.number
        if scheduled.bye == player_id and number >= t.opened and t.round_status(number) != "finished":
            at = t.starts_at(number)
            byes.append(
                LobbyBye(
                    tournament=t.id,
                    round=number,
                    starts_at=format_at(at) if at else None,
                    opened=number <= t.opened,
                )
            )
    ahead = [n for n in me.next if n.tournament == t.id]
    still_in, label = knockout if knockout is not None else (True, None)
    coming = []
    number = t.opened + 1
    if still_in and not ahead and number <= t.planned and number > len(t.rounds):
        at = t.starts_at(number)
        coming.append(LobbyComing(tournament=t.id, round=number, starts_at=format_at(at) if at else None, label=label))
    return byes, coming


class LobbyReader:
    """Builds :class:`LobbyState` for players; one call of :meth:`shared` per moment serves many players."""

    def __init__(self, store: EventStore, matches: MatchService, tournaments: TournamentService) -> None:
        self.registry = matches.registry
        self.reads = matches.reads
        self.tournaments = tournaments
        self.listing = TournamentListing(store)
        self.endings = Endings(store)

    async def shared(self) -> tuple[list[Tournament], dict[str, list[MatchSummaryShown]]]:
        """Every tournament's fold and each running one's live and waiting matches (the same for every
        player: :func:`live_of`)."""
        folds = await self.tournaments.all()
        running = [t for t in folds if t.status == RUNNING]
        live = await asyncio.to_thread(lambda: {t.id: live_of(self.registry, t) for t in running})
        return folds, live

    async def state(
        self,
        player: PlayerPublic,
        shared: tuple[list[Tournament], dict[str, list[MatchSummaryShown]]] | None = None,
    ) -> LobbyState:
        folds, live = shared if shared is not None else await self.shared()
        me = await me_state(self.reads, self.tournaments, player, self.endings, folds)
        page = await asyncio.to_thread(self.listing.page, player.id, LISTED, None)
        mine = [t for t in folds if player.id in t.players]
        seated = {m.id for m in me.matches}
        watch = [m for t in mine for m in live.get(t.id, ()) if m.id not in seated and m.status == LIVE]
        byes: list[LobbyBye] = []
        coming: list[LobbyComing] = []
        for t in mine:
            knockout = None
            if t.knockout and t.status == RUNNING:
                seed = await asyncio.to_thread(self.tournaments.seed, t.id)
                knockout = coming_label(t, player.id, seed)
            b, c = byes_and_coming(t, player.id, me, knockout)
            byes += b
            coming += c
        disputes = await disputes_shown(self.tournaments, player.id)
        wanted: Iterable[str | None] = (
            *(m.tournament for m in me.matches),
            *(m.tournament for m in watch),
            *(n.tournament for n in me.next),
            *(b.tournament for b in byes),
            *(c.tournament for c in coming),
            *(d.tournament for d in disputes),
            *(line.id for line in page.lines),
        )
        names = {t.id: t.name for t in folds if t.id in set(wanted)}
        return LobbyState(
            me=me,
            watch=watch,
            tournaments=page.lines,
            byes=byes,
            coming=coming,
            names=names,
            disputes=disputes,
        )
