"""A tournament as the fold of its own stream ``tournament-<id>`` (docs/TOURNAMENTS.md).

Pure: no I/O. :func:`fold` turns the stream's events into a :class:`Tournament`; the questions
the service asks (which round is due, which pairings are open, what the withdrawal rule says,
the standings) are answered here from that fold alone, so every process and every restart
gets the same answers from the same events. Standings are never stored: they are computed.

Each pairing of the schedule is a :class:`Slot`, named ``"<round>.<board>"``. A slot holds the
match playing it (a ``replay`` ruling swaps in a new one) and, once decided, its result.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping, Sequence
from copy import copy
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, ClassVar, Final

from engine.game.shuffle import shuffle_ids
from engine.record.event_codec import CODEC, INLINED, Recorded, recorded_when_set
from server.tournaments.duplicate import DealResult, same_deal
from server.tournaments.schedule import Pairing, ScheduledRound, rounds_per_cycle
from server.tournaments.standings import SWISS_TIEBREAKS, TIEBREAKS, Result, StandingRow, standings
from server.tournaments.table_standings import TableResult, table_standings
from server.tournaments.timed import round_deadline

TOURNAMENT_PREFIX: Final = "tournament-"
CREATED: Final = "created"
RUNNING: Final = "running"
FINISHED: Final = "finished"
DECISIONS: Final = ("stands", "replay", "award")
LOTS_LABEL: Final = "lots"


class TournamentEventType(StrEnum):
    CREATED = "tournament_created"
    STARTED = "tournament_started"
    ROUND_OPENED = "round_opened"
    RESULT = "result_recorded"
    WITHDREW = "player_withdrew"
    DISPUTE_OPENED = "dispute_opened"
    DISPUTE_RULED = "dispute_ruled"
    MATCH_REPLAYED = "match_replayed"
    FINISHED = "tournament_finished"
    ENTERED = "player_entered"
    LEFT = "player_left"
    ROUND_PAIRED = "round_paired"
    DUPLICATE_REVEALED = "duplicate_revealed"
    CHECKED_IN = "player_checked_in"
    CHECK_IN_CLOSED = "check_in_closed"
    BYE_REQUESTED = "bye_requested"
    ROUND_TIME_CALLED = "round_time_called"


class Format(StrEnum):
    """How a tournament decides who meets whom (docs/TOURNAMENTS.md "Formats")."""

    ROUND_ROBIN = "round_robin"  # the Berger table, fixed at the start
    SWISS = "swiss"  # two seats; each round paired from the results so far (FIDE Dutch)
    TABLES = "tables"  # classic at tables of 3-10, the seating fixed at the start
    # Knockouts (docs/TOURNAMENTS.md "Knockouts"): a plan of nodes fixed at the start
    # (server.tournaments.brackets), each round paired from the results when it opens.
    SINGLE_ELIMINATION = "single_elimination"  # two seats
    DOUBLE_ELIMINATION = "double_elimination"  # two seats: winners' and losers' brackets, a grand final
    TABLE_KNOCKOUT = "table_knockout"  # classic at tables of 3-10, the top ``advance`` of each go on
    POOLS = "pools"  # round-robin or Swiss pools into a single or double elimination


KNOCKOUT_FORMATS: Final = frozenset(
    {Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION, Format.TABLE_KNOCKOUT, Format.POOLS}
)


def stored_time(text: object) -> datetime | None:
    """An ISO time read back from a tournament's events: aware and convertible to UTC, else None."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text)
        if moment.utcoffset() is None:
            return None
        moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None
    return moment


def tournament_stream(tournament_id: str) -> str:
    return f"{TOURNAMENT_PREFIX}{tournament_id}"


def slot_key(round_number: int, board: int) -> str:
    return f"{round_number}.{board}"


@dataclass(frozen=True)
class SlotResult:
    """How a pairing was decided: ``winner`` a player id (None: a double forfeit); at a table of
    more than two, ``places`` gives each seat's final place (D23), in the slot's seat order."""

    winner: str | None
    scores: tuple[int, ...]
    forfeit: bool
    reason: str  # "played", or the forfeit's: timeouts, join_deadline, withdrawal, ruling, no_show
    match: str | None  # the match that decided it; None when no match was played
    places: tuple[int, ...] | None = None
    time_called: str | None = None  # the match ended on its totals after time was called (D26): when
    # the seats whose players had withdrawn when the result came (not stored: the fold's order says
    # it): at a knockout's table they never go on, however few are left
    gone: tuple[str, ...] = ()


@dataclass
class Slot:
    """One pairing (two seats) or one table (3-10 seats) of a round; ``seats[0]`` is white, the
    first drafter of a two-seat match, or a table's first dealer."""

    key: str
    round: int
    board: int
    seats: tuple[str, ...]
    match: str | None = None
    annulled: list[str] = field(default_factory=list)  # matches of this slot annulled by a replay ruling
    result: SlotResult | None = None
    node: str | None = None  # a knockout's: the plan's node this pairing plays (server.tournaments.brackets)

    @property
    def white(self) -> str:
        return self.seats[0]

    @property
    def black(self) -> str:
        return self.seats[1]

    def seat_of(self, player: str) -> int | None:
        return self.seats.index(player) if player in self.seats else None

    def has(self, player: str) -> bool:
        return player in self.seats

    def others(self, player: str) -> tuple[str, ...]:
        return tuple(p for p in self.seats if p != player)


@dataclass
class Dispute:
    id: str
    slot: str
    match: str
    seq: int
    seat: int
    player: str
    note: str
    at: str
    decision: str | None = None
    ruling_note: str | None = None
    award_to: int | None = None
    rule: str | None = None
    ruled_at: str | None = None

    @property
    def open(self) -> bool:
        return self.decision is None


@dataclass
class Tournament:
    id: str
    name: str = ""
    players: list[str] = field(default_factory=list)
    open: bool = False  # players may enter (and leave) themselves until the start
    bot_accounts: bool = False  # bot accounts (kind bot_account) may be entered (docs/BOTS.md)
    seeding: str = "entry"  # pairing numbers: "entry" (the entry order) or "rating" (fixed at the start)
    seed_ratings: dict[str, int] = field(default_factory=dict)  # a "rating" seeding's ratings at the start
    duplicate: bool = False  # duplicate rounds: every match of a round dealt the same (engine.game.duplicate)
    entropies: dict[str, str] = field(default_factory=dict)  # player -> the entropy given on entering
    deal_keys: dict[int, str] = field(default_factory=dict)  # duplicate: round -> its deal key (hex), once revealed
    format: Format = Format.ROUND_ROBIN
    rounds_planned: int | None = None  # a Swiss or tables tournament's number of rounds
    table_size: int | None = None  # a tables tournament's (or a table knockout's) preferred table size
    advance: int | None = None  # a table knockout's: how many of each table go on; pools': of each pool
    pool_format: str | None = None  # pools: "round_robin" or "swiss"
    pool_size: int | None = None  # pools: the most players a pool holds
    pool_rounds: int | None = None  # Swiss pools: their rounds (a round-robin pool's come from its size)
    bracket_format: str | None = None  # pools: "single_elimination" or "double_elimination"
    placement_points: tuple[int, ...] = ()  # a tables tournament's points for 1st, 2nd, ...
    round_starts: tuple[str, ...] = ()  # ISO times: round k opens no earlier than round_starts[k-1]
    ruleset: dict[str, Any] = field(default_factory=dict)
    double: bool = False
    move_seconds: int = 60
    join_seconds: int = 300
    round_minutes: float | None = None  # timed rounds (D26): each round's limit from its opening
    time_called: dict[int, str] = field(default_factory=dict)  # round -> when its time was called
    commitment: str = ""
    created_at: str = ""
    status: str = CREATED
    rounds: list[ScheduledRound] = field(default_factory=list)
    slots: dict[str, Slot] = field(default_factory=dict)
    opened: int = 0  # rounds opened so far
    opened_at: dict[int, str] = field(default_factory=dict)
    withdrawn: dict[str, bool] = field(default_factory=dict)  # player -> their results annulled
    disputes: dict[str, Dispute] = field(default_factory=dict)
    server_seed: str | None = None
    finished_at: str = ""
    version: int = 0
    # Check-in, late entry, half-point byes, forbidden pairings (docs/TOURNAMENTS.md "Check-in"…)
    start_time: str = ""  # ISO: when it starts by itself ("" none: the director starts it)
    check_in_minutes: int | None = None  # the check-in window before the start (None: no check-in)
    checked_in: list[str] = field(default_factory=list)  # entrants who confirmed, in order
    not_checked_in: list[str] = field(default_factory=list)  # withdrawn at the start for not confirming
    forbidden_pairs: tuple[tuple[str, str], ...] = ()  # never paired where avoidable
    forbidden_forced: dict[int, tuple[tuple[str, str], ...]] = field(
        default_factory=dict
    )  # round -> pairs it had to pair
    late_entry_rounds: int | None = None  # a Swiss takes entries until this round is paired
    late_entry_bye: bool = False  # a late entrant's missed rounds score half a point each
    entered_from: dict[str, int] = field(default_factory=dict)  # late entrant -> the first round they are paired
    half_byes: dict[int, list[str]] = field(default_factory=dict)  # round -> the half-point byes asked for it

    # ------------------------------------------------------------ reading the fold

    def replaced_by(self, match_id: str) -> str | None:
        """The match that replays ``match_id`` after a ``replay`` ruling (None: it was not replayed)."""
        for slot in self.slots.values():
            if match_id in slot.annulled:
                played = [*slot.annulled, slot.match]
                return played[played.index(match_id) + 1]
        return None

    @property
    def planned(self) -> int:
        """How many rounds the tournament has: the fixed schedule's, or a Swiss's ``rounds``."""
        if self.format is not Format.ROUND_ROBIN:
            return self.rounds_planned or 0
        if not self.rounds and len(self.players) >= 2:
            return rounds_per_cycle(len(self.players)) * (2 if self.double else 1)  # before the start
        return len(self.rounds)

    @property
    def two_seats(self) -> bool:
        return self.format not in (Format.TABLES, Format.TABLE_KNOCKOUT)

    def starts_at(self, number: int) -> datetime | None:
        """The start time the director gave round ``number`` (None: it opens when the one before is done).

        A stored time that cannot be read or used counts as none (the round opens when ready): a
        server before issue 32 stored a year below 1000 as ``1-01-01T…``, which no reader takes,
        and every read of the tournament (its page, its players' ``GET /api/me``) failed on it."""
        if 1 <= number <= len(self.round_starts):
            return stored_time(self.round_starts[number - 1])
        return None

    def start_moment(self) -> datetime | None:
        """When the tournament starts by itself: ``starts_at``, or with check-in and no
        ``starts_at`` round 1's start time (None: only the director starts it)."""
        if self.start_time:
            return stored_time(self.start_time)
        if self.check_in_minutes is not None:
            return self.starts_at(1)
        return None

    def check_in_opens(self) -> datetime | None:
        """When entrants may start to check in (None: the tournament has no check-in)."""
        start = self.start_moment()
        if start is None or self.check_in_minutes is None:
            return None
        return start - timedelta(minutes=self.check_in_minutes)

    def entries_open(self) -> bool:
        """Entries are taken: before the start, or in a Swiss with late entry until round
        ``late_entry_rounds`` is paired."""
        if self.status == CREATED:
            return True
        return (
            self.status == RUNNING and self.late_entry_rounds is not None and len(self.rounds) < self.late_entry_rounds
        )

    def half_byes_of(self, player: str) -> list[int]:
        """The rounds ``player`` asked a half-point bye for."""
        return sorted(n for n, who in self.half_byes.items() if player in who)

    def half_byes_in(self, number: int) -> list[str]:
        """Round ``number``'s half-point byes: those asked for it, and (with ``late_entry_bye``)
        the late entrants who joined after it was paired; withdrawn players' count for nothing."""
        late = [p for p, first in self.entered_from.items() if self.late_entry_bye and number < first]
        return [p for p in [*self.half_byes.get(number, []), *late] if not self.withdrawn.get(p, False)]

    def half_bye_counts(self) -> dict[str, int]:
        """Each player's half-point byes in the rounds opened so far."""
        counts = dict.fromkeys(self.players, 0)
        for number in range(1, self.opened + 1):
            for player in self.half_byes_in(number):
                if player in counts:
                    counts[player] += 1
        return counts

    def missed_rounds(self, player: str) -> int:
        """Rounds paired before a late entrant joined (0 for everyone else)."""
        return self.entered_from.get(player, 1) - 1

    def join_deadline(self, number: int) -> datetime | None:
        """When round ``number``'s seats must have joined (None: the round is not open)."""
        opened = self.opened_at.get(number)
        if opened is None:
            return None
        return datetime.fromisoformat(opened) + timedelta(seconds=self.join_seconds)

    def round_deadline(self, number: int) -> datetime | None:
        """When round ``number`` runs out of time (None: untimed, or not open; RULES.md D26)."""
        opened = stored_time(self.opened_at.get(number))
        if opened is None or self.round_minutes is None:
            return None
        return round_deadline(opened, self.round_minutes)

    def match_time_called(self, slot: Slot) -> str | None:
        """When time was called in ``slot``'s match: its result's record once decided (the match's
        own ``time_called``), else the round's call while it is still being played (every match of
        the round still being played was called then); None: it was not."""
        if slot.result is not None:
            return slot.result.time_called
        if self.done(slot):
            return None
        return self.time_called.get(slot.round)

    def round_slots(self, number: int) -> list[Slot]:
        return [s for s in self.slots.values() if s.round == number]

    def slot_of_match(self, match_id: str) -> Slot | None:
        for slot in self.slots.values():
            if slot.match == match_id:
                return slot
        return None

    def cancelled(self, slot: Slot) -> bool:
        """A pairing with a player whose results were annulled by withdrawal is not played (a
        table plays on without them: it is cancelled only when fewer than two seats are left)."""
        gone = sum(1 for p in slot.seats if self.withdrawn.get(p, False))
        if len(slot.seats) == 2:
            return gone > 0
        return len(slot.seats) - gone < 2

    def seated(self, slot: Slot) -> tuple[str, ...]:
        """The players who take their seat at ``slot``'s match: all of them, less those who withdrew."""
        return tuple(p for p in slot.seats if p not in self.withdrawn)

    def done(self, slot: Slot) -> bool:
        return slot.result is not None or self.cancelled(slot)

    def round_done(self, number: int) -> bool:
        return all(self.done(s) for s in self.round_slots(number))

    def round_status(self, number: int) -> str:
        if number > self.opened:
            return "pending"
        return "finished" if self.round_done(number) else "running"

    def round_ready(self) -> int | None:
        """The round that may open once its start time has come: round 1 at the start, round
        k+1 once every pairing of k ended (a Swiss round is paired then, from the results)."""
        if self.status != RUNNING or self.opened >= self.planned:
            return None
        if self.opened == 0 or self.round_done(self.opened):
            return self.opened + 1
        return None

    def round_due(self, now: datetime | None = None) -> int | None:
        """The round to open ``now``: :meth:`round_ready`'s, if its start time (if any) has come."""
        number = self.round_ready()
        if number is None:
            return None
        start = self.starts_at(number)
        if start is not None and now is not None and now < start:
            return None
        return number

    def needs_pairing(self, number: int) -> bool:
        """A Swiss round not paired yet (every other format's rounds are fixed at the start)."""
        return number > len(self.rounds)

    def finish_due(self) -> bool:
        """Every round opened and every pairing decided, and no dispute waiting for a ruling."""
        return (
            self.status == RUNNING
            and self.opened == self.planned
            and all(self.done(s) for s in self.slots.values())
            and not any(d.open for d in self.disputes.values())
        )

    def open_slots(self) -> list[Slot]:
        """Pairings of opened rounds that a match is playing now (not decided, not cancelled)."""
        return [s for s in self.slots.values() if s.round <= self.opened and not self.done(s) and s.match is not None]

    def forfeits_due(self, number: int) -> list[tuple[Slot, str | None]]:
        """Round ``number``'s pairings with a withdrawn player (results kept): decided by forfeit
        without a match, the other player the winner (None: both withdrew)."""
        out: list[tuple[Slot, str | None]] = []
        for slot in self.round_slots(number):
            if self.cancelled(slot) or slot.result is not None:
                continue
            stays = self.seated(slot)
            if len(stays) < 2 and len(stays) < len(slot.seats):  # a table of one plays no match either
                out.append((slot, stays[0] if stays else None))
        return out

    def scheduled_of(self, player: str) -> list[Slot]:
        return [s for s in self.slots.values() if s.has(player)]

    def played_of(self, player: str) -> int:
        """Pairings of ``player`` decided so far (played or forfeited)."""
        return sum(1 for s in self.scheduled_of(player) if s.result is not None)

    def scheduled_count(self, player: str) -> int:
        """How many matches ``player`` was to play: the fixed schedule's, or a Swiss's rounds less byes."""
        if self.format is Format.SWISS:
            asked = len(self.half_byes_of(player))
            return self.planned - self.byes().get(player, 0) - asked - self.missed_rounds(player)
        return len(self.scheduled_of(player))

    @property
    def knockout(self) -> bool:
        """A knockout format: rounds paired from a plan of nodes (server.tournaments.brackets)."""
        return self.format in KNOCKOUT_FORMATS

    def withdrawal_annuls(self, player: str) -> bool:
        """The published rule: fewer than half of one's matches played → every result annulled.
        A knockout keeps every result: a withdrawn player's later matches are walkovers."""
        if self.knockout:
            return False
        return 2 * self.played_of(player) < self.scheduled_count(player)

    def byes(self) -> dict[str, int]:
        counts = dict.fromkeys(self.players, 0)
        for scheduled in self.rounds[: self.opened]:
            if scheduled.bye is not None and not self.withdrawn.get(scheduled.bye, False):
                counts[scheduled.bye] += 1
        return counts

    def results(self) -> list[Result]:
        """The results that count: decided pairings, less those annulled by a withdrawal."""
        out: list[Result] = []
        for slot in self.slots.values():
            if slot.result is None or self.cancelled(slot) or len(slot.seats) != 2:
                continue
            r = slot.result
            out.append(Result(slot.white, slot.black, r.winner, (r.scores[0], r.scores[1]), r.forfeit))
        return out

    def table_results(self) -> list[TableResult]:
        """A tables tournament's decided tables as the standings count them: the seats of players
        whose results a withdrawal annulled are left out, the others keep the places they finished in."""
        out: list[TableResult] = []
        for slot in self.slots.values():
            r = slot.result
            if r is None or r.places is None or self.cancelled(slot):
                continue
            keep = [i for i, p in enumerate(slot.seats) if not self.withdrawn.get(p, False)]
            out.append(
                TableResult(
                    tuple(slot.seats[i] for i in keep),
                    tuple(r.places[i] for i in keep),
                    tuple(r.scores[i] for i in keep),
                    tuple(r.forfeit and slot.seats[i] != r.winner for i in keep),
                )
            )
        return out

    def deal_entropies(self) -> list[str]:
        """Duplicate rounds: every entrant's entropy (given on entering, "" if none) in pairing order."""
        return [self.entropies.get(p, "") for p in self.players]

    def dealt_together(self, slot: Slot) -> bool:
        """A duplicate round's pairing played on its round's deal: its first match, not a replay
        ruling's (a replayed match is dealt on its own, docs/TOURNAMENTS.md "Duplicate rounds")."""
        return self.duplicate and not slot.annulled and len(slot.seats) == 2

    def round_secret(self, number: int) -> bool:
        """A duplicate round whose deal key is not revealed yet: its matches are read by their seats
        and the director only, and its results count nowhere (docs/TOURNAMENTS.md "Duplicate
        rounds"; ``server.services.secrecy`` answers the same from the stream for a match)."""
        return self.duplicate and number not in self.deal_keys

    def secret_rounds(self) -> set[int]:
        """The opened rounds that are :meth:`round_secret` (at most the last one opened: a round
        opens only after the one before is decided, and its key is revealed first)."""
        return {n for n in range(1, self.opened + 1) if self.round_secret(n)}

    def revealed_only(self) -> Tournament:
        """What the fold shows everyone: a copy in which no pairing of a secret round is decided
        (its result is left out of the standings, the same-deal column, the TRF and every
        pairing); ``self`` itself when no round is secret. A copy: never append from it."""
        secret = self.secret_rounds()
        if not secret:
            return self
        shown = copy(self)
        shown.slots = {
            key: replace(slot, result=None, annulled=list(slot.annulled)) if slot.round in secret else slot
            for key, slot in self.slots.items()
        }
        return shown

    def deal_results(self) -> list[DealResult]:
        """Every played result of a duplicate round dealt its round's cards, one per seat, each
        seat's margin the way its points count (docs/TOURNAMENTS.md "The same-deal column")."""
        out: list[DealResult] = []
        sign = -1 if self.lower_total_wins() else 1
        for slot in self.slots.values():
            r = slot.result
            if r is None or r.forfeit or self.cancelled(slot) or not self.dealt_together(slot):
                continue
            white, black = r.scores[0], r.scores[1]
            out.append(DealResult(slot.round, 0, slot.white, sign * (white - black)))
            out.append(DealResult(slot.round, 1, slot.black, sign * (black - white)))
        return out

    def lower_total_wins(self) -> bool:
        return bool(self.ruleset.get("scoring", "loser_scores") != "winner_scores")

    def standings(self, seed: bytes) -> list[StandingRow]:
        """The table; players whose results a withdrawal annulled come last, below everyone in
        play (``decided_by`` "withdrawal"), in lot order, with no result to their name."""
        out = [p for p in self.players if self.withdrawn.get(p, False)]
        staying = [p for p in self.players if p not in out]
        drawn = lots(seed, self.players)
        if self.format is Format.TABLES:
            points = self.placement_points
            rows = table_standings(staying, self.table_results(), [p for p in drawn if p in staying], points)
            tail = table_standings(out, [], [p for p in drawn if p in out], points)
        else:
            byes = self.byes()
            lower = self.lower_total_wins()
            chain = SWISS_TIEBREAKS if self.format is Format.SWISS else TIEBREAKS
            halves = self.half_bye_counts()
            rows = standings(
                staying,
                self.results(),
                {p: byes[p] for p in staying},
                [p for p in drawn if p in staying],
                lower_total_wins=lower,
                chain=chain,
                half_byes={p: halves[p] for p in staying},
            )
            tail = standings(
                out, [], {p: byes[p] for p in out}, [p for p in drawn if p in out], lower_total_wins=lower, chain=chain
            )
        if rows and tail:
            rows[-1] = replace(rows[-1], decided_by="withdrawal")
        rows = rows + [replace(r, rank=len(rows) + r.rank) for r in tail]
        if self.duplicate:
            column = same_deal(self.players, self.deal_results())
            rows = [replace(r, same_deal=column.get(r.player)) for r in rows]
        return rows


# ---------------------------------------------------------------- lots


def lots_key(seed: bytes) -> bytes:
    return hmac.new(seed, b"tournament:lots", hashlib.sha256).digest()


def lots(seed: bytes, players: Sequence[str]) -> list[str]:
    """The drawing of lots: the players in the order of ``shuffle(pairing numbers, "lots")`` under
    the tournament's seed (committed at creation, revealed at the end), first = best."""
    order = shuffle_ids(range(len(players)), lots_key(seed), LOTS_LABEL)
    return [players[i] for i in order]


# ---------------------------------------------------------------- the events, typed
#
# Each class declares its type (``TYPE``), its version (``VERSION``) and its fields; the stored
# data and its reading back are derived by ``engine.record.event_codec``. A field recorded only when set
# keeps the shape events had before it existed; a field the current writer always records but
# older ones left out is filled in by the type's version-0 upcaster (docs/EVENTS.md "Versions").

CODEC.value_type(Pairing, lambda pairing: list(pairing.seats), lambda seats: Pairing(*seats))


@CODEC.register
@dataclass(frozen=True, slots=True)
class TournamentCreated(Recorded):
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.CREATED
    VERSION: ClassVar[int] = 1

    name: str
    players: tuple[str, ...]
    ruleset: Mapping[str, Any]  # the ruleset's switches (``Ruleset.to_dict``)
    double: bool
    move_seconds: int
    join_seconds: int
    commitment: str  # to the tournament's seed (the lots), revealed by ``tournament_finished``
    open: bool = False  # players enter themselves until the start (``player_entered``, ``player_left``)
    format: Format = Format.ROUND_ROBIN
    rounds: int | None = recorded_when_set(None)  # Swiss and tables: the number of rounds
    table_size: int | None = recorded_when_set(None)  # tables: the preferred size (3-10)
    placement_points: tuple[int, ...] = recorded_when_set(())  # tables: points for 1st, 2nd, ...
    # ISO times, one per round from round 1 (fewer: the rest open when ready)
    round_starts: tuple[str, ...] = recorded_when_set(())
    bot_accounts: bool = recorded_when_set(False)  # bot accounts may enter
    seeding: str = recorded_when_set("entry")  # "rating": pairing numbers by rating at the start
    duplicate: bool = recorded_when_set(False)  # duplicate rounds
    advance: int | None = recorded_when_set(None)  # table_knockout and pools: how many of each table / pool go on
    pool_format: str | None = recorded_when_set(None)  # pools: round_robin or swiss
    pool_size: int | None = recorded_when_set(None)  # pools: the most players in a pool
    pool_rounds: int | None = recorded_when_set(None)  # Swiss pools: their rounds
    bracket: str | None = recorded_when_set(None)  # pools: single_elimination or double_elimination
    starts_at: str = recorded_when_set("")  # ISO: it starts by itself then ("": the director starts it)
    check_in_minutes: int | None = recorded_when_set(None)  # the check-in window before the start
    forbidden_pairs: tuple[tuple[str, str], ...] = recorded_when_set(())  # player ids never paired if avoidable
    late_entry_rounds: int | None = recorded_when_set(None)  # Swiss: entries until this round is paired
    late_entry_bye: bool = recorded_when_set(False)  # a late entrant's missed rounds: half a point each
    round_minutes: float | None = recorded_when_set(None)  # timed rounds (D26): each round's limit


@CODEC.upcaster(TournamentEventType.CREATED, 0)
def _created_before_open_and_formats(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0: a creation written before open tournaments and formats existed: not open, a round-robin."""
    data.setdefault("open", False)
    data.setdefault("format", Format.ROUND_ROBIN.value)
    return data


@CODEC.register
@dataclass(frozen=True, slots=True)
class PlayerEntered(Recorded):
    """Before the start: ``player`` entered (themselves, or the director entered them: ``by``)."""

    TYPE: ClassVar[TournamentEventType] = TournamentEventType.ENTERED
    VERSION: ClassVar[int] = 1

    player: str
    by: str  # "player" (an open tournament's self-entry) or "director"
    entropy: str = recorded_when_set("")  # the player's own, for duplicate rounds' deals


@CODEC.upcaster(TournamentEventType.ENTERED, 0)
def _entered_without_by(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0: an entry that does not say who made it: the director."""
    data.setdefault("by", "director")
    return data


@CODEC.register
@dataclass(frozen=True, slots=True)
class PlayerCheckedIn(Recorded):
    """In the check-in window: ``player``, entered, confirmed they are here to play."""

    TYPE: ClassVar[TournamentEventType] = TournamentEventType.CHECKED_IN
    VERSION: ClassVar[int] = 1

    player: str


@CODEC.register
@dataclass(frozen=True, slots=True)
class CheckInClosed(Recorded):
    """At the start, before the schedule: the entrants who did not check in (``missing``) are
    taken out; they play nothing and are named on the tournament's page."""

    TYPE: ClassVar[TournamentEventType] = TournamentEventType.CHECK_IN_CLOSED
    VERSION: ClassVar[int] = 1

    missing: tuple[str, ...]


@CODEC.register
@dataclass(frozen=True, slots=True)
class ByeRequested(Recorded):
    """A Swiss entrant asked for a half-point bye in ``round``, not paired yet: left out of its
    pairing, they score half a point for it."""

    TYPE: ClassVar[TournamentEventType] = TournamentEventType.BYE_REQUESTED
    VERSION: ClassVar[int] = 1

    player: str
    round: int


@CODEC.register
@dataclass(frozen=True, slots=True)
class PlayerLeft(Recorded):
    """Before the start: ``player`` left the tournament (themselves, or the director took them out: ``by``)."""

    TYPE: ClassVar[TournamentEventType] = TournamentEventType.LEFT
    VERSION: ClassVar[int] = 1

    player: str
    by: str


@CODEC.upcaster(TournamentEventType.LEFT, 0)
def _left_without_by(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0: a leaving that does not say who made it: the director."""
    data.setdefault("by", "director")
    return data


def _ratings_recorded(event: TournamentStarted, _ratings: Mapping[str, int]) -> bool:
    return bool(event.order)


@CODEC.register
@dataclass(frozen=True, slots=True)
class TournamentStarted(Recorded):
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.STARTED
    VERSION: ClassVar[int] = 1

    rounds: tuple[ScheduledRound, ...]
    # A "rating" seeding: the players in pairing-number order and the ratings that ordered them
    # (recorded, so the fold never reads a rating); empty for the entry order.
    order: tuple[str, ...] = recorded_when_set(())
    # rounded: the order itself is recorded; written with the order
    ratings: Mapping[str, int] = recorded_when_set({}, when=_ratings_recorded)
    # a knockout's: the most rounds its plan can take (fixed by the seeded field at the start)
    rounds_planned: int | None = recorded_when_set(None)
    # a bracket's: the forbidden pairs its round 1 could not swap apart (server.tournaments.forbidden)
    forbidden: tuple[tuple[str, str], ...] = recorded_when_set(())


def _round_with_bye(scheduled: dict[str, Any]) -> dict[str, Any]:
    """A scheduled round that does not name its bye: it has none."""
    return {**scheduled, "bye": scheduled.get("bye")}


@CODEC.upcaster(TournamentEventType.STARTED, 0)
def _started_without_byes(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0: a schedule whose rounds do not name their bye: none."""
    data["rounds"] = [_round_with_bye(r) for r in data["rounds"]]
    return data


@CODEC.register
@dataclass(frozen=True, slots=True)
class RoundPaired(Recorded):
    """A Swiss round's pairings, made from the results so far when the round opens (recorded
    with the ``round_opened`` that follows it, in the same append): the round's own fields."""

    TYPE: ClassVar[TournamentEventType] = TournamentEventType.ROUND_PAIRED
    VERSION: ClassVar[int] = 1

    round: ScheduledRound = field(metadata=INLINED)
    nodes: tuple[str, ...] = recorded_when_set(())  # a knockout's: the plan's node of each pairing, in board order
    # forbidden pairs this round had to pair: no pairing of the round avoided them
    forbidden: tuple[tuple[str, str], ...] = recorded_when_set(())


@CODEC.upcaster(TournamentEventType.ROUND_PAIRED, 0)
def _paired_without_bye(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0: a paired round that does not name its bye: none."""
    return _round_with_bye(data)


@CODEC.register
@dataclass(frozen=True, slots=True)
class RoundOpened(Recorded):
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.ROUND_OPENED
    VERSION: ClassVar[int] = 1

    round: int
    matches: Mapping[str, str]  # slot key -> the match playing it


@CODEC.register
@dataclass(frozen=True, slots=True)
class ResultRecorded(Recorded):
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.RESULT
    VERSION: ClassVar[int] = 1

    slot: str
    match: str | None  # None when no match was played (a forfeit by withdrawal)
    winner: str | None  # None: a double forfeit
    scores: tuple[int, ...]  # in the slot's seat order
    forfeit: bool
    reason: str  # "played", or the forfeit's: timeouts, join_deadline, withdrawal, ruling, no_show
    # a table's: each seat's final place (D23), in the slot's seat order
    places: tuple[int, ...] | None = recorded_when_set(None)
    time_called: str | None = recorded_when_set(None)  # the match's time_called moment (D26), if any


@CODEC.upcaster(TournamentEventType.RESULT, 0)
def _result_without_match(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0: a result that does not name its match: none was played."""
    data.setdefault("match", None)
    return data


@CODEC.register
@dataclass(frozen=True, slots=True)
class PlayerWithdrew(Recorded):
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.WITHDREW
    VERSION: ClassVar[int] = 1

    player: str
    annulled: bool  # their results annulled (fewer than half of their matches played)
    played: int
    scheduled: int
    note: str


@CODEC.upcaster(TournamentEventType.WITHDREW, 0)
def _withdrawal_without_counts(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0: a withdrawal without its counts or note: none played, none scheduled, no note."""
    data.setdefault("played", 0)
    data.setdefault("scheduled", 0)
    data.setdefault("note", "")
    return data


@CODEC.register
@dataclass(frozen=True, slots=True)
class DisputeOpened(Recorded):
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.DISPUTE_OPENED
    VERSION: ClassVar[int] = 1

    dispute: str
    slot: str
    match: str
    seq: int
    seat: int
    player: str
    note: str


@CODEC.register
@dataclass(frozen=True, slots=True)
class DisputeRuled(Recorded):
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.DISPUTE_RULED
    VERSION: ClassVar[int] = 1

    dispute: str
    decision: str  # one of DECISIONS
    seat: int | None  # an award's seat
    note: str
    rule: str | None  # the RULES.md ruling it rests on, if named


@CODEC.upcaster(TournamentEventType.DISPUTE_RULED, 0)
def _ruling_without_seat_or_rule(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0: a ruling that names no award seat or no rule: none."""
    data.setdefault("seat", None)
    data.setdefault("rule", None)
    return data


@CODEC.register
@dataclass(frozen=True, slots=True)
class MatchReplayed(Recorded):
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.MATCH_REPLAYED
    VERSION: ClassVar[int] = 1

    slot: str
    old: str
    new: str


@CODEC.register
@dataclass(frozen=True, slots=True)
class TournamentFinished(Recorded):
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.FINISHED
    VERSION: ClassVar[int] = 1

    server_seed: str  # hex: the seed the creation committed to


@CODEC.register
@dataclass(frozen=True, slots=True)
class DuplicateRevealed(Recorded):
    """Duplicate rounds: round ``round``'s deal key, revealed once every pairing of it is decided
    (docs/FAIRNESS.md "Duplicate rounds"): ``sha256(key)`` is the ``deal`` of each of its matches."""

    TYPE: ClassVar[TournamentEventType] = TournamentEventType.DUPLICATE_REVEALED
    VERSION: ClassVar[int] = 1

    round: int
    key: str  # hex


@CODEC.register
@dataclass(frozen=True, slots=True)
class RoundTimeCalled(Recorded):
    """Timed rounds (RULES.md D26): time was called in round ``round`` at ``moment`` (its deadline,
    or when the director called it, ``by``), in every match of it still being played."""

    TYPE: ClassVar[TournamentEventType] = TournamentEventType.ROUND_TIME_CALLED
    VERSION: ClassVar[int] = 1

    round: int
    moment: str
    by: str  # "deadline" or "director"


TournamentEvent = (
    TournamentCreated
    | TournamentStarted
    | RoundOpened
    | ResultRecorded
    | PlayerWithdrew
    | DisputeOpened
    | DisputeRuled
    | MatchReplayed
    | TournamentFinished
    | PlayerEntered
    | PlayerLeft
    | RoundPaired
    | DuplicateRevealed
    | PlayerCheckedIn
    | CheckInClosed
    | ByeRequested
    | RoundTimeCalled
)
EVENT_CLASSES: Final[dict[str, type[TournamentEvent]]] = {
    cls.TYPE.value: cls
    for cls in (
        TournamentCreated,
        TournamentStarted,
        RoundOpened,
        ResultRecorded,
        PlayerWithdrew,
        DisputeOpened,
        DisputeRuled,
        MatchReplayed,
        TournamentFinished,
        PlayerEntered,
        PlayerLeft,
        RoundPaired,
        DuplicateRevealed,
        PlayerCheckedIn,
        CheckInClosed,
        ByeRequested,
        RoundTimeCalled,
    )
}


def parse_event(type_: str, data: Mapping[str, Any]) -> TournamentEvent:
    """A stored tournament event as its typed class (KeyError for a type no class has)."""
    return EVENT_CLASSES[type_].from_payload(data)


# ---------------------------------------------------------------- the fold


def evolve(t: Tournament, event: TournamentEvent, at: str) -> None:
    """Apply one event to ``t`` in place (the fold owns its copy)."""
    t.version += 1
    if isinstance(event, TournamentCreated):
        t.name = event.name
        t.players = list(event.players)
        t.ruleset = dict(event.ruleset)
        t.double = event.double
        t.move_seconds = event.move_seconds
        t.join_seconds = event.join_seconds
        t.commitment = event.commitment
        t.open = event.open
        t.format = event.format
        t.rounds_planned = event.rounds
        t.table_size = event.table_size
        t.placement_points = event.placement_points
        t.round_starts = event.round_starts
        t.bot_accounts = event.bot_accounts
        t.seeding = event.seeding
        t.duplicate = event.duplicate
        t.advance = event.advance
        t.pool_format = event.pool_format
        t.pool_size = event.pool_size
        t.pool_rounds = event.pool_rounds
        t.bracket_format = event.bracket
        t.round_minutes = event.round_minutes
        t.created_at = at
        t.start_time = event.starts_at
        t.check_in_minutes = event.check_in_minutes
        t.forbidden_pairs = event.forbidden_pairs
        t.late_entry_rounds = event.late_entry_rounds
        t.late_entry_bye = event.late_entry_bye
    elif isinstance(event, PlayerEntered):
        if event.player not in t.players:
            t.players.append(event.player)
            if t.status == RUNNING:  # a late entrant: paired from the next round not paired yet
                t.entered_from[event.player] = len(t.rounds) + 1
            if event.entropy:
                t.entropies[event.player] = event.entropy
    elif isinstance(event, PlayerLeft):
        if event.player in t.players:
            t.players.remove(event.player)
            t.entropies.pop(event.player, None)
            if event.player in t.checked_in:
                t.checked_in.remove(event.player)
    elif isinstance(event, PlayerCheckedIn):
        if event.player not in t.checked_in:
            t.checked_in.append(event.player)
    elif isinstance(event, CheckInClosed):
        t.players = [p for p in t.players if p not in event.missing]
        t.not_checked_in = list(event.missing)
        for player in event.missing:
            t.entropies.pop(player, None)
    elif isinstance(event, ByeRequested):
        t.half_byes.setdefault(event.round, []).append(event.player)
    elif isinstance(event, TournamentStarted):
        t.status = RUNNING
        if event.order:
            t.players = list(event.order)
            t.seed_ratings = dict(event.ratings)
        if event.rounds_planned is not None:
            t.rounds_planned = event.rounds_planned
        if event.forbidden:
            t.forbidden_forced[1] = event.forbidden
        for scheduled in event.rounds:
            _schedule(t, scheduled)
    elif isinstance(event, RoundPaired):
        _schedule(t, event.round, event.nodes)
        if event.forbidden:
            t.forbidden_forced[event.round.number] = event.forbidden
    elif isinstance(event, RoundOpened):
        t.opened = event.round
        t.opened_at[event.round] = at
        for key, match_id in event.matches.items():
            t.slots[key].match = match_id
    elif isinstance(event, ResultRecorded):
        t.slots[event.slot].result = SlotResult(
            winner=event.winner,
            scores=event.scores,
            forfeit=event.forfeit,
            reason=event.reason,
            match=event.match,
            places=event.places,
            time_called=event.time_called,
            gone=tuple(p for p in t.slots[event.slot].seats if p in t.withdrawn),
        )
    elif isinstance(event, PlayerWithdrew):
        t.withdrawn[event.player] = event.annulled
    elif isinstance(event, DisputeOpened):
        t.disputes[event.dispute] = Dispute(
            id=event.dispute,
            slot=event.slot,
            match=event.match,
            seq=event.seq,
            seat=event.seat,
            player=event.player,
            note=event.note,
            at=at,
        )
    elif isinstance(event, DisputeRuled):
        dispute = t.disputes[event.dispute]
        dispute.decision = event.decision
        dispute.ruling_note = event.note
        dispute.award_to = event.seat
        dispute.rule = event.rule
        dispute.ruled_at = at
    elif isinstance(event, MatchReplayed):
        slot = t.slots[event.slot]
        slot.annulled.append(event.old)
        slot.match = event.new
        slot.result = None
    elif isinstance(event, DuplicateRevealed):
        t.deal_keys[event.round] = event.key
    elif isinstance(event, RoundTimeCalled):
        t.time_called.setdefault(event.round, event.moment)
    elif isinstance(event, TournamentFinished):
        t.status = FINISHED
        t.server_seed = event.server_seed
        t.finished_at = at


def _schedule(t: Tournament, scheduled: ScheduledRound, nodes: Sequence[str] = ()) -> None:
    """A round's pairings become its slots, board 1 first (a knockout's each with its node)."""
    t.rounds.append(scheduled)
    for board, pairing in enumerate(scheduled.pairings, start=1):
        key = slot_key(scheduled.number, board)
        node = nodes[board - 1] if board <= len(nodes) else None
        t.slots[key] = Slot(key, scheduled.number, board, pairing.seats, node=node)


def fold(tournament_id: str, events: Iterable[tuple[str, Mapping[str, Any], str]]) -> Tournament:
    """The tournament that ``(type, data, at)`` events make, in order."""
    t = Tournament(tournament_id)
    for type_, data, at in events:
        if type_ in EVENT_CLASSES:
            evolve(t, parse_event(type_, data), at)
        else:  # a type this code does not know (a newer server's): it changes nothing here
            t.version += 1
    return t
