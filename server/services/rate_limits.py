"""Rate limits: how often one client address may register, and how many wrong tokens it may try.

A token bucket per address: ``per_minute`` requests may come at once, and the bucket refills at
``per_minute`` a minute. Over the limit, :meth:`RateLimit.take` raises :class:`TooManyRequests`
with the seconds until the next request would pass (the route answers 429 with ``Retry-After``).
The buckets live in this process's memory: with several server processes each has its own, so
the limit a client meets is at most the processes' count times this one (docs/SERVER.md).
``per_minute = 0`` turns a limit off (benchmarks that register hundreds of players at once).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from server.services.errors import TooManyRequests

MAX_ADDRESSES = 10_000  # buckets kept; the longest-idle ones go first


@dataclass
class _Bucket:
    tokens: float
    at: float


class RateLimit:
    def __init__(self, what: str, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.what = what
        self.per_minute = per_minute
        self.clock = clock
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def _bucket(self, address: str, now: float) -> _Bucket:
        bucket = self._buckets.pop(address, None)
        if bucket is None:
            bucket = _Bucket(float(self.per_minute), now)
        else:
            bucket.tokens = min(float(self.per_minute), bucket.tokens + (now - bucket.at) * self.per_minute / 60.0)
            bucket.at = now
        self._buckets[address] = bucket
        while len(self._buckets) > MAX_ADDRESSES:
            self._buckets.popitem(last=False)
        return bucket

    def check(self, address: str) -> None:
        """Refuse (TooManyRequests) if ``address`` has no request left now; takes nothing."""
        if self.per_minute <= 0:
            return
        bucket = self._bucket(address, self.clock())
        if bucket.tokens < 1.0:
            wait = math.ceil((1.0 - bucket.tokens) * 60.0 / self.per_minute)
            raise TooManyRequests(
                f"too many {self.what} from your address: at most {self.per_minute} a minute; try again in {wait} s",
                retry_after=wait,
            )

    def take(self, address: str) -> None:
        """Count one request of ``address``, or refuse it (TooManyRequests) over the limit."""
        if self.per_minute <= 0:
            return
        self.check(address)
        self._buckets[address].tokens -= 1.0
