"""What the services refuse, as domain errors: no HTTP here (``server/errors.py`` maps them).

Each error carries docs/PROTOCOL.md's ``code`` and a message for the player; the HTTP status of
each class is decided in ``server/errors.py`` alone. The engine's refusals
(``engine.errors.CommandRefused``) and the store's errors (``server.store.errors``) are not
wrapped: they reach ``server/errors.py`` as they are.
"""

from __future__ import annotations

from typing import ClassVar

from engine.errors import ErrorCode, shown


class DomainError(Exception):
    """A request the server refuses; nothing changed."""

    code: ClassVar[str]

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Malformed(DomainError):
    """The request names something that cannot be (an unknown ruleset, a match against oneself)."""

    code = ErrorCode.MALFORMED.value


class Unauthorized(DomainError):
    """No valid token where one is needed, or a token nobody has."""

    code = "unauthorized"


class NotASeat(DomainError):
    """The caller has no seat in this match (the director included)."""

    code = ErrorCode.NOT_A_PLAYER.value

    def __init__(self, match_id: str) -> None:
        super().__init__(f"you do not have a seat in match {shown(match_id)}")


class NotFound(DomainError):
    code = "not_found"


class MatchNotFound(NotFound):
    def __init__(self, match_id: str) -> None:
        super().__init__(f"no match {shown(match_id)}")


class PlayerNotFound(NotFound):
    """No player has this id, or no house bot this ``bot:NAME``."""

    def __init__(self, entry: str) -> None:
        super().__init__(f"no player or house bot {shown(entry)}")


class NotNow(DomainError):
    """The match is not in a state that allows this (joining again with other entropy)."""

    code = ErrorCode.NOT_NOW.value


class NotOpen(NotNow):
    """The match was never opened (no ``match_created``, no seed): it can be neither joined nor played."""


class TooManyRequests(DomainError):
    """A client address over a rate limit (registrations, wrong tokens); ``retry_after`` in seconds."""

    code = "too_many_requests"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class MatchLive(DomainError):
    """A replay was asked for a match that is not over."""

    code = "match_live"

    def __init__(self) -> None:
        super().__init__("a replay is only given for a finished match; this one is still live")
