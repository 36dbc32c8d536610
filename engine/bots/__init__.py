"""House bots: players that decide from a seat's view only (docs/PROTOCOL.md "View").

A bot never sees the match state: it gets ``engine.protocol.views.view(state, seat)`` (a dict) and
returns a docs/PROTOCOL.md command object chosen from ``view["legal"]``, adding the ``color`` that
wild plays and the ``color`` command need. Any randomness comes from the ``random.Random`` it is
handed, so a seeded run is reproducible. On the server that is the match's secret chance
(``engine.game.shuffle.Dealer.bot_chance``, docs/FAIRNESS.md "House bots' chance"), which nobody can
foresee before the seed is revealed; self-play hands each seat a stream of its public master seed.

Registry: every module of this package that defines ``NAME`` and ``create()`` is a bot, chosen
by ``get_bot("greedy")`` or ``get_bot("bot:greedy")``. Adding a bot is adding one module.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable
from functools import cache
from typing import Any, Protocol, runtime_checkable

from engine.game.errors import UnoDuoError

BOT_PREFIX = "bot:"

View = dict[str, Any]
CommandObject = dict[str, Any]


@runtime_checkable
class Bot(Protocol):
    """A player. ``choose`` is only called when ``view["legal"]`` is not empty."""

    name: str

    def choose(self, view: View, rng: random.Random) -> CommandObject: ...


class UnknownBotError(UnoDuoError, ValueError):
    """A bot name that no module of ``engine.bots`` provides."""


@cache
def _registry() -> dict[str, Callable[[], Bot]]:
    found: dict[str, Callable[[], Bot]] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        name = getattr(module, "NAME", None)
        create = getattr(module, "create", None)
        if isinstance(name, str) and callable(create):
            found[name] = create
    return found


def bot_names() -> list[str]:
    """The registered bot names, sorted (without the ``bot:`` prefix)."""
    return sorted(_registry())


def normalize_bot_name(name: str) -> str:
    """``"bot:Greedy "`` -> ``"greedy"``; raises :class:`UnknownBotError` for a name no bot has."""
    if not isinstance(name, str):
        raise UnknownBotError(f"a bot name is a string such as 'greedy' or 'bot:greedy', not {name!r}")
    key = name.strip().lower()
    if key.startswith(BOT_PREFIX):
        key = key[len(BOT_PREFIX) :]
    if key not in _registry():
        choices = ", ".join(bot_names())
        raise UnknownBotError(f"unknown bot {name!r}: choose one of {choices} (optionally written bot:NAME)")
    return key


def get_bot(name: str) -> Bot:
    """A fresh bot (bots may remember what they saw during a match, so use one per seat)."""
    return _registry()[normalize_bot_name(name)]()


__all__ = [
    "BOT_PREFIX",
    "Bot",
    "CommandObject",
    "UnknownBotError",
    "View",
    "bot_names",
    "get_bot",
    "normalize_bot_name",
]
