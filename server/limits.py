"""The sizes the API accepts, and the request-body limit: a pure ASGI middleware that refuses a body over ``max_bytes`` before it is parsed.

A body whose ``Content-Length`` is over the limit is answered 413 at once, without reading it
and without calling the app. A body without one (chunked) is counted as it arrives: the read
that goes over the limit raises :class:`server.errors.BodyTooLarge`, which the app's error
handlers answer 413 ``too_large`` (FastAPI passes HTTP exceptions raised while reading a body
through). Bytes that arrive after the response has started are not the request's body any
more (a streaming response listening for the client to leave): they are passed on uncounted.
WebSockets and lifespan messages pass untouched.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.errors import BodyTooLarge, too_large_response
from server.store.models import ID_LEN, MAX_SEQ

__all__ = ["CLIENT_COMMAND_ID_LEN", "ID_LEN", "MATCH_ID_PATTERN", "MAX_SEQ", "BodySizeLimit"]

# The sizes every route checks, defined here once (the store's columns fix MAX_SEQ and ID_LEN).
CLIENT_COMMAND_ID_LEN = 190  # a client's command id; stored as "s<seat>:<id>" in a 200-character column
MATCH_ID_PATTERN = r"^[A-Za-z0-9_-]+$"  # with 1 to ID_LEN characters


class BodySizeLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isascii() and declared.strip().isdigit() and int(declared) > self.max_bytes:
            await too_large_response(self.max_bytes)(scope, receive, send)
            return
        received = 0
        responding = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request" and not responding:
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def watched_send(message: Message) -> None:
            nonlocal responding
            if message["type"] == "http.response.start":
                responding = True
            await send(message)

        await self.app(scope, counted_receive, watched_send)
