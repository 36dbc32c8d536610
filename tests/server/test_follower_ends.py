"""A match that ends here stops its follower: a finished match held for quick reads must not
re-read its stream every poll for as long as the server runs (found as a stray read in
``test_past_views``: the follower of a finished match polling the store)."""

from __future__ import annotations

import random
import time

from fastapi.testclient import TestClient

from bench.progress import STALL_SECONDS, Stall
from server.services.matches import MatchService
from tests.server.helpers import ok, play_to_end, register


def test_the_follower_of_a_match_that_ended_here_ends(client: TestClient) -> None:
    _, headers = register(client, "ada")
    match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "e"}))
    matches: MatchService = client.app.state.matches  # type: ignore[attr-defined]
    live = matches.registry.live[match_id]
    follower = live.follower
    assert follower is not None and not follower.done(), "a live match is followed"
    play_to_end(client, match_id, headers, 0, random.Random(3))
    assert live.closed
    stall = Stall(STALL_SECONDS)
    while not follower.done():  # the cancellation is handled on the server's loop, in its own thread
        assert not stall.stuck, "the follower of the finished match is still running"
        time.sleep(0.01)
    assert matches.registry.live.get(match_id) is live, "still kept for quick reads, without a follower"
