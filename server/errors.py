"""HTTP errors in docs/PROTOCOL.md's shape, ``{"code", "message", "rule"}``: the one place that knows statuses.

Services raise domain errors (``server.domain_errors``), the engine ``CommandRefused``, the
store its ``StoreError``s; nothing below the routes builds an HTTP answer. This module maps
each of them, and FastAPI's own refusals, to a status and an :class:`ErrorBody`:

- domain errors by class (:data:`STATUS_OF_ERROR`), engine refusals by code
  (:data:`STATUS_OF_CODE`, else 422);
- request bodies and parameters that do not validate, bad JSON: 400 ``malformed``;
- unknown paths 404 ``not_found``, wrong methods 405 ``method_not_allowed``, a request body over
  the limit (:class:`BodyTooLarge`, raised by ``server.limits`` before parsing) 413 ``too_large``;
- the store: a lost race 409 ``stale_version``, an append it refuses 400 ``malformed``, a
  database that is unavailable (or a store that is closing) 503 ``unavailable``.

:func:`error_responses` documents a route's error answers in ``/openapi.json``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError, ValidationException, WebSocketRequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, ValidationError
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from engine.game.errors import CommandRefused, ErrorCode
from engine.protocol.socket_protocol import Close, close_reason
from server.domain_errors import (
    AmbiguousName,
    DomainError,
    Malformed,
    MatchLive,
    NameTaken,
    NotASeat,
    NotFound,
    NotNow,
    ServerCode,
    TooManyOpen,
    TooManyRequests,
    Unauthorized,
    Withheld,
)
from server.store.errors import ConcurrencyError, InvalidAppendError, StoreClosedError, StoreUnavailableError


class ErrorBody(BaseModel):
    """A refused request (docs/PROTOCOL.md "Errors"): nothing changed, and this says why."""

    code: str = Field(description="malformed, unauthorized, not_found, stale_version, not_your_turn, …")
    message: str
    rule: str | None = Field(description="the docs/RULES.md ruling the refusal rests on, or null")


STATUS_OF_ERROR: dict[type[DomainError], int] = {
    Malformed: 400,
    Unauthorized: 401,
    NotASeat: 403,
    Withheld: 403,
    NotFound: 404,
    NotNow: 409,
    MatchLive: 409,
    TooManyOpen: 409,
    NameTaken: 409,
    AmbiguousName: 409,
    TooManyRequests: 429,
}
STATUS_OF_CODE: dict[ErrorCode, int] = {
    ErrorCode.MALFORMED: 400,
    ErrorCode.UNKNOWN_COMMAND: 400,
    ErrorCode.NOT_A_PLAYER: 403,
    ErrorCode.STALE_VERSION: 409,
    ErrorCode.MATCH_OVER: 409,
}
RULE_REFUSAL_STATUS = 422
UNAVAILABLE = ServerCode.UNAVAILABLE
TOO_LARGE = ServerCode.TOO_LARGE
BEARER_CHALLENGE = {"WWW-Authenticate": "Bearer"}

ERROR_DESCRIPTIONS: dict[int, str] = {
    400: "`malformed` (a body or parameter that does not validate, bad JSON, an unknown ruleset) or `unknown_command`",
    401: "`unauthorized`: no player's token where one is needed, a header that is not 'Bearer TOKEN', "
    "or a token nobody has",
    403: "`not_a_player`: the caller has no seat in this match; `withheld`: a match of a duplicate round not "
    "revealed yet, which only its seats and the director may read",
    404: "`not_found`: no such match, player or house bot",
    409: "`stale_version` (the match moved on: read it again), `match_over`, `match_live` "
    "(no replay while live), `not_now` (joining again with other entropy, a match never opened or annulled), "
    "`too_many_open` (too many open invitations or disputes of one player), `name_taken` (another player "
    "has this name) or `ambiguous_name` (several players have this name: use an id)",
    413: "`too_large`: the request body is over the server's limit (64 KiB unless configured); it was not parsed",
    429: "`too_many_requests`: this address registered too often, or sent too many wrong tokens; "
    "`Retry-After` says in how many seconds to try again",
    422: "a rule refusal of docs/PROTOCOL.md (`not_your_turn`, `card_not_playable`, …) with its docs/RULES.md ruling",
    503: "`unavailable`: the database could not complete it; a retry with the same command_id is safe",
}


class BodyTooLarge(StarletteHTTPException):
    """A request body over the server's limit, refused before it is parsed (``server.limits``)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is over this server's limit of {limit} bytes")
        self.limit = limit


def too_large_response(limit: int) -> JSONResponse:
    """The answer to a body declared (Content-Length) larger than ``limit``: sent without reading it."""
    return _answer(413, TOO_LARGE.value, str(BodyTooLarge(limit).detail))


def not_for_clients_response() -> JSONResponse:
    """The answer on a worker's peer port to a request without the servers' key (``server.peer_port``):
    404, and the connection closed."""
    message = "this port serves only the other servers of this database; clients use the server's public port"
    return _answer(404, ServerCode.NOT_FOUND.value, message, headers={"Connection": "close"})


def status_of(error: DomainError) -> int:
    for cls in type(error).__mro__:
        if cls in STATUS_OF_ERROR:
            return STATUS_OF_ERROR[cls]
    raise LookupError(f"{type(error).__name__} has no HTTP status")  # a server bug: every class is mapped


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route that may answer ``statuses``; any other 4xx has the same body.

    A route that reads a token (401) may also answer 429: the wrong-token limit is inside the one
    authentication path (``server.deps.authenticate``).
    """
    out: dict[int | str, dict[str, Any]] = {}
    if 401 in statuses and 429 not in statuses:
        statuses = (*statuses, 429)
    for status in sorted(statuses):
        out[status] = {"model": ErrorBody, "description": ERROR_DESCRIPTIONS[status]}
        if status == 401:
            out[status]["headers"] = {"WWW-Authenticate": {"description": "Bearer", "schema": {"type": "string"}}}
        if status == 429:
            out[status]["headers"] = {
                "Retry-After": {"description": "seconds until a retry may pass", "schema": {"type": "integer"}}
            }
    out["4XX"] = {"model": ErrorBody, "description": "any other refusal (e.g. 405 `method_not_allowed`)"}
    return out


def _answer(
    status: int, code: str, message: str, rule: str | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = ErrorBody(code=code, message=message, rule=rule)
    if status == 401:
        headers = {**(headers or {}), **BEARER_CHALLENGE}
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


WHERE_LIMIT = 60  # characters of a field's path in a message: a client's unknown key may be 60 KiB long


def _where(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    where = ".".join(parts) or "body"
    return where if len(where) <= WHERE_LIMIT else where[: WHERE_LIMIT - 1] + "…"


def describe_validation(exc: ValidationException | ValidationError) -> str:
    problems = []
    for err in exc.errors()[:5]:
        if err.get("type") == "json_invalid":
            problems.append("the request body is not valid JSON")
            continue
        if err.get("type") == "extra_forbidden":
            problems.append(f"{_where(err.get('loc', ()))}: not a field of this request (docs/API.md)")
            continue
        problems.append(f"{_where(err.get('loc', ()))}: {shown_message(str(err.get('msg', 'invalid')))}")
    return "; ".join(problems) or "the request does not have the documented shape"


def shown_message(message: str, limit: int = 300) -> str:
    """A validation message cut to ``limit`` characters: none of pydantic's echoes input, but a
    custom validator's might."""
    return message if len(message) <= limit else message[: limit - 1] + "…"


def allowed_methods(request: Request, fallback: str | None) -> str | None:
    """A 405's ``Allow`` (RFC 9110 requires one): the methods /openapi.json documents on the request's path.

    Starlette's own header (``fallback``, kept for paths the document does not list, such as
    ``/docs``) names only the methods of the first route that matched, and a path such as
    ``/api/tournaments`` has two routes (GET and POST).
    """
    app: FastAPI = request.app
    methods: set[str] = set()
    for template, operations in app.openapi()["paths"].items():
        pattern = "/".join("[^/]+" if part.startswith("{") else re.escape(part) for part in template.split("/"))
        if re.fullmatch(pattern, request.url.path):
            methods |= {m.upper() for m in operations}
    if not methods:
        return fallback
    return ", ".join(sorted(methods | ({"HEAD"} if "GET" in methods else set())))


@dataclass(frozen=True)
class Refusal:
    """What a request was refused with, whichever way it came: an HTTP answer or a socket's."""

    status: int
    code: str
    message: str
    rule: str | None = None
    retry_after: int | None = None

    def body(self) -> ErrorBody:
        return ErrorBody(code=self.code, message=self.message, rule=self.rule)

    def response(self, headers: dict[str, str] | None = None) -> JSONResponse:
        extra = {"Retry-After": str(self.retry_after)} if self.retry_after is not None else {}
        return _answer(self.status, self.code, self.message, self.rule, {**(headers or {}), **extra} or None)

    @property
    def close_code(self) -> int:
        """The socket's close code: 4000 + the HTTP status of a refusal (4400, 4401, 4404, 4429, …);
        1013 "try again later" for an unavailable database or a server that is stopping."""
        return Close.of_status(self.status)


def refusal_of(exc: Exception) -> Refusal | None:
    """The one mapping from what the services, the engine and the store raise to a refusal;
    None for anything else (a server bug, answered 500 by the framework)."""
    if isinstance(exc, DomainError):
        retry = exc.retry_after if isinstance(exc, TooManyRequests) else None
        return Refusal(status_of(exc), exc.code.value, exc.message, retry_after=retry)
    if isinstance(exc, CommandRefused):
        return Refusal(STATUS_OF_CODE.get(exc.code, RULE_REFUSAL_STATUS), exc.code.value, exc.message, exc.rule)
    if isinstance(exc, ConcurrencyError):
        message = f"the match moved on while this command was decided (now at {exc.actual}); read it again"
        return Refusal(409, ErrorCode.STALE_VERSION.value, message)
    if isinstance(exc, InvalidAppendError):
        return Refusal(400, ErrorCode.MALFORMED.value, str(exc))
    if isinstance(exc, StoreUnavailableError):
        return Refusal(503, UNAVAILABLE.value, f"the database is unavailable; retry with the same command_id ({exc})")
    if isinstance(exc, OperationalError):
        return Refusal(503, UNAVAILABLE.value, f"the database is unavailable: {exc.orig}")
    if isinstance(exc, StoreClosedError):
        return Refusal(503, UNAVAILABLE.value, "the server is shutting down")
    return None


REFUSED = (
    DomainError,
    CommandRefused,
    ConcurrencyError,
    InvalidAppendError,
    StoreUnavailableError,
    OperationalError,
    StoreClosedError,
)
"""Every exception class :func:`refusal_of` maps."""


def install_error_handlers(app: FastAPI) -> None:
    async def _refused(_request: Request, exc: Exception) -> JSONResponse:
        refusal = refusal_of(exc)
        assert refusal is not None  # registered for REFUSED only
        return refusal.response()

    for cls in REFUSED:
        app.add_exception_handler(cls, _refused)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return _answer(400, ErrorCode.MALFORMED.value, describe_validation(exc))

    @app.exception_handler(WebSocketRequestValidationError)
    async def _invalid_socket(websocket: WebSocket, exc: WebSocketRequestValidationError) -> None:
        """A socket's bad parameter (``since`` out of range): accepted, then closed 1008 saying why
        (refused before the handshake, uvicorn would answer a bare 403)."""
        await websocket.accept()
        await websocket.close(Close.POLICY, close_reason(describe_validation(exc)))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: ServerCode.NOT_FOUND, 405: ServerCode.METHOD_NOT_ALLOWED, 413: TOO_LARGE}
        code = codes.get(exc.status_code, ErrorCode.MALFORMED).value
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            allow = allowed_methods(request, headers.pop("Allow", None))
            headers.update({"Allow": allow} if allow else {})
        return _answer(exc.status_code, code, str(exc.detail), headers=headers or None)
