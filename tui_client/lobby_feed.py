"""The lobby's live feed: ``WS /api/me/ws`` read for as long as the lobby is open
(docs/SERVER.md "The lobby socket").

:func:`follow_lobby` reads the socket and hands every message on as a Textual message: the
first one on each connection is ``{"type": "state", …}`` (what ``GET /api/me`` says), then one
per thing that concerns the player (``pairing``, ``match``, ``ruling``, ``tournament``). When
the socket drops it connects again after a growing pause (0.2 s up to :data:`MAX_DELAY`), and
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

from tui_client.api import ApiError

RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0, 5.0)  # then every MAX_DELAY
MAX_DELAY = RECONNECT_DELAYS[-1]
# A refusal (a bad token), or 4409: a newer lobby socket of the same player took this one's place
# (the server asks not to reconnect by itself). 1013 (fell behind) and 1012 (restarting) reconnect.
FINAL_CLOSE = frozenset({4400, 4401, 4403, 4409, 1008})


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
    """A lobby message as a dict with a string ``type``, or None for anything else."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("type"), str):
        return data
    return None


async def follow_lobby(api: LobbyApi, post: Callable[[Message], object]) -> None:
    """Read the lobby socket until cancelled (or refused for good), posting what it says."""
    failures = 0
    while True:
        try:
            socket: LobbySocket = await api.open_lobby_socket()
        except ApiError as error:
            if error.code == "final":
                post(FeedDown(error.message, final=True))
                return
            post(FeedDown(error.message))
            await asyncio.sleep(RECONNECT_DELAYS[min(failures, len(RECONNECT_DELAYS) - 1)])
            failures += 1
            continue
        post(FeedUp())
        try:
            async for text in socket:
                data = parse(text)
                if data is not None:
                    failures = 0  # a connection that speaks: the next drop starts the pauses again
                    post(FeedMessage(data))
        except ConnectionClosed:
            pass
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(socket.close(), 1.0)
        code, reason = socket.close_code, socket.close_reason or ""
        if code in FINAL_CLOSE:
            post(FeedDown(reason or f"closed ({code})", final=True))
            return
        post(FeedDown(reason or f"closed ({code})"))
        await asyncio.sleep(RECONNECT_DELAYS[min(failures, len(RECONNECT_DELAYS) - 1)])
        failures += 1
