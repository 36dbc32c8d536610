"""A server's match names its seats on the chain (``match_created``'s ``names``): its replay
verifies and ``unoduo audit`` / the scrubber call the seats by name, not by id."""

from __future__ import annotations

import json
import random

from fastapi.testclient import TestClient

from engine.fairness.audit_report import audit, format_report
from engine.fairness.verify import verify_replay
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok, play_to_end, register
from tui_client.models.replay_model import ReplayModel

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}


def test_a_server_match_records_the_seats_names_and_its_replay_reads_by_name(client: TestClient) -> None:
    player_id, headers = register(client, "ann")
    summary = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:random"}), 201)
    match_id = summary["id"]
    bot = summary["seats"][1]
    assert bot["name"] == "random" and bot["id"] != "random"
    first = json.loads(client.get(f"/api/matches/{match_id}/events", params={"since": 0}).text.splitlines()[0])
    assert first["type"] == "match_created" and first["data"]["names"] == ["ann", "random"]

    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "ann's dice"}))
    play_to_end(client, match_id, headers, 0, random.Random(3), audit_headers=DIRECTOR)
    text = client.get(f"/api/matches/{match_id}/replay").text
    assert verify_replay(text).ok

    report = audit(text, "m.jsonl", at=20)
    assert report.names == ["ann", "random"]
    words = format_report(report)
    assert "hand of seat 0 (ann)" in words and "hand of seat 1 (random)" in words
    assert player_id not in words and bot["id"] not in words
    assert report.result is not None and report.result.split(" wins ")[0] in ("ann", "random")

    model = ReplayModel(text)
    assert model.players == ["ann", "random"] and model.seat_label(1) == "seat 1 (random)"
    log = " / ".join(model.describe(seq, "auditor") for seq in range(1, model.total + 1))
    assert "ann joined" in log and "random joined" in log and bot["id"] not in log
    assert "(lowest total wins)" in log
