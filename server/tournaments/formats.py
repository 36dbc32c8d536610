"""The three formats behind ``POST /api/tournaments`` (docs/TOURNAMENTS.md "Formats"), in one place:
what a director may ask of each, the schedule fixed at the start, and how a round not fixed at
the start (a Swiss round) is paired from the results so far.

Pure: the fold (:class:`~server.tournaments.model.Tournament`) in, rounds out.

- ``round_robin``: the Berger table (:mod:`server.tournaments.schedule`), all rounds at the start.
- ``swiss``: two seats; ``rounds`` rounds, each paired when it opens by the FIDE Dutch system
  (:mod:`server.tournaments.swiss`) from the results of the rounds before.
- ``tables``: ``classic`` at tables of 3-10 near ``table_size``; the whole seating fixed at the
  start (:mod:`server.tournaments.tables`), each table one match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise
from typing import Final

from server.tournaments import pools, table_knockout
from server.tournaments.bracket_plan import Plan
from server.tournaments.brackets import bracket_builder, double_elimination, single_elimination
from server.tournaments.model import Format, RoundPaired, Tournament
from server.tournaments.pools import MAX_POOL, MIN_POOL, POOL_FORMATS, PoolsError, check_pool_settings
from server.tournaments.schedule import Pairing, ScheduledRound, round_robin, rounds_per_cycle
from server.tournaments.swiss import SwissGame, SwissRound, pair_round
from server.tournaments.table_knockout import DEFAULT_ADVANCE, TableKnockoutError
from server.tournaments.table_standings import default_placement_points
from server.tournaments.tables import MAX_TABLE, MIN_TABLE, table_schedule, table_sizes

MAX_ROUNDS: Final = 30  # a Swiss or tables tournament's rounds at most
MAX_PLACEMENT_POINTS: Final = 1000
POOL_BRACKETS: Final = ("single_elimination", "double_elimination")
# A round's start time, in UTC: from EARLIEST_START up to (not including) LATEST_START. Far inside
# what datetime holds, so converting to UTC, storing (a four-digit year) and adding a join
# deadline (7 days at most) never fail; a year below 1000 stored as "1-01-01T…", which no reader took.
EARLIEST_START: Final = datetime(2000, 1, 1, tzinfo=UTC)
LATEST_START: Final = datetime(3000, 1, 1, tzinfo=UTC)


def start_time_problem(moment: datetime) -> str | None:
    """Why ``moment`` cannot be a round's start time (None: it can)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        return "a round's start time needs its offset from UTC (e.g. 2026-12-08T19:30:00+01:00)"
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:59:59-14:00 is past the last time datetime holds
        utc = None
    if utc is None or not EARLIEST_START <= utc < LATEST_START:
        return "a round's start time must be from 2000-01-01 to 2999-12-31 (UTC)"
    return None


class FormatError(ValueError):
    """What a director asked for does not make a tournament of that format; the text says why."""


@dataclass(frozen=True)
class FormatRequest:
    format: Format
    players: int  # entrants so far (an open tournament may have fewer at creation than at the start)
    seats: int  # the most seats the ruleset allows at one match (2 for uno-duo, 10 for classic)
    rounds: int | None
    table_size: int | None
    placement_points: Sequence[int] | None
    double: bool
    round_starts: Sequence[datetime]
    open: bool
    duplicate: bool = False
    advance: int | None = None  # table_knockout and pools
    pool_format: str | None = None  # pools
    pool_size: int | None = None  # pools
    bracket: str | None = None  # pools


def check_request(r: FormatRequest) -> tuple[int, ...]:
    """Refuse what a format cannot do (:class:`FormatError`); the placement points in force
    (a tables tournament's default: k-1 … 0 for tables of k; () for the other formats)."""
    if r.format in (Format.TABLE_KNOCKOUT, Format.POOLS):
        _check_starts(r, check_staged(r))
        return ()
    if r.advance is not None or r.pool_format is not None or r.pool_size is not None or r.bracket is not None:
        raise FormatError("advance, pool_format, pool_size and bracket are for table_knockout and pools")
    if r.format in TWO_SEAT_KNOCKOUTS:
        check_two_seat_knockout(r)
    elif r.format is Format.ROUND_ROBIN:
        if r.rounds is not None or r.table_size is not None or r.placement_points:
            raise FormatError(
                "a round_robin has its rounds from its players: rounds, table_size and "
                "placement_points are for swiss and tables"
            )
    else:
        if r.double:
            raise FormatError("double is for a round_robin")
        if r.rounds is None or not 1 <= r.rounds <= MAX_ROUNDS:
            raise FormatError(f"a {r.format.value} tournament needs rounds: 1 to {MAX_ROUNDS}")
    if r.format is Format.SWISS:
        if r.table_size is not None or r.placement_points:
            raise FormatError("table_size and placement_points are for a tables tournament")
        if not r.open and r.rounds is not None and r.rounds > r.players - 1:
            raise FormatError(
                f"{r.players} players can meet each other at most {r.players - 1} times: "
                f"a Swiss of {r.rounds} rounds would pair someone twice"
            )
    if r.duplicate and r.format is Format.TABLES:
        raise FormatError(
            "duplicate rounds are for round_robin and swiss: a table's seats differ in number from table to "
            "table, so its players would not all hold the same cards"
        )
    points: tuple[int, ...] = ()
    if r.format is Format.TABLES:
        if r.seats < MIN_TABLE:
            raise FormatError("a tables tournament plays a ruleset of 3 or more seats: ruleset 'classic'")
        if r.table_size is None or not MIN_TABLE <= r.table_size <= min(MAX_TABLE, r.seats):
            raise FormatError(f"a tables tournament needs table_size: {MIN_TABLE} to {min(MAX_TABLE, r.seats)}")
        if not r.open and r.players < MIN_TABLE:
            raise FormatError(f"a tables tournament needs at least {MIN_TABLE} players, not {r.players}")
        if not r.open:
            check_tables_fit(r.players, r.table_size, r.seats)
        points = tuple(r.placement_points) if r.placement_points else default_placement_points(r.table_size)
        if len(points) > MAX_TABLE or any(not 0 <= p <= MAX_PLACEMENT_POINTS for p in points):
            raise FormatError(f"placement_points: at most {MAX_TABLE} numbers, each 0 to {MAX_PLACEMENT_POINTS}")
        if any(a < b for a, b in pairwise(points)):
            raise FormatError(
                "placement_points go down (or stay) from 1st place to the last: a place never earns "
                "more than the one above it"
            )
    _check_starts(r, planned_rounds(r))
    return points


def _check_starts(r: FormatRequest, planned: int | None) -> None:
    """Start times: no more than the rounds (when known), each within bounds, going forward."""
    if planned is not None and len(r.round_starts) > planned:
        raise FormatError(f"{len(r.round_starts)} start times for {planned} rounds")
    for moment in r.round_starts:
        problem = start_time_problem(moment)
        if problem is not None:
            raise FormatError(problem)
    if any(a > b for a, b in pairwise(r.round_starts)):
        raise FormatError("round start times go forward: round k+1 starts no earlier than round k")


def check_staged(r: FormatRequest) -> int | None:
    """A table knockout's or a pools tournament's request (docs/TOURNAMENTS.md "Table knockout",
    "Pools into a bracket"): refused with the reason, else the most rounds it can take (None: an
    open tournament, whose field is known only at the start)."""
    if r.double or r.duplicate or r.placement_points:
        raise FormatError(f"double, duplicate and placement_points are not for {r.format.value}")
    if r.format is Format.TABLE_KNOCKOUT:
        if r.seats < MIN_TABLE:
            raise FormatError("a table knockout plays a ruleset of 3 or more seats: ruleset 'classic'")
        if r.rounds is not None or r.pool_format is not None or r.pool_size is not None or r.bracket is not None:
            raise FormatError(
                "a table knockout has its rounds from its field: rounds, pool_format, pool_size and "
                "bracket are for other formats"
            )
        if r.table_size is None or not MIN_TABLE <= r.table_size <= min(MAX_TABLE, r.seats):
            raise FormatError(f"a table knockout needs table_size: {MIN_TABLE} to {min(MAX_TABLE, r.seats)}")
        advance = DEFAULT_ADVANCE if r.advance is None else r.advance
        return None if r.open else table_plan(r.players, r.table_size, advance, r.seats).rounds
    if r.seats != 2:
        raise FormatError("pools play two-seat matches: ruleset 'uno-duo' or 'classic-2p'")
    if r.table_size is not None:
        raise FormatError("table_size is for tables and table_knockout")
    if r.pool_size is None:
        raise FormatError(f"pools need pool_size: {MIN_POOL} to {MAX_POOL}")
    if r.bracket is not None and r.bracket not in POOL_BRACKETS:
        raise FormatError(f"bracket: single_elimination or double_elimination, not {r.bracket!r}")
    pool_format = r.pool_format or POOL_FORMATS[0]
    advance = DEFAULT_ADVANCE if r.advance is None else r.advance
    bracket = bracket_builder(r.bracket)
    try:
        if r.open:  # the field is known only at the start
            check_pool_settings(r.pool_size, advance, pool_format, r.rounds)
            return None
        return pools.plan(r.players, r.pool_size, advance, pool_format, r.rounds, bracket).rounds
    except PoolsError as exc:
        raise FormatError(str(exc)) from None


def table_plan(players: int, table_size: int, advance: int, seats: int = MAX_TABLE) -> Plan:
    """A table knockout's plan, a field that makes none refused with :class:`FormatError`."""
    try:
        return table_knockout.plan(players, table_size, advance, seats)
    except TableKnockoutError as exc:
        raise FormatError(str(exc)) from None


TWO_SEAT_KNOCKOUTS: Final = frozenset({Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION})


def check_two_seat_knockout(r: FormatRequest) -> None:
    """A single or double elimination: two seats, its rounds from its bracket (docs/TOURNAMENTS.md
    "Knockouts"); what the other formats take is refused, saying why."""
    name = r.format.value
    if r.seats != 2:
        raise FormatError(
            f"a {name} plays two-seat matches: ruleset uno-duo or classic-2p (table_knockout plays tables)"
        )
    if r.rounds is not None or r.table_size is not None or r.placement_points:
        raise FormatError(
            f"a {name} has its rounds from its bracket: rounds, table_size and placement_points are not for it"
        )
    if r.double:
        raise FormatError("double is for a round_robin (a double_elimination is its own format)")
    if r.duplicate:
        raise FormatError(
            "duplicate rounds are for round_robin and swiss: a knockout round's pairings are not all dealt together"
        )
    if not r.open and r.players < 2:
        raise FormatError(f"a {name} needs at least 2 players, not {r.players}")


def knockout_rounds(fmt: Format, players: int) -> int:
    """The most rounds a single or double elimination of ``players`` can take (a reset counted)."""
    build = single_elimination if fmt is Format.SINGLE_ELIMINATION else double_elimination
    return build(players).rounds


def planned_rounds(r: FormatRequest) -> int | None:
    """How many rounds it will have (None: a round robin or a knockout of an open tournament,
    known at the start; a knockout: the most its bracket can take)."""
    if r.format in TWO_SEAT_KNOCKOUTS:
        return None if r.open else knockout_rounds(r.format, r.players)
    if r.format is not Format.ROUND_ROBIN:
        return r.rounds
    if r.open:
        return None
    return rounds_per_cycle(r.players) * (2 if r.double else 1)


def check_tables_fit(players: int, table_size: int, seats: int) -> None:
    """Refuse a seating with a table larger than the ruleset deals for (``seats``: its most seats,
    fewer than 10 with a large ``hand_size``): ``table_sizes`` may sit a table or two above the size asked."""
    largest = max(table_sizes(players, table_size))
    if largest > seats:
        raise FormatError(
            f"{players} players at tables of about {table_size} sit {largest} at a table, and the ruleset's deck "
            f"deals hands and a starter for at most {seats} seats (its hand_size): choose a smaller table_size"
        )


def check_start(t: Tournament, seats: int = MAX_TABLE) -> None:
    """What must hold once the entries are in (an open tournament's count is known only now);
    ``seats``: the most seats the tournament's ruleset plays at one table."""
    n = len(t.players)
    if t.format is Format.TABLES and n < MIN_TABLE:
        raise FormatError(f"a tables tournament needs at least {MIN_TABLE} players to start, it has {n}")
    if t.format is Format.TABLES and t.table_size is not None:
        check_tables_fit(n, t.table_size, seats)
    staged: Plan | None = None
    if t.format is Format.TABLE_KNOCKOUT and t.table_size is not None:
        staged = table_plan(n, t.table_size, t.advance or DEFAULT_ADVANCE, seats)
    if t.format is Format.POOLS and t.pool_size is not None:
        bracket = bracket_builder(t.bracket_format)
        pool_format = t.pool_format or POOL_FORMATS[0]
        try:
            staged = pools.plan(n, t.pool_size, t.advance or DEFAULT_ADVANCE, pool_format, t.pool_rounds, bracket)
        except PoolsError as exc:
            raise FormatError(str(exc)) from None
    if staged is not None and len(t.round_starts) > staged.rounds:
        raise FormatError(f"{len(t.round_starts)} start times for {staged.rounds} rounds")
    if t.format is Format.SWISS and t.late_entry_rounds is None and t.planned > n - 1:
        raise FormatError(f"{n} players cannot play {t.planned} Swiss rounds without someone meeting twice")
    if t.format is Format.ROUND_ROBIN and len(t.round_starts) > rounds_per_cycle(n) * (2 if t.double else 1):
        raise FormatError(f"{len(t.round_starts)} start times for {rounds_per_cycle(n)} rounds")
    most = knockout_rounds(t.format, n) if t.format in TWO_SEAT_KNOCKOUTS else None
    if most is not None and len(t.round_starts) > most:
        rounds = f"{most} round{'' if most == 1 else 's'}"
        raise FormatError(f"{len(t.round_starts)} start times for a bracket of at most {rounds} ({n} players)")


def schedule_at_start(t: Tournament) -> list[ScheduledRound]:
    """The rounds fixed when the tournament starts (a Swiss: none; each is paired when it opens)."""
    if t.format is Format.ROUND_ROBIN:
        return round_robin(t.players, t.double)
    if t.format is Format.TABLES:
        assert t.table_size is not None and t.rounds_planned is not None
        seating = table_schedule(t.players, t.table_size, t.rounds_planned)
        return [
            ScheduledRound(number, tuple(Pairing(*table) for table in tables), None)
            for number, tables in enumerate(seating, start=1)
        ]
    return []


def swiss_history(t: Tournament, upto: int | None = None) -> list[SwissRound]:
    """The rounds paired so far (or the first ``upto``), as the pairing program reads them."""
    history = []
    for scheduled in t.rounds[:upto]:
        games = []
        for slot in t.round_slots(scheduled.number):
            r = slot.result
            games.append(
                SwissGame(slot.white, slot.black, r.winner if r is not None else None, r is not None and r.forfeit)
            )
        history.append(SwissRound(tuple(games), scheduled.bye, tuple(t.half_byes_in(scheduled.number))))
    return history


def pair_next(t: Tournament, number: int) -> RoundPaired:
    """A Swiss round paired from the results so far; pairing numbers follow the entry order
    (the director lists the players strongest first), withdrawn players are left out, forbidden
    pairs avoided where a pairing can (the event names those it could not avoid)."""
    assert t.format is Format.SWISS and number == len(t.rounds) + 1
    forbidden = {frozenset(pair) for pair in t.forbidden_pairs}
    absent = {*t.withdrawn, *t.half_byes.get(number, ())}  # a half-point bye asked for: not paired
    pairings = pair_round(t.players, swiss_history(t), t.planned, absent=absent, forbidden=forbidden)
    scheduled = ScheduledRound(number, tuple(Pairing(w, b) for w, b in pairings.boards), pairings.bye)
    return RoundPaired(scheduled, forbidden=pairings.forced)
