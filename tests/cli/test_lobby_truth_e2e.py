"""Issue 33, "Must exist" 1, on two ``unoduo serve`` processes sharing PostgreSQL: ann's requests
and lobby socket go to one, bob's to the other, the Swiss is made on bob's and the tables
tournament on ann's (each followed by the other process when its stream first grows), and after
every event both lobbies' lines are what the API of their own process says
(tests/server/lobby_truth.py; the same evening on one process: tests/server/test_lobby_truth.py)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import register
from tests.server.lobby_truth import Evening, Observer
from tests.server.test_lobby_truth import assert_the_evening_was_seen

DIRECTOR_TOKEN = "director-token-lobby-truth-0123456789"
DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}


@contextlib.contextmanager
def server(env: dict[str, str], log: Path) -> Iterator[str]:
    """One ``unoduo serve`` on ``env``'s database, its output in ``log`` (an evening's access log
    would fill a pipe nobody reads, and the server would stall on its next write); no traceback."""
    port = free_port()
    process = serve("--port", str(port), env=env, log=log)
    try:
        wait_until_up(f"http://127.0.0.1:{port}", process)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)
    assert "Traceback" not in log.read_text(), log.read_text()


@pytest.fixture
def two_servers(url: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    env = serve_env(UNODUO_DATABASE_URL=url, UNODUO_DIRECTOR_TOKEN=DIRECTOR_TOKEN)
    with server(env, tmp_path / "one.log") as one, server(env, tmp_path / "two.log") as two:
        yield one, two


def lobby_socket(base: str, headers: dict[str, str]) -> ClientConnection:
    token = headers["Authorization"].removeprefix("Bearer ")
    return connect(base.replace("http://", "ws://") + f"/api/me/ws?lobby=1&token={token}", open_timeout=30)


def receiver(socket: ClientConnection) -> Any:
    def receive(timeout: float) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(socket.recv(timeout=timeout))
        return message

    return receive


@pytest.mark.parametrize("db_kind", ["postgres"])
def test_two_tournaments_on_two_servers_every_lobby_line_is_the_apis(two_servers: tuple[str, str]) -> None:
    one, two = two_servers
    with (
        httpx.Client(base_url=one, timeout=30) as here,
        httpx.Client(base_url=two, timeout=30) as there,
    ):
        ann_id, ann_h = register(here, "ann")
        bob_id, bob_h = register(there, "bob")
        with lobby_socket(one, ann_h) as ann_ws, lobby_socket(two, bob_h) as bob_ws:
            ann = Observer("ann", ann_id, ann_h, here, receiver(ann_ws))
            bob = Observer("bob", bob_id, bob_h, there, receiver(bob_ws))
            Evening(ann, bob, DIRECTOR).run()
    assert_the_evening_was_seen(ann, bob)
