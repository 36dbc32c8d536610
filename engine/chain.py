"""The hash-chained event envelope of docs/FAIRNESS.md.

``hash = sha256(canonical({stream, seq, type, data, sealed, at, prev}))`` where ``prev`` is the
previous envelope's hash (64 zeros for seq 1). ``data`` is what everyone may see and ``sealed``
the commitments to what is hidden (``engine.sealing``), so every viewer can check the same
chain. Editing, inserting or removing any event breaks the chain from that point on, and
:func:`first_broken_seq` names where.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

ZERO_HASH = "0" * 64


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


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
