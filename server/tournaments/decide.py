"""The tournament's Decider: ``decide(tournament, command, now) -> events``, pure, as the engine's
``decide`` is for a match (docs/TOURNAMENTS.md "How a tournament decides").

A command carries every fact the rules need that the tournament's own fold does not hold, read
by the service before it asks: the ratings a ``rating`` seeding orders by, how a match ended,
whether a disputed match is still being played, the tournament's seed for a duplicate round's
reveal. So nothing here reads a store, a clock or a random source, and every rule of every format
(entries, the start, opening rounds, results, join deadlines, withdrawals, disputes and rulings,
duplicate reveals, the finish) is tested on a fold alone (``tests/tournaments/test_decide.py``).

What a decision asks of the matches (make a round's matches, annul one, forfeit a seat) is not
done here: the service does it from the events (``server.services.tournaments``). A refusal is
raised as the server's domain errors (``server.domain_errors``); an empty list means there is
nothing to do (a result already recorded, a round not due yet).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Final

from engine.game.duplicate import round_deal_key
from engine.game.errors import shown
from engine.game.rulesets import MAX_SEATS, Ruleset, deal_problem, seats_allowed
from engine.game.rulings import RULING_RANGE, RULINGS
from engine.record.jsonfmt import format_at
from server.domain_errors import Malformed, NotFound, NotNow, PlayerNotFound, TooManyOpen
from server.ratings.book import family_of
from server.tournaments.brackets import plan_of
from server.tournaments.forbidden import seeded_apart
from server.tournaments.formats import (
    POOL_BRACKETS,
    FormatError,
    FormatRequest,
    check_request,
    check_start,
    pair_next,
    schedule_at_start,
    start_time_problem,
)
from server.tournaments.knockouts import next_round, pool_standings_of, pools_round
from server.tournaments.model import (
    CREATED,
    DECISIONS,
    FINISHED,
    RUNNING,
    ByeRequested,
    CheckInClosed,
    DisputeOpened,
    DisputeRuled,
    DuplicateRevealed,
    Format,
    MatchReplayed,
    PlayerCheckedIn,
    PlayerEntered,
    PlayerLeft,
    PlayerWithdrew,
    ResultRecorded,
    RoundOpened,
    RoundTimeCalled,
    Slot,
    Tournament,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    TournamentStarted,
    evolve,
)
from server.tournaments.pools import POOL_FORMATS
from server.tournaments.swiss import SwissError
from server.tournaments.table_knockout import DEFAULT_ADVANCE
from server.tournaments.timed import round_minutes_problem

MAX_PLAYERS: Final = 64
MAX_CHECK_IN_MINUTES: Final = 24 * 60
MAX_FORBIDDEN_PAIRS: Final = 32
BRACKETS: Final = (Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION)  # round 1 fixed by the seeding
MAX_HALF_BYES: Final = 2  # a player's half-point byes asked for in one tournament


class EntryNotFound(NotFound):
    def __init__(self, tournament_id: str, entry: str) -> None:
        super().__init__(f"{shown(entry)} is not entered in tournament {shown(tournament_id)}")


class DisputeNotFound(NotFound):
    def __init__(self, dispute_id: str) -> None:
        super().__init__(f"no dispute {shown(dispute_id)}")


# ---------------------------------------------------------------- the commands


@dataclass(frozen=True)
class Create:
    """The director makes a tournament. ``players``: the entries as player ids (resolved by the
    service, bots made); ``commitment``: to the seed the service drew (kept apart from the events)."""

    name: str
    players: tuple[str, ...]
    ruleset: Ruleset
    format: Format
    commitment: str
    double: bool = False
    move_seconds: int = 0
    join_seconds: int = 0
    open: bool = False
    rounds: int | None = None
    table_size: int | None = None
    placement_points: tuple[int, ...] | None = None
    round_starts: tuple[datetime, ...] = ()
    bot_accounts: bool = False
    seeding: str = "entry"
    duplicate: bool = False
    advance: int | None = None  # table_knockout and pools (default 2)
    pool_format: str | None = None  # pools (default round_robin)
    pool_size: int | None = None  # pools
    bracket: str | None = None  # pools (default single_elimination)
    starts_at: datetime | None = None  # it starts by itself then (check-in closes)
    check_in_minutes: int | None = None
    forbidden_pairs: tuple[tuple[str, str], ...] = ()  # player ids (resolved by the service)
    round_minutes: float | None = None  # timed rounds (RULES.md D26)
    late_entry_rounds: int | None = None  # a Swiss takes entries until this round is paired
    late_entry_bye: bool = False  # a late entrant's missed rounds score ½ each


@dataclass(frozen=True)
class Enter:
    """Before the start: ``player`` enters (``by`` the player, in an open tournament, or the director)."""

    player: str
    name: str  # how the refusal names them
    by: str
    entropy: str = ""


@dataclass(frozen=True)
class Leave:
    """Before the start: ``player`` is taken out (``by`` themselves or the director)."""

    player: str
    entry: str  # as the request named them
    by: str


@dataclass(frozen=True)
class Start:
    """The director starts it. ``ratings``: with ``seeding: rating``, each player's rating in the
    tournament's family (read by the service); None orders by entry. ``scheduled``: not the
    director but the tournament's own start time (nothing to do before it, or once started).
    ``present``: entrants who need no check-in (the house bots the service found among them)."""

    ratings: Mapping[str, float] | None = None
    scheduled: bool = False
    present: frozenset[str] = frozenset()  # the server's house bots among the players: always here


@dataclass(frozen=True)
class RequestBye:
    """A Swiss entrant asks for a half-point bye in ``round``, not paired yet."""

    player: str
    entry: str
    round: int


@dataclass(frozen=True)
class CheckIn:
    """In the check-in window, an entrant confirms they are here (``entry``: as the request named them)."""

    player: str
    entry: str


@dataclass(frozen=True)
class Advance:
    """Do what is due ``now``: a duplicate round's reveal, the next round's opening (paired if a
    Swiss), or the finish. ``seed``: the tournament's secret seed (deal keys, the finish's reveal)."""

    seed: bytes


@dataclass(frozen=True)
class MatchEnd:
    """How a match ended, as the service read it: the winner's seat, each seat's total and (a table
    of more than two) place, in the match's seat order; the forfeit's reason if one ended it; and
    the player in each seat of the match (a table without a withdrawn player has fewer seats)."""

    winner: int
    scores: tuple[int, ...]
    seated: tuple[str | None, ...]
    forfeit: str | None = None
    places: tuple[int, ...] | None = None
    time_called: str | None = None  # the match's time_called moment (D26), if time was called in it


@dataclass(frozen=True)
class RecordResult:
    """A match of the tournament ended: its result goes to its pairing (nothing if already decided)."""

    match: str
    end: MatchEnd


@dataclass(frozen=True)
class NoShow:
    """Round's join deadline: neither seat of ``slot``'s ``match`` joined (the service annuls the match)."""

    slot: str
    match: str


@dataclass(frozen=True)
class Withdraw:
    """The director withdraws ``player`` from a running tournament (docs/TOURNAMENTS.md "Withdrawals")."""

    player: str
    note: str


@dataclass(frozen=True)
class OpenDispute:
    """A seated player disputes event ``seq`` of ``match`` (the service checked the seat and the seq)."""

    match: str
    seq: int
    seat: int
    player: str
    note: str
    most_open: int  # disputes one player may have waiting for a ruling in one tournament


@dataclass(frozen=True)
class Rule:
    """The director rules on a dispute. ``playing``: the disputed match is still being played
    (read by the service; an award then stops it)."""

    dispute: str
    decision: str
    note: str
    seat: int | None = None
    rule: str | None = None
    playing: bool = False


@dataclass(frozen=True)
class CallRoundTime:
    """Timed rounds (RULES.md D26): time was called at ``moment`` in every match of round ``round``
    still being played (the service called it in each first); ``by`` the deadline or the director."""

    round: int
    moment: str
    by: str


Command = (
    Create
    | Enter
    | Leave
    | Start
    | CheckIn
    | RequestBye
    | Advance
    | RecordResult
    | NoShow
    | Withdraw
    | OpenDispute
    | Rule
    | CallRoundTime
)


@dataclass(frozen=True)
class Decision:
    """What :func:`decide` answers: the events to append, and the command id that makes the
    append happen once (a retry, or another process deciding the same, is answered from it)."""

    events: list[TournamentEvent] = field(default_factory=list)
    command_id: str = ""
    note: str = ""  # what the service should log (a Swiss round that could not be paired)


def decide(t: Tournament, command: Command, now: datetime) -> Decision:
    """The events ``command`` produces on ``t`` at ``now`` (none: nothing to do), or a refusal."""
    match command:
        case Create():
            return _create(t, command, now)
        case Enter():
            return _enter(t, command, now)
        case Leave():
            return _leave(t, command)
        case Start():
            return _start(t, command, now)
        case CheckIn():
            return _check_in(t, command, now)
        case RequestBye():
            return _request_bye(t, command)
        case Advance():
            return _advance(t, command, now)
        case RecordResult():
            return _record(t, command)
        case NoShow():
            return _no_show(t, command)
        case Withdraw():
            return _withdraw(t, command)
        case OpenDispute():
            return _open_dispute(t, command)
        case Rule():
            return _rule(t, command)
        case CallRoundTime():
            return _call_round_time(t, command)


# ---------------------------------------------------------------- before the start


def _create(t: Tournament, command: Create, now: datetime) -> Decision:
    """A tournament's first event, once what the director asked for makes one (docs/TOURNAMENTS.md)."""
    if t.version:
        raise NotNow(f"tournament {t.id!r} exists already")
    count = len(command.players)
    least = 0 if command.open else 2  # an open tournament fills up by entries until its start
    if not least <= count <= MAX_PLAYERS:
        raise Malformed(
            f"a tournament needs 2 to {MAX_PLAYERS} players, not {count} (an open tournament may start empty: 'open': true)"
        )
    table = command.table_size if command.format in (Format.TABLES, Format.TABLE_KNOCKOUT) else None
    problem = deal_problem(command.ruleset, table) if table is not None and 2 <= table <= MAX_SEATS else None
    if problem is not None:  # said before the format's "table_size: 3 to N", which does not say why
        raise Malformed(f"rules: {problem}")
    asked = FormatRequest(
        format=command.format,
        players=count,
        seats=max(seats_allowed(command.ruleset)),
        rounds=command.rounds,
        table_size=command.table_size,
        placement_points=command.placement_points,
        double=command.double,
        round_starts=command.round_starts,
        open=command.open,
        duplicate=command.duplicate,
        advance=command.advance,
        pool_format=command.pool_format,
        pool_size=command.pool_size,
        bracket=command.bracket,
    )
    try:
        points = check_request(asked)
    except FormatError as exc:
        raise Malformed(str(exc)) from None
    pools = command.format is Format.POOLS  # a Swiss pool's rounds are the pools phase's, not the event's
    check_start_time(command, now)
    check_forbidden(command)
    if command.round_minutes is not None and (problem := round_minutes_problem(command.round_minutes)):
        raise Malformed(problem)
    check_late_entry(command)
    created = TournamentCreated(
        name=command.name,
        players=command.players,
        ruleset=command.ruleset.to_dict(),
        double=command.double,
        move_seconds=command.move_seconds,
        join_seconds=command.join_seconds,
        commitment=command.commitment,
        open=command.open,
        format=command.format,
        rounds=None if pools else command.rounds,
        table_size=command.table_size,
        placement_points=points,
        round_starts=tuple(format_at(at) for at in command.round_starts),
        bot_accounts=command.bot_accounts,
        seeding=command.seeding,
        duplicate=command.duplicate,
        **staged_settings(command),
        starts_at=format_at(command.starts_at) if command.starts_at is not None else "",
        check_in_minutes=command.check_in_minutes,
        forbidden_pairs=command.forbidden_pairs,
        round_minutes=command.round_minutes,
        late_entry_rounds=command.late_entry_rounds,
        late_entry_bye=command.late_entry_bye,
    )
    return Decision([created], "create")


def staged_settings(command: Create) -> dict[str, Any]:
    """A table knockout's or a pools tournament's settings as recorded, their defaults filled in
    (advance 2; round-robin pools; a single elimination); none for the other formats."""
    if command.format is Format.TABLE_KNOCKOUT:
        return {"advance": command.advance or DEFAULT_ADVANCE}
    if command.format is Format.POOLS:
        return {
            "advance": command.advance or DEFAULT_ADVANCE,
            "pool_format": command.pool_format or POOL_FORMATS[0],
            "pool_size": command.pool_size,
            "pool_rounds": command.rounds,
            "bracket": command.bracket or POOL_BRACKETS[0],
        }
    return {}


def check_late_entry(command: Create) -> None:
    """Late entry: a Swiss's, up to one of its rounds, not with duplicate rounds (a deal key mixes
    the entrants' entropy: a late one would change the deals of rounds already played)."""
    last = command.late_entry_rounds
    if last is None:
        if command.late_entry_bye:
            raise Malformed("late_entry_bye needs late_entry_rounds: the round entries stay open until")
        return
    if command.format is not Format.SWISS:
        raise Malformed("late_entry_rounds is for a swiss tournament")
    if command.duplicate:
        raise Malformed(
            "late_entry_rounds and duplicate rounds do not go together: a late entrant's entropy would change deals"
        )
    if command.rounds is None or not 1 <= last <= command.rounds:
        raise Malformed(f"late_entry_rounds: a round of the tournament, 1 to {command.rounds}")


def check_forbidden(command: Create) -> None:
    """Forbidden pairs: a Swiss's (a bracket's first round may use ``server.tournaments.forbidden``),
    each two different players, none twice, at most :data:`MAX_FORBIDDEN_PAIRS`."""
    pairs = command.forbidden_pairs
    if not pairs:
        return
    if command.format is not Format.SWISS and command.format not in BRACKETS:
        raise Malformed("forbidden_pairs is for a swiss, a single_elimination or a double_elimination")
    if len(pairs) > MAX_FORBIDDEN_PAIRS:
        raise Malformed(f"forbidden_pairs: at most {MAX_FORBIDDEN_PAIRS} pairs")
    seen: set[frozenset[str]] = set()
    for a, b in pairs:
        pair = frozenset((a, b))
        if a == b:
            raise Malformed(f"a forbidden pair names two players, not {shown(a)} twice")
        if pair in seen:
            raise Malformed(f"the pair {shown(a)} and {shown(b)} is forbidden twice")
        seen.add(pair)


def check_start_time(command: Create, now: datetime) -> None:
    """``starts_at`` in the future and no later than round 1's start time; check-in only for an
    open tournament, and only with a moment to close it (``starts_at``, or round 1's start time)."""
    start = command.starts_at
    if start is not None:
        problem = start_time_problem(start)
        if problem is not None:
            raise Malformed(f"starts_at: {problem}")
        if start <= now:
            raise Malformed(f"starts_at must be in the future; it is {format_at(now)} now")
        if command.round_starts and command.round_starts[0] < start:
            raise Malformed("starts_at comes no later than round 1's start time")
    minutes = command.check_in_minutes
    if minutes is None:
        return
    if not 1 <= minutes <= MAX_CHECK_IN_MINUTES:
        raise Malformed(f"check_in_minutes: 1 to {MAX_CHECK_IN_MINUTES}")
    if not command.open:
        raise Malformed("check-in is for an open tournament ('open': true), whose entrants confirm they came")
    if start is None and not command.round_starts:
        raise Malformed("check-in needs a start: starts_at (or round 1's start time in round_starts)")


def refuse_once_started(t: Tournament) -> None:
    if t.status != CREATED:
        raise NotNow(f"tournament {t.id!r} has started: entries are taken until the start")


def refuse_entry(t: Tournament) -> None:
    """Entries are taken until the start, or in a Swiss with late entry until round
    ``late_entry_rounds`` is paired (docs/TOURNAMENTS.md "Late entry")."""
    if t.entries_open():
        return
    if t.late_entry_rounds is not None and t.status == RUNNING:
        raise NotNow(f"tournament {t.id!r} took late entries until round {t.late_entry_rounds} was paired")
    refuse_once_started(t)
    raise NotNow(f"tournament {t.id!r} has ended")


def _enter(t: Tournament, command: Enter, now: datetime) -> Decision:
    if command.by == "player" and not t.open:
        raise NotNow(f"tournament {t.id!r} is not open to entries: the director enters its players")
    refuse_entry(t)
    if command.player in t.players:
        raise NotNow(f"{command.name} is entered in this tournament already")
    if len(t.players) >= MAX_PLAYERS:
        raise NotNow(f"tournament {t.id!r} is full: {MAX_PLAYERS} players at most")
    events: list[TournamentEvent] = [PlayerEntered(command.player, command.by, command.entropy)]
    opens = t.check_in_opens()
    if command.by == "player" and opens is not None and now >= opens and t.status == CREATED:
        events.append(PlayerCheckedIn(command.player))  # entering in the window is being here
    return Decision(events, f"enter-{command.player}-{t.version}")


def _leave(t: Tournament, command: Leave) -> Decision:
    refuse_once_started(t)
    if command.player not in t.players:
        raise EntryNotFound(t.id, command.entry)
    return Decision([PlayerLeft(command.player, command.by)], f"leave-{command.player}-{t.version}")


def _start(t: Tournament, command: Start, now: datetime) -> Decision:
    if command.scheduled:
        moment = t.start_moment()
        if t.status != CREATED or moment is None or now < moment:
            return Decision()  # started already (by the director), or not its time yet
    if t.status != CREATED:
        raise NotNow(f"tournament {t.id!r} has already started")
    closed: list[TournamentEvent] = []
    if t.check_in_minutes is not None:
        here = {*t.checked_in, *command.present}
        closed.append(CheckInClosed(tuple(p for p in t.players if p not in here)))
        t = after(t, closed)
    if len(t.players) < 2:
        raise NotNow(
            f"tournament {t.id!r} has {len(t.players)} player{'' if len(t.players) == 1 else 's'}; "
            "it needs at least 2 to start"
        )
    try:
        check_start(t, max(seats_allowed(Ruleset.from_dict(t.ruleset))))
    except FormatError as exc:
        raise NotNow(str(exc)) from None
    return Decision([*closed, seeded_start(t, command.ratings)], "start")


def _request_bye(t: Tournament, command: RequestBye) -> Decision:
    """A half-point bye (docs/TOURNAMENTS.md "Half-point byes"): a Swiss round not paired yet,
    :data:`MAX_HALF_BYES` a player; the same request again: nothing more."""
    if t.format is not Format.SWISS:
        raise NotNow("half-point byes are for a swiss tournament")
    if command.player not in t.players:
        raise EntryNotFound(t.id, command.entry)
    if not 1 <= command.round <= t.planned:
        raise Malformed(f"round: 1 to {t.planned}, the tournament's rounds")
    if t.status == FINISHED or command.player in t.withdrawn:
        raise NotNow("byes are for players still in a tournament that has not ended")
    if command.round <= len(t.rounds):
        raise NotNow(f"round {command.round} is paired already: a bye is asked for before its round is paired")
    asked = t.half_byes_of(command.player)
    if command.round in asked:
        return Decision()
    if len(asked) >= MAX_HALF_BYES:
        raise NotNow(
            f"{MAX_HALF_BYES} half-point byes at most a player (asked for rounds {', '.join(map(str, asked))})"
        )
    return Decision([ByeRequested(command.player, command.round)], f"bye-{command.player}-{command.round}")


def _check_in(t: Tournament, command: CheckIn, now: datetime) -> Decision:
    """An entrant confirms in the window (docs/TOURNAMENTS.md "Check-in"); again: nothing more."""
    if command.player not in t.players:
        raise EntryNotFound(t.id, command.entry)
    opens = t.check_in_opens()
    if opens is None:
        raise NotNow(f"tournament {t.id!r} has no check-in")
    if t.status != CREATED:
        raise NotNow("check-in closed when the tournament started")
    if now < opens:
        raise NotNow(f"check-in opens at {format_at(opens)}, {t.check_in_minutes} minutes before the start")
    if command.player in t.checked_in:
        return Decision()
    return Decision([PlayerCheckedIn(command.player)], f"check-in-{command.player}")


def seeding_family(t: Tournament) -> str:
    """The rating family a ``rating`` seeding reads (uno-duo for a ruleset of none)."""
    return family_of(str(t.ruleset.get("name"))) or "uno-duo"


def seeded_start(t: Tournament, ratings: Mapping[str, float] | None) -> TournamentStarted:
    """The start: the schedule, from the players in pairing-number order (docs/TOURNAMENTS.md
    "Seeding"): the entry order, or with ``seeding: rating`` by rating in the tournament's
    family, highest first (equal ratings keep their entry order)."""
    rated = t.seeding == "rating" and ratings is not None
    order = sorted(t.players, key=lambda p: (-(ratings or {}).get(p, 0.0), t.players.index(p))) if rated else t.players
    unavoidable: list[tuple[str | None, str | None]] = []
    if t.format in BRACKETS and t.forbidden_pairs:  # round 1's forbidden pairs swapped apart
        order, unavoidable = seeded_apart(order, {frozenset(pair) for pair in t.forbidden_pairs})
    forced = tuple((a, b) for a, b in unavoidable if a is not None and b is not None)
    if not rated and order == t.players:
        return TournamentStarted(tuple(schedule_at_start(t)), rounds_planned=_knockout_rounds(t), forbidden=forced)
    seeded = replace(t, players=list(order))
    return TournamentStarted(
        tuple(schedule_at_start(seeded)),
        tuple(order),
        {p: round((ratings or {}).get(p, 0.0)) for p in order} if rated else {},
        rounds_planned=_knockout_rounds(seeded),
        forbidden=forced,
    )


def _knockout_rounds(t: Tournament) -> int | None:
    """A knockout's most rounds (its plan's, a reset counted), fixed with the seeded field."""
    return plan_of(t).rounds if t.knockout else None


# ---------------------------------------------------------------- going on


def scheduled_match_id(tournament_id: str, slot: Slot, attempt: int = 0) -> str:
    """The match that plays ``slot`` (``attempt``: the n-th replay ruling's)."""
    base = f"m_{tournament_id.removeprefix('t_')}_{slot.round}_{slot.board}"
    return base if attempt == 0 else f"{base}_{attempt}"


def deal_key(t: Tournament, seed: bytes, number: int) -> bytes:
    """A duplicate round's deal key (docs/FAIRNESS.md "Duplicate rounds")."""
    return round_deal_key(seed, number, t.deal_entropies())


def _advance(t: Tournament, command: Advance, now: datetime) -> Decision:
    due = [n for n in range(1, t.opened + 1) if t.duplicate and n not in t.deal_keys and t.round_done(n)]
    if due:
        reveals = [DuplicateRevealed(n, deal_key(t, command.seed, n).hex()) for n in due]
        return Decision(list(reveals), f"duplicate-{due[0]}")
    if t.knockout:
        return _advance_knockout(t, command.seed, now)
    number = t.round_due(now)
    if number is not None:
        return _open_round(t, number, command.seed)
    if t.finish_due():
        return Decision([TournamentFinished(command.seed.hex())], "finish")
    return Decision()


def _open_round(t: Tournament, number: int, seed: bytes) -> Decision:
    """Round ``number`` opens: paired first if a Swiss (from the results so far), each pairing's
    match named, and a pairing with a withdrawn player decided by forfeit without one."""
    paired: list[TournamentEvent] = []
    if t.needs_pairing(number):
        try:
            paired_round = pair_next(t, number)  # a Swiss round of 64: about 0.6 s (docs/TOURNAMENTS.md)
        except SwissError as exc:
            # Nobody left to pair without a repeat (withdrawals thinned the field): the tournament
            # ends with the rounds played (said in the standings; the service logs the note).
            note = f"round {number} cannot be paired ({exc}); it ends here"
            return Decision([TournamentFinished(seed.hex())], "finish", note)
        paired.append(paired_round)
        t = after(t, paired)
    return _opened(t, number, paired)


def _advance_knockout(t: Tournament, seed: bytes, now: datetime) -> Decision:
    """A knockout goes on once its last round is done and no dispute waits for a ruling (a
    ruling may change who goes on): the next round with a match, paired from the plan, or the
    finish when nothing is left to play (docs/TOURNAMENTS.md "Knockouts")."""
    if t.status != RUNNING or any(d.open for d in t.disputes.values()):
        return Decision()
    step = pools_round(t) or next_round(t, pool_standings_of(t, seed))
    if step.finished:
        return Decision([TournamentFinished(seed.hex())], "finish")
    if step.paired is None:
        return Decision()
    number = step.paired.round.number
    start = t.starts_at(number)
    if start is not None and now < start:
        return Decision()
    return _opened(after(t, [step.paired]), number, [step.paired])


def _opened(t: Tournament, number: int, paired: list[TournamentEvent]) -> Decision:
    """Round ``number`` (paired already in ``t``) opens: each pairing's match named, a pairing
    with a withdrawn player decided by forfeit without one."""
    forfeits = t.forfeits_due(number)
    skipped = {slot.key for slot, _ in forfeits}
    matches = {
        slot.key: scheduled_match_id(t.id, slot)
        for slot in t.round_slots(number)
        if slot.key not in skipped and not t.cancelled(slot)
    }
    events: list[TournamentEvent] = [*paired, RoundOpened(number, matches)]
    events.extend(forfeit_result(slot, winner, "withdrawal", None) for slot, winner in forfeits)
    return Decision(events, f"round-{number}")


def after(t: Tournament, events: Sequence[TournamentEvent]) -> Tournament:
    """A copy of ``t`` with ``events`` applied but still at ``t``'s version, so that what is
    appended next (the events themselves among it) is appended where ``t`` was folded."""
    ahead = copy.deepcopy(t)
    for event in events:
        evolve(ahead, event, "")
    ahead.version = t.version
    return ahead


def forfeit_result(slot: Slot, winner: str | None, reason: str, match_id: str | None) -> ResultRecorded:
    """A pairing decided without play: no points; at a table, the winner (if any) first and
    every other seat sharing the last place."""
    zeros = tuple(0 for _ in slot.seats)
    places = None
    if len(slot.seats) > 2:
        last = len(slot.seats)
        places = tuple(1 if p == winner else last for p in slot.seats)
    return ResultRecorded(slot.key, match_id, winner, zeros, True, reason, places)


# ---------------------------------------------------------------- results


def _record(t: Tournament, command: RecordResult) -> Decision:
    slot = t.slot_of_match(command.match)
    if slot is None or slot.result is not None or t.cancelled(slot):
        return Decision()
    result = result_of(slot, command.match, command.end)
    if command.end.time_called is not None:  # decided on its totals after time was called (D26)
        result = replace(result, time_called=command.end.time_called)
    return Decision([result], f"result-{command.match}")


def _call_round_time(t: Tournament, command: CallRoundTime) -> Decision:
    """D26: the round's call, recorded once (nothing if it was recorded already)."""
    if t.status != RUNNING or not 1 <= command.round <= t.opened:
        raise NotNow(f"round {command.round} of tournament {t.id!r} is not open: there is no time to call")
    if command.round in t.time_called:
        return Decision()
    return Decision([RoundTimeCalled(command.round, command.moment, command.by)], f"time-called-{command.round}")


def result_of(slot: Slot, match_id: str, end: MatchEnd) -> ResultRecorded:
    """A match's result in the slot's seat order: its winner, totals, and whether by forfeit. At a
    table, each seat's place (D23); a player who withdrew before the table sat (no seat at the
    match) shares the last place."""
    if len(slot.seats) > 2 and end.places is not None:
        seat_of = {p: i for i, p in enumerate(end.seated) if p is not None}
        last = len(slot.seats)
        totals = tuple(end.scores[seat_of[p]] if p in seat_of else 0 for p in slot.seats)
        ranked = tuple(end.places[seat_of[p]] if p in seat_of else last for p in slot.seats)
        winner = next((p for p, place in zip(slot.seats, ranked, strict=True) if place == 1), None)
        return ResultRecorded(slot.key, match_id, winner, totals, False, "played", ranked)
    winner_id = slot.white if end.winner == 0 else slot.black
    if end.forfeit is not None:
        return forfeit_result(slot, winner_id, end.forfeit, match_id)
    return ResultRecorded(slot.key, match_id, winner_id, (end.scores[0], end.scores[1]), False, "played")


def _no_show(t: Tournament, command: NoShow) -> Decision:
    slot = t.slots.get(command.slot)
    if slot is None or slot.result is not None or slot.match != command.match:
        return Decision()
    return Decision([forfeit_result(slot, None, "no_show", command.match)], f"result-{command.match}")


# ---------------------------------------------------------------- withdrawals


def _withdraw(t: Tournament, command: Withdraw) -> Decision:
    player = command.player
    if player not in t.players:
        raise PlayerNotFound(player)
    if t.status != RUNNING:
        raise NotNow(f"a withdrawal applies to a running tournament; this one is {t.status}")
    if player in t.withdrawn:
        raise NotNow(f"{player} has already withdrawn")
    record = PlayerWithdrew(
        player=player,
        annulled=t.withdrawal_annuls(player),
        played=t.played_of(player),
        scheduled=t.scheduled_count(player),
        note=command.note,
    )
    return Decision([record], f"withdraw-{player}")


# ---------------------------------------------------------------- disputes and rulings


def _open_dispute(t: Tournament, command: OpenDispute) -> Decision:
    if t.status == FINISHED:
        raise NotNow("the tournament has ended: disputes are taken until its end")
    match_id = command.match
    slot = t.slot_of_match(match_id) or next((s for s in t.slots.values() if match_id in s.annulled), None)
    if slot is None:
        raise NotNow(f"match {match_id!r} is not one of this tournament's pairings")
    mine = sum(1 for d in t.disputes.values() if d.open and d.player == command.player)
    if mine >= command.most_open:
        raise TooManyOpen(
            f"you have {mine} disputes waiting for the director's ruling in this tournament, the most one "
            "player may have open; add to one of them, or wait for a ruling"
        )
    dispute_id = f"{t.id}-d{len(t.disputes) + 1}"
    opened = DisputeOpened(dispute_id, slot.key, match_id, command.seq, command.seat, command.player, command.note)
    return Decision([opened], f"dispute-{dispute_id}")


def check_ruling(t: Tournament, command: Rule) -> None:
    """What a ruling must be, whatever the state of its dispute: a known decision, an award's seat
    at the table, a seat only for an award, a ruling of RULES.md."""
    if command.dispute not in t.disputes:
        raise DisputeNotFound(command.dispute)
    if command.decision not in DECISIONS:
        raise Malformed(f"decision must be one of {', '.join(DECISIONS)}, not {shown(command.decision)}")
    seats = len(t.slots[t.disputes[command.dispute].slot].seats)
    seat = command.seat
    if command.decision == "award" and (seat is None or not 0 <= seat < seats):
        raise Malformed(f"an award names the seat it goes to: seat 0 to {seats - 1}")
    if command.decision != "award" and seat is not None:
        raise Malformed("only an award names a seat")
    if command.rule is not None and command.rule not in RULINGS:
        raise Malformed(f"rule must be one of RULES.md's rulings {RULING_RANGE}, not {shown(command.rule)}")


def _rule(t: Tournament, command: Rule) -> Decision:
    """``stands``: the ruling alone. ``replay``: the match is played again as a new match (the
    service annuls the old one and makes the new one). ``award``: the pairing goes to the seat as
    a forfeit; a two-seat match still in play ends by the other seat's forfeit (the service
    forfeits it, and its end records the result), a table still in play is stopped (annulled) and
    the award puts the seat first, the rest last."""
    check_ruling(t, command)
    dispute = t.disputes[command.dispute]
    if not dispute.open:
        raise NotNow(f"dispute {command.dispute} has been ruled already ({dispute.decision})")
    slot = t.slots[dispute.slot]
    events: list[TournamentEvent] = [
        DisputeRuled(command.dispute, command.decision, command.seat, command.note, command.rule)
    ]
    if t.knockout and command.decision != "stands" and t.opened > slot.round:
        raise NotNow(
            f"the bracket has moved on from round {slot.round} (round {t.opened} is open): only "
            "'stands' can rule on this match now"
        )
    if command.decision == "replay":
        if slot.match != dispute.match:
            raise NotNow("this match has been replayed already; dispute the new match instead")
        new_id = scheduled_match_id(t.id, slot, len(slot.annulled) + 1)
        events.append(MatchReplayed(slot.key, dispute.match, new_id))
    elif command.decision == "award":
        assert command.seat is not None  # check_ruling
        playing = command.playing and slot.match is not None
        if not (playing and len(slot.seats) == 2):
            events.append(forfeit_result(slot, slot.seats[command.seat], "ruling", dispute.match))
    return Decision(events, f"rule-{command.dispute}")
