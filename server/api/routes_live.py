"""``WS /api/matches/{id}/ws?since=SEQ``: a match live, and a seat's commands on the same socket.

Who you are is decided as over HTTP (``server.deps.authenticate``: the same header rule, the
same wrong-token limit), with ``?token=TOKEN`` besides for a client that cannot set headers.
A refusal before the feed starts is sent as a close code, after accepting the socket (refused
before the handshake, uvicorn would answer a bare 403): 4000 + the HTTP status it would have
had (4401 bad token, 4403 a duplicate round's match not revealed yet to someone without a seat
in it, 4404 no such match, 4429 too many wrong tokens), 1008 a bad parameter,
1013 "try again later" when the database is unavailable. Commands are validated by the HTTP
route's own model (``server.api.commands``), go through :meth:`MatchService.command_version`
exactly as the POST route's go through :meth:`MatchService.command` (same ``command_id`` and
``expected_version`` rules), and are answered by a ``result`` message; the events they cause reach
the socket through the feed like anyone's. Refusals are mapped by ``server.errors.refusal_of``.
Messages (one per event, or per decision with ``frames=decision``): ``MatchReads.messages``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
from collections.abc import AsyncIterator, Mapping
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from engine.game.errors import ErrorCode
from engine.protocol.socket_protocol import Close, ResultOk, ResultRefused
from server.api.closing import close_quietly
from server.api.commands import CommandMessage
from server.api.forwarding import forward_socket, forwarded, owner_elsewhere, take_over
from server.api.write_deadline import write_deadline
from server.deps import authenticate
from server.domain_errors import MatchNotFound, ServerCode
from server.errors import Refusal, describe_validation, refusal_of
from server.limits import ID_LEN, MATCH_ID_PATTERN, MAX_SEQ
from server.services.frames import Frames
from server.services.live_match import SlowWatcher
from server.services.match_reads import MatchReads
from server.services.match_registry import MatchRegistry
from server.services.matches import MatchService
from server.services.players import Caller
from server.settings import Settings

router = APIRouter()

MATCH_ID = re.compile(MATCH_ID_PATTERN)

ORDINARY_ENDS = (WebSocketDisconnect, SlowWatcher, RuntimeError)  # RuntimeError: sending on a socket already closed

log = logging.getLogger(__name__)


async def _refuse(websocket: WebSocket, refusal: Refusal) -> None:
    await websocket.accept()
    await close_quietly(websocket, refusal.close_code, f"{refusal.code}: {refusal.message}")


@router.websocket("/api/matches/{match_id}/ws")
async def match_socket(
    websocket: WebSocket,
    match_id: Annotated[str, Path()],
    since: Annotated[int, Query(ge=0, le=MAX_SEQ)] = 0,
    token: Annotated[str | None, Query(max_length=200)] = None,
    frames: Annotated[Frames, Query()] = Frames.EVENT,
) -> None:
    """Each message: one event envelope, the openings this viewer may see, and its view after it;
    with ``frames=decision``, the envelopes of one decision and the view after the last."""
    matches: MatchService = websocket.app.state.matches
    registry: MatchRegistry = websocket.app.state.match_registry
    settings: Settings = websocket.app.state.settings
    try:
        if len(match_id) > ID_LEN or MATCH_ID.fullmatch(match_id) is None:  # the HTTP routes' rule for match ids
            raise MatchNotFound(match_id[:40])
        caller = await authenticate(websocket, token)
        summary = await registry.may_read(match_id, caller)  # 4404 unknown, 4403 withheld: before any forwarding
        seated = registry.seat_of(summary, caller) is not None
        owner = await owner_elsewhere(websocket, match_id)
        if owner and not (seated and await take_over(websocket, match_id, owner)):
            if await forward_socket(websocket, owner, settings.ws_send_timeout_seconds):
                return  # played on the server that owns the match (server.api.forwarding)
        own_seat = seated and not forwarded(websocket)  # a seat's own socket, not one another server forwarded
    except Exception as error:
        refusal = refusal_of(error)
        if refusal is None:
            raise
        await _refuse(websocket, refusal)
        return
    await websocket.accept()
    with matches.seat_socket(match_id) if own_seat else contextlib.nullcontext():
        await _serve(websocket, matches, registry, settings, match_id, caller, since, frames)


async def _serve(
    websocket: WebSocket,
    matches: MatchService,
    registry: MatchRegistry,
    settings: Settings,
    match_id: str,
    caller: Caller,
    since: int,
    frames: Frames,
) -> None:
    """The accepted socket: the feed sent, commands answered, until either ends."""
    reads: MatchReads = websocket.app.state.match_reads
    feed = reads.messages(match_id, caller, since, frames)
    sender = asyncio.create_task(_send_feed(websocket, feed, settings.ws_send_timeout_seconds))
    receiver = asyncio.create_task(_receive_commands(websocket, matches, match_id, caller, settings.max_body_bytes))
    for task in (sender, receiver):
        task.add_done_callback(functools.partial(_collect, match_id))
    done, pending = await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):  # we may be cancelled too: then end quietly
            await asyncio.wait({task})
    if sender in done and not sender.cancelled() and sender.exception() is None:
        code, reason = (
            (Close.RESTART, "the server is restarting: reconnect with since")
            if registry.stopping
            else (Close.OVER, "the match is over")
        )
        await close_quietly(websocket, code, reason)
    elif receiver in done and not receiver.cancelled() and not isinstance(receiver.exception(), ORDINARY_ENDS):
        # A server bug ended the commands' task: say so (1011) rather than leave a socket that
        # still sends events but never answers a command again.
        await close_quietly(websocket, Close.INTERNAL, "internal error: reconnect with since")


def _collect(match_id: str, task: asyncio.Task[None]) -> None:
    """Take each socket task's outcome, so none is left "never retrieved"; a client that went
    away, a watcher cut off or a server stopping are the ordinary ends of a socket."""
    if task.cancelled():
        return
    error = task.exception()
    if error is not None and not isinstance(error, ORDINARY_ENDS):
        log.warning("socket on match %s ended by %r", match_id, error)


async def _send_feed(websocket: WebSocket, feed: AsyncIterator[str], send_timeout: float) -> None:
    """The feed, each message sent with backpressure: a client that takes none for ``send_timeout``
    seconds is closed 1013 (it resumes with since), as is a watcher cut off for falling behind
    and a feed whose database is unavailable (then the message says so); a refusal of the feed
    (its read gate, ``MatchReads.watch``) closes with the refusal's code, 4403."""
    try:
        async with write_deadline(send_timeout) as deadline:
            async for message in feed:
                await deadline.send(websocket, message)
    except TimeoutError:
        await close_quietly(
            websocket, Close.TRY_AGAIN, "you took no message for too long: reconnect with since", timeout=1
        )
        raise SlowWatcher() from None
    except SlowWatcher:
        await close_quietly(
            websocket, Close.TRY_AGAIN, "you fell too far behind: reconnect with since=<last seq you have>"
        )
        raise
    except Exception as error:
        refusal = refusal_of(error)
        if refusal is None:
            raise
        if refusal.status == 503:
            reason = f"{refusal.code}: the database is unavailable; reconnect with since"
            await close_quietly(websocket, Close.TRY_AGAIN, reason)
        else:  # the feed's own read gate refused it after all: closed as a refusal before the feed is
            await close_quietly(websocket, refusal.close_code, f"{refusal.code}: {refusal.message}")
        raise SlowWatcher() from None


async def _receive_commands(
    websocket: WebSocket, matches: MatchService, match_id: str, caller: Caller, max_bytes: int
) -> None:
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000), frame.get("reason"))
        answer = await _answer(matches, match_id, caller, frame, max_bytes)
        await websocket.send_text(orjson.dumps(answer).decode())


async def _answer(
    matches: MatchService, match_id: str, caller: Caller, frame: Mapping[str, Any], max_bytes: int
) -> ResultOk | ResultRefused:
    """The ``result`` message answering one frame (uvicorn has closed a frame over ``max_bytes`` 1009 already)."""
    text, data = frame.get("text"), frame.get("bytes")
    size = len(text.encode(errors="replace")) if text is not None else len(data or b"")
    if size > max_bytes:
        return _result(None, Refusal(413, ServerCode.TOO_LARGE.value, f"a message may hold at most {max_bytes} bytes"))
    if text is None:  # a binary frame: the protocol's messages are text
        return _result(None, Refusal(400, ErrorCode.MALFORMED.value, "send each command as a text frame of JSON"))
    try:
        raw: Any = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deep (10,000 arrays)
        return _result(None, Refusal(400, ErrorCode.MALFORMED.value, "a message must be a JSON object"))
    command_id = raw.get("command_id") if isinstance(raw, dict) else None
    shown_id = command_id if isinstance(command_id, str) and len(command_id) <= 200 else None
    try:
        message = CommandMessage.model_validate(raw)
    except ValidationError as invalid:
        usage = 'send {"type": "command", "command_id", "expected_version"?, "command"}: '
        return _result(shown_id, Refusal(400, ErrorCode.MALFORMED.value, usage + describe_validation(invalid)))
    try:
        version = await matches.command_version(
            match_id, caller, message.command_id, message.expected_version, message.command
        )
    except Exception as error:
        refusal = refusal_of(error)
        if refusal is None:
            raise
        return _result(message.command_id, refusal)
    return {"type": "result", "command_id": message.command_id, "ok": True, "version": version}


def _result(command_id: str | None, refusal: Refusal) -> ResultRefused:
    return {"type": "result", "command_id": command_id, "ok": False, "error": refusal.body().model_dump()}
