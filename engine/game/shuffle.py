"""The exact, re-implementable shuffle of docs/FAIRNESS.md, and the dealer that injects it.

The Decider never draws randomness itself: every deck order comes from a :class:`Dealer`
passed in by the caller, computed from the server seed and the players' entropy. An auditor
with the revealed seed recomputes every shuffle with :func:`shuffle_ids`.

The house bots' chance comes from the same secret: :meth:`Dealer.bot_chance` is a
``random.Random`` whose every draw is read from an HMAC stream keyed by the server seed
(docs/FAIRNESS.md "House bots' chance"), so nobody can foresee a bot's choice while the match is
live, and anybody can re-derive it once the seed is revealed.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NoReturn


def commitment_of(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def shuffle_key(server_seed: bytes, *entropies: str) -> bytes:
    """sha256(server_seed | e0 | e1 | … | e{N-1}): every seat's entropy in seat order (FAIRNESS.md)."""
    return hashlib.sha256(b"|".join([server_seed, *(e.encode() for e in entropies)])).digest()


class RandomStream:
    """The byte stream HMAC-SHA256(key, f"{label}:{i}") for i = 0, 1, ... and ``below(n)``."""

    __slots__ = ("_buffer", "_counter", "_key", "_label")

    def __init__(self, key: bytes, label: str) -> None:
        self._key = key
        self._label = label
        self._counter = 0
        self._buffer = b""

    def read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            block = hmac.new(self._key, f"{self._label}:{self._counter}".encode(), hashlib.sha256).digest()
            self._buffer += block
            self._counter += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("below(n) needs n >= 1")
        limit = 2**64 - (2**64 % n)
        while True:
            x = int.from_bytes(self.read(8), "big")
            if x < limit:
                return x % n


def shuffle_ids(ids: Iterable[int], key: bytes, label: str) -> tuple[int, ...]:
    """Fisher-Yates from the end; position 0 of the result is the top of the pile."""
    out = list(ids)
    stream = RandomStream(key, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def cut_label(k: int) -> str:
    return f"cut:{k}"


def deck_label(round_number: int, restart: int = 0) -> str:
    """Round r's deck; ``restart`` k >= 1 labels the k-th fresh start of the round (classic-2p Wild starter)."""
    return f"round:{round_number}:deck" if restart == 0 else f"round:{round_number}:deck:{restart}"


def recycle_label(round_number: int, m: int) -> str:
    return f"round:{round_number}:recycle:{m}"


def bot_chance_label(match_id: str, version: int, seat: int) -> str:
    """The stream of the house bot in ``seat`` deciding on the state at ``version`` of ``match_id``.

    Keyed by the bare server seed, unlike the shuffles: its messages start ``house-bot:``, so they
    never coincide with a seal salt's ``seal:…`` (the other HMAC under that key). The version and
    seat are integers, so the message names one (match, version, seat, block) only.
    """
    return f"house-bot:{match_id}:{version}:{seat}"


class ChanceRandom(random.Random):
    """A ``random.Random`` with no Mersenne Twister behind it: every draw is read from a :class:`RandomStream`.

    ``choice``, ``randrange``, ``shuffle`` and ``sample`` pick with the stream's ``below(n)`` (the
    shuffle's own rejection rule); ``getrandbits(k)`` reads ceil(k/8) bytes big-endian and keeps
    the top k bits; ``random()`` is ``getrandbits(53) / 2**53``. It cannot be re-seeded or
    have its state saved: the stream is the whole state.
    """

    def __init__(self, stream: RandomStream) -> None:
        self._stream = stream
        super().__init__()

    def seed(self, a: object = None, version: int = 2) -> None:
        if a is not None:  # random.Random.__init__ calls seed(None): that one is a no-op
            raise TypeError("a ChanceRandom reads its stream: it cannot be re-seeded")

    def getstate(self) -> NoReturn:
        raise TypeError("a ChanceRandom reads its stream: it has no state to save")

    def setstate(self, state: object) -> NoReturn:
        raise TypeError("a ChanceRandom reads its stream: it has no state to restore")

    def _randbelow(self, n: int) -> int:
        return self._stream.below(n)

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        size = (k + 7) // 8
        return int.from_bytes(self._stream.read(size), "big") >> (8 * size - k)

    def random(self) -> float:
        return self.getrandbits(53) * 2.0**-53


@dataclass(frozen=True)
class Dealer:
    """Everything random a match needs, computed from the secret server seed.

    ``stacked`` (round number -> full deck order) and ``first_drafter`` exist for
    ``unoduo scenario``: a stacked deck replaces that round's seeded shuffle, and a fixed first
    drafter skips the cut. A real match never sets them.

    ``deal_key`` is a duplicate round's key (``engine.game.duplicate``): it keys every shuffle in
    place of the seed and the seats' entropies, and salts the seals (:attr:`seal_seed`).
    """

    server_seed: bytes
    stacked: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    first_drafter: int | None = None
    deal_key: bytes | None = None

    @property
    def seal_seed(self) -> bytes:
        """What salts the match's sealed fields: the seed, or a duplicate round's deal key."""
        return self.server_seed if self.deal_key is None else self.deal_key

    def key(self, entropies: Sequence[str]) -> bytes:
        if self.deal_key is not None:
            return self.deal_key
        return shuffle_key(self.server_seed, *entropies)

    def cut(self, entropies: Sequence[str], k: int, deck_size: int) -> tuple[int, ...]:
        """Cut ``k``: seat i takes position i of the shuffled deck (D2, D18), one card per seat."""
        return shuffle_ids(range(deck_size), self.key(entropies), cut_label(k))[: len(entropies)]

    def round_deck(
        self, entropies: Sequence[str], round_number: int, deck_size: int, restart: int = 0
    ) -> tuple[int, ...]:
        """Round ``round_number``'s deck; a stacked deck only stands for the round's first start."""
        if restart == 0 and round_number in self.stacked:
            return self.stacked[round_number]
        return shuffle_ids(range(deck_size), self.key(entropies), deck_label(round_number, restart))

    def recycle(self, entropies: Sequence[str], round_number: int, m: int, ids: Iterable[int]) -> tuple[int, ...]:
        return shuffle_ids(sorted(ids), self.key(entropies), recycle_label(round_number, m))

    def bot_chance(self, match_id: str, version: int, seat: int) -> random.Random:
        """The chance a house bot in ``seat`` is handed to decide on the state at ``version``.

        Its draws are the bytes HMAC-SHA256(server_seed, f"house-bot:{match_id}:{version}:{seat}:{i}")
        for i = 0, 1, …: secret until the seed is revealed, the same for every process and every
        repeat of the same decision.
        """
        return ChanceRandom(RandomStream(self.server_seed, bot_chance_label(match_id, version, seat)))
