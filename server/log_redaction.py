"""Tokens never reach a log: ``?token=…`` in a logged path is replaced by ``?token=[redacted]``.

A browser that cannot set headers sends its token in the socket's query string
(``WS /api/matches/{id}/ws?token=…``), and uvicorn writes every path with its query to its
logs: the access log for HTTP requests, its error log for WebSocket handshakes. A filter on
both loggers rewrites each record's message and arguments before any handler formats them.
A ``Bearer`` header value is redacted the same way, should a message ever carry one.
"""

from __future__ import annotations

import logging
import re
from typing import Any

SECRET = re.compile(r"(?i)((?:[?&;]|%3F|%26)token(?:=|%3D))[^&\s\"'#]*|(bearer\s+)[^\s\"',]+")
UVICORN_LOGGERS = ("uvicorn.access", "uvicorn.error")


def redact(text: str) -> str:
    """``text`` with every token value replaced by ``[redacted]``."""
    return SECRET.sub(lambda m: (m.group(1) or m.group(2)) + "[redacted]", text)


def _clean(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class TokenRedaction(logging.Filter):
    """Rewrites a record's message and string arguments; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_clean(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: _clean(v) for k, v in record.args.items()}
        return True


def redact_uvicorn_logs() -> None:
    """Install :class:`TokenRedaction` on uvicorn's loggers (after uvicorn configured logging)."""
    for name in UVICORN_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, TokenRedaction) for f in logger.filters):
            logger.addFilter(TokenRedaction())
