"""docs/FAIRNESS.md: the key, the HMAC stream, below(n), Fisher-Yates, and the dealer's labels."""

from __future__ import annotations

import hashlib
import hmac

from hypothesis import given
from hypothesis import strategies as st

from engine.game.shuffle import Dealer, RandomStream, commitment_of, shuffle_ids, shuffle_key


def reference_shuffle(ids: list[int], key: bytes, label: str) -> list[int]:
    """An independent, literal re-implementation of docs/FAIRNESS.md, as an auditor would write it."""
    buffer = b""
    i = 0

    def take8() -> int:
        nonlocal buffer, i
        while len(buffer) < 8:
            buffer += hmac.new(key, f"{label}:{i}".encode(), hashlib.sha256).digest()
            i += 1
        value, buffer = int.from_bytes(buffer[:8], "big"), buffer[8:]
        return value

    def below(n: int) -> int:
        while True:
            x = take8()
            if x < 2**64 - (2**64 % n):
                return x % n

    out = list(ids)
    for k in range(len(out) - 1, 0, -1):
        j = below(k + 1)
        out[k], out[j] = out[j], out[k]
    return out


def test_key_and_commitment_follow_the_published_formulas() -> None:
    seed = bytes(range(32))
    assert commitment_of(seed) == hashlib.sha256(seed).hexdigest()
    assert shuffle_key(seed, "alice", "") == hashlib.sha256(seed + b"|alice|").digest()


@given(seed=st.binary(min_size=32, max_size=32), label=st.text(max_size=20), n=st.integers(1, 112))
def test_shuffle_matches_an_independent_implementation(seed: bytes, label: str, n: int) -> None:
    assert list(shuffle_ids(range(n), seed, label)) == reference_shuffle(list(range(n)), seed, label)


def test_shuffle_is_a_permutation_and_depends_on_label_and_key() -> None:
    key = shuffle_key(b"s" * 32, "", "")
    a = shuffle_ids(range(112), key, "round:1:deck")
    assert sorted(a) == list(range(112))
    assert a != shuffle_ids(range(112), key, "round:2:deck")
    assert a != shuffle_ids(range(112), shuffle_key(b"s" * 32, "x", ""), "round:1:deck")
    assert a == shuffle_ids(range(112), key, "round:1:deck")


def test_below_rejects_the_biased_tail() -> None:
    stream = RandomStream(b"k", "L")
    values = [stream.below(3) for _ in range(3000)]
    assert set(values) == {0, 1, 2}
    assert all(800 < values.count(v) < 1200 for v in (0, 1, 2))


def test_dealer_labels() -> None:
    seed = b"q" * 32
    dealer = Dealer(seed)
    key = shuffle_key(seed, "e0", "e1")
    assert dealer.round_deck(("e0", "e1"), 3, 112) == shuffle_ids(range(112), key, "round:3:deck")
    assert dealer.cut(("e0", "e1"), 2, 112) == shuffle_ids(range(112), key, "cut:2")[:2]
    assert dealer.recycle(("e0", "e1"), 1, 2, [9, 3, 5]) == shuffle_ids([3, 5, 9], key, "round:1:recycle:2")
    # a classic-2p round started again after a wild starter: its k-th restart has its own stream
    assert dealer.round_deck(("e0", "e1"), 3, 108, 2) == shuffle_ids(range(108), key, "round:3:deck:2")
    assert dealer.round_deck(("e0", "e1"), 3, 108, 2) != dealer.round_deck(("e0", "e1"), 3, 108, 1)


def test_a_stacked_deck_fixes_only_a_rounds_first_start() -> None:
    seed = b"q" * 32
    stacked = tuple(reversed(range(108)))
    dealer = Dealer(seed, stacked={1: stacked})
    key = shuffle_key(seed, "e0", "e1")
    assert dealer.round_deck(("e0", "e1"), 1, 108) == stacked
    assert dealer.round_deck(("e0", "e1"), 1, 108, 1) == shuffle_ids(range(108), key, "round:1:deck:1")
