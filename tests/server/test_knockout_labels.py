"""A knockout's next match is named where players look (issue 36.6): ``GET /api/me``'s ``next``
and the lobby socket's ``pairing`` carry ``label`` (``winners' round 1``), the words the client
shows instead of "round 1"; a round robin's carry none."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.server.helpers import ok, register
from tests.server.test_lobby_socket import lobby, receive, until
from tests.server.test_tournaments import create, start


def test_the_next_match_of_a_double_elimination_is_labelled(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy", "bot:random", "bot:greedy"], format="double_elimination")
    with lobby(client, headers) as ws:
        assert receive(ws)["type"] == "state"
        start(client, t["id"])
        pairing, _ = until(ws, lambda m: m["type"] == "pairing")
    assert pairing["label"] == "winners' round 1"
    nxt = ok(client.get("/api/me", headers=headers))["next"]
    assert [(n["tournament"], n["label"]) for n in nxt] == [(t["id"], "winners' round 1")]


def test_a_round_robin_pairing_has_no_label(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy"])
    start(client, t["id"])
    nxt = ok(client.get("/api/me", headers=headers))["next"]
    assert nxt and all(n["label"] is None for n in nxt)
