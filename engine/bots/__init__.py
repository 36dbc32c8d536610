"""House bots: players that decide from a seat's view only (docs/PROTOCOL.md "View").

A bot never sees the match state: it gets ``engine.protocol.views.view(state, seat)`` (a dict) and
returns a docs/PROTOCOL.md command object chosen from ``view["legal"]``, adding the ``color`` that
wild plays and the ``color`` command need. Any randomness comes from the ``random.Random`` it is
handed, so a seeded run is reproducible. On the server that is the match's secret chance
(``engine.game.shuffle.Dealer.bot_chance``, docs/FAIRNESS.md "House bots' chance"), which nobody can
foresee before the seed is revealed; self-play hands each seat a stream of its public master seed.

Registry: every module of this package that defines ``NAME`` and ``create()`` is a bot, chosen
by ``get_bot("greedy")`` or ``get_bot("bot:greedy")``; a module with several bots (the coach's
levels) lists them in ``BOTS`` (name -> factory) instead. Adding a bot is adding one module.

A bot that needs more than the view (``reads_events``: the coach, which remembers every card it
has seen played) decides with ``choose_knowing(knowledge, view, rng)``, where the knowledge is
folded from that seat's own event stream (``engine.search.knowledge``). Callers keep that fold
with :class:`SeatMemories` and ask every bot through :func:`bot_choice`.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any, Protocol, runtime_checkable

from engine.game.errors import UnoDuoError
from engine.game.events import Event
from engine.search.knowledge import SeatFold, SeatKnowledge, looking_at

BOT_PREFIX = "bot:"

View = dict[str, Any]
CommandObject = dict[str, Any]


@runtime_checkable
class Bot(Protocol):
    """A player. ``choose`` is only called when ``view["legal"]`` is not empty."""

    name: str

    def choose(self, view: View, rng: random.Random) -> CommandObject: ...


@runtime_checkable
class KnowingBot(Protocol):
    """A player that decides from its seat's knowledge (folded from the seat's own event stream) and view."""

    name: str
    reads_events: bool

    def choose_knowing(self, knowledge: SeatKnowledge, view: View, rng: random.Random) -> CommandObject: ...


def reads_events(bot: object) -> bool:
    return isinstance(bot, KnowingBot) and bool(bot.reads_events)


class SeatMemories:
    """What each event-reading bot's seat has received so far: one :class:`SeatFold` per such seat.

    Feed it every event of the match, in order (:meth:`see`); each fold keeps only what its seat
    receives (``engine.record.sealing.seen_by``)."""

    def __init__(self, bots: Mapping[int, object]) -> None:
        self.folds = {seat: SeatFold(seat) for seat, bot in bots.items() if reads_events(bot)}

    def see(self, events: Iterable[Event]) -> None:
        if not self.folds:
            return
        for event in events:
            for fold in self.folds.values():
                fold.see(event)

    def knowledge(self, seat: int, view: View) -> SeatKnowledge | None:
        fold = self.folds.get(seat)
        return None if fold is None else fold.knowledge(looking_at(view))


def bot_choice(bot: Bot, view: View, rng: random.Random, knowledge: SeatKnowledge | None = None) -> CommandObject:
    """The bot's command: from its view, or (an event-reading bot) from its seat's knowledge and view."""
    if isinstance(bot, KnowingBot) and bot.reads_events:
        if knowledge is None:
            raise ValueError(f"bot {bot.name!r} decides from its seat's events, and none were given")
        if knowledge.version != view["version"]:
            raise ValueError(f"bot {bot.name!r}: knowledge at version {knowledge.version}, view at {view['version']}")
        return bot.choose_knowing(knowledge, view, rng)
    return bot.choose(view, rng)


class UnknownBotError(UnoDuoError, ValueError):
    """A bot name that no module of ``engine.bots`` provides."""


@cache
def _registry() -> dict[str, Callable[[], Bot]]:
    found: dict[str, Callable[[], Bot]] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        several = getattr(module, "BOTS", None)
        if isinstance(several, dict):
            found.update(several)
            continue
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
    "KnowingBot",
    "SeatMemories",
    "UnknownBotError",
    "View",
    "bot_choice",
    "bot_names",
    "get_bot",
    "normalize_bot_name",
    "reads_events",
]
