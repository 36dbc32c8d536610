"""Password and sign-in code hashes: argon2id (``argon2-cffi``), off the event loop, a few at a time.

A hash costs about 0.1 s of a core and 64 MiB (argon2-cffi's default, RFC 9106's low-memory
profile). :class:`Hasher` runs them on its own :data:`RUNNING` threads, so a flood of sign-ins
can take at most those cores and never the threads the rest of the server waits on; at most
:data:`WAITING` more wait their turn, and past that a request is refused at once (429, try again
in a second). Registrations and sign-ins are also limited per address (``server.deps``).

:meth:`Hasher.verify` with no stored hash (an unknown name, a player without a password or
without a live code) checks the secret against a dummy hash all the same, so the answer takes
as long whether or not the name exists. Secrets are compared in NFC (RFC 8265's rule for
passwords), so one typed on another keyboard matches.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from server.services.errors import TooManyRequests

RUNNING = 2  # hashes at once: the server's two cores at most
WAITING = 32  # hashes that may wait for a thread; more are refused
T = TypeVar("T")


def _nfc(secret: str) -> str:
    return unicodedata.normalize("NFC", secret)


class Hasher:
    def __init__(self, running: int = RUNNING, waiting: int = WAITING, hasher: PasswordHasher | None = None) -> None:
        self.running = running
        self.waiting = waiting
        self._hasher = hasher or PasswordHasher()
        self._pool = ThreadPoolExecutor(max_workers=running, thread_name_prefix="unoduo-argon2")
        self._lock = threading.Lock()
        self._pending = 0

    @functools.cached_property
    def _dummy(self) -> str:
        return self._hasher.hash("a password nobody has")

    async def _run(self, work: Callable[[], T]) -> T:
        with self._lock:
            if self._pending >= self.running + self.waiting:
                raise TooManyRequests("too many passwords are being checked on this server right now; try again", 1)
            self._pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, work)
        finally:
            with self._lock:
                self._pending -= 1

    async def hash(self, secret: str) -> str:
        return await self._run(lambda: self._hasher.hash(_nfc(secret)))

    async def verify(self, stored: str | None, secret: str) -> bool:
        """Whether ``secret`` is the one ``stored`` was made from (False, after as long a check, if ``stored`` is None)."""

        def check() -> bool:
            try:
                matched = self._hasher.verify(stored if stored is not None else self._dummy, _nfc(secret))
            except (VerificationError, InvalidHashError):
                return False
            return matched and stored is not None

        return await self._run(check)


hasher = Hasher()
"""The server's one hasher (the bound is per process)."""
