"""A director cites any ruling of RULES.md — D13c and the newest ones too — and nothing else
(issue 33, point 7): the server's check reads the one list, engine/game/rulings.py. Before, its
pattern stopped at D24 and knew no D13c, so a ruling citing D25 was refused."""

from __future__ import annotations

from fastapi.testclient import TestClient

from engine.game.rulings import LAST_RULING, RULINGS
from tests.server.helpers import ok, register
from tests.server.test_tournaments import DIRECTOR, _dispute, _rule, create, pairing_of, start, tournament_when


def test_every_ruling_may_be_cited_and_nothing_else(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy"], join_seconds=3600)
    start(client, t["id"])
    t = tournament_when(client, t["id"], lambda t: t["rounds"][0]["status"] == "running")
    match_id = pairing_of(t, ada, 1)["match"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "dice"}))
    first = _dispute(client, match_id, headers, 2, "the cut looked odd")
    second = _dispute(client, match_id, headers, 3, "and so did the deal")
    for wrong in (f"D{LAST_RULING + 1}", "D0", "D13C", "D13d", "d2"):
        refused = _rule(client, first["id"], decision="stands", note="x", rule=wrong)
        assert refused.status_code == 400, (wrong, refused.text)
    assert [d["status"] for d in ok(client.get("/api/disputes", headers=DIRECTOR))] == ["open", "open"]
    for dispute, cited in ((first, "D13c"), (second, RULINGS[-1])):
        ruled = ok(_rule(client, dispute["id"], decision="stands", note="it stands", rule=cited))
        assert (ruled["status"], ruled["rule"]) == ("ruled", cited)
    schema = ok(client.get("/openapi.json"))["components"]["schemas"]["RulingRequest"]["properties"]["rule"]
    assert f"D{LAST_RULING}" in str(schema) and "D13c" in str(schema)
