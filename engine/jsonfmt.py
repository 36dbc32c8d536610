"""How values are written in the JSON that the engine and the server hand out: one definition.

- :func:`compact`: JSON with no spaces and non-ASCII kept as is (stored JSON columns, NDJSON
  lines, replay files). Keys keep their order; the hashed form is ``engine.chain.canonical``.
- :data:`AT_FORMAT`: an envelope's ``at``: ISO 8601 UTC with microseconds and a ``Z``
  (``2026-11-29T19:55:34.123456Z``), the exact string the event store hashes and keeps.
"""

from __future__ import annotations

import json
from typing import Any, Final

AT_FORMAT: Final = "%Y-%m-%dT%H:%M:%S.%fZ"

_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def compact(value: Any) -> str:
    """``value`` as compact JSON text (what ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` gives)."""
    return _COMPACT.encode(value)


def ndjson_line(value: Any) -> bytes:
    """One line of an NDJSON body: compact JSON, a newline, UTF-8."""
    return (_COMPACT.encode(value) + "\n").encode()
