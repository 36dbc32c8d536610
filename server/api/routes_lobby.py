"""The player's own corner: ``WS /api/me/ws`` (the lobby, live) and ``GET /api/me/disputes``.

The socket authenticates as the match socket does (``server.deps.authenticate``: the header,
or ``?token=``; the same wrong-token limit) and is refused the same way, after accepting it:
4401 without a player's token, 4429 too many wrong tokens, 1013 when the database is away.
Then one ``state`` message (what ``GET /api/me`` says) and one message per thing that
concerns the player (``server.services.lobby``); with ``?lobby=1``, a ``lobby`` message with
everything the lobby draws, first and at each change (``GET /api/me/lobby`` answers the same). Close codes after that: 4409 a newer socket of
the same player took this one's place (at most four at once), 1013 the client fell behind or
took no message for ``UNODUO_WS_SEND_TIMEOUT_SECONDS`` (reconnect: a fresh state), 1012 the
server is stopping. What the client sends is read and ignored (it only keeps the socket open).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Request, WebSocket

from engine.protocol.socket_protocol import Close
from server.api.closing import close_quietly
from server.api.write_deadline import write_deadline
from server.deps import PlayerDep, TournamentServiceDep, authenticate
from server.domain_errors import Unauthorized
from server.errors import error_responses, refusal_of
from server.schemas import DisputePublic, LobbyState
from server.services.lobby import Closing, Lobby, LobbySocket
from server.services.lobby_state import disputes_shown

router = APIRouter()


@router.websocket("/api/me/ws")
async def lobby_socket(
    websocket: WebSocket,
    token: Annotated[str | None, Query(max_length=200)] = None,
    lobby_state: Annotated[bool, Query(alias="lobby")] = False,
) -> None:
    """The lobby, live: a ``state`` message, then ``pairing``, ``match``, ``ruling`` and ``tournament``
    messages; with ``?lobby=1`` also a ``lobby`` message (everything the lobby draws) first and at each change."""
    lobby: Lobby = websocket.app.state.lobby
    send_timeout: float = websocket.app.state.settings.ws_send_timeout_seconds
    try:
        caller = await authenticate(websocket, token)
        if caller.player is None:
            raise Unauthorized("the lobby socket needs a player's token ('Authorization: Bearer TOKEN' or ?token=)")
        player = caller.player
        socket, state = await lobby.connect(
            player, wants_state=lobby_state
        )  # the state read here: a refusal closes as below
    except Exception as error:
        refusal = refusal_of(error)
        if refusal is None:
            raise
        await websocket.accept()
        await close_quietly(websocket, refusal.close_code, f"{refusal.code}: {refusal.message}")
        return
    try:
        await websocket.accept()
        sender = asyncio.create_task(_send(websocket, socket, state, send_timeout))
        receiver = asyncio.create_task(_receive(websocket))
        _done, pending = await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({task})
        for task in (sender, receiver):
            if task.done() and not task.cancelled():
                task.exception()  # retrieved: a client gone is the ordinary end of a socket
    finally:
        lobby.disconnect(socket)


async def _send(websocket: WebSocket, socket: LobbySocket, state: Mapping[str, Any], timeout: float) -> None:
    """The ``state`` first, then each queued message; a :class:`Closing` closes the socket as it says."""
    try:
        async with write_deadline(timeout) as deadline:
            await deadline.send(websocket, orjson.dumps(state).decode())
            while True:
                message = await socket.queue.get()
                if isinstance(message, Closing):
                    await close_quietly(websocket, message.code, message.reason, timeout=1)
                    return
                await deadline.send(websocket, orjson.dumps(message).decode())
    except TimeoutError:
        reason = "you took no message for too long: reconnect for a fresh state"
        await close_quietly(websocket, Close.TRY_AGAIN, reason, timeout=1)


async def _receive(websocket: WebSocket) -> None:
    """Read (and drop) what the client sends, until it goes."""
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            return


@router.get(
    "/api/me/disputes", tags=["players"], response_model=list[DisputePublic], responses=error_responses(401, 503)
)
async def my_disputes(player: PlayerDep, tournaments: TournamentServiceDep) -> list[DisputePublic]:
    """The disputes this player raised or whose match they played, oldest first, each with its ruling
    once made. The other seat's note is shown once the match is over (it may speak of their hand) and,
    for a duplicate round's match, once its round is revealed."""
    return await disputes_shown(tournaments, player.id)


@router.get("/api/me/lobby", tags=["players"], response_model=LobbyState, responses=error_responses(401, 503))
async def my_lobby(player: PlayerDep, request: Request) -> LobbyState:
    """Everything the lobby draws for this player now: the body of the lobby socket's ``lobby``
    message (docs/SERVER.md "The lobby socket")."""
    lobby: Lobby = request.app.state.lobby
    return await lobby.reader.state(player)
