"""Who may have a password checked now: the wrong-password limits, reserved before the hash.

A sign-in (``POST /api/sessions``) costs an argon2id hash, so it is limited twice, **before**
the hasher sees it (issue 32):

- **per address**: the address's wrong-token bucket (``bad_tokens_per_minute``, shared with
  wrong Bearer tokens) and at most :data:`AT_ONCE` of its sign-ins being checked at a time;
- **per name** (as names compare, ``server.names.name_key``, so ``ADMIN`` and ``adrnin`` count
  against ``admin``): its own bucket (``wrong_passwords_per_name_per_minute``) and at most
  :data:`AT_ONCE` sign-ins to it being checked at a time, from whatever addresses.

:meth:`SignInGate.admit` takes one attempt from both buckets and a place in both counts at once,
or refuses (:class:`TooManyRequests`, 429 with ``Retry-After``) and takes nothing: so however many
guesses arrive together, no more are checked than the buckets hold. The :class:`Admission` it
returns gives the attempt back when the password was right (only wrong ones count) or when the
hasher refused it unchecked; a wrong one, or one whose caller went away, stays counted.

The buckets are :class:`RateLimit`'s, bounded (the longest-idle go first); the counts of
sign-ins in progress hold only addresses and names that have one, so they are bounded by the
requests in flight. All of it lives in this process: with several server processes each holds
its own (docs/SERVER.md "Accounts").
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from server.domain_errors import TooManyRequests
from server.services.rate_limits import RateLimit

AT_ONCE = 2  # sign-ins of one address, or to one name, being checked at the same time
NAME_BUCKETS = 100_000  # names' wrong-password buckets kept (about 10 MB at most); the longest-idle go first


class SignInGate:
    def __init__(self, per_address: RateLimit, per_name: RateLimit, at_once: int = AT_ONCE) -> None:
        self.per_address = per_address
        self.per_name = per_name
        self.at_once = at_once
        self._lock = threading.Lock()
        self._addresses: dict[str, int] = {}  # sign-ins being checked, per address (no entry at 0)
        self._names: dict[str, int] = {}  # the same per name key

    def in_progress(self) -> tuple[int, int]:
        """(addresses, names) with a sign-in being checked now."""
        with self._lock:
            return len(self._addresses), len(self._names)

    def admit(self, address: str, name_key: str) -> Admission:
        """One attempt of ``address`` at the name whose key is ``name_key``, or TooManyRequests."""
        with self._lock:
            if self._addresses.get(address, 0) >= self.at_once:
                raise TooManyRequests(
                    f"your address has {self.at_once} sign-ins being checked already; wait for their answers", 1
                )
            if self._names.get(name_key, 0) >= self.at_once:
                raise TooManyRequests(
                    f"{self.at_once} sign-ins to this name are being checked already; try again in a second", 1
                )
            self.per_address.take(address)
            try:
                self.per_name.take(name_key, what="wrong passwords for this name")
            except TooManyRequests:
                self.per_address.give_back(address)
                raise
            self._addresses[address] = self._addresses.get(address, 0) + 1
            self._names[name_key] = self._names.get(name_key, 0) + 1
        return Admission(self, address, name_key)

    def _leave(self, admission: Admission, counted: bool) -> None:
        with self._lock:
            for counts, key in ((self._addresses, admission.address), (self._names, admission.name_key)):
                left = counts[key] - 1
                if left:
                    counts[key] = left
                else:
                    del counts[key]
            if not counted:
                self.per_address.give_back(admission.address)
                self.per_name.give_back(admission.name_key)


@dataclass(eq=False)
class Admission:
    """One sign-in let through :class:`SignInGate`: end it with :meth:`done` exactly once."""

    gate: SignInGate
    address: str
    name_key: str
    _ended: bool = field(default=False)

    def done(self, *, counted: bool) -> None:
        """The attempt is over: ``counted`` False gives it back to both limits (a right password,
        or one the hasher refused before checking it)."""
        if self._ended:
            return
        self._ended = True
        self.gate._leave(self, counted)
