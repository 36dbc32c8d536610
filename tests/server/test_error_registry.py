"""One error registry and one mapping (issue 19, point 6): every code a client can receive is an
enum member, and one function gives a refusal's HTTP status and its socket close code."""

from __future__ import annotations

import pytest

from engine.game.errors import CommandRefused, ErrorCode
from server import domain_errors as domain
from server.domain_errors import DomainError, ServerCode
from server.errors import refusal_of
from server.store.errors import ConcurrencyError, StoreUnavailableError


def every_domain_error() -> list[type[DomainError]]:
    found, todo = [], [DomainError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return [cls for cls in found if cls is not DomainError]


def test_every_domain_error_code_is_in_the_registry() -> None:
    for cls in every_domain_error():
        assert isinstance(cls.code, ErrorCode | ServerCode), (cls.__name__, cls.code)


@pytest.mark.parametrize(
    ("error", "status", "code", "close"),
    [
        (domain.Unauthorized("no"), 401, "unauthorized", 4401),
        (domain.MatchNotFound("m_x"), 404, "not_found", 4404),
        (domain.Malformed("bad"), 400, "malformed", 4400),
        (domain.TooManyRequests("slow down", retry_after=3), 429, "too_many_requests", 4429),
        (StoreUnavailableError("lost"), 503, "unavailable", 1013),
        (ConcurrencyError("s", 1, 2), 409, "stale_version", 4409),
        (CommandRefused(ErrorCode.NOT_YOUR_TURN, "wait", "D5"), 422, "not_your_turn", 4422),
    ],
)
def test_one_mapping_gives_the_status_the_code_and_the_close_code(
    error: Exception, status: int, code: str, close: int
) -> None:
    refusal = refusal_of(error)
    assert refusal is not None
    assert (refusal.status, refusal.code, refusal.close_code) == (status, code, close)


def test_anything_else_is_not_a_refusal() -> None:
    assert refusal_of(KeyError("a bug")) is None
