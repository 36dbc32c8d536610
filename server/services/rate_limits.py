"""Rate limits: how often one client address may register, and how many wrong tokens it may try
(and, keyed by name, how many wrong passwords one name may be tried with: ``server.services.sign_in_gate``).

A token bucket per address: ``per_minute`` requests may come at once, and the bucket refills at
``per_minute`` a minute. Over the limit, :meth:`RateLimit.take` raises :class:`TooManyRequests`
with the seconds until the next request would pass (the route answers 429 with ``Retry-After``).
The buckets live in this process's memory: with several server processes each has its own, so
the limit a client meets is at most the processes' count times this one (docs/SERVER.md).
``per_minute = 0`` turns a limit off (benchmarks that register hundreds of players at once).

:meth:`RateLimit.take` checks and counts in one step (under a lock): a limit reserved with it
before the work it limits cannot be passed by requests that arrive together; :meth:`give_back`
returns the request when the work turned out not to count (a right password).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from server.domain_errors import TooManyRequests

MAX_ADDRESSES = 10_000  # buckets kept (by default); the longest-idle ones go first


@dataclass
class _Bucket:
    tokens: float
    at: float


class RateLimit:
    def __init__(
        self, what: str, per_minute: int, clock: Callable[[], float] = time.monotonic, size: int = MAX_ADDRESSES
    ) -> None:
        self.what = what
        self.per_minute = per_minute
        self.clock = clock
        self.size = size
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self._lock = threading.Lock()  # TestClients of one app run requests on several event loops

    def _bucket(self, address: str, now: float) -> _Bucket:
        bucket = self._buckets.pop(address, None)
        if bucket is None:
            bucket = _Bucket(float(self.per_minute), now)
        else:
            bucket.tokens = min(float(self.per_minute), bucket.tokens + (now - bucket.at) * self.per_minute / 60.0)
            bucket.at = now
        self._buckets[address] = bucket
        while len(self._buckets) > self.size:
            self._buckets.popitem(last=False)
        return bucket

    def _refuse_if_empty(self, address: str, what: str | None) -> _Bucket:
        bucket = self._bucket(address, self.clock())
        if bucket.tokens < 1.0:
            wait = math.ceil((1.0 - bucket.tokens) * 60.0 / self.per_minute)
            whose = what if what is not None else f"{self.what} from your address"
            raise TooManyRequests(
                f"too many {whose}: at most {self.per_minute} a minute; try again in {wait} s", retry_after=wait
            )
        return bucket

    def check(self, address: str) -> None:
        """Refuse (TooManyRequests) if ``address`` has no request left now; takes nothing."""
        if self.per_minute <= 0:
            return
        with self._lock:
            self._refuse_if_empty(address, None)

    def take(self, address: str, *, what: str | None = None) -> None:
        """Count one request of ``address``, or refuse it (TooManyRequests) over the limit, in one step.
        ``what``: the refusal's words for what there were too many of (default: ``what`` from your address)."""
        if self.per_minute <= 0:
            return
        with self._lock:
            self._refuse_if_empty(address, what).tokens -= 1.0

    def give_back(self, address: str) -> None:
        """Return a request :meth:`take` counted (the work it stood for did not count after all)."""
        if self.per_minute <= 0:
            return
        with self._lock:
            bucket = self._bucket(address, self.clock())
            bucket.tokens = min(float(self.per_minute), bucket.tokens + 1.0)
