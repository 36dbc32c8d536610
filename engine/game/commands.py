"""Commands: what a seat asks for (docs/PROTOCOL.md), plus the system commands: the two that open a
match, the server's move clock (``TimeOut``), a tournament's forfeit (``Forfeit``) and a timed
round's end (``CallTime``).

``parse_command`` reads the JSON shape and refuses a bad one with ``malformed`` or
``unknown_command``; ``format_command`` writes the canonical JSON shape back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from engine.game.cards import Card, Color, Rank, parse_card, parse_color
from engine.game.errors import CardParseError, CommandRefused, ErrorCode, shown
from engine.game.rulesets import Ruleset


class CommandType(StrEnum):
    DRAFT = "draft"
    PLAY = "play"
    DRAW = "draw"
    PASS = "pass"
    DUMP = "dump"
    ACCEPT = "accept"
    CHALLENGE = "challenge"
    COLOR = "color"
    UNO = "uno"


@dataclass(frozen=True, slots=True)
class Draft:
    keep: bool
    type = CommandType.DRAFT


@dataclass(frozen=True, slots=True)
class Play:
    card: Card
    color: Color | None = None
    uno: bool = False
    type = CommandType.PLAY


@dataclass(frozen=True, slots=True)
class Draw:
    type = CommandType.DRAW


@dataclass(frozen=True, slots=True)
class Pass:
    type = CommandType.PASS


@dataclass(frozen=True, slots=True)
class Dump:
    cards: tuple[Card, ...]
    uno: bool = False
    type = CommandType.DUMP


@dataclass(frozen=True, slots=True)
class Accept:
    type = CommandType.ACCEPT


@dataclass(frozen=True, slots=True)
class Challenge:
    type = CommandType.CHALLENGE


@dataclass(frozen=True, slots=True)
class ChooseColor:
    color: Color
    type = CommandType.COLOR


@dataclass(frozen=True, slots=True)
class SayUno:
    type = CommandType.UNO


SeatAction = Draft | Play | Draw | Pass | Dump | Accept | Challenge | ChooseColor | SayUno


@dataclass(frozen=True, slots=True)
class CreateMatch:
    """System command: open a match under a ruleset, committing to the hidden server seed.

    ``first_drafter`` fixes round 1's Player 1 (a tournament's schedule): the cut is skipped.
    ``names`` are the seats' player names, by seat, recorded as public data so that a replay
    names its players on the hash chain (None: a match without names, as before they were kept).
    ``seats`` is the table's size, 2 to 10 where the ruleset allows it (None: two seats, not
    recorded, as before tables of more than two existed). ``duplicate`` links a duplicate
    round's match to its deal (``engine.game.duplicate.deal_link``; None: not recorded).
    """

    ruleset: Ruleset
    commitment: str
    first_drafter: int | None = None
    names: tuple[str, ...] | None = None
    seats: int | None = None
    duplicate: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class JoinSeat:
    """System command: a player takes a seat and adds entropy (docs/FAIRNESS.md)."""

    seat: int
    entropy: str = ""


class SeatCommand(NamedTuple):
    """A seat's action, optionally guarded by the event count the client last saw.

    A named tuple, not a dataclass: self-play builds one per action, and a tuple is the
    cheapest immutable record to build.
    """

    seat: int
    action: SeatAction
    expected_version: int | None = None


@dataclass(frozen=True, slots=True)
class TimeOut:
    """System command, the server's clock: ``seat`` let its decision's time run out.

    The engine applies the pending decision's default action for the seat, or, at the
    ``engine.game.rules.TIMEOUTS_TO_FORFEIT``-th timeout in a row, ends the match by forfeit
    (docs/RULES.md "Move clocks and timeouts"). ``expected_version`` guards against a clock
    that fired for a decision already taken.
    """

    seat: int
    expected_version: int | None = None


@dataclass(frozen=True, slots=True)
class Forfeit:
    """System command, the tournament director's or its rules': ``seat`` loses the match now.

    ``reason`` says why (``join_deadline``, ``withdrawal``, ``ruling``); it is recorded as is.
    """

    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class CallTime:
    """System command, a timed tournament round's (RULES.md D26): the round's time ran out.

    ``moment`` is when it ran out (ISO 8601, as the server stamps events), recorded in the
    ``time_called`` event so that a replay says when time was called. From then on the hand in
    play is finished and the match is decided on its totals when it ends (one more hand while
    the best total is shared).
    """

    moment: str


Command = CreateMatch | JoinSeat | SeatCommand | TimeOut | Forfeit | CallTime

MAX_ENTROPY_LENGTH = 256
MAX_NAME_LENGTH = 100  # a seat's name in match_created (as long as a server lets a name be)
MAX_MOMENT_LENGTH = 64  # a time_called's moment (an ISO 8601 timestamp is about 32 characters)


def _malformed(message: str) -> CommandRefused:
    return CommandRefused(ErrorCode.MALFORMED, message)


def _card_field(value: object, field: str) -> Card:
    try:
        return parse_card(value)
    except CardParseError as exc:
        raise _malformed(f"{field}: {exc}") from None


def _color_field(value: object, rule: str) -> Color:
    try:
        return parse_color(value)
    except CardParseError as exc:
        raise CommandRefused(ErrorCode.BAD_COLOR, str(exc), rule) from None


def _bool_field(obj: Mapping[str, Any], field: str, default: bool | None = None) -> bool:
    value = obj.get(field, default)
    if not isinstance(value, bool):
        if field not in obj:
            raise _malformed(f"'{field}' is required (true or false)")
        raise _malformed(f"'{field}' must be true or false, not {shown(value)}")
    return value


_NO_FIELD_ACTIONS: dict[str, SeatAction] = {
    "draw": Draw(),
    "pass": Pass(),
    "accept": Accept(),
    "challenge": Challenge(),
    "uno": SayUno(),
}


def parse_action(obj: object) -> SeatAction:
    """Read a docs/PROTOCOL.md command object into a :data:`SeatAction`."""
    if not isinstance(obj, Mapping):
        raise _malformed("a command is a JSON object with a 'type'")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise _malformed("a command needs a 'type' string")
    if kind in _NO_FIELD_ACTIONS:
        return _NO_FIELD_ACTIONS[kind]
    if kind == "draft":
        return Draft(keep=_bool_field(obj, "keep"))
    if kind == "play":
        if "card" not in obj:
            raise _malformed('\'play\' needs a \'card\', e.g. {"type": "play", "card": "R5"}')
        card = _card_field(obj["card"], "card")
        color_value = obj.get("color")
        rule = "D12" if card.rank is Rank.WILD_DRAW_FOUR else "D11"
        color = None if color_value is None else _color_field(color_value, rule)
        return Play(card=card, color=color, uno=_bool_field(obj, "uno", False))
    if kind == "dump":
        cards = obj.get("cards")
        if not isinstance(cards, list) or not cards:
            raise _malformed("'dump' needs 'cards': the list of cards in the order you play them")
        return Dump(cards=tuple(_card_field(c, "cards") for c in cards), uno=_bool_field(obj, "uno", False))
    if kind == "color":
        if obj.get("color") is None:
            raise CommandRefused(ErrorCode.COLOR_REQUIRED, "'color' needs a colour: red, yellow, green or blue", "D4")
        return ChooseColor(color=_color_field(obj["color"], "D4"))
    raise CommandRefused(
        ErrorCode.UNKNOWN_COMMAND,
        f"unknown command type {shown(kind)}: use draft, play, draw, pass, dump, accept, challenge, color or uno",
    )


def format_action(action: SeatAction) -> dict[str, Any]:
    """The canonical JSON shape of an action (card codes upper-case, colours spelled out)."""
    bare = _BARE_TYPES.get(type(action))
    if bare is not None:
        return {"type": bare}
    if isinstance(action, Draft):
        return {"type": "draft", "keep": action.keep}
    if isinstance(action, Play):
        out: dict[str, Any] = {"type": "play", "card": action.card.code}
        if action.color is not None:
            out["color"] = action.color.value
        if action.uno:
            out["uno"] = True
        return out
    if isinstance(action, Dump):
        dump: dict[str, Any] = {"type": "dump", "cards": [c.code for c in action.cards]}
        if action.uno:
            dump["uno"] = True
        return dump
    if isinstance(action, ChooseColor):
        return {"type": "color", "color": action.color.value}
    return {"type": action.type.value}


_BARE_TYPES: dict[type, str] = {type(a): a.type.value for a in _NO_FIELD_ACTIONS.values()}
"""The actions without fields, by class: their JSON is just the type."""


def parse_seat_command(seat: object, obj: object) -> SeatCommand:
    """A seat number plus a command object, which may carry ``expected_version``."""
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise CommandRefused(ErrorCode.NOT_A_PLAYER, f"seat must be 0 or 1, not {shown(seat)}")
    expected: int | None = None
    if isinstance(obj, Mapping) and obj.get("expected_version") is not None:
        raw = obj["expected_version"]
        if not isinstance(raw, int) or isinstance(raw, bool) or raw < 0:
            raise _malformed("'expected_version' must be a non-negative whole number")
        expected = raw
    return SeatCommand(seat=seat, action=parse_action(obj), expected_version=expected)
