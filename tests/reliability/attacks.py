"""Attacking a real ``unoduo serve`` process from outside: raw sockets, its memory, its connections.

The memory, slow-client and rate-limit tests (``test_memory.py``, ``test_slowloris.py``,
``test_forwarded.py``) and the before/after figures of docs/RELIABILITY.md use these: a server
started as ``tests/cli/serving.py`` starts one, its resident memory read from ``/proc``, WebSocket
handshakes written by hand on sockets with a small receive buffer that are then never read, and
the server's own send queues, so that a test waits until the server has sent all it could.
"""

from __future__ import annotations

import base64
import contextlib
import os
import random
import socket
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.cli.serving import ROOT, free_port, serve, serve_env, stop, wait_until_up

PATIENCE = 120.0  # seconds a condition may take on a loaded machine before the test fails


@dataclass
class Served:
    base: str
    port: int
    pid: int
    log: Path

    def rss_mb(self) -> float:
        return rss_mb(self.pid)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@contextlib.contextmanager
def served(tmp: Path, db: Path, *, root: Path | None = None, **settings: str) -> Iterator[Served]:
    """``unoduo serve`` on ``db`` (a SQLite file) and a free port; ``root``: the checkout whose code
    runs (default: ``UNODUO_ATTACK_ROOT``, else this one; an old checkout gives the "before" figures)."""
    root = root or Path(os.environ.get("UNODUO_ATTACK_ROOT", ROOT))
    port = free_port()
    env = serve_env(**settings)
    env["PYTHONPATH"] = str(root)
    log = tmp / f"serve-{port}.log"
    process = serve("--port", str(port), "--db", str(db), env=env, cwd=root, log=log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        yield Served(base, port, process.pid, log)
    finally:
        if process.poll() is None:
            stop(process)


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid``, in MB (10^6 bytes)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024 / 1e6
    raise AssertionError(f"no VmRSS for {pid}")


def raw_socket(port: int, rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:  # before connect, so the window the server sees is small from the start
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(PATIENCE)
    sock.connect(("127.0.0.1", port))
    return sock


def ws_upgrade(port: int, path: str, headers: dict[str, str] | None = None, rcvbuf: int | None = None) -> socket.socket:
    """A socket that has sent a WebSocket upgrade request for ``path`` and read nothing."""
    sock = raw_socket(port, rcvbuf)
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
        *(f"{name}: {value}" for name, value in (headers or {}).items()),
    ]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    return sock


def read_head(sock: socket.socket) -> tuple[int, bytes]:
    """The status of an HTTP response and whatever came after its head."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            raise AssertionError(f"the connection closed in the head: {data!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), rest


def read_frame(sock: socket.socket, buffered: bytes = b"") -> tuple[int, bytes, bytes]:
    """One server frame: (opcode, payload, bytes read past it)."""
    data = buffered

    def need(n: int) -> None:
        nonlocal data
        while len(data) < n:
            chunk = sock.recv(65536)
            if not chunk:
                raise EOFError("the server closed the connection")
            data += chunk

    need(2)
    opcode, length, at = data[0] & 0x0F, data[1] & 0x7F, 2
    if length == 126:
        need(4)
        length, at = struct.unpack("!H", data[2:4])[0], 4
    elif length == 127:
        need(10)
        length, at = struct.unpack("!Q", data[2:10])[0], 10
    need(at + length)
    return opcode, data[at : at + length], data[at + length :]


def close_code(sock: socket.socket, buffered: bytes = b"") -> int:
    """Read frames until the server's close frame; its code."""
    while True:
        opcode, payload, buffered = read_frame(sock, buffered)
        if opcode == 0x8:
            return int(struct.unpack("!H", payload[:2])[0]) if len(payload) >= 2 else 1005


def client_frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """A masked client frame (RFC 6455 requires clients to mask)."""
    mask = random.randbytes(4)
    length = len(payload)
    if length < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
    elif length < 2**16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if length < 4096 else _mask_fast(payload, mask)
    return head + mask + masked


def _mask_fast(payload: bytes, mask: bytes) -> bytes:
    whole = (mask * (len(payload) // 4 + 1))[: len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(whole, "big")).to_bytes(len(payload), "big")


def server_connections(port: int) -> list[tuple[int, int]]:
    """The server's established TCP connections on ``port``: (send queue, receive queue) bytes each."""
    out = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state, queues = fields[1], fields[3], fields[4]
        if int(local.split(":")[1], 16) == port and state == "01":  # 01: ESTABLISHED
            tx, rx = (int(q, 16) for q in queues.split(":"))
            out.append((tx, rx))
    return out
