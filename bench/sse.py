"""Reading server-sent events as a browser's EventSource does: the bench's and the tests' client
of the live pages (``/live/…``), fed the bytes as they arrive."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson


@dataclass(frozen=True, slots=True)
class Frame:
    """One dispatched event: its ``event`` type (``message`` if none), ``data`` and ``id`` (None: not set)."""

    event: str
    data: str
    id: str | None

    def json(self) -> Any:
        return orjson.loads(self.data)


class SseParser:
    """The text/event-stream format (WHATWG HTML, "Server-sent events"): ``feed`` bytes, get the
    events they complete. Comments (heartbeats) are counted; ``retry`` keeps the last ``retry:``."""

    def __init__(self) -> None:
        self._buffer = b""
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None
        self.retry: int | None = None
        self.comments = 0

    def feed(self, chunk: bytes) -> list[Frame]:
        self._buffer += chunk
        frames: list[Frame] = []
        while True:
            line, newline, rest = self._buffer.partition(b"\n")
            if not newline:
                return frames
            self._buffer = rest
            frame = self._line(line.rstrip(b"\r").decode())
            if frame is not None:
                frames.append(frame)

    def _line(self, line: str) -> Frame | None:
        if not line:  # a blank line dispatches what came before it
            if not self._data:
                self._event = ""
                return None
            frame = Frame(self._event or "message", "\n".join(self._data), self._id)
            self._event, self._data = "", []
            return frame
        if line.startswith(":"):
            self.comments += 1
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            self._id = value
        elif name == "retry" and value.isdigit():
            self.retry = int(value)
        return None
