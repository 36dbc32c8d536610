"""``GET /api/matches/{id}/review`` (issue 37): finished matches only, cached, a clear 4xx otherwise."""

from __future__ import annotations

import random

import pytest
from fastapi.testclient import TestClient

from engine.review.replay_events import replay_events
from engine.review.report import review_dict
from engine.review.review import ReviewSettings, review_seat
from server.services import reviews as reviews_module
from server.services.reviews import Reviews
from tests.server.helpers import ok, play_to_end, register


def test_a_finished_match_is_reviewed_a_live_one_never(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    player_id, headers = register(client, "ada")
    match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "dice"}))

    live = client.get(f"/api/matches/{match_id}/review", params={"seat": 0, "samples": 1})
    assert live.status_code == 409 and live.json()["code"] == "match_live"

    play_to_end(client, match_id, headers, 0, random.Random(3))
    answer = ok(client.get(f"/api/matches/{match_id}/review", params={"seat": 0, "samples": 1}))
    assert answer["match"] == match_id and answer["seat"] == 0 and answer["player"] == player_id
    assert answer["reviewed"] == len(answer["decisions"]) > 0
    _, events = replay_events(client.get(f"/api/matches/{match_id}/replay").text)
    expected = review_dict(review_seat(events, 0, ReviewSettings(samples=1)), match_id, player_id)
    assert answer == expected  # the server's review is anyone's review of the replay

    reviews: Reviews = client.app.state.reviews  # type: ignore[attr-defined]
    assert reviews.kept(match_id, 0, ReviewSettings(samples=1)) == answer  # cached: asked again, not recomputed

    no_seat = client.get(f"/api/matches/{match_id}/review", params={"seat": 2, "samples": 1})
    assert no_seat.status_code == 400 and no_seat.json()["code"] == "malformed"
    too_many = client.get(f"/api/matches/{match_id}/review", params={"samples": 100000})
    assert too_many.status_code == 400
    assert client.get("/api/matches/m_nope/review").status_code == 404

    monkeypatch.setattr(reviews_module, "MAX_ASKED", 0)  # the worker busy with others' reviews
    busy = client.get(f"/api/matches/{match_id}/review", params={"seat": 1, "samples": 1})
    assert busy.status_code == 429 and busy.headers["retry-after"] == str(reviews_module.BUSY_SECONDS)
    assert ok(client.get(f"/api/matches/{match_id}/review", params={"seat": 0, "samples": 1})) == answer  # kept
