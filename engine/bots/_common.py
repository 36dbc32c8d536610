"""Small helpers the bots share: card codes as a bot reads them from a view."""

from __future__ import annotations

from typing import Any

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")
WILDS = frozenset({"W", "W+4"})


def needs_color(command: dict[str, Any]) -> bool:
    """A wild play or the ``color`` command, as listed in ``legal`` (without a colour)."""
    if command["type"] == "color":
        return "color" not in command
    return command["type"] == "play" and command.get("card") in WILDS and "color" not in command
