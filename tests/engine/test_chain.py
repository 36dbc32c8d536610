"""docs/FAIRNESS.md's envelope: canonical JSON, sha256 chain, and naming the first broken seq."""

from __future__ import annotations

import hashlib
import json

from engine.record.chain import ZERO_HASH, canonical, chain_envelope, first_broken_seq


def chain(n: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    prev = ZERO_HASH
    for seq in range(1, n + 1):
        env = chain_envelope(
            "match-1",
            seq,
            "cut",
            {"cut": seq, "codes": ["R5", "W+4"], "é": True},
            {"cards": "ab" * 32},
            f"2026-01-01T00:00:0{seq % 10}Z",
            prev,
        )
        out.append(env)
        prev = str(env["hash"])
    return out


def test_hash_is_sha256_of_the_canonical_body() -> None:
    env = chain(1)[0]
    body = {k: env[k] for k in ("stream", "seq", "type", "data", "sealed", "at", "prev")}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert env["hash"] == hashlib.sha256(text).hexdigest()
    assert canonical(body) == text
    assert env["prev"] == "0" * 64


def test_intact_chain_verifies() -> None:
    assert first_broken_seq(chain(6)) is None


def test_edit_insert_and_removal_are_named() -> None:
    edited = chain(6)
    edited[3] = {**edited[3], "data": {"k": 99}}
    assert first_broken_seq(edited) == 4
    resealed = chain(6)
    resealed[2] = {**resealed[2], "sealed": {"cards": "cd" * 32}}
    assert first_broken_seq(resealed) == 3, "the hash covers the sealed commitments too"
    removed = chain(6)
    del removed[2]
    assert first_broken_seq(removed) == 3
    rehashed = chain(6)
    rehashed[1] = chain_envelope("match-1", 2, "cut", {"cut": 0}, {}, "x", str(rehashed[0]["hash"]))
    assert first_broken_seq(rehashed) == 3
