"""What ``RoundSecrecy`` remembers of duplicate tournaments stays within its bound, the least
recently asked about going first; a round still secret is asked again, a revealed one never."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from server.services import secrecy
from server.services.secrecy import RoundSecrecy
from server.store.reveals import CREATED, REVEALED, RoundFact


class Streams:
    """Stands in for the store: each tournament created duplicate, round 1 revealed in ``revealed``."""

    def __init__(self, revealed: set[str]) -> None:
        self.revealed = revealed
        self.reads: list[str] = []

    def __call__(self, engine: Any, stream: str, after_seq: int) -> list[RoundFact]:
        self.reads.append(stream)
        facts = [RoundFact(seq=1, position=10, type=CREATED, data={"duplicate": True})]
        if any(stream.endswith(t) for t in self.revealed):
            facts.append(RoundFact(seq=2, position=20, type=REVEALED, data={"round": 1}))
        return [f for f in facts if f.seq > after_seq]


def test_what_is_remembered_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    streams = Streams(revealed={f"t_{n}" for n in range(50)})
    monkeypatch.setattr(secrecy, "round_facts", streams)
    kept = RoundSecrecy(store=SimpleNamespace(engine=None), kept=8)  # type: ignore[arg-type]  # read through streams
    for n in range(50):
        assert not kept.secret(f"t_{n}", 1)  # revealed: public
        assert kept.secret(f"t_{n}", 2)  # not yet revealed: secret
    assert len(kept._known) == 8
    assert list(kept._known) == [f"t_{n}" for n in range(42, 50)]  # the last asked about
    before = len(streams.reads)
    assert kept.known_public("t_49", 1) and not kept.secret("t_49", 1)
    assert len(streams.reads) == before  # a revealed round is answered from memory
    assert kept.secret("t_49", 2) and len(streams.reads) == before + 1  # a secret one is asked again
