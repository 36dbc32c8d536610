"""The fair-play page's and the player page's Game Review figures (issue 37): they fill in as
reviews are computed in the background, and say what they mean and do not mean."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from bench.progress import wait_for
from engine.review.review import ReviewSettings
from server.services.reviews import Reviews
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}


def test_each_players_agreement_and_average_loss_fill_in_once_reviewed(client: TestClient) -> None:
    reviews: Reviews = client.app.state.reviews  # type: ignore[attr-defined]
    reviews.settings = ReviewSettings(samples=1)  # a small budget: the figures, not their precision
    body: dict[str, Any] = {"name": "Tables", "players": ["bot:greedy", "bot:random"] * 3, "ruleset": "classic"}
    body |= {"format": "tables", "rounds": 2, "table_size": 3, "rules": {"target": 500, "round_limit": 1}}
    t = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    ok(client.post(f"/api/tournaments/{t['id']}/start", headers=DIRECTOR))
    wait_for(lambda: ok(client.get(f"/api/tournaments/{t['id']}"))["status"] == "finished", "the end")

    first = ok(client.get(f"/api/tournaments/{t['id']}/fairplay", headers=DIRECTOR))
    assert "not proof of cheating" in first["review_note"]
    reviews.join()  # every review the page queued is done
    report = ok(client.get(f"/api/tournaments/{t['id']}/fairplay", headers=DIRECTOR))
    for row in report["players"]:
        assert row["reviewed_matches"] == row["matches"] == 2
        assert row["reviewed_decisions"] > 0 and 0 <= row["agreement"] <= 1 and row["average_loss"] >= 0

    bot = report["players"][0]["player"]["id"]
    page = ok(client.get(f"/api/players/{bot}"))
    assert page["review"]["matches"] == page["review"]["of_matches"] >= 2
    assert page["review"]["accuracy"] is not None
