"""HTTP errors in PROTOCOL.md's shape: ``{"code", "message", "rule"}``.

Every refusal the server knows of is mapped here: engine refusals (by code), request bodies
that do not validate (``malformed``, 400), unknown routes and ids (404), authentication (401,
403), the store's races (409 ``stale_version``) and a database that is unavailable (503).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from engine.errors import CommandRefused, ErrorCode
from server.store.errors import ConcurrencyError, InvalidAppendError, StoreClosedError, StoreUnavailableError

STATUS_OF_CODE: dict[ErrorCode, int] = {
    ErrorCode.MALFORMED: 400,
    ErrorCode.UNKNOWN_COMMAND: 400,
    ErrorCode.NOT_A_PLAYER: 403,
    ErrorCode.STALE_VERSION: 409,
    ErrorCode.MATCH_OVER: 409,
}
RULE_REFUSAL_STATUS = 422


class ApiError(Exception):
    """A refused request: nothing changed, and the body says why."""

    def __init__(self, status: int, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.rule = rule

    def body(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "rule": self.rule}

    @classmethod
    def refused(cls, refusal: CommandRefused) -> ApiError:
        status = STATUS_OF_CODE.get(refusal.code, RULE_REFUSAL_STATUS)
        return cls(status, refusal.code.value, refusal.message, refusal.rule)


def malformed(message: str) -> ApiError:
    return ApiError(400, ErrorCode.MALFORMED.value, message)


def not_found(message: str) -> ApiError:
    return ApiError(404, "not_found", message)


def unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message)


def not_a_player(message: str) -> ApiError:
    return ApiError(403, ErrorCode.NOT_A_PLAYER.value, message)


def stale(message: str) -> ApiError:
    return ApiError(409, ErrorCode.STALE_VERSION.value, message)


def _json(error: ApiError, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=headers)


def _where(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


def describe_validation(exc: RequestValidationError) -> str:
    problems = []
    for err in exc.errors()[:5]:
        if err.get("type") == "json_invalid":
            problems.append("the request body is not valid JSON")
            continue
        problems.append(f"{_where(err.get('loc', ()))}: {err.get('msg', 'invalid')}")
    return "; ".join(problems) or "the request does not have the documented shape"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return _json(exc, headers)

    @app.exception_handler(CommandRefused)
    async def _refused(_request: Request, exc: CommandRefused) -> JSONResponse:
        return _json(ApiError.refused(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return _json(malformed(describe_validation(exc)))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "malformed")
        return _json(ApiError(exc.status_code, code, str(exc.detail)))

    @app.exception_handler(ConcurrencyError)
    async def _race(_request: Request, exc: ConcurrencyError) -> JSONResponse:
        return _json(stale(f"the match moved on while this command was decided (now at {exc.actual}); read it again"))

    @app.exception_handler(InvalidAppendError)
    async def _invalid_append(_request: Request, exc: InvalidAppendError) -> JSONResponse:
        return _json(malformed(str(exc)))

    @app.exception_handler(StoreUnavailableError)
    async def _unavailable(_request: Request, exc: StoreUnavailableError) -> JSONResponse:
        return _json(ApiError(503, "unavailable", f"the database is unavailable; retry with the same command_id ({exc})"))

    @app.exception_handler(OperationalError)
    async def _db_down(_request: Request, exc: OperationalError) -> JSONResponse:
        return _json(ApiError(503, "unavailable", f"the database is unavailable: {exc.orig}"))

    @app.exception_handler(StoreClosedError)
    async def _closed(_request: Request, _exc: StoreClosedError) -> JSONResponse:
        return _json(ApiError(503, "unavailable", "the server is shutting down"))
