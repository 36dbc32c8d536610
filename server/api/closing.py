"""Closing a socket the one way every route does: with a code of engine/protocol/socket_protocol.py's
:class:`~engine.protocol.socket_protocol.Close`, a reason cut to what a close frame carries, quietly if the
client has gone, and giving up after ``timeout`` seconds if it does not read (the connection is
then aborted: ``server.connections``)."""

from __future__ import annotations

import asyncio
import contextlib

from starlette.websockets import WebSocket, WebSocketDisconnect

from engine.protocol.socket_protocol import close_reason


async def close_quietly(websocket: WebSocket, code: int, reason: str, *, timeout: float | None = None) -> None:
    with contextlib.suppress(RuntimeError, WebSocketDisconnect, TimeoutError):
        await asyncio.wait_for(websocket.close(code, close_reason(reason)), timeout)
