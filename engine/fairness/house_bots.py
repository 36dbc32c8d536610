"""The house bots of a server's replay, checked: was each of their moves the one their bot makes?

A server's house bot has a player id that names its bot (``bot-<name>-1`` for casual matches,
``bot-<name>-<tournament>-<n>`` for a tournament's entry), and the replay header lists the
seats' player ids, so the header tells which seats the server played for. Each of their moves
is a ``command`` event of that seat. The server asked a fresh bot, with the seat's view of the
state just before that event and the chance :meth:`engine.game.shuffle.Dealer.bot_chance` draws from
the server seed (docs/FAIRNESS.md "House bots' chance"). With the seed revealed, this module
asks the same bot the same question and compares the answer with the recorded command. A bot
that reads its seat's events (the coach) is given the events before that one, each as that seat
received it (``engine.bots.SeatMemories``), as the server's runner gave them.

Pure: it reads events already checked by ``engine.fairness.verify`` (``unoduo audit --bots``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.bots import SeatMemories, bot_choice, bot_names, get_bot
from engine.game.commands import format_action, parse_action
from engine.game.errors import CommandRefused
from engine.game.events import Event, EventType
from engine.game.evolve import evolve
from engine.game.shuffle import Dealer
from engine.game.state import INITIAL_STATE
from engine.protocol.views import view
from engine.record.replay import revealed_seed

# The server's house-bot player ids (server.services.players): the bot's name is the first part,
# which may hold hyphens itself (``bot-rule-v1-1``): the shortest name that leaves a number (and an
# older tournament's 16 hex digits) after it.
HOUSE_BOT_ID = re.compile(r"bot-([a-z0-9_][a-z0-9_-]*?)-(?:[0-9a-f]{16}-)?[0-9]+")


def house_bot_of_id(player_id: object) -> str | None:
    """The bot a house-bot player id names (``"bot-random-1"`` -> ``"random"``), else None."""
    if not isinstance(player_id, str):
        return None
    found = HOUSE_BOT_ID.fullmatch(player_id)
    return found.group(1) if found else None


def house_bot_name(bot: str, number: int = 1) -> str:
    """The name the ``number``-th house bot of engine ``bot`` goes by (issue 33.2): the engine's
    name alone (``greedy``), with a number only for the second and later of one engine, which a
    table (or a tournament) seats when it has several (``greedy-2``). Ids are not names: the id
    stays ``bot-greedy-1``, and what events recorded stays as it was (``greedy-1`` in an older
    match's ``names``)."""
    return bot if number == 1 else f"{bot}-{number}"


def house_bot_name_of_id(player_id: object) -> str | None:
    """The name of the house bot whose id is ``player_id`` (``bot-greedy-2`` and an older
    tournament's ``bot-greedy-<tournament>-2`` -> ``greedy-2``), else None."""
    bot = house_bot_of_id(player_id)
    if bot is None:
        return None
    return house_bot_name(bot, int(str(player_id).rsplit("-", 1)[1]))


@dataclass(frozen=True)
class BotMismatch:
    """The first house-bot move that is not what its bot makes with its chance."""

    seq: int  # the recorded command event
    seat: int
    bot: str
    version: int  # the state the bot decided on
    recorded: dict[str, Any]
    derived: dict[str, Any] | None  # None: the bot's answer is not a command at all
    reason: str


@dataclass
class BotCheck:
    """What ``--bots`` found: the house-bot seats, how many of their moves were re-derived, the first that differs."""

    seats: dict[int, str]  # seat -> bot name
    unknown: dict[int, str] = field(default_factory=dict)  # seat -> a bot name this engine has no bot for
    checked: dict[int, int] = field(default_factory=dict)  # seat -> moves re-derived and equal
    mismatch: BotMismatch | None = None

    @property
    def ok(self) -> bool:
        return self.mismatch is None


def house_bot_seats(players: Sequence[object]) -> tuple[dict[int, str], dict[int, str]]:
    """(seats of known house bots, seats whose id names a bot this engine does not have)."""
    known: dict[int, str] = {}
    unknown: dict[int, str] = {}
    names = set(bot_names())
    for seat, player_id in enumerate(players):
        name = house_bot_of_id(player_id)
        if name is not None:
            (known if name in names else unknown)[seat] = name
    return known, unknown


def check_house_bots(header: Mapping[str, Any], events: Sequence[Event]) -> BotCheck:
    """Re-derive every house-bot move of a finished match; stop at the first that differs."""
    players = header.get("players")
    seats, unknown = house_bot_seats(players if isinstance(players, list) else [])
    result = BotCheck(seats, unknown, {seat: 0 for seat in seats})
    if not seats:
        return result
    match_id = str(header.get("match"))
    dealer = Dealer(revealed_seed(events))
    state = INITIAL_STATE
    memories = SeatMemories({seat: get_bot(name) for seat, name in seats.items()})  # what each bot seat received
    for seq, event in enumerate(events, start=1):
        seat = event.data.get("seat") if event.type == EventType.COMMAND else None
        if isinstance(seat, int) and seat in seats:
            name = seats[seat]
            recorded = event.data["command"]
            rng = dealer.bot_chance(match_id, state.version, seat)
            seen = view(state, seat)
            choice = bot_choice(get_bot(name), seen, rng, memories.knowledge(seat, seen))
            derived, reason = _compare(recorded, choice)
            if reason:
                result.mismatch = BotMismatch(seq, seat, name, state.version, recorded, derived, reason)
                return result
            result.checked[seat] += 1
        state = evolve(state, event)
        memories.see((event,))
    return result


def _compare(recorded: dict[str, Any], choice: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """(the bot's answer in canonical form, why it is not the recorded command or "")."""
    try:
        derived = format_action(parse_action(choice))
    except CommandRefused as refusal:
        return None, f"the bot's answer {choice!r} is not a command: {refusal.message}"
    if parse_action(recorded) != parse_action(derived):
        return derived, "the bot, with its chance from the revealed seed, makes another move"
    return derived, ""
