"""What the event store raises. Everything derives from :class:`StoreError`."""

from __future__ import annotations

from sqlalchemy.exc import InterfaceError, OperationalError


class StoreError(Exception):
    """Base class of every event-store error."""


class ConcurrencyError(StoreError):
    """The stream moved on: the caller expected its head at ``expected``, it is at ``actual``.

    Nothing was appended. ``server/errors.py`` answers ``stale_version``; the client re-reads and decides again.
    """

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(f"stream {stream!r} is at seq {actual}, not at the expected {expected}")
        self.stream = stream
        self.expected = expected
        self.actual = actual

    def __reduce__(self) -> tuple[type[ConcurrencyError], tuple[str, int, int]]:
        return (ConcurrencyError, (self.stream, self.expected, self.actual))


class InvalidAppendError(StoreError, ValueError):
    """An append that is malformed (bad stream name, event type, data or command id). Nothing written."""


class StoreUnavailableError(StoreError):
    """The database could not complete the append (locked too long, connection lost, ...).

    Nothing was appended, unless the failure hid a commit; a retry with the same command id
    is always safe.
    """


class StoreClosedError(StoreError):
    """The store was closed."""


UNAVAILABLE: tuple[type[Exception], ...] = (StoreUnavailableError, OperationalError, InterfaceError)
"""What a database that has gone away raises: an append (StoreUnavailableError) or a read (the driver's
connection errors). Work that nobody waits for (clocks, bot moves, a tournament's next step) tries
again after such an error instead of ending; a request answers 503 ``unavailable``."""
