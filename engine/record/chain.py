"""The hash-chained event envelope of docs/FAIRNESS.md.

``hash = sha256(canonical({stream, seq, type, data, sealed, at, prev}))`` where ``prev`` is the
previous envelope's hash (64 zeros for seq 1). ``data`` is what everyone may see and ``sealed``
the commitments to what is hidden (``engine.record.sealing``), so every viewer can check the same
chain. Editing, inserting or removing any event breaks the chain from that point on, and
:func:`first_broken_seq` names where.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.record.jsonfmt import canonical

__all__ = ["ZERO_HASH", "canonical", "chain_envelope", "describe_break", "envelope_hash", "first_broken_seq"]

ZERO_HASH = "0" * 64


def envelope_hash(stream: str, seq: int, type_: str, data: Any, sealed: Mapping[str, str], at: str, prev: str) -> str:
    body = {"stream": stream, "seq": seq, "type": type_, "data": data, "sealed": sealed, "at": at, "prev": prev}
    return hashlib.sha256(canonical(body)).hexdigest()


def chain_envelope(
    stream: str, seq: int, type_: str, data: Any, sealed: Mapping[str, str], at: str, prev: str
) -> dict[str, Any]:
    """Build a complete envelope, hash included."""
    return {
        "stream": stream,
        "seq": seq,
        "type": type_,
        "data": data,
        "sealed": dict(sealed),
        "at": at,
        "prev": prev,
        "hash": envelope_hash(stream, seq, type_, data, sealed, at, prev),
    }


def describe_break(envelopes: Sequence[Mapping[str, Any]], seq: int) -> str:
    """In words, why the chain breaks at ``seq`` (what :func:`first_broken_seq` found): expected vs found."""
    index = seq - 1
    if index >= len(envelopes):
        return f"the log ends before seq {seq}"
    env = envelopes[index]
    if env.get("seq") != seq:
        return f"expected seq {seq} here, found seq {env.get('seq')!r}: an event is missing, repeated or out of order"
    expected_prev = ZERO_HASH if index == 0 else envelopes[index - 1].get("hash")
    if env.get("prev") != expected_prev:
        return (
            f"seq {seq}: its prev is {str(env.get('prev'))[:16]}… but the event before it hashes to "
            f"{str(expected_prev)[:16]}…: an event before it was removed, inserted, moved or rewritten"
        )
    recomputed = envelope_hash(
        env["stream"], env["seq"], env["type"], env["data"], env["sealed"], env["at"], env["prev"]
    )
    return (
        f"seq {seq} ({env.get('type')}): its hash says {str(env.get('hash'))[:16]}… but its content hashes to "
        f"{recomputed[:16]}…: the event was edited after it was hashed"
    )


def first_broken_seq(envelopes: Iterable[Mapping[str, Any]]) -> int | None:
    """The seq of the first envelope whose position, link or hash is wrong; None if all hold."""
    expected_prev = ZERO_HASH
    expected_seq = 1
    for env in envelopes:
        seq = env.get("seq")
        if seq != expected_seq or env.get("prev") != expected_prev:
            return expected_seq
        recomputed = envelope_hash(
            env["stream"], env["seq"], env["type"], env["data"], env["sealed"], env["at"], env["prev"]
        )
        if recomputed != env.get("hash"):
            return expected_seq
        expected_prev = env["hash"]
        expected_seq += 1
    return None
