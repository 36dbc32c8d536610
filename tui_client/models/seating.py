"""Who sits where at a table, read off a view (docs/PROTOCOL.md "Tables of more than two"). No
Textual, no I/O: the live table (``play_widgets``) and the scrubber (``widgets``) both draw these.

A two-seat view (``uno-duo``, ``classic-2p``) has no ``seats``: its seats are 0 and 1. A
``classic`` view adds ``seats`` (the count), ``dealer``, ``direction`` (1 clockwise, -1
counter-clockwise) and ``departed`` (the seats that left by forfeit). Seats are numbered
clockwise; the next player is the next seat in the direction that has not left (RULES.md D18).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CLOCKWISE",
    "SeatRow",
    "around",
    "departed_of",
    "direction_name",
    "direction_of",
    "direction_words",
    "is_table",
    "next_seat",
    "seat_count",
    "seat_rows",
]

CLOCKWISE = 1
DIRECTIONS = {1: "clockwise", -1: "counter-clockwise"}
ARROWS = {1: "↻", -1: "↺"}


def is_table(view: Mapping[str, Any] | None) -> bool:
    """Is this a view of a table that says its seats (``classic``, any size)?"""
    return isinstance((view or {}).get("seats"), int)


def seat_count(view: Mapping[str, Any] | None) -> int:
    """The number of seats: the view's ``seats``, else as many as ``hand_counts`` lists (2)."""
    v = view or {}
    seats = v.get("seats")
    if isinstance(seats, int) and seats >= 2:
        return seats
    counts = v.get("hand_counts")
    return max(2, len(counts)) if isinstance(counts, list) else 2


def direction_of(view: Mapping[str, Any] | None) -> int:
    return -1 if (view or {}).get("direction") == -1 else CLOCKWISE


def departed_of(view: Mapping[str, Any] | None) -> list[bool]:
    seats = seat_count(view)
    departed = (view or {}).get("departed")
    flags = [bool(x) for x in departed] if isinstance(departed, list) else []
    return [*flags, *[False] * seats][:seats]


def direction_name(direction: object) -> str:
    """``clockwise`` or ``counter-clockwise``."""
    return DIRECTIONS[-1 if direction == -1 else CLOCKWISE]


def direction_words(direction: object) -> str:
    """``↻ clockwise`` or ``↺ counter-clockwise``."""
    return f"{ARROWS[-1 if direction == -1 else CLOCKWISE]} {direction_name(direction)}"


def next_seat(view: Mapping[str, Any] | None, seat: int, direction: int | None = None) -> int | None:
    """The next seat after ``seat`` in the view's direction (or ``direction``) that has not
    left the table; None when no other seat is left."""
    seats = seat_count(view)
    step = direction_of(view) if direction is None else (-1 if direction == -1 else CLOCKWISE)
    departed = departed_of(view)
    for distance in range(1, seats):
        candidate = (seat + step * distance) % seats
        if not departed[candidate]:
            return candidate
    return None


def around(seats: int, me: int | None) -> list[int]:
    """Every seat but ``me``, clockwise from ``me``'s left (seat me+1); a spectator's (``me``
    None): every seat from seat 0."""
    start = 0 if me is None else me + 1
    return [(start + i) % seats for i in range(seats) if me is None or (start + i) % seats != me]


@dataclass(frozen=True)
class SeatRow:
    """One seat at the table, as a line of the opponents panel says it."""

    seat: int
    name: str
    count: int
    uno: bool
    turn: bool
    dealer: bool
    departed: bool
    score: int


def _at(values: object, seat: int, default: Any) -> Any:
    return values[seat] if isinstance(values, list) and 0 <= seat < len(values) else default


def seat_rows(view: Mapping[str, Any] | None, names: Sequence[str], me: int | None) -> list[SeatRow]:
    """The seats other than ``me`` (every seat for a spectator), clockwise from ``me``'s left."""
    v = view or {}
    seats = seat_count(v)
    turn = (v.get("pending") or {}).get("seat")
    departed = departed_of(v)
    rows = []
    for seat in around(seats, me):
        name = names[seat] if 0 <= seat < len(names) else f"seat {seat}"
        rows.append(
            SeatRow(
                seat=seat,
                name=name,
                count=int(_at(v.get("hand_counts"), seat, 0)),
                uno=bool(_at(v.get("uno"), seat, False)),
                turn=turn == seat,
                dealer=v.get("dealer") == seat,
                departed=departed[seat],
                score=int(_at(v.get("scores"), seat, 0)),
            )
        )
    return rows
