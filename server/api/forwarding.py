"""A match's commands and sockets, forwarded to the server that owns it (issue 24).

With several servers on one PostgreSQL database, each live match is owned by one of them
(``server.services.ownership``): only the owner holds it, runs its clock and moves its bots.
A request that reaches another server is **forwarded**, not redirected: the load balancer in
front of the servers (or the kernel, for the workers of ``unoduo serve --workers``, which share
one port) gives a client no way to reach a chosen server, and a client needs no sticky session
or second address. The server that received it has already checked the caller's token (so the
owner's wrong-token limit never counts a peer's address), then:

- a seat's command or join (``POST``) is sent on to the owner's ``peer_url`` with the caller's
  ``Authorization`` and body, and the owner's answer is returned as it is;
- a live event stream (``GET …/events?follow=1``) is streamed through;
- a socket (``WS …/ws``) is accepted here and joined to a socket on the owner, frame for frame
  (text is never parsed here); the owner's close code and reason are passed back. If the owner
  dies, the client's socket is closed 1012 and it reconnects with ``since``, to whichever
  server then owns the match.

A forwarded request carries :data:`FORWARDED` and the servers' key (:data:`PEER_KEY`, derived
from the director token's stored hash: every server of the database has it, no client does), and
a server never forwards such a request again (one hop at most): if ownership moved meanwhile it
answers itself, which is always correct, since appends are fenced by the store's ``(stream, seq)``.
:data:`FORWARDED` without the key is ignored (issue 32: a client's ``x-unoduo-forwarded: 1`` made
a server that does not own the match answer the command itself). If the owner cannot be reached
at all, the server answers itself as well.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import websockets
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response, StreamingResponse
from starlette.websockets import WebSocket, WebSocketDisconnect
from websockets.asyncio.client import ClientConnection

from engine.protocol.socket_protocol import Close
from server.api.write_deadline import write_deadline
from server.services.match_registry import MatchRegistry

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

FORWARDED = "x-unoduo-forwarded"  # a request one server sent on to another: never forwarded again
PEER_KEY = "x-unoduo-peer-key"  # a request only another server may make (a handoff): its key
PASSED_ON = ("authorization", "content-type")  # the request headers the owner needs
CONNECT_SECONDS = 3.0  # an owner that does not accept by then is taken as gone: the request is answered here
# How long a joined socket's end waits for the owner's closing handshake (websockets waits 10 s by
# default): under the server's 2 s graceful stop, so a stopping server is not left waiting on a
# loaded owner until its stop cancels the wait mid-close (a traceback in the log, seen under load).
UPSTREAM_CLOSE_SECONDS = 1.0
ANSWER_SECONDS = 30.0  # a command's answer (a join waits for the match's claim, a few queries)
UPSTREAM_MESSAGE_BYTES = 16 * 1024 * 1024  # the largest message taken from an owner (a page of history)


def _headers(connection: HTTPConnection) -> dict[str, str]:
    headers = {name: connection.headers[name] for name in PASSED_ON if name in connection.headers}
    headers[FORWARDED] = "1"
    key: str | None = connection.app.state.peer_key
    if key is not None:
        headers[PEER_KEY] = key
    return headers


def from_a_peer(connection: HTTPConnection) -> bool:
    """Whether the request carries the servers' key: it comes from another server of this database."""
    key: str | None = connection.app.state.peer_key
    given = connection.headers.get(PEER_KEY)
    return key is not None and given is not None and hmac.compare_digest(given.encode(), key.encode())


def forwarded(connection: HTTPConnection) -> bool:
    """A request another server forwarded here: :data:`FORWARDED`, believed only with the servers' key."""
    return bool(connection.headers.get(FORWARDED)) and from_a_peer(connection)


async def owner_elsewhere(connection: HTTPConnection, match_id: str) -> str | None:
    """The peer URL of the server owning ``match_id``, if the request must go there (None: answer here)."""
    if forwarded(connection):
        return None
    registry: MatchRegistry = connection.app.state.match_registry
    if registry.ownership.owns(match_id):
        return None
    return await registry.ownership.owner_url(match_id)


class Peers:
    """The HTTP client this server forwards with (one pool, made on first use)."""

    def __init__(self) -> None:
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            # Speed: httpx is imported when this server first forwards, never on SQLite (measured: 0.1-0.25 s of start-up CPU)
            import httpx

            timeout = httpx.Timeout(ANSWER_SECONDS, connect=CONNECT_SECONDS)
            self._client = httpx.AsyncClient(timeout=timeout, limits=httpx.Limits(max_keepalive_connections=64))
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _unreachable(connection: HTTPConnection, peer_url: str, what: str, exc: BaseException) -> None:
    log.warning("forwarding %s to %s failed (%r): answering here", what, peer_url, exc)
    registry: MatchRegistry = connection.app.state.match_registry
    registry.ownership.unreachable(peer_url)


def _peers(connection: HTTPConnection) -> Peers:
    peers: Peers = connection.app.state.peers
    return peers


async def forward_request(request: Request, peer_url: str) -> Response | None:
    """Send ``request`` on to the owner at ``peer_url``; its answer, or None if it cannot be reached."""
    import httpx

    try:
        upstream = await _peers(request).client.request(
            request.method,
            peer_url + request.url.path,
            params=request.query_params,
            content=await request.body(),
            headers=_headers(request),
        )
    except httpx.TransportError as exc:
        _unreachable(request, peer_url, request.url.path, exc)
        return None
    return Response(upstream.content, upstream.status_code, media_type=upstream.headers.get("content-type"))


async def forward_stream(request: Request, peer_url: str) -> Response | None:
    """A live event stream of the owner at ``peer_url``, passed through chunk by chunk (None: unreachable)."""
    import httpx

    client = _peers(request).client
    outgoing = client.build_request(
        "GET",
        peer_url + request.url.path,
        params=request.query_params,
        headers=_headers(request),
        timeout=httpx.Timeout(None, connect=CONNECT_SECONDS),
    )
    try:
        upstream = await client.send(outgoing, stream=True)
    except httpx.TransportError as exc:
        _unreachable(request, peer_url, request.url.path, exc)
        return None

    async def chunks() -> AsyncIterator[bytes]:
        try:
            async for chunk in upstream.aiter_raw():
                yield chunk
        except httpx.TransportError:
            return  # the owner went away: the stream ends, and the client reconnects with since
        finally:
            await upstream.aclose()

    return StreamingResponse(chunks(), upstream.status_code, media_type=upstream.headers.get("content-type"))


async def take_over(websocket: WebSocket, match_id: str, peer_url: str) -> bool:
    """A seat's socket reached a server that does not own its match: ask the owner to hand the
    match over (it does unless a seat's own socket is open there), and claim it; whether this
    server owns it now, so the socket is served here rather than forwarded. Only for a seat's
    socket: a spectator's is forwarded, as it moves no seat closer to the match."""
    import httpx

    registry: MatchRegistry = websocket.app.state.match_registry
    key: str | None = websocket.app.state.peer_key
    if key is None:
        return False
    try:
        answer = await _peers(websocket).client.post(
            f"{peer_url}/api/matches/{match_id}/handoff", headers={PEER_KEY: key, FORWARDED: "1"}
        )
    except httpx.TransportError as exc:
        _unreachable(websocket, peer_url, "a handoff", exc)
        return False
    if answer.status_code != 200 or not answer.json().get("handed_over"):
        return False
    return await registry.ownership.claim(match_id, handed_over=True)


def _socket_url(websocket: WebSocket, peer_url: str) -> str:
    scheme, _, rest = peer_url.partition("://")
    query = websocket.url.query
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest}{websocket.url.path}{'?' + query if query else ''}"


async def forward_socket(websocket: WebSocket, peer_url: str, send_timeout: float) -> bool:
    """Join the client's socket to one on the owner at ``peer_url``; False (nothing accepted) if
    the owner cannot be reached, so the caller answers itself.

    Each frame is passed on as it is, both ways. A client that takes nothing for ``send_timeout``
    seconds is closed 1013 like any other (and the owner's socket with it)."""
    try:
        upstream = await websockets.connect(
            _socket_url(websocket, peer_url),
            additional_headers=_headers(websocket),
            open_timeout=CONNECT_SECONDS,
            max_size=UPSTREAM_MESSAGE_BYTES,
            compression=None,
            close_timeout=UPSTREAM_CLOSE_SECONDS,
        )
    except (OSError, TimeoutError, websockets.InvalidHandshake) as exc:
        _unreachable(websocket, peer_url, "a socket", exc)
        return False
    await websocket.accept()
    down = asyncio.create_task(_downstream(upstream, websocket, send_timeout))
    up = asyncio.create_task(_upstream(websocket, upstream))
    try:
        await asyncio.wait({down, up}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (down, up):
            task.cancel()
        await asyncio.gather(down, up, return_exceptions=True)
        await upstream.close()
    code, reason = _closing(upstream, down)
    with contextlib.suppress(RuntimeError, WebSocketDisconnect):
        await websocket.close(code, reason)
    return True


async def _downstream(upstream: ClientConnection, websocket: WebSocket, send_timeout: float) -> None:
    async with write_deadline(send_timeout) as deadline:
        async for message in upstream:
            await deadline.send(websocket, message)


async def _upstream(websocket: WebSocket, upstream: ClientConnection) -> None:
    while True:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            return
        text, data = frame.get("text"), frame.get("bytes")
        await upstream.send(text if text is not None else (data or b""))


def _closing(upstream: ClientConnection, down: asyncio.Task[None]) -> tuple[int, str]:
    """The close code and reason the client gets: the owner's, or why the joined socket ended."""
    if not down.cancelled() and isinstance(down.exception(), TimeoutError):
        return 1013, "you took no message for too long: reconnect with since"
    received = upstream.protocol.close_rcvd
    if received is not None and received.code not in (1005, 1006):
        return received.code, received.reason
    return Close.RESTART, "the server playing this match went away: reconnect with since"
