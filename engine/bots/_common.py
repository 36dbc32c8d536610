"""Small helpers the bots share: card codes as a bot reads them from a view."""

from __future__ import annotations

from typing import Any

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")
COLOUR_OF_LETTER = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
WILDS = frozenset({"W", "W+4"})


def needs_color(command: dict[str, Any]) -> bool:
    """A wild play or the ``color`` command, as listed in ``legal`` (without a colour)."""
    if command["type"] == "color":
        return "color" not in command
    return command["type"] == "play" and command.get("card") in WILDS and "color" not in command


def colour_of(code: str) -> str | None:
    """``"R5"`` -> ``"red"``; wilds have none."""
    if code in WILDS:
        return None
    return COLOUR_OF_LETTER[code[0]]


def rank_of(code: str) -> str:
    """``"R+2"`` -> ``"+2"``, ``"BS"`` -> ``"S"``, ``"W+4"`` -> ``"W+4"``."""
    return code if code in WILDS else code[1:]


def is_number(code: str) -> bool:
    return code not in WILDS and code[1:].isdigit()
