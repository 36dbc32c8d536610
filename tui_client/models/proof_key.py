"""The table's ``e`` key: the proof of the last challenge or caught UNO this seat took part in
(docs/REPLAYS.md "Proofs of one event"), written to a file while the match is played.

The table keeps every event it received (envelope and ``open``, already checked as it came,
``tui_client.models.receipts``); the proof is made from them by ``engine.fairness.proofs``: the public chain up to
the event, and only the openings that event's ruling needs (a challenger holds the challenged
hand's, D13; a catch needs none). Pure but for writing the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.fairness.proofs import ProofRefused, proof_from_events, proof_text, provable_seqs, recorded_verdict

PROOFS_DIR = "proofs"  # under the client's config directory


@dataclass(frozen=True)
class ProofWritten:
    """What the key did: the file written (None when no proof could be made), in words."""

    path: Path | None
    words: str


def proof_path(directory: Path, match: str, seq: int) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in match)
    return directory / f"proof-{safe}-{seq}.json"


def write_last_proof(
    events: Sequence[Mapping[str, Any]], seat: int | None, match: str, directory: Path
) -> ProofWritten:
    """Write the proof of the last challenge (as the challenger) or caught UNO (either side) of
    ``seat`` among ``events`` into ``directory``; say where, or why there is none."""
    if seat is None:
        return ProofWritten(None, "a spectator took part in no challenge or catch: nothing to prove")
    seqs = provable_seqs(events, seat)
    if not seqs:
        return ProofWritten(None, "no challenge you made and no caught UNO of yours yet: nothing to prove")
    seq = seqs[-1]
    try:
        proof = proof_from_events(events, seq)
    except ProofRefused as exc:
        return ProofWritten(None, f"no proof of #{seq}: {exc}")
    path = proof_path(directory, match, seq)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(proof_text(proof), encoding="utf-8")
    except OSError as exc:
        return ProofWritten(None, f"the proof of #{seq} could not be written to {path}: {exc.strerror or exc}")
    verdict = proof["verdict"]
    recorded = recorded_verdict(proof)
    against = "" if recorded == verdict["verdict"] else f", not {recorded} as the server ruled"
    return ProofWritten(
        path,
        f"proof of #{seq} ({verdict['ruling']}: {verdict['verdict']}{against}) written to {path} · "
        "tools/proof_check.py checks it",
    )
