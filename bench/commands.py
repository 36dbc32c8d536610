"""What the harness's players send: a command picked from a view's ``legal`` list, given the colour
that a wild play or the ``color`` command needs (the engine's own test, ``needs_color``)."""

from __future__ import annotations

import random
from typing import Any

from engine.bots._common import COLOURS, needs_color

Command = dict[str, Any]
DEFAULT_COLOR = "red"


def with_color(command: Command, color: str = DEFAULT_COLOR) -> Command:
    """A copy of ``command`` (as ``legal`` lists it) with ``color`` where it needs one."""
    out = dict(command)
    if needs_color(out):
        out["color"] = color
    return out


def first_legal(legal: list[Command]) -> Command:
    """The first legal command, a colour (red) added where one is needed."""
    return with_color(legal[0])


def shedding_choice(legal: list[Command], rng: random.Random) -> Command:
    """A random legal command, shedding cards where it can (random play that mostly draws is slow),
    with a random colour where one is needed."""
    plays = [c for c in legal if c["type"] in ("play", "dump")]
    return with_color(rng.choice(plays or legal), rng.choice(COLOURS))
