"""The real server app in this process, for the terminal client's tests: the client talks to it
through ``httpx.ASGITransport`` (no port, no subprocess); the lobby's socket is left unconnected."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from server.app import make_app
from server.settings import Settings
from tui_client.connection.api import Api

SERVER = "http://unoduo.test"


class InProcessApi(Api):
    """The client's connection to the server app in this process; no lobby socket (it waits)."""

    def __init__(self, app: FastAPI) -> None:
        super().__init__(SERVER, transport=httpx.ASGITransport(app=app))

    async def open_lobby_socket(self) -> Any:
        await asyncio.Event().wait()


@asynccontextmanager
async def served(db: Path, director: str) -> AsyncIterator[FastAPI]:
    """The server app on the SQLite file ``db``, started (its lifespan) and stopped around the block."""
    settings = Settings(
        database_url=f"sqlite:///{db}",
        director_token=director,
        sqlite_synchronous="NORMAL",
        bot_think_seconds=0,
    )
    app = make_app(settings)
    async with app.router.lifespan_context(app):
        yield app
