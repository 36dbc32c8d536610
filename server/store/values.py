"""The store's value rules: how times are written and what JSON it accepts."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from engine.jsonfmt import AT_FORMAT
from server.store.errors import InvalidAppendError

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def format_at(moment: datetime) -> str:
    """ISO 8601 UTC with microseconds and a ``Z``: exactly the string stored and hashed."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidAppendError("the store's clock must return an aware datetime, not a naive one")
    return moment.astimezone(UTC).strftime(AT_FORMAT)


def normalize_json(value: Any, where: str = "data") -> Any:
    """``value`` as plain JSON types (tuples become lists), exactly as a reader will get it back.

    The hash is computed on this form, so verifying what is read back gives the same hash.
    Refuses what JSON cannot hold faithfully: non-string keys, NaN/infinity, other objects.
    """
    kind = type(value)
    if value is None or kind is bool or kind is str or kind is int:
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str.__str__(value)  # a str-valued Enum member becomes its plain value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidAppendError(f"{where}: {value!r} cannot be stored as JSON")
        return float(value)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidAppendError(f"{where}: keys must be strings, not {key!r}")
            out[str.__str__(key)] = normalize_json(item, f"{where}.{key}")
        return out
    if isinstance(value, (list, tuple)):
        return [normalize_json(item, f"{where}[{i}]") for i, item in enumerate(value)]
    raise InvalidAppendError(f"{where}: a {kind.__name__} is not JSON")
