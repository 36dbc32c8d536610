"""Views at a past event (``GET /api/matches/{id}?at=N``), on SQLite and PostgreSQL.

Before, each such view folded the match from event 1 (432 ms of CPU per request on a
5,392-event match, for anyone, with no token). Now it folds from the nearest snapshot at or
before N and keeps recent states: the same views, from far fewer events read.
"""

from __future__ import annotations

import random

from fastapi.testclient import TestClient

from engine.game.evolve import fold
from engine.game.state import INITIAL_STATE
from server.services.matches import MatchService
from server.store.records import StoredEvent
from server.store.streams import match_stream
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok, play_to_end, register

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
EVERY = 25  # the test server's snapshot interval (tests/server/conftest.py)


def test_a_past_view_is_folded_from_the_nearest_snapshot_and_is_the_same_view(client: TestClient) -> None:
    _, headers = register(client, "ada")
    match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "e"}))
    play_to_end(client, match_id, headers, 0, random.Random(7))
    matches: MatchService = client.app.state.matches  # type: ignore[attr-defined]
    store, stream = matches.store, match_stream(match_id)
    head = store.head(stream)
    assert head > 3 * EVERY and matches.snapshots.count(stream) >= 2
    reads: list[tuple[int, int]] = []
    real_read = store.read

    def counting_read(
        name: str, from_seq: int = 1, to_seq: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        found = real_read(name, from_seq, to_seq=to_seq, limit=limit)
        if name == stream:
            reads.append((from_seq, len(found)))
        return found

    store.read = counting_read  # type: ignore[method-assign]
    try:
        asked = (head - 1, head // 2 + 3, 3 * EVERY + 1)
        for at in asked:
            anonymous = ok(client.get(f"/api/matches/{match_id}", params={"at": at}))["view"]
            assert anonymous["version"] == at
            full = fold((e.event() for e in real_read(stream, 1, to_seq=at)), INITIAL_STATE)
            assert matches.reads.state_at(match_id, at) == full
        # Folded from event 1, these views read sum(asked) events; from the snapshots, a small part of it.
        assert reads and 4 * sum(count for _first, count in reads) < sum(asked)
        reads.clear()
        again = ok(client.get(f"/api/matches/{match_id}", params={"at": head - 1}))["view"]
        assert again["version"] == head - 1 and reads == []  # a recent state is kept: nothing read again
    finally:
        store.read = real_read  # type: ignore[method-assign]
