"""The round-robin schedule: the FIDE Berger tables (FIDE Handbook C.05, Annex 1).

Pure: no I/O, no randomness, the standard library only.

Pairing numbers follow the order of ``players`` (``players[0]`` is number 1). For an even
number ``n`` of entrants the table has ``n - 1`` rounds of ``n / 2`` boards; an odd number
``n`` uses the table of ``n + 1``, where number ``n + 1`` is the bye: whoever it is paired
with sits out that round. In each pairing the first number is "white", which here is Player 1
(the first drafter) of the match's first round.

The published tables follow one rule, which :func:`berger_table` computes instead of storing
them. In the table of an even size ``n``, number ``n`` stays put; the others, ``1 … n - 1``, are counted modulo ``n - 1`` (with the
residues written ``1 … n - 1``). In round ``r`` the player ``c = ((r - 1) * n / 2) mod (n - 1) + 1``
meets ``n`` on board 1 (``c`` is white in an odd round, ``n`` in an even one), and board
``j + 1`` is ``c + j`` (white) against ``c - j`` (black), for ``j = 1 … n / 2 - 1``. Round 1 is
thus ``1-n, 2-(n-1), 3-(n-2), …``, and from one round to the next every number but ``n`` moves
``n / 2`` places on.

A double round-robin plays the whole cycle twice: the second cycle repeats the first round by
round with the colours reversed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Pairing", "ScheduledRound", "berger_table", "round_robin", "rounds_per_cycle"]


@dataclass(frozen=True, init=False)
class Pairing:
    """One match of a round: its seats' player ids in seat order. Seat 0 (``white``) is Player 1
    (first drafter) of a two-seat match's first round, and the first dealer at a table of more."""

    seats: tuple[str, ...]

    def __init__(self, *seats: str) -> None:
        object.__setattr__(self, "seats", tuple(seats))

    @property
    def white(self) -> str:
        return self.seats[0]

    @property
    def black(self) -> str:
        return self.seats[1]


@dataclass(frozen=True)
class ScheduledRound:
    """One round of the schedule."""

    number: int  # 1-based
    pairings: tuple[Pairing, ...]  # in table order (board 1 first)
    bye: str | None  # the player who sits out (odd count), else None


def _table_size(n: int) -> int:
    """The even size whose table schedules ``n`` entrants (``n`` itself, or ``n + 1`` with a bye)."""
    if n < 2:
        raise ValueError(f"a round-robin needs at least 2 entrants, got {n}")
    return n + n % 2


def rounds_per_cycle(n: int) -> int:
    """How many rounds one cycle of a round-robin of ``n`` entrants has (``n - 1``, or ``n`` when ``n`` is odd)."""
    return _table_size(n) - 1


def berger_table(n: int) -> list[list[tuple[int, int]]]:
    """Rounds of (white, black) pairing numbers for n entrants, n >= 2; for odd n the table of n+1 is used and pairs
    with n+1 are kept (the caller treats n+1 as the bye)."""
    size = _table_size(n)
    others = size - 1  # numbers 1 … size-1 turn around the fixed number `size`
    half = size // 2

    def wrap(k: int) -> int:
        return (k - 1) % others + 1

    table: list[list[tuple[int, int]]] = []
    for r in range(1, size):
        c = wrap((r - 1) * half + 1)
        boards = [(c, size) if r % 2 == 1 else (size, c)]
        boards.extend((wrap(c + j), wrap(c - j)) for j in range(1, half))
        table.append(boards)
    return table


def round_robin(players: Sequence[str], double: bool = False) -> list[ScheduledRound]:
    """The full schedule; raises ValueError for fewer than 2 players or duplicate ids."""
    ids = list(players)
    if len(ids) < 2:
        raise ValueError(f"a round-robin needs at least 2 players, got {len(ids)}")
    duplicates = sorted(p for p, k in Counter(ids).items() if k > 1)
    if duplicates:
        raise ValueError(f"duplicate player ids: {', '.join(duplicates)}")

    count = len(ids)
    first: list[ScheduledRound] = []
    for index, boards in enumerate(berger_table(count)):
        pairings: list[Pairing] = []
        bye: str | None = None
        for white, black in boards:
            if white > count:
                bye = ids[black - 1]
            elif black > count:
                bye = ids[white - 1]
            else:
                pairings.append(Pairing(ids[white - 1], ids[black - 1]))
        first.append(ScheduledRound(number=index + 1, pairings=tuple(pairings), bye=bye))
    if not double:
        return first

    per_cycle = len(first)
    second = [
        ScheduledRound(
            number=per_cycle + r.number,
            pairings=tuple(Pairing(p.black, p.white) for p in r.pairings),
            bye=r.bye,
        )
        for r in first
    ]
    return first + second
