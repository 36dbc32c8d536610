"""A browser that asks for a page address nothing answers gets the friendly 404 page, not JSON.

The app's handler of unmatched paths (``server.errors``) answers PROTOCOL.md's JSON error body,
which is right for every API client and every ``/api/…`` path. This wraps it: a ``GET`` whose
``Accept`` names ``text/html`` (a browser, :func:`server.web.routes.wants_html`), for a path
outside the API, the live streams and the static files, is answered with the 404 page the pages
use for an unknown id; every other request keeps the JSON answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from server.web.routes import not_found, wants_html

NOT_PAGES: Final = ("/api", "/live", "/static", "/docs", "/openapi.json", "/redoc")
Handler = Callable[[Request, Exception], Response | Awaitable[Response]]


def is_page_path(path: str) -> bool:
    """Whether ``path`` could be a page's (not the API's, a live stream's, a static file's or the docs')."""
    return not any(path == prefix or path.startswith(prefix + "/") for prefix in NOT_PAGES)


def install_page_not_found(app: FastAPI) -> None:
    """Wrap the app's handler of HTTP errors (install the app's own error handlers first)."""
    api_answer: Handler = app.exception_handlers[StarletteHTTPException]

    async def answer(request: Request, exc: Exception) -> Response:
        if (
            isinstance(exc, StarletteHTTPException)
            and exc.status_code == 404
            and request.method == "GET"
            and is_page_path(request.url.path)
            and wants_html(request.scope)
        ):
            return not_found("There is no page at this address.")
        made = api_answer(request, exc)
        return made if isinstance(made, Response) else await made

    app.add_exception_handler(StarletteHTTPException, answer)
