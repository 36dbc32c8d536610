"""Tournaments (docs/TOURNAMENTS.md): the service that runs them. No HTTP here.

A tournament is the stream ``tournament-<id>``; :mod:`server.tournaments.model` folds it and
:mod:`server.tournaments.decide` decides what comes next, purely. This service reads the fold and
the facts a decision needs (a match's end, the ratings, the seed), asks the Decider, appends what
it decides, and does what the events ask of the matches: a round's matches made, a replayed match
annulled and made again, forfeits and annulments, join deadlines and scheduled starts armed.

Every append names the version it was decided on (``expected_seq``) and a command id, so two
processes, or a retry after a crash, never record a step twice: the loser of a race reads the
stream again and decides again. :meth:`TournamentService.advance` is safe to call any time.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Final, cast

from engine.bots import UnknownBotError, normalize_bot_name
from engine.game.duplicate import DEAL_FIELD
from engine.game.errors import shown
from engine.game.events import Event
from engine.game.rulesets import RULESETS, Ruleset, RulesetError
from engine.game.seat_names import player_label
from engine.game.shuffle import commitment_of
from engine.game.state import Phase
from engine.record.replay import header_line
from server.domain_errors import (
    DomainError,
    Malformed,
    NotASeat,
    NotNow,
    PlayerNotFound,
)
from server.names import name_key
from server.schemas import (
    BracketNodePublic,
    DisputePublic,
    KnockoutExport,
    NodeResultPublic,
    PairingPublic,
    PlacePublic,
    PoolPublic,
    RoundPublic,
    StandingPublic,
    TournamentPublic,
    TournamentResult,
    WithdrawalPublic,
)
from server.services.clock import Timer
from server.services.matches import MatchService
from server.services.players import Caller, ensure_house_bot, house_bot_id, house_bot_of, resolve_player
from server.services.tournament_folds import TournamentFolds, TournamentNotFound
from server.settings import Settings
from server.store.errors import UNAVAILABLE, ConcurrencyError
from server.store.event_store import EventStore
from server.store.models import MatchSummaryPublic, PlayerPublic
from server.store.read_models import MatchSummary
from server.store.secrets import match_seed, match_seed_rows, new_server_seed
from server.store.streams import match_stream
from server.store.values import format_at
from server.tournaments.brackets import plan_of, source_text
from server.tournaments.decide import (
    MAX_PLAYERS,
    Advance,
    CallRoundTime,
    CheckIn,
    Command,
    Create,
    Decision,
    DisputeNotFound,
    Enter,
    EntryNotFound,
    Leave,
    MatchEnd,
    NoShow,
    OpenDispute,
    RecordResult,
    RequestBye,
    Rule,
    Start,
    Withdraw,
    after,
    check_ruling,
    deal_key,
    decide,
    refuse_entry,
    seeding_family,
)
from server.tournaments.knockouts import bracket_of, node_result, pool_standings_of
from server.tournaments.knockouts import state as knockout_state
from server.tournaments.match_labels import slot_label
from server.tournaments.model import (
    CREATED,
    FINISHED,
    RUNNING,
    TOURNAMENT_PREFIX,
    Dispute,
    DisputeOpened,
    DisputeRuled,
    Format,
    MatchReplayed,
    ResultRecorded,
    RoundOpened,
    Slot,
    Tournament,
    TournamentEvent,
    TournamentFinished,
    tournament_stream,
)
from server.tournaments.places import final_places, standings_of
from server.tournaments.pools import POOL_FORMATS, pool_label, pool_node, pool_tables
from server.tournaments.standings import StandingRow, row_score
from server.tournaments.tables import repeat_meetings
from server.tournaments.trf import tournament_trf

log = logging.getLogger(__name__)

Effect = Callable[[Tournament, Decision], Awaitable[None]]  # done before a decision's events are appended
Seeding = Callable[[list[str], str], dict[str, float]]  # (players, family) -> each one's rating

BOT_PREFIX: Final = "bot:"
RACE_RETRIES: Final = 50
RETRY_SECONDS: Final = 1.0  # background work that found the database away tries again after this (doubling)
MAX_RETRY_SECONDS: Final = 10.0
SEEDS_KEPT: Final = 256  # tournaments whose seed is kept read (a club runs a handful at once)
MAX_FAILURES: Final = 5  # background work failing for another reason than the database is tried this often


class NotYours(NotASeat):
    """A player asked for something only the director (or that other player) may do: 403."""

    def __init__(self, message: str) -> None:
        DomainError.__init__(self, message)


@dataclass(frozen=True)
class NewTournament:
    """What a director asks for (``POST /api/tournaments``), already shaped by the route."""

    name: str
    players: list[str]
    ruleset: str
    rules: dict[str, Any]
    double: bool
    move_seconds: int
    join_seconds: int
    open: bool = False
    format: str = Format.ROUND_ROBIN.value
    rounds: int | None = None  # swiss and tables
    table_size: int | None = None  # tables
    placement_points: list[int] | None = None  # tables (default: k-1 … 0 for tables of k)
    round_starts: list[datetime] = field(default_factory=list)  # each round's start time, round 1 first
    bot_accounts: bool = False  # bot accounts may be entered (off by default, docs/BOTS.md)
    seeding: str = "entry"  # "entry" or "rating": pairing numbers by rating when it starts
    duplicate: bool = False  # duplicate rounds: every match of a round dealt the same (round_robin, swiss)
    advance: int | None = None  # table_knockout and pools: how many of each table / pool go on (default 2)
    pool_format: str | None = None  # pools: round_robin (default) or swiss
    pool_size: int | None = None  # pools
    bracket: str | None = None  # pools: single_elimination (default) or double_elimination
    starts_at: datetime | None = None  # it starts by itself then
    check_in_minutes: int | None = None  # the check-in window before the start (an open tournament)
    forbidden_pairs: list[tuple[str, str]] = field(default_factory=list)  # names or ids: never paired if avoidable
    round_minutes: float | None = None  # timed rounds (RULES.md D26): each round's wall-clock limit
    late_entry_rounds: int | None = None  # swiss: entries until this round is paired
    late_entry_bye: bool = False  # swiss: a late entrant's missed rounds score ½ each


def tournament_or_none(store: EventStore) -> Callable[[str], Tournament | None]:
    """A tournament's fold, read afresh each time, None for a tournament nobody made (an offline
    reader's: ``unoduo ratings``; the server's own reads keep their folds, :class:`TournamentFolds`)."""
    return TournamentFolds(store, kept=0).find


def new_tournament_id() -> str:
    return "t_" + secrets.token_hex(8)


def tournament_of_dispute(dispute_id: str) -> str | None:
    """A dispute's id is ``<tournament id>-d<n>``."""
    head, sep, tail = dispute_id.rpartition("-d")
    return head if sep and tail.isdigit() and head.startswith("t_") else None


class TournamentService:
    def __init__(
        self,
        store: EventStore,
        matches: MatchService,
        settings: Settings | None = None,
        seeding: Seeding | None = None,
        folds: TournamentFolds | None = None,
    ) -> None:
        """``seeding``: each player's rating in a family, for a ``rating`` seeding (the ratings';
        None: every tournament starts in its entry order)."""
        self.store = store
        self.folds = folds or TournamentFolds(store)
        self.open_disputes_per_player = (settings or Settings()).open_disputes_per_player
        self.matches = matches  # creates the rounds' matches
        self.registry = matches.registry  # look-ups: summaries, players, seats, the read gate
        self.match_commands = matches.commands  # forfeits and annulments
        self.match_reads = matches.reads  # replays
        self._locks: dict[str, asyncio.Lock] = {}
        self._deadlines: dict[tuple[str, int], Timer] = {}
        self._round_deadlines: dict[tuple[str, int], Timer] = {}  # timed rounds: (tournament, round) -> timer
        self.clock = matches.clock  # the join deadlines run on the matches' clock
        self._tasks: set[asyncio.Task[Any]] = set()
        self._seeds: dict[str, bytes] = {}  # tournament id -> its secret seed, read once
        self._stopping = False
        self.seeding = seeding

    # ------------------------------------------------------------ reading

    def load(self, tournament_id: str) -> Tournament:
        return self.folds.load(tournament_id)

    async def get(self, tournament_id: str) -> Tournament:
        return await asyncio.to_thread(self.load, tournament_id)

    def ids(self) -> list[str]:
        return [s.removeprefix(TOURNAMENT_PREFIX) for s in self.store.streams(TOURNAMENT_PREFIX)]

    async def all(self) -> list[Tournament]:
        def read() -> list[Tournament]:
            return sorted((self.load(t) for t in self.ids()), key=lambda t: (t.created_at, t.id))

        return await asyncio.to_thread(read)

    def seed(self, tournament_id: str) -> bytes:
        seed = match_seed(self.store, tournament_id)
        if seed is None:  # pragma: no cover - written with the creation, in the same transaction
            raise NotNow(f"tournament {tournament_id!r} has no seed")
        return seed

    # ------------------------------------------------------------ creating and starting

    async def create(self, request: NewTournament) -> Tournament:
        """Resolve the entries (bots made), draw the seed, and let the Decider make the tournament."""
        ruleset = _ruleset(request.ruleset, request.rules)
        try:
            kind = Format(request.format)
        except ValueError:
            raise Malformed(
                f"format must be one of {', '.join(f.value for f in Format)}, not {shown(request.format)}"
            ) from None
        if len(request.players) > MAX_PLAYERS:  # before any entry is looked up (the Decider says it again)
            raise Malformed(f"a tournament needs 2 to {MAX_PLAYERS} players, not {len(request.players)}")
        tournament_id = new_tournament_id()
        players = await asyncio.to_thread(self._entrants, tournament_id, request.players)
        for player in players:
            _refuse_bot_account(player, request.bot_accounts)
        seed = new_server_seed()
        command = Create(
            name=request.name,
            players=tuple(p.id for p in players),
            ruleset=ruleset,
            format=kind,
            commitment=commitment_of(seed),
            double=request.double,
            move_seconds=request.move_seconds,
            join_seconds=request.join_seconds,
            open=request.open,
            rounds=request.rounds,
            table_size=request.table_size,
            placement_points=None if request.placement_points is None else tuple(request.placement_points),
            round_starts=tuple(request.round_starts),
            bot_accounts=request.bot_accounts,
            seeding=request.seeding,
            duplicate=request.duplicate,
            advance=request.advance,
            pool_format=request.pool_format,
            pool_size=request.pool_size,
            bracket=request.bracket,
            starts_at=request.starts_at,
            check_in_minutes=request.check_in_minutes,
            forbidden_pairs=await asyncio.to_thread(self._forbidden, request.forbidden_pairs, players),
            round_minutes=request.round_minutes,
            late_entry_rounds=request.late_entry_rounds,
            late_entry_bye=request.late_entry_bye,
        )
        decision = decide(Tournament(tournament_id), command, self.clock.now())
        await self.store.append_async(
            tournament_stream(tournament_id),
            [_event(e) for e in decision.events],
            expected_seq=0,
            command_id=decision.command_id,
            result={"ok": True},
            extra_rows=lambda at: match_seed_rows(tournament_id, seed, at),
        )
        return await self.get(tournament_id)

    def _entrants(self, tournament_id: str, entries: list[str]) -> list[PlayerPublic]:
        """Each entry as a player: an id, or ``bot:NAME``, which becomes a bot player of its own."""
        players: list[PlayerPublic] = []
        bots_of_kind: dict[str, int] = {}
        for entry in entries:
            if entry.startswith(BOT_PREFIX):
                try:
                    bot = normalize_bot_name(entry)
                except UnknownBotError:
                    raise PlayerNotFound(entry) from None
                number = bots_of_kind[bot] = bots_of_kind.get(bot, 0) + 1
                players.append(self._bot_entrant(tournament_id, bot, number))
                continue
            players.append(self._human_entrant(entry))
        ids = [p.id for p in players]
        twice = sorted({p.name for p in players if ids.count(p.id) > 1})
        if twice:
            raise Malformed(f"a player can be entered once: {', '.join(twice)} is entered twice")
        return players

    def _forbidden(self, pairs: list[tuple[str, str]], entrants: list[PlayerPublic]) -> tuple[tuple[str, str], ...]:
        """Each forbidden pair's players as ids: an entrant by name or id, else any player (404 for nobody)."""

        def one(entry: str) -> str:
            found = next((p.id for p in entrants if _names(entry, p)), None)
            return found if found is not None else resolve_player(self.store, entry).id

        return tuple((one(a), one(b)) for a, b in pairs)

    def _human_entrant(self, entry: str) -> PlayerPublic:
        """A player named by id or name (``resolve_player``); a bot that this server does not run is refused."""
        found = resolve_player(self.store, entry)
        if found.kind == "bot" and house_bot_of(found) is None:
            raise Malformed(f"{found.id!r} is a bot that this server does not run")
        return found

    def _bot_entrant(self, tournament_id: str, bot: str, number: int) -> PlayerPublic:
        """The ``number``-th ``bot`` entered: the server's house bot ``bot-<bot>-<number>`` (named
        ``greedy``, ``greedy-2``, …), the same player in every tournament and at every table (issue
        33.2; older tournaments made ``bot-<bot>-<tournament>-<number>`` players of their own)."""
        return ensure_house_bot(self.store, BOT_PREFIX + bot, number)

    async def start(self, tournament_id: str, *, scheduled: bool = False) -> Tournament:
        """The director starts it (``scheduled``: its own start time came, docs/TOURNAMENTS.md
        "Check-in"); the entrants who did not check in are taken out first."""
        await self.get(tournament_id)  # 404 for a tournament nobody made

        async def step(t: Tournament) -> bool:
            ratings = None
            if t.status == CREATED and t.seeding == "rating" and self.seeding is not None:
                ratings = await asyncio.to_thread(self.seeding, list(t.players), seeding_family(t))
            # An entry that lands meanwhile moves the stream: the append fails, the step folds again.
            present = await asyncio.to_thread(self._house_bots, t) if t.check_in_minutes is not None else frozenset()
            await self._apply(t, Start(ratings, scheduled, present))
            return False

        await self._decide(tournament_id, step)
        await self.advance(tournament_id)
        return await self.get(tournament_id)

    def arm_start(self, t: Tournament) -> None:
        """A tournament that starts by itself: start it at its moment (one timer a tournament)."""
        moment = t.start_moment()
        key = (t.id, 0)  # beside the join deadlines (n) and round starts (-n), apart from them
        if t.status != CREATED or moment is None or self._stopping or key in self._deadlines:
            return
        delay = max(0.0, moment.timestamp() - self.clock.now().timestamp())

        def fire() -> None:
            self._deadlines.pop(key, None)
            self._spawn(self._retrying(lambda: self._start_on_time(t.id), f"the start of {t.id}"))

        self._deadlines[key] = self.clock.call_later(delay, fire)

    def _house_bots(self, t: Tournament) -> frozenset[str]:
        """The server's own bots among ``t``'s players: always here, so never withdrawn at check-in."""
        found = (self.registry.player(p) for p in t.players)
        return frozenset(p.id for p in found if p is not None and house_bot_of(p) is not None)

    async def _start_on_time(self, tournament_id: str) -> None:
        try:
            self.arm_start(await self.start(tournament_id, scheduled=True))  # early (a clock's jitter): again
        except NotNow as exc:  # too few checked in, say: it stays unstarted, for the director
            log.warning("tournament %s could not start at its start time: %s", tournament_id, exc)

    async def request_bye(self, tournament_id: str, player: PlayerPublic, number: int) -> Tournament:
        """A Swiss entrant's half-point bye in round ``number``, not paired yet (409 otherwise)."""
        return await self._players_own(tournament_id, RequestBye(player.id, player.name, number))

    async def check_in(self, tournament_id: str, player: PlayerPublic) -> Tournament:
        """An entrant confirms in the check-in window (409 outside it, 404 if not entered; again: the same)."""
        return await self._players_own(tournament_id, CheckIn(player.id, player.name))

    async def _players_own(self, tournament_id: str, command: CheckIn | RequestBye) -> Tournament:
        """A command a player gives for themselves: decided and appended (404 for a tournament nobody made)."""

        async def step(t: Tournament) -> bool:
            await self._apply(t, command)
            return False

        await self.get(tournament_id)
        await self._decide(tournament_id, step)
        return await self.get(tournament_id)

    # ------------------------------------------------------------ entries (before the start)

    async def enter(self, tournament_id: str, caller: Caller, entry: str | None, entropy: str = "") -> Tournament:
        """Enter a player: a player enters itself (an open tournament only); the director anyone
        (``entry``: an id, a name or ``bot:NAME``). Refused once started, twice, or when full.

        ``entropy``: a player entering itself may add its own to the deals of duplicate rounds
        (docs/FAIRNESS.md "Duplicate rounds"); the director gives none for anybody."""
        t = await self.get(tournament_id)
        if entropy and caller.director:
            raise Malformed("entropy is a player's own: the director enters players without it")
        if caller.director:
            if entry is None:
                raise Malformed('the director names the player to enter: {"player": NAME, id or bot:NAME}')
            by = "director"
        else:
            if caller.player is None:  # pragma: no cover - the route asks for a player's token or the director's
                raise NotYours("entering a tournament needs a player's token or the director's")
            if entry is not None and not _names(entry, caller.player):
                raise NotYours("a player enters only themselves; the director enters others")
            entry, by = caller.player.id, "player"
            if not t.open:
                raise NotNow(f"tournament {tournament_id!r} is not open to entries: the director enters its players")
        refuse_entry(t)  # before a bot entrant is made
        if entry.startswith(BOT_PREFIX):
            player = await asyncio.to_thread(self._new_bot_entry, t, entry)
        else:
            player = await asyncio.to_thread(self._human_entrant, entry)
        _refuse_bot_account(player, t.bot_accounts)

        async def step(t: Tournament) -> bool:
            await self._apply(t, Enter(player.id, player.name, by, entropy))
            return False

        await self._decide(tournament_id, step)
        return await self.get(tournament_id)

    def _new_bot_entry(self, t: Tournament, entry: str) -> PlayerPublic:
        """``bot:NAME`` entered in ``t``: a bot player of its own, numbered after those of its kind in it."""
        try:
            bot = normalize_bot_name(entry)
        except UnknownBotError:
            raise PlayerNotFound(entry) from None
        number = 1
        while house_bot_id(bot, number) in t.players:
            number += 1
        return self._bot_entrant(t.id, bot, number)

    async def leave(self, tournament_id: str, caller: Caller, entry: str) -> Tournament:
        """Take a player out before the start: that player, or the director (``entry``: id or name)."""
        t = await self.get(tournament_id)
        player_id = _resolve_in(t, self, entry)
        if player_id is None:
            raise EntryNotFound(tournament_id, entry)
        if not caller.director and (caller.player is None or caller.player.id != player_id):
            raise NotYours("a player takes only themselves out of a tournament; the director takes out anyone")
        by = "director" if caller.director else "player"

        async def step(t: Tournament) -> bool:
            await self._apply(t, Leave(player_id, entry, by))
            return False

        await self._decide(tournament_id, step)
        return await self.get(tournament_id)

    def player_in(self, t: Tournament, entry: str) -> str:
        """The id of the player of ``t`` that ``entry`` names (id or name), else of any player (``resolve_player``)."""
        found = _resolve_in(t, self, entry)
        if found is not None:
            return found
        return resolve_player(self.store, entry).id

    # ------------------------------------------------------------ going on

    def _lock(self, tournament_id: str) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    async def _append(self, t: Tournament, events: list[TournamentEvent], command_id: str) -> bool:
        """Append on the version ``t`` was folded at; False if ``command_id`` was stored before."""
        result = await self.store.append_async(
            tournament_stream(t.id),
            [_event(e) for e in events],
            expected_seq=t.version,
            command_id=command_id,
            result={"ok": True},
        )
        return not result.duplicate

    async def _apply(self, t: Tournament, command: Command, *, before: Effect | None = None) -> Decision:
        """Decide ``command`` on ``t`` (server.tournaments.decide) and append what it decides;
        ``before`` does what the events rely on before they are appended (a round's matches made)."""
        decision = decide(t, command, self.clock.now())
        if decision.note:
            log.warning("tournament %s: %s", t.id, decision.note)
        if decision.events:
            if before is not None:
                await before(t, decision)
            await self._append(t, decision.events, decision.command_id)
        return decision

    async def _decide(self, tournament_id: str, step: Callable[[Tournament], Awaitable[bool]]) -> None:
        """Run ``step`` on a fresh fold until it has nothing to do; a race with another process
        (the stream moved) folds again and decides again."""
        last: ConcurrencyError | None = None
        async with self._lock(tournament_id):
            for _ in range(RACE_RETRIES):
                t = await self.get(tournament_id)
                try:
                    if not await step(t):
                        return
                except ConcurrencyError as exc:
                    last = exc
                    continue
            log.error("tournament %s: gave up after %d races (the last: %s)", tournament_id, RACE_RETRIES, last)

    async def advance(self, tournament_id: str) -> None:
        """Do what is due: open the next round (its matches and its forfeits), or finish."""
        await self._decide(tournament_id, self._advance_once)

    async def _advance_once(self, t: Tournament) -> bool:
        seed = await self._seed(t.id)
        # A thread: a Swiss round of 64 takes about 0.6 s of matching (docs/TOURNAMENTS.md).
        decision = await asyncio.to_thread(decide, t, Advance(seed), self.clock.now())
        if decision.note:
            log.warning("tournament %s: %s", t.id, decision.note)
        if decision.events:
            opened = next((e for e in decision.events if isinstance(e, RoundOpened)), None)
            if opened is not None:
                await self._make_round(after(t, decision.events), opened, seed)
            await self._append(t, decision.events, decision.command_id)
            return not any(isinstance(e, TournamentFinished) for e in decision.events)
        ready = t.round_ready()
        start = t.starts_at(ready) if ready is not None else None
        if ready is not None and start is not None:  # the round before is done; this one waits for its start
            self._arm_round_start(t.id, ready, start.timestamp())
        return False

    async def _seed(self, tournament_id: str) -> bytes:
        """The tournament's secret seed (read once: it never changes)."""
        seed = self._seeds.get(tournament_id)
        if seed is None:
            seed = self._seeds[tournament_id] = await asyncio.to_thread(self.seed, tournament_id)
            while len(self._seeds) > SEEDS_KEPT:  # the oldest read first (dicts keep their order)
                del self._seeds[next(iter(self._seeds))]
        return seed

    def deal_key_of(self, summary: MatchSummary) -> bytes | None:
        """A duplicate match's deal key once its round revealed it (the replay's header carries it)."""
        if summary.tournament is None or summary.round is None:
            return None
        with contextlib.suppress(TournamentNotFound):
            found = self.load(summary.tournament).deal_keys.get(summary.round)
            return None if found is None else bytes.fromhex(found)
        return None

    def replay(self, match_id: str, caller: Caller | None = None) -> str:
        """A finished match's replay file (MatchLive while it is played). A duplicate round's is
        refused (409) until its round's deal key is revealed; then its header carries the key,
        which ``unoduo verify`` checks against the chain (docs/FAIRNESS.md "Duplicate rounds").
        ``caller`` (the HTTP route's): passes the read gate first, so that anyone without a seat in
        such a match is refused as at every read of it (Withheld), whatever its state. Blocking."""
        summary = self.registry.summary(match_id)
        if caller is not None:
            self.registry.reader(summary, caller)
        text = self.match_reads.replay(match_id)
        if self.registry.secret(summary):
            raise NotNow(
                f"{match_id} was dealt round {summary.round}'s cards, which matches of its round may still be "
                "playing: its replay is given once every pairing of the round is decided"
            )
        first, _, rest = text.partition("\n")
        created = json.loads(rest.partition("\n")[0]) if rest else {}
        key = self.deal_key_of(summary) if DEAL_FIELD in created.get("data", {}) else None
        if key is None:
            return text
        header = json.loads(first)
        line = header_line(match_id, header["ruleset"], header["players"], header["engine"], deal_key=key)
        return line + "\n" + rest

    async def _make_round(self, t: Tournament, opened: RoundOpened, seed: bytes) -> None:
        """Make the matches of a round about to open (``t``: the fold with the round opened), before
        the round's opening is appended, so that every match it names exists. Idempotent on the ids."""
        ruleset = Ruleset.from_record(t.ruleset)  # its to_dict record, read as made (RULES.md D25)
        deal = deal_key(t, seed, opened.round) if t.duplicate else None  # every match dealt the round's key
        for key, match_id in opened.matches.items():
            seats = [self._known(p) for p in t.seated(t.slots[key])]
            if deal is None:
                await self.matches.create_scheduled(match_id, seats, ruleset, t.move_seconds, t.id, opened.round)
            else:
                await self.matches.creation.make(
                    match_id, seats, ruleset, t.move_seconds, t.id, opened.round, deal=deal
                )

    def _known(self, player_id: str) -> PlayerPublic:
        player = self.registry.player(player_id)
        if player is None:  # pragma: no cover - entrants are checked at creation
            raise PlayerNotFound(player_id)
        return player

    # ------------------------------------------------------------ results

    async def record_result_later(self, tournament_id: str, match_id: str, end: MatchEnd) -> None:
        """The process manager: ``match_id`` ended; its result is recorded in the background
        (tried again while the database is away), and the tournament goes on."""
        self._spawn(
            self._retrying(
                functools.partial(self.record_result, tournament_id, match_id, end), f"the result of {match_id}"
            )
        )

    async def advance_later(self, tournament_id: str) -> None:
        """The process manager: something may be due; :meth:`advance` in the background."""
        self._spawn(self._retrying(functools.partial(self.advance, tournament_id), f"the next step of {tournament_id}"))

    async def _retrying(self, work: Callable[[], Awaitable[None]], what: str) -> None:
        """Background work (nobody waits for it, nothing else would do it): while the database is
        away, try again, less and less often, until it is back or the server stops; any other
        failure is logged and tried again at most :data:`MAX_FAILURES` times."""
        delay = RETRY_SECONDS
        failures = 0
        while True:
            try:
                await work()
                return
            except UNAVAILABLE as exc:
                if self._stopping:
                    return
                log.warning("%s: the database is unavailable (%s); trying again in %.0f s", what, exc, delay)
            except Exception:
                # Anything else would end the task unseen and leave, say, a result unrecorded
                # (a round that never opens): said in the log, and tried again a few times
                # (the work is idempotent by its command ids).
                failures += 1
                if self._stopping or failures > MAX_FAILURES:
                    log.exception("%s: failed %d times; given up", what, failures)
                    return
                log.exception("%s: failed; trying again in %.0f s", what, delay)
            await asyncio.sleep(delay)
            delay = min(2 * delay, MAX_RETRY_SECONDS)

    def _spawn(self, coroutine: Awaitable[Any]) -> None:
        if self._stopping:
            if asyncio.iscoroutine(coroutine):
                coroutine.close()
            return
        task: asyncio.Task[Any] = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def record_result(self, tournament_id: str, match_id: str, end: MatchEnd) -> None:
        """``match_id`` ended as ``end`` says: its pairing's result (a table's seats read here)."""

        async def step(t: Tournament) -> bool:
            slot = t.slot_of_match(match_id)
            if slot is None or t.done(slot):
                return False
            known = end
            if len(slot.seats) > 2 and not end.seated:
                known = replace(end, seated=tuple(await asyncio.to_thread(self._seated_at, match_id)))
            await self._apply(t, RecordResult(match_id, known))
            return False

        await self._decide(tournament_id, step)
        await self.advance(tournament_id)

    def _seated_at(self, match_id: str) -> list[str | None]:
        """The player id in each seat of ``match_id`` (blocking: a read)."""
        public = self.registry.summary_public(self.registry.summary(match_id))
        return [p.id if p is not None else None for p in public.seats]

    # ------------------------------------------------------------ join deadlines

    def arm_join_deadline(self, tournament_id: str, number: int, when: float) -> None:
        """Round ``number``'s join deadline at ``when`` (a timestamp; once per round and process)."""
        if self._stopping or (tournament_id, number) in self._deadlines:
            return
        delay = max(0.0, when - self.clock.now().timestamp())
        self._deadlines[(tournament_id, number)] = self.clock.call_later(
            delay,
            lambda: self._spawn(
                self._retrying(
                    lambda: self.enforce_join_deadline(tournament_id, number),
                    f"the join deadline of round {number} of {tournament_id}",
                )
            ),
        )

    def _arm_round_start(self, tournament_id: str, number: int, when: float) -> None:
        """Round ``number`` is ready but starts at ``when``: look again then (one timer a round)."""
        key = (tournament_id, -number)  # beside the join deadlines, apart from them
        if self._stopping or key in self._deadlines:
            return
        delay = max(0.0, when - self.clock.now().timestamp())

        def fire() -> None:
            self._deadlines.pop(key, None)
            self._spawn(
                self._retrying(lambda: self.advance(tournament_id), f"the start of round {number} of {tournament_id}")
            )

        self._deadlines[key] = self.clock.call_later(delay, fire)

    async def enforce_join_deadline(self, tournament_id: str, number: int) -> None:
        """Round ``number``'s join deadline passed: a seat that has not joined forfeits; if
        neither joined, both lose (``no_show``) and the match is annulled."""
        self._deadlines.pop((tournament_id, number), None)
        t = await self.get(tournament_id)
        for slot in t.round_slots(number):
            if slot.match is None or t.done(slot):
                continue
            live = await self.registry.open(slot.match, arm=False)
            if live.state.phase is not Phase.WAITING:
                continue
            seats = len(live.state.entropies)
            missing = [seat for seat in range(seats) if live.state.entropies[seat] is None]
            if len(missing) == seats:
                await self._no_show(tournament_id, slot.key, slot.match)
            else:
                for seat in missing:  # at a table of more, each seat that did not come leaves it
                    await self.match_commands.forfeit(slot.match, seat, "join_deadline")
        await self.advance(tournament_id)

    async def _no_show(self, tournament_id: str, key: str, match_id: str) -> None:
        await self.match_commands.annul(match_id, "no_show: neither seat joined before the deadline")

        async def step(t: Tournament) -> bool:
            await self._apply(t, NoShow(key, match_id))
            return False

        await self._decide(tournament_id, step)

    # ------------------------------------------------------------ timed rounds (RULES.md D26)

    def arm_round_deadline(self, tournament_id: str, number: int, when: datetime) -> None:
        """Round ``number`` runs out of time at ``when``: time is called then in every match of it
        still being played (once per round and process; a deadline past already fires at once)."""
        key = (tournament_id, number)
        if self._stopping or key in self._round_deadlines:
            return
        delay = max(0.0, (when - self.clock.now()).total_seconds())

        def fire() -> None:
            self._round_deadlines.pop(key, None)
            self._spawn(
                self._retrying(
                    lambda: self.call_time(tournament_id, number, format_at(when), "deadline"),
                    f"the time limit of round {number} of {tournament_id}",
                )
            )

        self._round_deadlines[key] = self.clock.call_later(delay, fire)

    async def call_time_now(self, tournament_id: str) -> Tournament:
        """The director calls time now in every round being played (a knockout may have several
        open at once); 409 if no match is being played."""
        t = await self.get(tournament_id)
        playing = sorted({slot.round for slot in t.open_slots()}) if t.status == RUNNING else []
        if not playing:
            raise NotNow(f"tournament {tournament_id!r} has no match being played: there is no time to call")
        moment = format_at(self.clock.now())
        for number in playing:
            await self.call_time(tournament_id, number, moment, "director")
        return await self.get(tournament_id)

    async def call_time(self, tournament_id: str, number: int, moment: str, by: str) -> None:
        """D26: time is called at ``moment`` in every match of round ``number`` still being played,
        then the call is recorded on the tournament; nothing at all when none is (a round over
        before its deadline, or a tournament finished). Safe to repeat: a match already called, or
        over, is left as it is, and the round's call is recorded once (the first moment stands)."""
        t = await self.get(tournament_id)
        playing = [s.match for s in t.round_slots(number) if s.match is not None and not t.done(s)]
        if not playing:
            return  # every match of the round ended before its time ran out: nothing to call
        moment = t.time_called.get(number, moment)
        for match_id in playing:
            await self.match_commands.call_time(match_id, moment)

        async def step(t: Tournament) -> bool:
            await self._apply(t, CallRoundTime(number, moment, by))
            return False

        await self._decide(tournament_id, step)

    # ------------------------------------------------------------ withdrawals

    async def withdraw(self, tournament_id: str, player_entry: str, note: str) -> Tournament:
        """The published rule: fewer than half of one's matches played → every result of the
        player annulled and their remaining pairings not played; else their remaining matches
        are forfeits won by the opponents. ``player_entry``: an id or a name."""
        t = await self.get(tournament_id)
        player_id = _resolve_in(t, self, player_entry) or player_entry
        decide(t, Withdraw(player_id, note), self.clock.now())  # refused now, before any step

        async def step(t: Tournament) -> bool:
            if player_id not in t.withdrawn:  # a retry after the withdrawal landed: done
                await self._apply(t, Withdraw(player_id, note))
            return False

        await self._decide(tournament_id, step)
        t = await self.get(tournament_id)
        annulled = t.withdrawn[player_id]
        for slot in t.scheduled_of(player_id):
            if slot.match is None or slot.result is not None:
                continue
            if len(slot.seats) > 2:  # a table plays on: the player leaves it (D23 places them last)
                seated = await asyncio.to_thread(self._seated_at, slot.match)
                if player_id in seated:
                    await self.match_commands.forfeit(slot.match, seated.index(player_id), "withdrawal")
            elif annulled:
                await self.match_commands.annul(slot.match, f"withdrawal of {player_id}: results annulled")
            else:
                seat = slot.seat_of(player_id)
                assert seat is not None
                await self.match_commands.forfeit(slot.match, seat, "withdrawal")
        await self.advance(tournament_id)
        return await self.get(tournament_id)

    # ------------------------------------------------------------ disputes and rulings

    async def dispute(self, match_id: str, caller: Caller, seq: int, note: str) -> Dispute:
        summary = await asyncio.to_thread(self.registry.summary, match_id)
        if summary.tournament is None:
            raise Malformed("disputes are for tournament matches; a casual match has no director")
        seat = self.registry.require_seat(summary, caller)
        assert caller.player is not None  # a seat is a player's
        head = await asyncio.to_thread(self.store.head, match_stream(match_id))
        if not 1 <= seq <= head:
            raise Malformed(f"seq must name an event of this match: 1 to {head}, not {seq}")
        player = caller.player.id
        tournament_id = summary.tournament
        made: list[str] = []

        async def step(t: Tournament) -> bool:
            decision = await self._apply(
                t, OpenDispute(match_id, seq, seat, player, note, self.open_disputes_per_player)
            )
            made.extend(e.dispute for e in decision.events if isinstance(e, DisputeOpened))
            return False

        await self._decide(tournament_id, step)
        if not made:  # pragma: no cover - the step either appends or raises
            raise NotNow("the dispute could not be recorded")
        t = await self.get(tournament_id)
        return t.disputes[made[0]]

    async def disputes(self, only_open: bool) -> list[tuple[Tournament, Dispute]]:
        return [(t, d) for t in await self.all() for d in t.disputes.values() if d.open or not only_open]

    async def rule(
        self, dispute_id: str, decision: str, note: str, seat: int | None, rule: str | None
    ) -> tuple[Tournament, Dispute]:
        tournament_id = tournament_of_dispute(dispute_id)
        if tournament_id is None:
            raise DisputeNotFound(dispute_id)
        try:
            t = await self.get(tournament_id)
        except TournamentNotFound:
            raise DisputeNotFound(dispute_id) from None
        check_ruling(t, Rule(dispute_id, decision, note, seat, rule))  # a bad ruling is refused before any step

        async def step(t: Tournament) -> bool:
            dispute = t.disputes[dispute_id]
            live = await self.registry.open(dispute.match, arm=False) if t.slots[dispute.slot].match else None
            playing = live is not None and live.state.phase is not Phase.MATCH_OVER and not live.annulled
            ruled = await self._apply(
                t, Rule(dispute_id, decision, note, seat, rule, playing), before=self._before_ruling
            )
            if decision == "award" and playing and not any(isinstance(e, ResultRecorded) for e in ruled.events):
                assert seat is not None
                await self.match_commands.forfeit(dispute.match, 1 - seat, "ruling")  # its end records the result
            return False

        await self._decide(tournament_id, step)
        await self.advance(tournament_id)
        t = await self.get(tournament_id)
        return t, t.disputes[dispute_id]

    async def _before_ruling(self, t: Tournament, decision: Decision) -> None:
        """What a ruling's events rely on, done before they are appended: a replayed match annulled
        and its new match made; a table still in play when it was awarded stopped."""
        ruled = next(e for e in decision.events if isinstance(e, DisputeRuled))
        dispute = t.disputes[ruled.dispute]
        for event in decision.events:
            if isinstance(event, MatchReplayed):
                slot = t.slots[event.slot]
                reason = f"ruling on {ruled.dispute}: played again"
                await self.match_commands.annul(event.old, reason, replaced_by=event.new)
                players = [self._known(p) for p in t.seated(slot)]
                ruleset = Ruleset.from_record(t.ruleset)
                await self.matches.create_scheduled(event.new, players, ruleset, t.move_seconds, t.id, slot.round)
                called = t.time_called.get(slot.round)
                if called is not None:  # its round's time was called: the replay is decided on its first hand
                    await self.match_commands.call_time(event.new, called)
            elif isinstance(event, ResultRecorded) and ruled.decision == "award" and len(t.slots[event.slot].seats) > 2:
                live = await self.registry.open(dispute.match, arm=False)
                if live.state.phase is not Phase.MATCH_OVER and not live.annulled:
                    # A table still in play is stopped; the award puts the seat first, the rest last.
                    await self.match_commands.annul(
                        dispute.match, f"ruling on {ruled.dispute}: awarded to seat {ruled.seat}"
                    )

    # ------------------------------------------------------------ the next match of a player

    async def next_matches(self, player_id: str) -> list[dict[str, Any]]:
        """For each running tournament of ``player_id``: the pairings of opened rounds whose match
        waits for its seats (with ``match`` and ``join_deadline``), then the next pairing in a round
        not yet opened (both null)."""
        out: list[dict[str, Any]] = []
        now = self.clock.now()
        for t in await self.all():
            if t.status != RUNNING or player_id not in t.players or player_id in t.withdrawn:
                continue
            for slot in t.scheduled_of(player_id):
                if slot.round > t.opened or slot.match is None or t.done(slot):
                    continue
                summary = await asyncio.to_thread(self.registry.summary, slot.match)
                if summary.status != "waiting":
                    continue
                deadline = t.join_deadline(slot.round)
                shown_deadline = format_at(deadline) if deadline is not None and deadline > now else None
                out.append(self._next(t, slot, player_id, slot.match, shown_deadline))
            for number in range(t.opened + 1, len(t.rounds) + 1):
                coming = next((s for s in t.round_slots(number) if s.has(player_id)), None)
                if coming is None:
                    continue  # the bye
                out.append(self._next(t, coming, player_id, None, None))
                break
        return out

    def _next(
        self, t: Tournament, slot: Slot, player_id: str, match: str | None, deadline: str | None
    ) -> dict[str, Any]:
        others = slot.others(player_id)
        names = [(found.name if (found := self.registry.player(p)) is not None else p) for p in others]
        start = t.starts_at(slot.round)
        return {
            "tournament": t.id,
            "round": slot.round,
            "opponent": others[0],
            "opponent_name": ", ".join(names),
            "opponents": list(others),
            "white": slot.white == player_id,
            "match": match,
            "join_deadline": deadline,
            "starts_at": format_at(start) if start is not None else None,
            "label": slot_label(t, slot),
        }

    # ------------------------------------------------------------ a player's disputes, replays

    async def disputes_of(self, player_id: str) -> list[tuple[Tournament, Dispute]]:
        """The disputes ``player_id`` raised or whose match they played, oldest first."""
        out: list[tuple[Tournament, Dispute]] = []
        for t in await self.all():
            for d in t.disputes.values():
                slot = t.slots.get(d.slot)
                if d.player == player_id or (slot is not None and slot.has(player_id)):
                    out.append((t, d))
        return out

    def replaced_by(self, tournament_id: str, match_id: str) -> str | None:
        """The match that replays ``match_id`` after a ``replay`` ruling, if one does (blocking)."""
        try:
            return self.load(tournament_id).replaced_by(match_id)
        except TournamentNotFound:
            return None

    # ------------------------------------------------------------ start-up and stop

    async def stop(self) -> None:
        self._stopping = True
        for handle in [*self._deadlines.values(), *self._round_deadlines.values()]:
            handle.cancel()
        self._deadlines.clear()
        self._round_deadlines.clear()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _names(entry: str, player: PlayerPublic) -> bool:
    return entry == player.id or name_key(entry) == name_key(player.name)


def _resolve_in(t: Tournament, service: TournamentService, entry: str) -> str | None:
    """The player of ``t`` that ``entry`` names: its id, else its name (compared as :func:`name_key`)."""
    if entry in t.players:
        return entry
    key = name_key(entry)
    for player_id in t.players:
        player = service.registry.player(player_id)
        if player is not None and name_key(player.name) == key:
            return player_id
    return None


def _refuse_bot_account(player: PlayerPublic, allowed: bool) -> None:
    """A bot account (someone's program) enters only a tournament made with ``bot_accounts``: 409 otherwise."""
    if player.kind == "bot_account" and not allowed:
        raise NotNow(
            f"{player.name} is a bot account, and this tournament does not take bot accounts "
            "(the director creates it with bot_accounts: true to allow them)"
        )


def _at_or_none(at: datetime | None) -> str | None:
    return format_at(at) if at is not None else None


def timing(t: Tournament, slot: Slot) -> dict[str, str | None]:
    """A timed round's match summary's two fields (RULES.md D26): its round's deadline and when
    time was called in it."""
    return {"round_deadline": _at_or_none(t.round_deadline(slot.round)), "time_called": t.match_time_called(slot)}


def match_timing(t: Tournament | None, match_id: str) -> dict[str, str | None]:
    """:func:`timing` of ``match_id`` in ``t`` (its tournament), or nothing (no tournament, untimed)."""
    if t is None or (t.round_minutes is None and not t.time_called):
        return {}
    slot = t.slot_of_match(match_id)
    return timing(t, slot) if slot is not None else {}


def _repeats(t: Tournament) -> int | None:
    """A started tables tournament's repeat meetings (docs/TOURNAMENTS.md "Tables"); None otherwise."""
    if t.format is not Format.TABLES or not t.rounds:
        return None
    return repeat_meetings([[p.seats for p in r.pairings] for r in t.rounds])


def _event(event: TournamentEvent) -> Event:
    """A typed tournament event as the store appends it."""
    return event.event()


def _ruleset(name: str, overrides: dict[str, Any]) -> Ruleset:
    if name not in RULESETS:
        raise Malformed(f"unknown ruleset {shown(name)}: choose one of {', '.join(RULESETS)}")
    if "name" in overrides:
        raise Malformed("rules override the ruleset's switches; name the ruleset with 'ruleset'")
    try:
        return Ruleset.from_dict({**overrides, "name": name})
    except RulesetError as exc:
        raise Malformed(f"rules: {exc}") from None


# ---------------------------------------------------------------- what the API shows


def dispute_public(t: Tournament, d: Dispute) -> DisputePublic:
    return DisputePublic(
        id=d.id,
        tournament=t.id,
        slot=d.slot,
        match=d.match,
        seq=d.seq,
        seat=d.seat,
        player=d.player,
        note=d.note,
        at=d.at,
        status="open" if d.open else "ruled",
        decision=cast(Any, d.decision),
        ruling_note=d.ruling_note,
        award_to=d.award_to,
        rule=d.rule,
        ruled_at=d.ruled_at,
        audit_view=f"/api/matches/{d.match}?at={d.seq}",
    )


class TournamentViews:
    """Builds docs/API.md's tournament from the fold, the match read models and the seed (lots)."""

    def __init__(self, service: TournamentService) -> None:
        self.service = service

    def _player(self, player_id: str) -> PlayerPublic:
        return self.service.registry.player(player_id) or PlayerPublic(id=player_id, name=player_id, kind="human")

    def public(self, t: Tournament, *, full: bool = False) -> TournamentPublic:
        """The tournament as everyone sees it. A duplicate round not revealed yet shows only who
        meets whom: its pairings ``withheld`` (no result), none of its matches, no result of it in
        the standings (docs/TOURNAMENTS.md "Duplicate rounds"); ``full`` (the director) shows
        everything as it stands. Blocking."""
        registry = self.service.registry
        seed = self.service.seed(t.id)
        secret = set() if full else t.secret_rounds()
        shown = t if full else t.revealed_only()
        rows = standings_of(shown, seed)
        listed = [s.match for s in shown.slots.values() if s.match is not None and s.round not in secret]
        found = registry.summaries(listed)  # one read for the whole page, not one a match
        rounds: list[RoundPublic] = []
        for scheduled in t.rounds:
            number = scheduled.number
            pairings: list[PairingPublic] = []
            summaries: list[MatchSummaryPublic] = []
            deadline = _at_or_none(t.round_deadline(number))
            for slot in shown.round_slots(number):
                if slot.match is not None and slot.match in found and number not in secret:
                    summary = registry.summary_public(found[slot.match])
                    if slot.node is not None:
                        summary = summary.model_copy(update=self._node_of(t, slot))
                    if deadline is not None or number in t.time_called:
                        summary = summary.model_copy(update=timing(t, slot))
                    summaries.append(summary)
                pairings.append(self._pairing(shown, slot, number in secret))
            rounds.append(
                RoundPublic(
                    number=number,
                    status=cast(Any, shown.round_status(number)),
                    matches=summaries,
                    bye=scheduled.bye,
                    pairings=pairings,
                    starts_at=_at_or_none(t.starts_at(number)),
                    note=self._forced_note(t, number),
                    deadline=deadline,
                    time_called=t.time_called.get(number),
                )
            )
        for number in range(len(t.rounds) + 1, t.planned + 1):  # a Swiss's rounds not paired yet
            rounds.append(
                RoundPublic(
                    number=number,
                    status="pending",
                    matches=[],
                    bye=None,
                    pairings=[],
                    starts_at=_at_or_none(t.starts_at(number)),
                )
            )
        return TournamentPublic(
            id=t.id,
            name=t.name,
            status=cast(Any, t.status),
            open=t.open,
            bot_accounts=t.bot_accounts,
            seeding=cast(Any, t.seeding),
            seed_ratings=dict(t.seed_ratings),
            duplicate=t.duplicate,
            deal_keys={str(n): key for n, key in sorted(t.deal_keys.items())},
            entropies=dict(t.entropies) if t.status == FINISHED else {},
            ruleset=str(t.ruleset.get("name", "")),
            rules=t.ruleset,
            format=t.format.value,
            rounds_planned=t.planned,
            table_size=t.table_size,
            advance=t.advance,
            pool_format=cast(Any, t.pool_format),
            pool_size=t.pool_size,
            bracket_format=cast(Any, t.bracket_format),
            placement_points=list(t.placement_points),
            repeat_meetings=_repeats(t),
            double=t.double,
            move_seconds=t.move_seconds,
            join_seconds=t.join_seconds,
            round_minutes=t.round_minutes,
            commitment=t.commitment,
            server_seed=t.server_seed,
            players=[self._player(p) for p in t.players],
            withdrawals=[WithdrawalPublic(player=p, annulled=a) for p, a in t.withdrawn.items()],
            rounds=rounds,
            standings=[self._standing(t, r) for r in rows],
            pools=self._pools(shown, seed) if t.format is Format.POOLS and t.status != CREATED else [],
            open_disputes=sum(1 for d in t.disputes.values() if d.open and t.slots[d.slot].round not in secret),
            bracket=self._bracket(t, seed) if t.knockout and t.status != CREATED else [],
            places=[PlacePublic(place=p, player=who) for who, p in _by_place(t, final_places(t, seed))]
            if t.knockout and t.status == FINISHED
            else [],
            starts_at=_at_or_none(t.start_moment()),
            check_in_minutes=t.check_in_minutes,
            check_in_opens=_at_or_none(t.check_in_opens()),
            checked_in=list(t.checked_in),
            forbidden_pairs=[list(pair) for pair in t.forbidden_pairs],
            late_entry_rounds=t.late_entry_rounds,
            late_entry_bye=t.late_entry_bye,
            half_byes={str(n): list(who) for n, who in sorted(t.half_byes.items())},
            late_entries={p: first for p, first in t.entered_from.items()},
            not_checked_in=[self._player(p) for p in t.not_checked_in],
        )

    def _standing(self, t: Tournament, r: StandingRow) -> StandingPublic:
        return StandingPublic(
            rank=r.rank,
            player=r.player,
            name=self._player(r.player).name,
            played=r.played,
            won=r.won,
            lost=r.lost,
            byes=r.byes,
            forfeits=r.forfeits,
            points_for=r.points_for,
            points_against=r.points_against,
            withdrawn=r.player in t.withdrawn,
            score=row_score(r),
            half_byes=r.half_byes,
            tiebreaks=dict(r.tiebreaks),
            decided_by=r.decided_by,
            same_deal=r.same_deal,
        )

    def _pools(self, t: Tournament, seed: bytes) -> list[PoolPublic]:
        """Pools into a bracket: each pool's standings as they stand (server.tournaments.pools)."""
        return [
            PoolPublic(
                pool=pool_label(table.pool),
                node=pool_node(table.pool),
                decided=table.decided,
                players=[r.player for r in table.rows],
                standings=[self._standing(t, r) for r in table.rows],
            )
            for table in pool_tables(t, plan_of(t), t.pool_format or POOL_FORMATS[0], seed)
        ]

    def _node_of(self, t: Tournament, slot: Slot) -> dict[str, str | None]:
        """A knockout pairing's bracket and node (server.tournaments.brackets)."""
        return {"bracket": bracket_of(t, slot.node) if slot.node is not None else None, "node": slot.node}

    def _bracket(self, t: Tournament, seed: bytes) -> list[BracketNodePublic]:
        """The knockout's plan as the results leave it: each node's seats, sources and state."""
        resolution = knockout_state(t, pool_standings_of(t, seed))
        plan = plan_of(t)
        playing = {s.node: s for s in t.slots.values() if s.node is not None}
        out = []
        for state in resolution.nodes.values():
            slot = playing.get(state.node.id)
            status: str = state.status
            if slot is not None and slot.result is None and status == "ready" and slot.round <= t.opened:
                status = "live"
            out.append(
                BracketNodePublic(
                    id=state.node.id,
                    round=state.node.round,
                    bracket=state.node.bracket,
                    stage=state.node.stage,
                    seats=list(state.seats),
                    sources=[source_text(s, plan) for s in state.node.sources],
                    status=cast(Any, status),
                    match=slot.match if slot is not None else None,
                    winner=state.winner if status in ("decided", "walkover") else None,
                )
            )
        return out

    def _forced_note(self, t: Tournament, number: int) -> str | None:
        """A round that had to pair a forbidden pair says so, by name (docs/TOURNAMENTS.md "Forbidden pairings")."""
        forced = t.forbidden_forced.get(number)
        if not forced:
            return None
        pairs = "; ".join(f"{self._player(a).name} and {self._player(b).name}" for a, b in forced)
        return f"forbidden pairing not avoidable this round (no other pairing was legal): {pairs}"

    def _pairing(self, t: Tournament, slot: Slot, secret: bool = False) -> PairingPublic:
        if t.cancelled(slot):
            status = "cancelled"
        elif secret:
            status = "withheld"
        elif slot.result is not None:
            status = "decided"
        elif slot.round <= t.opened:
            status = "live"
        else:
            status = "pending"
        r = slot.result
        ko = self._node_of(t, slot) if slot.node is not None else {}
        return PairingPublic(
            bracket=cast(Any, ko.get("bracket")),
            node=ko.get("node"),
            slot=slot.key,
            board=slot.board,
            seats=[self._player(p) for p in slot.seats],
            white=self._player(slot.white),
            black=self._player(slot.black),
            status=cast(Any, status),
            match=slot.match,
            annulled=list(slot.annulled),
            result=None
            if r is None
            else TournamentResult(
                winner=r.winner,
                scores=list(r.scores),
                forfeit=r.forfeit,
                reason=r.reason,
                match=r.match,
                places=list(r.places) if r.places is not None else None,
            ),
        )

    def export(self, t: Tournament) -> KnockoutExport:
        """A knockout whole as JSON: seeds, plan, results, places (NotNow for another format, whose
        standard export is the TRF). Blocking."""
        if not t.knockout:
            raise NotNow(f"export.json is a knockout's: a {t.format.value} exports as TRF (/trf)")
        public = self.public(t)
        results = [
            NodeResultPublic(
                node=slot.node,
                round=slot.round,
                match=slot.result.match,
                places=list(placed),
                scores=list(slot.result.scores),
                forfeit=slot.result.forfeit,
                reason=slot.result.reason,
            )
            for slot in t.slots.values()
            if slot.node is not None and slot.result is not None and (placed := node_result(slot)) is not None
        ]
        return KnockoutExport(
            id=t.id,
            name=t.name,
            format=cast(Any, t.format.value),
            ruleset=public.ruleset,
            seeding=cast(Any, t.seeding),
            status=cast(Any, t.status),
            seeds=public.players,
            bracket=public.bracket,
            results=results,
            places=public.places,
            withdrawals=list(t.withdrawn),
            commitment=t.commitment,
            server_seed=t.server_seed,
        )

    def trf(self, t: Tournament) -> str:
        """FIDE TRF-16 of a two-seat tournament's rounds opened so far (NotNow for a tables one),
        ranked by the standings everyone sees (the same rows as ``public``): a game still being
        played, or a duplicate round not revealed yet, is left out (docs/TOURNAMENTS.md "The FIDE
        TRF export")."""
        if t.knockout:
            raise NotNow(f"no standard export for this format ({t.format.value}): use export.json")
        if not t.two_seats:
            raise NotNow("a TRF report holds two-player games: a tables tournament has none to report")
        shown = {p: self._player(p) for p in t.players}
        names = {p: player_label(who.name, who.kind) for p, who in shown.items()}  # a bot account: "[bot]"
        start = t.created_at[:10] if t.created_at else None
        end = t.finished_at[:10] or None
        public = t.revealed_only()
        return tournament_trf(public, public.standings(self.service.seed(t.id)), names, start=start, end=end)


def _by_place(t: Tournament, places: dict[str, int]) -> list[tuple[str, int]]:
    """Final places best first, tied players in seed order (as the standings list them)."""
    return sorted(places.items(), key=lambda item: (item[1], t.players.index(item[0])))
