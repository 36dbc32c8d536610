"""An auditor's own re-implementation of docs/FAIRNESS.md "House bots' chance", from the text alone.

It shares no code with ``engine.game.shuffle``: the engine's tests compare the two, and the leak
test uses it to try the derivation under keys an attacker can name (the commitment, a chain
hash, a guess), which must get it nowhere.
"""

from __future__ import annotations

import hashlib
import hmac
import random


class HouseBotChance(random.Random):
    """Block i of the stream is HMAC-SHA256(key, f"house-bot:{match}:{version}:{seat}:{i}");
    ``choice``/``randrange``/``shuffle`` use below(n): 8 bytes big-endian, rejected at or above
    2**64 - 2**64 % n, else taken mod n; ``getrandbits(k)`` keeps the top k bits of ceil(k/8) bytes."""

    def __init__(self, key: bytes, match_id: str, version: int, seat: int) -> None:
        self._key = key
        self._label = f"house-bot:{match_id}:{version}:{seat}"
        self._block = 0
        self._bytes = b""
        super().__init__()

    def seed(self, a: object = None, version: int = 2) -> None:
        pass  # random.Random.__init__ calls it; the stream needs no seeding

    def _take(self, n: int) -> bytes:
        while len(self._bytes) < n:
            message = f"{self._label}:{self._block}".encode()
            self._bytes += hmac.new(self._key, message, hashlib.sha256).digest()
            self._block += 1
        out, self._bytes = self._bytes[:n], self._bytes[n:]
        return out

    def _randbelow(self, n: int) -> int:
        while True:
            x = int.from_bytes(self._take(8), "big")
            if x < 2**64 - 2**64 % n:
                return x % n

    def getrandbits(self, k: int) -> int:
        size = (k + 7) // 8
        return int.from_bytes(self._take(size), "big") >> (8 * size - k)

    def random(self) -> float:
        return self.getrandbits(53) / 2**53
