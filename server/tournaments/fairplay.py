"""Fair-play signals for the director (docs/TOURNAMENTS.md "Fair-play signals"): how long each
player takes over a decision, and how often their clock ran out. Data to look at, not a verdict.

Pure: no I/O, the standard library and the engine's event names only. The input is each match's
envelopes in ``seq`` order (only their public ``type``, ``data`` and ``at`` are read) and the
player in each seat; the same matches give the same figures in whatever order they come.

**A move time** is measured on the envelopes' ``at`` stamps (the server's UTC time, microseconds).
A decision opens at an ``awaiting`` event (the seat and the kind of decision it names: a draft
step, a turn, a drawn card, a volley, a Wild Draw Four, a dump, a starter's colour), the same
event the move clock counts from. It is a **move** of that seat when the next head event of that
seat that settles it is the seat's own ``command`` (any type but ``uno``): its time is that
command's ``at`` minus the ``awaiting`` event's ``at``. It is a **timeout** instead when that head
is a ``timed_out`` of the seat (the server's default action is no move of the seat's, and is not
timed). Everything else is left out:

- the joins (``seat_joined``: no ``awaiting`` opens them) and the match's creation;
- ``uno`` commands (said or caught, by anyone): they answer no decision, so the decision they
  interrupt stays open and its time runs on to the seat's real answer;
- a decision closed by a ``forfeit_declared`` of its seat, or replaced by a later ``awaiting``
  before its seat answered (inside a timeout's own batch);
- an answer that no open decision awaited.

A move's time is never below 0: stamps from two servers whose clocks differ could put an answer
before its question; such a move counts as 0 s.

Per player, over every match of theirs: ``moves``, the mean, the **population** standard deviation
(the spread of the moves counted, not an estimate of some larger set), the median (the mean of
the two middle times for an even count), the 90th percentile by nearest rank (the smallest time
at least 90% of the moves are no slower than), the fastest and slowest move, the ``timeouts``, the
``timeout_forfeits`` (``match_forfeited`` for ``timeouts``: the third timeout in a row) and the
``matches`` the player held a seat in. Sums are kept in whole microseconds, so the figures do not
depend on the order of the matches or of the moves.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from engine.game.events import EventType

__all__ = ["MatchTimes", "PlayerSignals", "SeatTimes", "match_times", "micros_of", "signals"]

MICROS = 1_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TIMEOUTS = "timeouts"  # a match_forfeited's reason for the third timeout in a row
_UNO = "uno"


def micros_of(at: str) -> int:
    """An envelope's ``at`` (ISO 8601 with an offset or ``Z``) as whole microseconds since 1970."""
    moment = datetime.fromisoformat(at)
    if moment.tzinfo is None:
        raise ValueError(f"an event time needs its offset: {at!r}")
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * MICROS + delta.microseconds


@dataclass(frozen=True, slots=True)
class SeatTimes:
    """One seat's figures in one match: its move times (µs, in order), timeouts and timeout forfeits."""

    moves: tuple[int, ...] = ()
    timeouts: int = 0
    forfeits: int = 0


@dataclass(frozen=True, slots=True)
class MatchTimes:
    """Every seat's :class:`SeatTimes` in one match (a seat with nothing to count is absent)."""

    seats: Mapping[int, SeatTimes] = field(default_factory=dict)

    def of(self, seat: int) -> SeatTimes:
        return self.seats.get(seat, _NOTHING)


_NOTHING = SeatTimes()


class _Seat:
    __slots__ = ("forfeits", "moves", "timeouts")

    def __init__(self) -> None:
        self.moves: list[int] = []
        self.timeouts = 0
        self.forfeits = 0


def match_times(envelopes: Iterable[Mapping[str, object]]) -> MatchTimes:
    """The move times, timeouts and timeout forfeits of each seat in one match's envelopes (seq order)."""
    seats: dict[int, _Seat] = {}
    waiting: int | None = None  # the seat whose decision is open
    opened = 0  # its awaiting event's at, in µs
    for envelope in envelopes:
        kind = envelope["type"]
        data = envelope["data"]
        if not isinstance(data, Mapping):
            raise ValueError(f"an event's data is an object, not {data!r}")
        if kind == EventType.AWAITING:
            waiting, opened = _seat(data), micros_of(str(envelope["at"]))
        elif kind == EventType.COMMAND:
            seat = _seat(data)
            command = data.get("command")
            said_uno = isinstance(command, Mapping) and command.get("type") == _UNO
            if seat == waiting and not said_uno:
                taken = micros_of(str(envelope["at"])) - opened
                seats.setdefault(seat, _Seat()).moves.append(max(0, taken))
                waiting = None
        elif kind == EventType.TIMED_OUT:
            seat = _seat(data)
            seats.setdefault(seat, _Seat()).timeouts += 1
            if seat == waiting:
                waiting = None
        elif kind == EventType.FORFEIT_DECLARED:
            if _seat(data) == waiting:
                waiting = None
        elif kind == EventType.MATCH_FORFEITED and data.get("reason") == _TIMEOUTS:
            seats.setdefault(_seat(data), _Seat()).forfeits += 1
    return MatchTimes({seat: SeatTimes(tuple(s.moves), s.timeouts, s.forfeits) for seat, s in sorted(seats.items())})


def _seat(data: Mapping[str, object]) -> int:
    seat = data.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
        raise ValueError(f"an event's seat is a whole number from 0, not {seat!r}")
    return seat


@dataclass(frozen=True, slots=True)
class PlayerSignals:
    """One player's figures over a tournament; the times in seconds, None without a move."""

    player: str
    matches: int
    moves: int
    mean: float | None
    stdev: float | None  # population standard deviation
    median: float | None
    p90: float | None  # nearest rank
    fastest: float | None
    slowest: float | None
    timeouts: int
    timeout_forfeits: int


def signals(players: Sequence[str], matches: Iterable[tuple[Sequence[str | None], MatchTimes]]) -> list[PlayerSignals]:
    """Each of ``players``' figures (in that order) over ``matches``: (the player in each seat, its times).

    A seat whose player is not among ``players`` (or None) is left out.
    """
    moves: dict[str, list[int]] = {p: [] for p in players}
    timeouts = dict.fromkeys(players, 0)
    forfeits = dict.fromkeys(players, 0)
    played = dict.fromkeys(players, 0)
    for seated, times in matches:
        for seat, player in enumerate(seated):
            if player is None or player not in moves:
                continue
            mine = times.of(seat)
            played[player] += 1
            moves[player].extend(mine.moves)
            timeouts[player] += mine.timeouts
            forfeits[player] += mine.forfeits
    return [_signals(p, played[p], moves[p], timeouts[p], forfeits[p]) for p in players]


def _signals(player: str, matches: int, taken: list[int], timeouts: int, forfeits: int) -> PlayerSignals:
    n = len(taken)
    if n == 0:
        return PlayerSignals(player, matches, 0, None, None, None, None, None, None, timeouts, forfeits)
    ordered = sorted(taken)
    total = sum(ordered)
    squares = sum(x * x for x in ordered)
    spread = n * squares - total * total  # n² times the population variance, exactly
    middle = n // 2
    median_twice = ordered[middle] * 2 if n % 2 else ordered[middle - 1] + ordered[middle]
    return PlayerSignals(
        player=player,
        matches=matches,
        moves=n,
        mean=total / n / MICROS,
        stdev=math.sqrt(spread) / n / MICROS,
        median=median_twice / 2 / MICROS,
        p90=ordered[(9 * n + 9) // 10 - 1] / MICROS,
        fastest=ordered[0] / MICROS,
        slowest=ordered[-1] / MICROS,
        timeouts=timeouts,
        timeout_forfeits=forfeits,
    )
