"""Rendered HTML kept per page and version, so that a page watched by a room costs one render.

A key names the page, its id, the version of what it shows (a tournament's stream version, and
whatever else the page reads, e.g. its season's) and the variant (``?round=3``, the wall's view).
A version that moved on is simply never asked for again: the least recently used entries go
first once the cache holds :data:`MAX_ENTRIES` entries or :data:`MAX_BYTES` characters, so the
memory it takes is bounded whatever is asked of it. Thread-safe: pages are built in worker threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Final, Generic, TypeVar

MAX_ENTRIES: Final = 512
MAX_BYTES: Final = 32 * 1024 * 1024  # characters of HTML, all entries together

V = TypeVar("V")


class PageCache(Generic[V]):
    """A bounded LRU of rendered pages or regions; ``size`` measures an entry (characters)."""

    def __init__(self, size: Callable[[V], int], max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self._size = size
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.renders = 0  # entries made (tests and the bench read it)

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """The entry for ``key``, made by ``make`` (outside the lock) when it is not kept."""
        with self._lock:
            kept = self._entries.get(key)
            if kept is not None:
                self._entries.move_to_end(key)
                return kept[0]
        value = make()
        size = self._size(value)
        with self._lock:
            self.renders += 1
            if size > self.max_bytes:
                return value  # larger than the whole cache: served, never kept
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._entries[key] = (value, size)
            self._bytes += size
            while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped
        return value

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    @property
    def bytes(self) -> int:
        with self._lock:
            return self._bytes
