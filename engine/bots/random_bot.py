"""``bot:random``: a uniformly random legal command (and a random colour when one is needed)."""

from __future__ import annotations

import random

from engine.bots import CommandObject, View
from engine.bots._common import COLOURS, needs_color

NAME = "random"


class RandomBot:
    name = NAME

    def choose(self, view: View, rng: random.Random) -> CommandObject:
        legal = view["legal"]
        if not legal:
            raise ValueError("the random bot was asked to act with no legal command")
        command = dict(rng.choice(legal))
        if needs_color(command):
            command["color"] = rng.choice(COLOURS)
        return command


def create() -> RandomBot:
    return RandomBot()
