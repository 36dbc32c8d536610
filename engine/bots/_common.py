"""Small helpers the bots share: card codes and the table's order as a bot reads them from a view."""

from __future__ import annotations

from typing import Any

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")
WILDS = frozenset({"W", "W+4"})


def needs_color(command: dict[str, Any]) -> bool:
    """A wild play or the ``color`` command, as listed in ``legal`` (without a colour)."""
    if command["type"] == "color":
        return "color" not in command
    return command["type"] == "play" and command.get("card") in WILDS and "color" not in command


def _departed(view: dict[str, Any]) -> list[bool]:
    departed = view.get("departed")
    return list(departed) if departed else [False] * len(view["hand_counts"])


def opponents(view: dict[str, Any]) -> list[int]:
    """The other seats still at the table, in seat order (the one other seat at two seats)."""
    me = view["viewer"]
    return [seat for seat, gone in enumerate(_departed(view)) if seat != me and not gone]


def next_seat(view: dict[str, Any], seat: int, direction: int | None = None) -> int:
    """The next seat still at the table after ``seat`` in the view's direction (or ``direction``),
    as ``engine.game.seating.next_seat`` finds it from the state: at two seats the other seat."""
    departed = _departed(view)
    step = view.get("direction", 1) if direction is None else direction
    n = len(departed)
    seat = (seat + step) % n
    while departed[seat]:
        seat = (seat + step) % n
    return seat
