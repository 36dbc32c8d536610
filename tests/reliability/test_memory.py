"""Memory a client can make a real server hold (issue 19, point 2), measured as the process's RSS.

- Spectator sockets that never read, on a finished match of a few thousand events, opened with
  ``since=0`` and a 4 KB receive buffer: the old server folded the whole match into one list per
  socket and held it (20 sockets: 102 MB → 430 MB, 367 MB after they closed). Now each holds a
  page of history and what its transport may buffer.
- Frames over the app's 64 KiB limit: uvicorn's default accepted 16 MiB ones and passed them to
  the app. Now uvicorn closes them 1009 after reading the frame's header.

Each test waits until the server has done all it will (every attacking socket has bytes queued
for sending, or was closed), never on a fixed sleep.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from bench.progress import wait_for
from engine.bots import get_bot
from server.app import make_app
from server.settings import Settings
from tests.reliability.attacks import (
    client_frame,
    close_code,
    read_head,
    served,
    server_connections,
    ws_upgrade,
)
from tests.server.helpers import ok, register

SPECTATORS = 30
PER_SOCKET_MB = 2.0  # what a socket that does not read may cost (the old server: ~16 MB here)
FRAMES = 20
FRAME_BYTES = 16 * 1024 * 1024


@pytest.fixture(scope="module")
def long_match(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, int]:
    """The longest of three finished matches (greedy against greedy, classic-2p), 1,500+ events, in a SQLite file."""
    db = tmp_path_factory.mktemp("long") / "long.sqlite3"
    settings = Settings(database_url=f"sqlite:///{db}", sqlite_synchronous="OFF", bot_think_seconds=0)
    with TestClient(make_app(settings)) as client:
        _, headers = register(client, "long")
        played = [play_greedy(client, headers) for _ in range(3)]
    match_id, events = max(played, key=lambda p: p[1])
    assert events > 1500
    return db, match_id, events


def play_greedy(client: TestClient, headers: dict[str, str]) -> tuple[str, int]:
    """A whole classic-2p match, the human seat played by the greedy bot too: its id and events."""
    bot = get_bot("greedy")
    body = {"opponent": "bot:greedy", "ruleset": "classic-2p"}
    match_id: str = ok(client.post("/api/matches", headers=headers, json=body), 201)["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={}))
    seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    step = 0
    while seen["phase"] != "match_over":
        command = bot.choose(seen, random.Random(step))
        sent = {"command_id": f"c{step}", "expected_version": seen["version"], "command": command}
        seen = ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=sent))["view"]
        step += 1
    return match_id, int(seen["version"])


@pytest.fixture
def db_copy(long_match: tuple[Path, str, int], tmp_path: Path) -> Iterator[Path]:
    copy = tmp_path / "db.sqlite3"
    shutil.copy(long_match[0], copy)
    yield copy


def read_whole_feed(port: int, match_id: str) -> int:
    """A spectator that reads: the number of event messages until the server closes (1000)."""
    count = 0
    with connect(f"ws://127.0.0.1:{port}/api/matches/{match_id}/ws?since=0", max_size=2**22) as ws:
        for _ in ws:
            count += 1
    return count


def test_spectators_that_never_read_cost_a_bounded_amount_of_memory(
    long_match: tuple[Path, str, int], db_copy: Path, tmp_path: Path
) -> None:
    _, match_id, events = long_match
    with served(tmp_path, db_copy) as server:
        assert read_whole_feed(server.port, match_id) == events  # warm: the match is loaded and cached
        before = server.rss_mb()
        sockets = [
            ws_upgrade(server.port, f"/api/matches/{match_id}/ws?since=0", rcvbuf=4096) for _ in range(SPECTATORS)
        ]
        wait_for(
            lambda: sum(1 for sent, _ in server_connections(server.port) if sent > 0) >= SPECTATORS,
            "every stuck spectator has bytes queued by the server",
        )
        # While they are stuck, a spectator that reads still gets the whole match.
        assert read_whole_feed(server.port, match_id) == events
        held = server.rss_mb()
        for sock in sockets:
            sock.close()
        wait_for(lambda: not server_connections(server.port), "the server closed the stuck sockets")
    grown = held - before
    print(f"{SPECTATORS} non-reading spectators on {events} events: {before:.0f} MB -> {held:.0f} MB")
    assert grown < SPECTATORS * PER_SOCKET_MB, f"{SPECTATORS} stuck sockets took {grown:.0f} MB"


def open_match(base: str) -> str:
    """A match against a house bot that nobody joined: its socket stays open, waiting."""
    token = ok(httpx.post(f"{base}/api/players", json={"name": "frames"}), 201)["token"]
    headers = {"Authorization": f"Bearer {token}"}
    match_id: str = ok(httpx.post(f"{base}/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
    return match_id


def test_frames_over_the_limit_are_closed_1009_unread(tmp_path: Path) -> None:
    with served(tmp_path, tmp_path / "frames.sqlite3") as server:
        match_id = open_match(server.base)
        before = server.rss_mb()
        sockets = []
        for _ in range(FRAMES):
            sock = ws_upgrade(server.port, f"/api/matches/{match_id}/ws")
            status, rest = read_head(sock)
            assert status == 101
            sockets.append((sock, rest))
        codes = []
        for sock, rest in sockets:
            frame = client_frame(b"x" * FRAME_BYTES)
            try:
                sock.sendall(frame)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server closed on reading the frame's header: what is asked
            try:
                codes.append(close_code(sock, rest))
            except (EOFError, ConnectionResetError):
                codes.append(-1)
            sock.close()
        held = server.rss_mb()
    print(f"{FRAMES} frames of {FRAME_BYTES} bytes: {before:.0f} MB -> {held:.0f} MB, close codes {set(codes)}")
    assert codes == [1009] * FRAMES
    assert held - before < 20, f"{FRAMES} oversize frames took {held - before:.0f} MB"


def test_many_oversize_frames_at_once_do_not_grow_the_server(tmp_path: Path) -> None:
    """20 sockets sending three 16 MiB frames each, all at once: the old server read them all
    (102 MB -> 1,191 MB, all of it still held after they closed)."""
    with served(tmp_path, tmp_path / "burst.sqlite3") as server:
        match_id = open_match(server.base)
        before = server.rss_mb()
        frame = client_frame(b"x" * FRAME_BYTES)
        sockets = []
        for _ in range(FRAMES):
            sock = ws_upgrade(server.port, f"/api/matches/{match_id}/ws")
            assert read_head(sock)[0] == 101
            sockets.append(sock)

        def send(sock: socket.socket) -> None:
            with contextlib.suppress(OSError):  # closed by the server after the first header
                for _ in range(3):
                    sock.sendall(frame)

        senders = [threading.Thread(target=send, args=(sock,)) for sock in sockets]
        for thread in senders:
            thread.start()
        for thread in senders:
            thread.join()
        wait_for(lambda: not server_connections(server.port), "the server closed every sending socket")
        held = server.rss_mb()
        for sock in sockets:
            sock.close()
    print(f"{FRAMES} sockets x 3 frames of {FRAME_BYTES} bytes at once: {before:.0f} MB -> {held:.0f} MB")
    assert held - before < 20, f"the frames took {held - before:.0f} MB"


def test_a_socket_whose_client_stops_reading_is_closed(
    long_match: tuple[Path, str, int], db_copy: Path, tmp_path: Path
) -> None:
    """No message taken for UNODUO_WS_SEND_TIMEOUT_SECONDS: the server lets the connection go
    (the old server kept such sockets for as long as their clients kept them)."""
    _, match_id, _ = long_match
    with served(tmp_path, db_copy, UNODUO_WS_SEND_TIMEOUT_SECONDS="2") as server:
        sockets = [ws_upgrade(server.port, f"/api/matches/{match_id}/ws?since=0", rcvbuf=4096) for _ in range(5)]
        wait_for(lambda: len(server_connections(server.port)) >= 5, "the sockets are open")
        wait_for(lambda: not server_connections(server.port), "the server let every stuck socket go")
        for sock in sockets:
            sock.close()
