"""``bot:coach-N`` through the API (issue 37): a casual match against it, its moves in the request."""

from __future__ import annotations

import random

from fastapi.testclient import TestClient

from tests.server.helpers import ok, register, with_color


def test_a_person_plays_the_coach_and_it_answers_in_the_request(client: TestClient) -> None:
    _, headers = register(client, "ada")
    match = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:coach-1"}), 201)
    match_id = match["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "x"}))
    rng = random.Random(3)
    coach_moves = 0
    for step in range(12):
        seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
        assert seen["legal"], "with no think delay the coach has answered inside the request"
        body = {
            "command_id": f"c{step}",
            "expected_version": seen["version"],
            "command": with_color(seen["legal"][0], rng),
        }
        answer = ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body))
        coach_moves += sum(1 for e in answer["events"] if e["type"] == "command" and e["data"]["seat"] == 1)
        if answer["view"]["phase"] == "match_over":
            break
    assert coach_moves > 0
