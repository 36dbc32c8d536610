"""Issue 33, "Must exist" 1, on one process (SQLite and PostgreSQL): two tournaments at once, and
after every event two players' lobby lines (from the lobby socket's state) are the API's.
The driver and what it checks: tests/server/lobby_truth.py; on two real servers:
tests/cli/test_lobby_truth_e2e.py."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.server.helpers import register
from tests.server.lobby_truth import RULING, SWISS, TABLES, Evening, Observer
from tests.server.test_lobby_socket import next_json
from tests.server.test_tournaments import DIRECTOR


def test_two_tournaments_at_once_every_lobby_line_is_the_apis_after_every_event(client: TestClient) -> None:
    ann_id, ann_h = register(client, "ann")
    bob_id, bob_h = register(client, "bob")
    with (
        client.websocket_connect("/api/me/ws?lobby=1", headers=ann_h) as ann_ws,
        client.websocket_connect("/api/me/ws?lobby=1", headers=bob_h) as bob_ws,
    ):
        ann = Observer("ann", ann_id, ann_h, client, lambda timeout: next_json(ann_ws, timeout))
        bob = Observer("bob", bob_id, bob_h, client, lambda timeout: next_json(bob_ws, timeout))
        evening = Evening(ann, bob, DIRECTOR)
        evening.run()
    assert_the_evening_was_seen(ann, bob)


def assert_the_evening_was_seen(ann: Observer, bob: Observer) -> None:
    """What the evening must have shown on the lobbies, so that the comparisons covered it."""
    seen = ann.seen + bob.seen
    assert any("1 entered" in line for line in bob.seen) and any("3 entered" in line for line in ann.seen)
    assert any("you have the bye" in line for line in seen), "no bye was shown"
    assert any(line.startswith("watch ") for line in seen), "no match to watch was shown"
    assert any("forfeit" in line for line in seen), "no forfeit was shown"
    assert any((f"{TABLES} round 1" in line and "of 3" in line) or "you won" in line for line in ann.seen)
    assert any(f"{TABLES} round 2" in line and "starts" in line for line in ann.seen), "the table's round 2"
    assert any(line.startswith("tour   " + SWISS) and "finished · 2 rounds" in line for line in seen)
    assert any(line.startswith("done ") and SWISS in line for line in seen), "a finished Swiss match by name"
    assert any(RULING in line for line in ann.seen), "the ruling in ann's disputes"
