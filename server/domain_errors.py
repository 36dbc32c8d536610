"""What the server refuses, as domain errors: no HTTP here (``server/errors.py`` maps them). Below
every layer of the server that decides (the services, and the tournaments' pure Decider), so each
raises the same refusals.

Each error carries docs/PROTOCOL.md's ``code`` and a message for the player; the HTTP status of
each class is decided in ``server/errors.py`` alone. The engine's refusals
(``engine.game.errors.CommandRefused``) and the store's errors (``server.store.errors``) are not
wrapped: they reach ``server/errors.py`` as they are.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from engine.game.errors import ErrorCode, shown


class ServerCode(StrEnum):
    """The error codes the server adds to the engine's (``engine.game.errors.ErrorCode``): every code
    a client can receive is one of the two enums, never a literal string (docs/API.md "Errors")."""

    UNAUTHORIZED = "unauthorized"
    NOT_FOUND = "not_found"
    TOO_MANY_REQUESTS = "too_many_requests"
    TOO_MANY_OPEN = "too_many_open"
    MATCH_LIVE = "match_live"
    UNAVAILABLE = "unavailable"
    TOO_LARGE = "too_large"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NAME_TAKEN = "name_taken"
    AMBIGUOUS_NAME = "ambiguous_name"
    WITHHELD = "withheld"


Code = ErrorCode | ServerCode


class DomainError(Exception):
    """A request the server refuses; nothing changed."""

    code: ClassVar[Code]

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Malformed(DomainError):
    """The request names something that cannot be (an unknown ruleset, a match against oneself)."""

    code = ErrorCode.MALFORMED


class Unauthorized(DomainError):
    """No valid token where one is needed, or a token nobody has."""

    code = ServerCode.UNAUTHORIZED


class NotASeat(DomainError):
    """The caller has no seat in this match (the director included)."""

    code = ErrorCode.NOT_A_PLAYER

    def __init__(self, match_id: str) -> None:
        super().__init__(f"you do not have a seat in match {shown(match_id)}")


class Withheld(DomainError):
    """A match of a duplicate round not revealed yet, asked for by someone without a seat in it
    (docs/TOURNAMENTS.md "Duplicate rounds"): every match of the round is dealt the same cards,
    so until the round is revealed only its seats and the director read it. The same answer
    whether the match is waiting, live or over, so it tells nothing of how it stands."""

    code = ServerCode.WITHHELD

    def __init__(self, match_id: str, round_number: int) -> None:
        super().__init__(
            f"match {shown(match_id)} is one of round {round_number}'s matches of a duplicate tournament, which are "
            "all dealt the same cards: until the round is revealed (every pairing of it decided) only its seats and "
            "the director may read it"
        )


class NotFound(DomainError):
    code = ServerCode.NOT_FOUND


class MatchNotFound(NotFound):
    def __init__(self, match_id: str) -> None:
        super().__init__(f"no match {shown(match_id)}")


class PlayerNotFound(NotFound):
    """No player has this id, or no house bot this ``bot:NAME``."""

    def __init__(self, entry: str) -> None:
        super().__init__(f"no player or house bot {shown(entry)}")


class NameTaken(DomainError):
    """Another player holds this name, or one that looks like it (names compare case-insensitively
    after NFKC, by their UTS #39 confusable skeletons: ``server.names.name_key``): nothing was made."""

    code = ServerCode.NAME_TAKEN

    def __init__(self, name: str, held: str | None = None) -> None:
        if held is not None and held != name:
            super().__init__(
                f"the name {shown(name)} looks like {shown(held)}, a name another player has on this server "
                "(names that look alike are one name: Unicode's confusables, UTS #39); choose another, or if "
                f"{shown(held)} is yours, sign in (POST /api/sessions) with your password or a code from the director"
            )
            return
        super().__init__(
            f"the name {shown(name)} is taken on this server; if it is yours, sign in (POST /api/sessions) "
            "with your password or a code from the director"
        )


class AmbiguousName(DomainError):
    """A name several players have (house bots, or players registered before names were unique)."""

    code = ServerCode.AMBIGUOUS_NAME

    def __init__(self, name: str, ids: list[str]) -> None:
        listed = ", ".join(ids[:5]) + (", …" if len(ids) > 5 else "")
        super().__init__(f"{len(ids)} players are called {shown(name)} ({listed}): name one by its id")
        self.ids = ids


class NotNow(DomainError):
    """The match is not in a state that allows this (joining again with other entropy)."""

    code = ErrorCode.NOT_NOW


class NotOpen(NotNow):
    """The match was never opened (no ``match_created``, no seed): it can be neither joined nor played."""


class TooManyOpen(DomainError):
    """A player over a limit on things they have open at once (invitations, disputes): nothing was made."""

    code = ServerCode.TOO_MANY_OPEN


class TooManyRequests(DomainError):
    """A client address over a rate limit (registrations, wrong tokens); ``retry_after`` in seconds."""

    code = ServerCode.TOO_MANY_REQUESTS

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class MatchLive(DomainError):
    """A replay was asked for a match that is not over."""

    code = ServerCode.MATCH_LIVE

    def __init__(self) -> None:
        super().__init__("a replay is only given for a finished match; this one is still live")
