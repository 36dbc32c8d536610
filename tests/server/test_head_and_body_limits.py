"""A request's head and body limits, counted apart (issue 32, point 6): a body sent in the same
read as its head is the body's, never the head's. Before, ``GuardedHttpProtocol`` counted every
byte of a read that began with a head, so a 40 KiB body sent with its head was answered
**431 "head over limit"** instead of being taken (or, over 64 KiB, refused 413 as documented).

The protocol is driven directly, one ``data_received`` per request as a client's single write
arrives, so the test does not depend on how TCP splits the bytes.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi import FastAPI, Request

from cli.serve_runtime import uvicorn_config
from server.errors import install_error_handlers
from server.limits import BodySizeLimit
from server.settings import Settings

BODY_LIMIT = 64 * 1024
HEAD_LIMIT = 32 * 1024


def tiny_app() -> FastAPI:
    app = FastAPI()
    app.add_middleware(BodySizeLimit, max_bytes=BODY_LIMIT)
    install_error_handlers(app)

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, int]:
        return {"bytes": len(await request.body())}

    return app


class Transport(asyncio.Transport):
    """What the protocol writes, kept; which protocol holds the connection."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closing = False
        self.protocol: Any = None

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 40000)}.get(name, default)

    def write(self, data: Any) -> None:
        self.written += data

    def close(self) -> None:
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol

    def get_protocol(self) -> Any:
        return self.protocol

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _answer(request: bytes, responses: int = 1) -> tuple[int, bytes]:
    config = uvicorn_config(tiny_app(), Settings(max_head_bytes=HEAD_LIMIT, max_body_bytes=BODY_LIMIT))
    config.load()
    from uvicorn.server import ServerState

    protocol = config.http_protocol_class(  # type: ignore[call-arg]
        config=config, server_state=ServerState(), app_state={}, _loop=asyncio.get_running_loop()
    )
    transport = Transport()
    transport.set_protocol(protocol)
    protocol.connection_made(transport)
    protocol.data_received(request)  # head and body in one read, as a client's one write arrives
    for _ in range(500):
        head, _, body = bytes(transport.written).partition(b"\r\n\r\n")
        complete = b"content-length" in head and len(body) >= _length(head)
        if head and (transport.closing or (complete and body.count(b"HTTP/1.1 ") >= responses - 1)):
            break
        await asyncio.sleep(0.01)
    protocol.connection_lost(None)
    status = int(head.split(b" ", 2)[1])
    return status, body


def _length(head: bytes) -> int:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def post(body: bytes, extra_header: bytes = b"") -> bytes:
    return (
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
        + extra_header
        + b"Content-Length: %d\r\n\r\n" % len(body)
        + body
    )


@pytest.mark.parametrize("size", [HEAD_LIMIT - 100, HEAD_LIMIT + 1, 40 * 1024, BODY_LIMIT - 1, BODY_LIMIT])
def test_a_body_sent_with_its_head_is_the_bodys_up_to_the_body_limit(size: int) -> None:
    status, body = asyncio.run(_answer(post(b"x" * size)))
    assert status == 200, (status, body[:200])
    assert body == b'{"bytes":%d}' % size


def test_a_body_over_the_limit_sent_with_its_head_is_413_not_431() -> None:
    status, body = asyncio.run(_answer(post(b"x" * (BODY_LIMIT + 1))))
    assert status == 413, (status, body[:200])
    assert b'"too_large"' in body


def test_a_head_over_its_limit_is_still_431_whatever_follows_it() -> None:
    big_header = b"X-Big: " + b"a" * HEAD_LIMIT + b"\r\n"
    status, body = asyncio.run(_answer(post(b"x" * 10, big_header)))
    assert status == 431 and b"request head is over" in body


def test_two_requests_in_one_read_are_both_answered() -> None:
    status, rest = asyncio.run(_answer(post(b"y" * 40_000) + post(b"z" * 3), responses=2))
    assert status == 200 and rest.startswith(b'{"bytes":40000}HTTP/1.1 200 OK'), rest[:300]
    assert rest.endswith(b'{"bytes":3}')
