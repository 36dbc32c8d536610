"""What uvicorn does not bound by itself: a request's read time, its head's size, connections per address.

uvicorn has no timeout on reading a request: its keep-alive timer is reset by every byte
received, so a client that trickles a header a byte at a time holds its connection for ever
(slowloris). Nor does its httptools parser cap the size of a request head, or the connections
of one address. :func:`guarded_protocols` makes uvicorn's own HTTP and WebSocket protocol classes
(``uvicorn.Config(http=…, ws=…)``) do so:

- **a request deadline**: from the moment a connection opens (or its last response ends) the
  client has ``request_seconds`` to send a whole request, head and body; then the connection is
  closed. A response that takes long (a ``follow=1`` stream) or a WebSocket is not timed;
- **a head limit**: a request head over ``head_bytes`` is answered 431 and the connection closed;
- **connections per address**: over ``per_address`` open connections (HTTP and WebSocket
  alike) from one client address, a new one is answered 503 and closed at once (0: no cap);
- **a socket whose client stopped reading**: when its handler ends (or its keep-alive ping goes
  unanswered) while the server's writes to it are paused, the connection is aborted, not left
  waiting for a client that will never take the bytes.

The client address is the TCP peer's: these limits run before any proxy header is read.
Connections that arrive on a **peer port** (``exempt_ports``: the private port on which each
worker of ``unoduo serve --workers N`` takes what other servers forward to it, docs/SERVER.md
"Several workers on one host") are not counted per address: they all come from a few peer
addresses, each carrying many clients' requests and sockets. Their other limits still apply.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s"
)
HEAD_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain\r\ncontent-length: %d\r\n"
    b"connection: close\r\n\r\n%s"
)


def _plain_answer(template: bytes, text: str) -> bytes:
    body = text.encode()
    return template % (len(body), body)


@dataclass
class ConnectionLimits:
    """The limits of one server, and the open connections it counts per client address."""

    request_seconds: float
    head_bytes: int
    per_address: int
    exempt_ports: frozenset[int] = frozenset()  # local ports whose connections are not counted (peer ports)
    open: Counter[str] = field(default_factory=Counter)
    closed_slow: int = 0  # connections closed at the request deadline (docs/RELIABILITY.md figures)

    def counts(self, local: tuple[str, int | None] | None) -> bool:
        """Whether a connection accepted at the local address ``local`` counts per client address:
        not if it came in on a peer port."""
        return local is None or local[1] not in self.exempt_ports

    def take(self, address: str) -> bool:
        """Count a new connection of ``address``; False (not counted) if it is over the cap."""
        if self.per_address and self.open[address] >= self.per_address:
            return False
        self.open[address] += 1
        return True

    def give_back(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


def _address(client: tuple[str, int] | None) -> str:
    return client[0] if client else "unknown"


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a request deadline, a head limit and a per-address cap."""

    limits: ConnectionLimits  # set on the subclass :func:`guarded_protocols` makes

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._counted = False
        self._head = 0  # bytes received of a request head still being read; -1: no head being read
        self._heads_done = 0  # request heads parsed whole on this connection
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.limits.counts(self.server):
            self._arm()  # a peer's connection: not counted, still timed
            return
        if not self.limits.take(_address(self.client)):
            message = f"too many connections from your address (at most {self.limits.per_address}); close some first"
            transport.write(_plain_answer(TOO_MANY, message))
            transport.close()
            return
        self._counted = True
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._counted:
            self._counted = False
            self.limits.give_back(_address(self.client))
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Count the bytes of a request head against ``head_bytes``, and only those: a chunk that
        goes over the limit is parsed up to it, and what follows a head completed within it (the
        body a client sent with its head, or the next request) is not the head's (issue 32: a
        40 KiB body sent with its head was answered 431)."""
        if self._head < 0:
            super().data_received(data)
            return
        room = self.limits.head_bytes - self._head
        if len(data) <= room:
            self._head += len(data)
            super().data_received(data)
            return
        heads = self._heads_done
        self._head += room
        super().data_received(data[:room])
        if self.transport.is_closing():
            return  # refused (400) or closed while parsing
        taker = self.transport.get_protocol()
        if taker is not self:  # a WebSocket upgrade took the connection over
            if isinstance(taker, asyncio.Protocol):
                taker.data_received(data[room:])
            return
        if self._heads_done == heads:
            message = f"the request head is over this server's limit of {self.limits.head_bytes} bytes"
            self.transport.write(_plain_answer(HEAD_TOO_LARGE, message))
            self.transport.close()
            return
        self.data_received(data[room:])  # the head ended within the limit: the rest is counted afresh

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head = max(self._head, 0)

    def on_headers_complete(self) -> None:
        self._head = -1
        self._heads_done += 1
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._head = 0
            self._arm()

    def handle_websocket_upgrade(self) -> None:
        """The WebSocket protocol takes over the connection and its place in the count."""
        self._disarm()
        if self._counted:
            self._counted = False
            self.limits.give_back(_address(self.client))
        super().handle_websocket_upgrade()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.limits.request_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.limits.closed_slow += 1
            self.transport.close()


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, counted per address, aborted when its client stopped reading."""

    limits: ConnectionLimits

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._counted = self.limits.counts(self.server)
        if self._counted:
            self.limits.open[_address(self.client)] += 1  # the HTTP connection's place, handed over

    def connection_lost(self, exc: Exception | None) -> None:
        if self._counted:
            self._counted = False
            self.limits.give_back(_address(self.client))
        super().connection_lost(exc)

    async def run_asgi(self) -> None:
        await super().run_asgi()
        self._abort_if_stuck()

    def keepalive_timeout(self) -> None:
        super().keepalive_timeout()
        self._abort_if_stuck()

    def _abort_if_stuck(self) -> None:
        """Writes paused (the client does not read): closing would wait for it for ever; abort."""
        if not self.writable.is_set() and not self.disconnected:
            self.transport.abort()


def guarded_protocols(
    request_seconds: float, head_bytes: int, per_address: int, exempt_ports: frozenset[int] = frozenset()
) -> tuple[type[GuardedHttpProtocol], type[GuardedWebSocketProtocol], ConnectionLimits]:
    """The HTTP and WebSocket protocol classes for ``uvicorn.Config(http=…, ws=…)``, sharing one count;
    connections to a local port in ``exempt_ports`` (a peer port) are not counted per address."""
    limits = ConnectionLimits(request_seconds, head_bytes, per_address, exempt_ports)
    http = type("ServerHttpProtocol", (GuardedHttpProtocol,), {"limits": limits})
    ws = type("ServerWebSocketProtocol", (GuardedWebSocketProtocol,), {"limits": limits})
    return http, ws, limits
