"""Slow clients against a real server (issue 19, point 4): what uvicorn alone does not bound.

The old server never timed out a request head: connections trickling a header byte by byte
stayed open for as long as they trickled, and enough of them used up every descriptor. Now a
client has ``UNODUO_REQUEST_TIMEOUT_SECONDS`` to send a whole request, a head is at most
``UNODUO_MAX_HEAD_BYTES``, and one address holds at most ``UNODUO_CONNECTIONS_PER_ADDRESS``
connections (``server/connections.py``, docs/SERVER.md "Connections and limits").
"""

from __future__ import annotations

import select
import threading
import time
from pathlib import Path

import httpx

from bench.progress import wait_for
from tests.reliability.attacks import raw_socket, read_head, served, server_connections

TRICKLERS = 40
TRICKLE_EVERY = 0.5  # seconds between two bytes of one trickling client


class Tricklers:
    """``count`` connections that send a request head one byte at a time, until the server closes them."""

    def __init__(self, port: int, count: int) -> None:
        self.sockets = [raw_socket(port) for _ in range(count)]
        self.closed: set[int] = set()
        self.stop = threading.Event()
        for sock in self.sockets:
            sock.sendall(b"GET /api HTTP/1.1\r\nHost: x\r\n")
        self.thread = threading.Thread(target=self._trickle, daemon=True)
        self.thread.start()

    def _trickle(self) -> None:
        while not self.stop.is_set() and len(self.closed) < len(self.sockets):
            for index, sock in enumerate(self.sockets):
                if index in self.closed:
                    continue
                readable, _, _ = select.select([sock], [], [], 0)
                try:
                    if readable and not sock.recv(4096):
                        self.closed.add(index)
                        continue
                    sock.send(b"X")
                except OSError:  # reset by the server
                    self.closed.add(index)
            time.sleep(TRICKLE_EVERY)

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        for sock in self.sockets:
            sock.close()


def test_trickling_request_heads_are_closed_at_the_deadline_and_others_are_served(tmp_path: Path) -> None:
    with served(tmp_path, tmp_path / "slow.sqlite3", UNODUO_REQUEST_TIMEOUT_SECONDS="3") as server:
        tricklers = Tricklers(server.port, TRICKLERS)
        try:
            wait_for(lambda: len(server_connections(server.port)) >= TRICKLERS, "the tricklers are connected")
            # While they trickle, an ordinary request is answered.
            assert httpx.get(f"{server.base}/api", timeout=60).status_code == 200
            wait_for(lambda: len(tricklers.closed) == TRICKLERS, "the server closed every trickling connection")
        finally:
            tricklers.close()
        assert httpx.get(f"{server.base}/api", timeout=60).status_code == 200


def test_a_request_head_over_the_limit_is_answered_431(tmp_path: Path) -> None:
    with served(tmp_path, tmp_path / "head.sqlite3") as server:
        sock = raw_socket(server.port)
        try:
            sock.sendall(b"GET /api HTTP/1.1\r\nHost: x\r\n" + b"X-Big: " + b"a" * 40_000 + b"\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        status, _ = read_head(sock)
        sock.close()
    assert status == 431


def test_one_address_cannot_hold_more_than_its_connections(tmp_path: Path) -> None:
    cap = 10
    with served(tmp_path, tmp_path / "cap.sqlite3", UNODUO_CONNECTIONS_PER_ADDRESS=str(cap)) as server:
        wait_for(lambda: not server_connections(server.port), "the start-up check's connection is closed")
        held = [raw_socket(server.port) for _ in range(cap)]
        wait_for(lambda: len(server_connections(server.port)) >= cap, "the held connections are open")
        extra = raw_socket(server.port)
        extra.sendall(b"GET /api HTTP/1.1\r\nHost: x\r\n\r\n")
        status, _ = read_head(extra)
        extra.close()
        assert status == 503
        held.pop().close()  # one place free: a new connection is served again
        wait_for(lambda: httpx.get(f"{server.base}/api", timeout=60).status_code == 200, "a request is served")
        for sock in held:
            sock.close()
