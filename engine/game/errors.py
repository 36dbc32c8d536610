"""The engine's exception hierarchy.

Everything the engine raises derives from :class:`UnoDuoError`, so callers can catch one type.
A :class:`CommandRefused` carries the docs/PROTOCOL.md error code, a message a player understands,
and the docs/RULES.md ruling id the refusal rests on.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    MALFORMED = "malformed"
    UNKNOWN_COMMAND = "unknown_command"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_NOW = "not_now"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    CARD_NOT_PLAYABLE = "card_not_playable"
    COLOR_REQUIRED = "color_required"
    BAD_COLOR = "bad_color"
    DUMP_INCOMPLETE = "dump_incomplete"
    DUMP_WRONG_COLOR = "dump_wrong_color"
    STALE_VERSION = "stale_version"
    MATCH_OVER = "match_over"
    NOT_A_PLAYER = "not_a_player"
    UNO_NOT_OPEN = "uno_not_open"


SHOWN_LIMIT = 40


def shown(value: object, limit: int = SHOWN_LIMIT) -> str:
    """``repr(value)`` for an error message, cut to about ``limit`` characters with an ellipsis.

    Messages echo what a client sent; a megabyte of it must not come back whole.
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class UnoDuoError(Exception):
    """Base class of every error the engine raises."""


class CardParseError(UnoDuoError, ValueError):
    """A card or colour code could not be read."""


class CommandRefused(UnoDuoError):
    """A command the rules (or its shape) do not allow now. Nothing changed."""

    def __init__(self, code: ErrorCode, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code.value, "message": self.message, "rule": self.rule}

    def __repr__(self) -> str:
        return f"CommandRefused({self.code.value!r}, {self.message!r}, rule={self.rule!r})"


class InvalidEventError(UnoDuoError):
    """An event that cannot be folded into the state (unknown type or impossible data)."""


class ScenarioError(UnoDuoError):
    """A scenario file that cannot be read or does not have the documented shape."""


class ReplayUnreadable(UnoDuoError):
    """A file that is not a replay file this engine reads (``unoduo verify`` exit 2), as opposed
    to one that fails a check (exit 1)."""


def describe_invalid(errors: list[Any], unknown: str) -> str:
    """pydantic's validation errors (``exc.errors()``) in one line a person reads: each problem
    as ``where: what``, and a field that should not be there as ``{unknown} where``."""
    problems = []
    for error in errors:
        where = ".".join(str(part) for part in error["loc"])
        if error["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
            problems.append(f"{unknown} {where}")
            continue
        message = str(error["msg"]).removeprefix("Value error, ")
        problems.append(f"{where}: {message}" if where else message)
    return "; ".join(problems)
