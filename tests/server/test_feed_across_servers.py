"""A match's feed on one server while the other server appends (two apps on one PostgreSQL database).

A server skips, in its follow, the events of an append of its own in flight (it publishes them
itself when the append returns). If another server's append lands in between, the follow reads
only what came after the skipped range; those events were dropped as a gap and the feed then
waited for them for ever: both tables of a club evening stopped at a version neither had (the
play of two seats on two servers hit it within seconds). The follow now reads the skipped range.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient

from tests.server.helpers import ok, register
from tests.server.test_lobby_socket import GUARD, ON_POSTGRES, two_apps  # noqa: F401 - the fixture


@ON_POSTGRES
def test_another_servers_append_during_an_append_in_flight_reaches_the_feed(
    two_apps: tuple[TestClient, TestClient],  # noqa: F811
) -> None:
    here, there = two_apps
    _ada, ada_h = register(here, "ada")
    bob, bob_h = register(there, "bob")
    match = ok(here.post("/api/matches", headers=ada_h, json={"opponent": bob}), 201)["id"]
    ok(here.post(f"/api/matches/{match}/join", headers=ada_h, json={"entropy": "a"}))
    ok(there.post(f"/api/matches/{match}/join", headers=bob_h, json={"entropy": "b"}))
    copy = there.portal.call(there.app.state.match_registry.open, match)  # type: ignore[attr-defined,union-attr]

    def ada_view() -> dict[str, Any]:
        """Ada's view here once this server has what the other appended (bob's join, his moves)."""
        head = ok(there.get(f"/api/matches/{match}", headers=bob_h))["view"]["version"]
        deadline = time.monotonic() + GUARD
        while True:
            seen: dict[str, Any] = ok(here.get(f"/api/matches/{match}", headers=ada_h))["view"]
            if seen["version"] >= head:
                return seen
            assert time.monotonic() < deadline, "this server never caught up with the other's appends"
            time.sleep(0.01)

    view = ada_view()
    moves = 0
    while not view["legal"]:  # the decision is bob's (a draft pick, maybe two): ada answers after it
        moves += 1
        bob_view = ok(there.get(f"/api/matches/{match}", headers=bob_h))["view"]
        body = {"command_id": f"b{moves}", "command": bob_view["legal"][0]}
        ok(there.post(f"/api/matches/{match}/commands", headers=bob_h, json=body))
        view = ada_view()
    deadline = time.monotonic() + GUARD
    while copy.feed_version < view["version"]:
        assert time.monotonic() < deadline, "the copy never caught up before the test"
        time.sleep(0.01)
    # There, an append of its own is in flight (one event); here, ada moves meanwhile.
    copy.appending_to = copy.feed_version + 1
    try:
        moved = ok(
            here.post(
                f"/api/matches/{match}/commands",
                headers=ada_h,
                json={"command_id": "a1", "command": view["legal"][0]},
            )
        )["view"]["version"]
        deadline = time.monotonic() + GUARD
        while copy.feed_version < moved:  # was: never (the events after the skipped one dropped as a gap)
            assert time.monotonic() < deadline, (
                f"the feed there stopped at {copy.feed_version}; the match is at {moved}"
            )
            time.sleep(0.01)
    finally:
        copy.appending_to = 0
    assert copy.state.version == moved
