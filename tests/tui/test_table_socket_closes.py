"""How the table follows its socket's close codes (engine/protocol/socket_protocol.py): a final close is
not tried again, a restart is, from the last ``seq``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import cast

import httpx
import pytest
from websockets.asyncio.client import ClientConnection

from engine.protocol.socket_protocol import Close
from tests.tui.helpers import until
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.connection.api import Api
from tui_client.screens.signin_screen import SignInScreen

SERVER = "http://unoduo.test"
MATCH = "m_closes"


class ClosingSocket:
    """Accepted, then closed at once with ``code`` before any message (a refusal the server
    makes after the handshake, so that the client learns why)."""

    def __init__(self, code: int) -> None:
        self.close_code: int | None = code
        self.close_reason: str | None = "refused"

    async def _read(self) -> AsyncIterator[str]:
        return
        yield  # an async generator that ends at once

    def __aiter__(self) -> AsyncIterator[str]:
        return self._read()

    async def close(self) -> None:
        pass


def forbidden(request: httpx.Request) -> httpx.Response:
    return httpx.Response(403, json={"code": "forbidden", "message": "not revealed yet", "rule": None})


class CountingApi(Api):
    def __init__(self, code: int) -> None:
        super().__init__(SERVER, transport=httpx.MockTransport(forbidden))
        self.code = code
        self.opened = 0

    async def open_socket(self, match_id: str, since: int) -> ClientConnection:
        self.opened += 1
        return cast(ClientConnection, ClosingSocket(self.code))


@pytest.mark.anyio
async def test_a_table_refused_4403_after_the_handshake_is_not_tried_again(tmp_path: Path) -> None:
    """A spectator of a duplicate round's match not revealed yet: the socket opens and closes 4403.
    The table says why (the HTTP view's refusal) and stops; it reconnected every 0.2 s before."""
    api = CountingApi(Close.FORBIDDEN)
    app = make_play_app(SERVER, config_dir=tmp_path, api=api)
    async with app.run_test(size=(100, 30)) as pilot:
        assert isinstance(pilot.app, PlayApp)
        await until(pilot, lambda: isinstance(app.screen, SignInScreen) and app.screen.ready, "the sign-in screen")
        screen = app.open_table(MATCH, None, ())
        await until(pilot, lambda: bool(screen.ended), "the table to give up")
        assert "not revealed yet" in screen.ended.lower() and api.opened == 1


@pytest.mark.anyio
async def test_a_table_closed_for_a_restart_reconnects(tmp_path: Path) -> None:
    api = CountingApi(Close.RESTART)
    app = make_play_app(SERVER, config_dir=tmp_path, api=api)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SignInScreen) and app.screen.ready, "the sign-in screen")
        screen = app.open_table(MATCH, None, ())
        await until(pilot, lambda: api.opened >= 3, "two reconnections")
        assert not screen.ended
