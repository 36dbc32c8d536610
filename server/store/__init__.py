"""The event store: hash-chained, append-only streams on SQLite or PostgreSQL (docs/STORE.md)."""

from server.store.errors import (
    ConcurrencyError,
    InvalidAppendError,
    StoreClosedError,
    StoreError,
    StoreUnavailableError,
)
from server.store.event_store import EventStore
from server.store.records import AppendResult, StoredEvent
from server.store.values import format_at, utc_now

__all__ = [
    "AppendResult",
    "ConcurrencyError",
    "EventStore",
    "InvalidAppendError",
    "StoreClosedError",
    "StoreError",
    "StoreUnavailableError",
    "StoredEvent",
    "format_at",
    "utc_now",
]
