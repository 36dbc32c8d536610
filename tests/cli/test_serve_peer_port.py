"""A worker's peer port (``unoduo serve --workers N``) is not capped per client address.

Every connection another server forwards to a worker comes from that server's address, so the
per-address cap (``UNODUO_CONNECTIONS_PER_ADDRESS``) would throttle forwarding. Connections
accepted on a port of ``peer_ports`` are not counted (``server/connections.py``); those on the
public port still are. One uvicorn server (the config ``unoduo serve`` makes) serves both sockets
here, in a thread, with a cap of one connection per address.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

from fastapi import FastAPI, WebSocket
from websockets.sync.client import connect

from bench.progress import STALL_SECONDS, wait_for
from cli.serve_runtime import listening_socket, peer_url, uvicorn_config
from server.connections import ConnectionLimits
from server.settings import Settings

REQUEST = b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"


def tiny_app() -> FastAPI:
    app = FastAPI()

    @app.get("/hello")
    def hello() -> dict[str, str]:
        return {"hello": "world"}

    @app.websocket("/ws")
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        async for text in websocket.iter_text():
            await websocket.send_text(text)

    return app


@contextlib.contextmanager
def serving(per_address: int) -> Iterator[tuple[int, int, ConnectionLimits]]:
    """A server on a public and a peer port (both on 127.0.0.1): the ports and its counts."""
    import uvicorn

    public = listening_socket("127.0.0.1", 0)
    peer = listening_socket("127.0.0.1", 0)
    public_port, peer_port = public.getsockname()[1], peer.getsockname()[1]
    app = tiny_app()
    config = uvicorn_config(app, Settings(connections_per_address=per_address), frozenset({peer_port}))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [public, peer]}, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, "the server started")
        yield public_port, peer_port, app.state.connection_limits
    finally:
        server.should_exit = True
        thread.join(timeout=STALL_SECONDS)
        public.close()
        peer.close()


def ask(port: int) -> tuple[socket.socket, bytes]:
    """A connection that sent one request and holds its answer's head; left open (keep-alive)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=STALL_SECONDS)
    sock.sendall(REQUEST)
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    return sock, answer


def test_connections_to_the_peer_port_are_not_capped_per_address_but_the_public_ones_are() -> None:
    with serving(per_address=1) as (public_port, peer_port, limits), contextlib.ExitStack() as held:
        assert limits.exempt_ports == {peer_port}
        answers = []
        for _ in range(3):  # three at once from one address, over a cap of one
            sock, answer = ask(peer_port)
            held.callback(sock.close)
            answers.append(answer)
        assert all(a.startswith(b"HTTP/1.1 200") for a in answers), answers
        socket_to_peer = held.enter_context(connect(f"ws://127.0.0.1:{peer_port}/ws", open_timeout=STALL_SECONDS))
        socket_to_peer.send("ping")
        assert socket_to_peer.recv(timeout=STALL_SECONDS) == "ping"
        assert not limits.open, "a peer's connection was counted"

        first, answer = ask(public_port)
        held.callback(first.close)
        assert answer.startswith(b"HTTP/1.1 200"), answer
        assert limits.open == {"127.0.0.1": 1}
        second, answer = ask(public_port)
        held.callback(second.close)
        assert answer.startswith(b"HTTP/1.1 503"), answer

        # A socket to the public port is counted (it takes its HTTP connection's place); one to the
        # peer port is not, and closing either gives back only what was taken.
        first.close()
        wait_for(lambda: not limits.open, "every connection counted closed")
        with connect(f"ws://127.0.0.1:{public_port}/ws", open_timeout=STALL_SECONDS) as public_socket:
            public_socket.send("pong")
            assert public_socket.recv(timeout=STALL_SECONDS) == "pong"
            assert limits.open == {"127.0.0.1": 1}
        socket_to_peer.close()
        wait_for(lambda: not limits.open, "every connection counted closed")


def test_only_the_peer_ports_are_exempt() -> None:
    limits = ConnectionLimits(10.0, 1024, 1, frozenset({4321}))
    assert not limits.counts(("127.0.0.1", 4321))
    assert limits.counts(("127.0.0.1", 8000))
    assert limits.counts(None)
    assert ConnectionLimits(10.0, 1024, 1).counts(("127.0.0.1", 4321))


def test_the_peer_url_names_a_wildcard_address_by_the_host_name() -> None:
    assert peer_url("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert peer_url("10.1.2.3", 41000) == "http://10.1.2.3:41000"
    assert peer_url("::1", 8000) == "http://[::1]:8000"
    assert peer_url("0.0.0.0", 8000) == f"http://{socket.gethostname()}:8000"
    assert peer_url("::", 9000) == f"http://{socket.gethostname()}:9000"


def test_a_port_takes_connections_before_its_server_runs() -> None:
    """A worker prints (and publishes) its peer URL before uvicorn serves: a server that reads it
    at once must wait in the kernel's queue, not be refused (found by the CI: ECONNREFUSED)."""
    with contextlib.closing(listening_socket("127.0.0.1", 0)) as sock:
        port = sock.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=STALL_SECONDS) as early:
            early.sendall(REQUEST)  # taken into the queue: nobody serves it yet
            accepted, _ = sock.accept()  # what the server does once it runs
            with accepted:
                assert accepted.recv(4096) == REQUEST
