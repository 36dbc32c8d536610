"""The lobby's live feed: ``WS /api/me/ws`` read for as long as the lobby is open
(docs/SERVER.md "The lobby socket").

:func:`follow_lobby` reads the socket and hands every message on as a Textual message: the
first one on each connection is ``{"type": "state", …}`` (what ``GET /api/me`` says), then one
per thing that concerns the player (``pairing``, ``match``, ``ruling``, ``tournament``). When
the socket drops it connects again after a growing pause (engine/protocol/socket_protocol.py's
:class:`~engine.protocol.socket_protocol.Reconnect`, as the table's socket does), and
the new connection's ``state`` replaces whatever the lobby knew: nothing said while it was down
is lost, because the state says where things stand. A refused token stops it for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any, Protocol

from textual.message import Message
from websockets.exceptions import ConnectionClosed

from engine.protocol.socket_protocol import FINAL, Reconnect
from tui_client.connection.api import ApiError


class FeedMessage(Message):
    """One message of the lobby socket (a dict with ``type``)."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__()
        self.data = data


class FeedUp(Message):
    """The lobby socket is connected (its ``state`` message follows)."""


class FeedDown(Message):
    """The lobby socket dropped (or could not connect); ``final``: it will not be tried again."""

    def __init__(self, reason: str, final: bool = False) -> None:
        super().__init__()
        self.reason = reason
        self.final = final


class LobbySocket(Protocol):
    """What :func:`follow_lobby` reads (a ``websockets`` client connection, or a test's fake)."""

    close_code: int | None
    close_reason: str | None

    def __aiter__(self) -> Any: ...

    async def close(self) -> None: ...


class LobbyApi(Protocol):
    async def open_lobby_socket(self) -> Any: ...


def parse(text: str | bytes) -> dict[str, Any] | None:
    """A lobby message as a dict with a string ``type``, or None for anything else (a type this
    client does not know is passed on: the lobby ignores it)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("type"), str):
        return data
    return None


async def follow_lobby(api: LobbyApi, post: Callable[[Message], object]) -> None:
    """Read the lobby socket until cancelled (or refused for good), posting what it says."""
    pauses = Reconnect()
    while True:
        try:
            socket: LobbySocket = await api.open_lobby_socket()
        except ApiError as error:
            if error.code == "final":
                post(FeedDown(error.message, final=True))
                return
            post(FeedDown(error.message))
            await asyncio.sleep(pauses.next_delay())
            continue
        post(FeedUp())
        try:
            async for text in socket:
                data = parse(text)
                if data is not None:
                    pauses.heard()
                    post(FeedMessage(data))
        except ConnectionClosed:
            pass
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(socket.close(), 1.0)
        code, reason = socket.close_code, socket.close_reason or ""
        if code in FINAL:
            post(FeedDown(reason or f"closed ({code})", final=True))
            return
        post(FeedDown(reason or f"closed ({code})"))
        await asyncio.sleep(pauses.next_delay())
