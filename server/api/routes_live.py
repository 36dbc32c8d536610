"""``WS /api/matches/{id}/ws?since=SEQ``: a match live, and a seat's commands on the same socket.

Who you are: ``Authorization: Bearer TOKEN`` on the upgrade request, or ``?token=TOKEN`` for a
client that cannot set headers (a browser); neither is a spectator. A refusal before the socket
is accepted closes it with a code (4400 bad request, 4401 bad token, 4404 no such match); the
reason says why. Messages: see ``server.services.live``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query, WebSocket, WebSocketDisconnect, WebSocketException

from server.services.errors import DomainError, NotFound, Unauthorized
from server.services.live import LiveFeed
from server.services.live_match import SlowWatcher
from server.services.matches import MatchService
from server.services.players import Caller, Callers

router = APIRouter()

MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_SEQ = 2**31 - 1  # the seq column is a 32-bit integer
MAX_MESSAGE = 64 * 1024  # bytes of one command message
CLOSE_MALFORMED, CLOSE_UNAUTHORIZED, CLOSE_NOT_FOUND = 4400, 4401, 4404
CLOSE_TRY_AGAIN = 1013  # a watcher that fell too far behind; it resumes with since
CLOSE_INTERNAL = 1011  # the server could not go on with this socket (a bug; the log says which)
ORDINARY_ENDS = (WebSocketDisconnect, SlowWatcher, RuntimeError)  # RuntimeError: sending on a socket already closed

log = logging.getLogger(__name__)


def _close_code(error: DomainError) -> int:
    if isinstance(error, NotFound):
        return CLOSE_NOT_FOUND
    if isinstance(error, Unauthorized):
        return CLOSE_UNAUTHORIZED
    return CLOSE_MALFORMED


async def _caller(websocket: WebSocket, token: str | None) -> Caller:
    header = websocket.headers.get("authorization")
    if header is not None:
        scheme, _, value = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise Unauthorized("use 'Authorization: Bearer TOKEN'")
        token = value.strip()
    if token is None:
        return Caller()
    callers: Callers = websocket.app.state.callers
    caller = await callers.of(token)
    if caller is None:
        raise Unauthorized("this token belongs to nobody")
    return caller


@router.websocket("/api/matches/{match_id}/ws")
async def match_socket(
    websocket: WebSocket,
    match_id: Annotated[str, Path()],
    since: Annotated[int, Query(ge=0, le=MAX_SEQ)] = 0,
    token: Annotated[str | None, Query(max_length=200)] = None,
) -> None:
    """Each message: one event envelope, the openings this viewer may see, and its view after it."""
    matches: MatchService = websocket.app.state.matches
    try:
        if MATCH_ID.fullmatch(match_id) is None:  # the HTTP routes' rule for match ids
            raise NotFound(f"no match {match_id[:40]!r}")
        caller = await _caller(websocket, token)
        feed = LiveFeed(matches, match_id, caller)
        await feed.check()
    except DomainError as error:
        raise WebSocketException(_close_code(error), error.message[:120]) from None
    await websocket.accept()
    sender = asyncio.create_task(_send_feed(websocket, feed, since))
    receiver = asyncio.create_task(_receive_commands(websocket, feed))
    for task in (sender, receiver):
        task.add_done_callback(functools.partial(_collect, match_id))
    done, pending = await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):  # we may be cancelled too: then end quietly
            await asyncio.wait({task})
    if sender in done and not sender.cancelled() and sender.exception() is None:
        code, reason = (
            (1012, "the server is restarting: reconnect with since")
            if matches.stopping
            else (1000, "the match is over")
        )
        with contextlib.suppress(RuntimeError, WebSocketDisconnect):
            await websocket.close(code, reason)
    elif receiver in done and not receiver.cancelled() and not isinstance(receiver.exception(), ORDINARY_ENDS):
        # A server bug ended the commands' task: say so (1011) rather than leave a socket that
        # still sends events but never answers a command again.
        with contextlib.suppress(RuntimeError, WebSocketDisconnect):
            await websocket.close(CLOSE_INTERNAL, "internal error: reconnect with since")


def _collect(match_id: str, task: asyncio.Task[None]) -> None:
    """Take each socket task's outcome, so none is left "never retrieved"; a client that went
    away, a watcher cut off or a server stopping are the ordinary ends of a socket."""
    if task.cancelled():
        return
    error = task.exception()
    if error is not None and not isinstance(error, ORDINARY_ENDS):
        log.warning("socket on match %s ended by %r", match_id, error)


async def _send_feed(websocket: WebSocket, feed: LiveFeed, since: int) -> None:
    try:
        async for message in feed.messages(since):
            await websocket.send_text(message)
    except SlowWatcher:
        await websocket.close(CLOSE_TRY_AGAIN, "you fell too far behind: reconnect with since=<last seq you have>")
        raise


async def _receive_commands(websocket: WebSocket, feed: LiveFeed) -> None:
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000), frame.get("reason"))
        text, data = frame.get("text"), frame.get("bytes")
        size = len(text.encode(errors="replace")) if text is not None else len(data or b"")
        if size > MAX_MESSAGE:
            await websocket.send_json(_refusal("too_large", f"a message may hold at most {MAX_MESSAGE} bytes"))
            continue
        if text is None:  # a binary frame: the protocol's messages are text
            await websocket.send_json(_refusal("malformed", "send each command as a text frame of JSON"))
            continue
        try:
            message: Any = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: JSON nested too deep (10,000 arrays)
            await websocket.send_json(_refusal("malformed", "a message must be a JSON object"))
            continue
        await websocket.send_text(orjson.dumps(await feed.command(message)).decode())


def _refusal(code: str, message: str) -> dict[str, Any]:
    return {
        "type": "result",
        "command_id": None,
        "ok": False,
        "error": {"code": code, "message": message, "rule": None},
    }
