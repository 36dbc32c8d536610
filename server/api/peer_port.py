"""A worker's peer port answers the other servers only (issue 32, point 6).

Each worker of ``unoduo serve --workers N`` listens on a private **peer port** besides the public
one, where the other servers of the database forward the commands and sockets of the matches it
owns (``server.api.forwarding``). Its connections are not counted per client address (they all
come from a few peers, ``server.connections``), so on an address anyone can reach (servers on
several hosts set ``UNODUO_PEER_HOST`` to one) it served the whole API uncapped. Now a request
that arrives on a peer port must carry the servers' key (``x-unoduo-peer-key``, which every
server forwarding sends and no client has); any other is answered 404 and its connection
closed, and a socket there is closed before it opens. The public port is not affected.

The peer ports are those ``uvicorn_config`` was given (``app.state.peer_ports``); the local port
of a request is its ASGI ``server``.
"""

from __future__ import annotations

from starlette.datastructures import State
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from engine.protocol.socket_protocol import Close
from server.api.forwarding import from_a_peer
from server.errors import not_for_clients_response


class PeerPortGuard:
    """Refuse every request on a peer port that does not carry the servers' key."""

    def __init__(self, app: ASGIApp, state: State) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self._on_peer_port(scope):
            if not from_a_peer(HTTPConnection(scope)):
                if scope["type"] == "http":
                    await not_for_clients_response()(scope, receive, send)
                else:
                    await send({"type": "websocket.close", "code": Close.POLICY, "reason": ""})
                return
        await self.app(scope, receive, send)

    def _on_peer_port(self, scope: Scope) -> bool:
        ports: frozenset[int] = getattr(self.state, "peer_ports", frozenset())
        server = scope.get("server")
        return bool(ports) and server is not None and server[1] in ports
