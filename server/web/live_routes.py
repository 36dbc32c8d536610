"""The live pages' event streams: ``GET /live/front``, ``/live/t/{id}``, ``/live/m/{id}``.

Each answers ``text/event-stream`` (``server.web.event_stream``): the page's current version
at once, then every new one (``server.web.live``). ``?last=N`` names the version the page was
loaded at; a browser reconnecting on its own sends ``Last-Event-ID`` instead, which wins. A
version the browser has is not sent again: only the regions that changed, or none.

Refusals are plain text (an EventSource shows nothing of them; the body is for people and
``curl``): 404 no such page; 403 a duplicate round's match not revealed yet (as the API says,
in the same words whether it has ended or not); 429 too many live pages from this address; 503
too many in all, the server stopping, or the database unavailable. Out of the OpenAPI
document: pages are not API.
"""

from __future__ import annotations

import re
from typing import Annotated, Final

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse, Response

from server.domain_errors import NotFound, Withheld
from server.limits import ID_LEN, MATCH_ID_PATTERN, MAX_SEQ
from server.settings import Settings
from server.store.errors import UNAVAILABLE
from server.web.event_stream import EventStreamResponse
from server.web.live import LiveHub, LiveRefused

RETRY_MS: Final = 3000  # a browser reconnects this long after the stream ended (a server restart)
REFUSED_RETRY_SECONDS: Final = 30
ID: Final = re.compile(MATCH_ID_PATTERN)  # tournament and match ids alike

router = APIRouter(include_in_schema=False)

Last = Annotated[int | None, Query(ge=0, le=MAX_SEQ, description="the version the page has")]


@router.get("/live/front")
async def live_front(request: Request, last: Last = None) -> Response:
    """The front page's tournaments, live."""
    return await open_stream(request, "front", "", last)


@router.get("/live/t/{tournament_id}")
async def live_tournament(request: Request, tournament_id: str, last: Last = None) -> Response:
    """A tournament page's pairings, standings and the rest, live."""
    return await open_stream(request, "t", tournament_id, last)


@router.get("/live/m/{match_id}")
async def live_match(request: Request, match_id: str, last: Last = None) -> Response:
    """A match page's score and log, live."""
    return await open_stream(request, "m", match_id, last)


def last_event_id(request: Request, last: int | None) -> int | None:
    """The version the browser has: its ``Last-Event-ID`` (sent when it reconnects), else ``?last``;
    a header that is not one of our ids counts as none (the page is sent whole)."""
    header = request.headers.get("last-event-id")
    if header is not None:
        header = header.strip()
        return int(header) if header.isdigit() and len(header) <= len(str(MAX_SEQ)) else None
    return last


async def open_stream(request: Request, kind: str, key: str, last: int | None) -> Response:
    hub: LiveHub = request.app.state.live
    settings: Settings = request.app.state.settings
    if kind != "front" and (len(key) > ID_LEN or ID.fullmatch(key) is None):
        return refused(404, "There is no such page.")
    address = request.client.host if request.client is not None else "unknown"
    try:
        page = await hub.open(kind, key, address, last_event_id(request, last))
    except LiveRefused as refusal:
        return refused(refusal.status, refusal.message)
    except NotFound:
        return refused(404, "There is no such page.")
    except Withheld:  # the same words for every withheld match, ended or not: nothing of it is told
        return refused(403, "Not shown yet: a duplicate round's matches are shown once the round is revealed.")
    except UNAVAILABLE:
        return refused(503, "The database is unavailable: this page reconnects by itself shortly.")
    return EventStreamResponse(
        hub,
        page,
        retry_ms=RETRY_MS,
        heartbeat=settings.live_heartbeat_seconds,
        write_seconds=settings.ws_send_timeout_seconds,
    )


def refused(status: int, message: str) -> PlainTextResponse:
    headers = {"retry-after": str(REFUSED_RETRY_SECONDS)} if status in (429, 503) else None
    return PlainTextResponse(message + "\n", status_code=status, headers=headers)
