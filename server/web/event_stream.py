"""One live page on the wire: a ``text/event-stream`` response fed by a :class:`LivePage`.

It opens with ``retry:`` (how long a browser waits before it reconnects, after a server
restart say) and then sends each frame the page is given (``event: version``) and, when there
has been nothing for ``heartbeat`` seconds, a comment line: a proxy keeps the connection open
and a dead client is found by the write that fails. A client that takes nothing for
``write_seconds`` (it stopped reading: the transport stays paused) is cut off, so it holds no
page slot for ever. The page is given back to the hub whichever way the stream ends: the
client went, the server is stopping, the write deadline ran out.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from server.web.live import LiveHub, LivePage, PageClosed

HEARTBEAT: Final = b": heartbeat\n\n"
HEADERS: Final = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),  # nginx: pass each frame on at once
]


class EventStreamResponse(Response):
    """The SSE answer of one live page (an ASGI response that streams until the page ends)."""

    def __init__(self, hub: LiveHub, page: LivePage, *, retry_ms: int, heartbeat: float, write_seconds: float) -> None:
        super().__init__(status_code=200)
        self.hub = hub
        self.page = page
        self.retry_ms = retry_ms
        self.heartbeat = heartbeat
        self.write_seconds = write_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            writer = asyncio.ensure_future(self._write(send))
            listener = asyncio.ensure_future(_until_disconnect(receive))
            try:
                await asyncio.wait({writer, listener}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (writer, listener):
                    task.cancel()
                with contextlib.suppress(asyncio.CancelledError):  # we may be cancelled too: then end quietly
                    await asyncio.wait({writer, listener})
            if writer.done() and not writer.cancelled() and writer.exception() is not None:
                exc = writer.exception()
                if not isinstance(exc, TimeoutError | OSError):  # a client that stopped reading, or went
                    raise exc  # type: ignore[misc]
        finally:
            self.hub.close(self.page)

    async def _write(self, send: Send) -> None:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(None) as deadline:

            async def write(body: bytes, more: bool = True) -> None:
                deadline.reschedule(loop.time() + self.write_seconds)
                await send({"type": "http.response.body", "body": body, "more_body": more})
                deadline.reschedule(None)

            await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
            await write(b"retry: %d\n\n" % self.retry_ms)
            while True:
                try:
                    frame = await self.page.next_frame(self.heartbeat)
                except PageClosed:
                    await write(b"", more=False)
                    return
                await write(frame if frame is not None else HEARTBEAT)


async def _until_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
