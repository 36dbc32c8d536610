"""Open invitations (docs/SERVER.md "Open invitations"), on SQLite and PostgreSQL: a limit per
player, an expiry, and nothing held live for a match that has not started.

Each test fails on the code before these bounds: one player could make any number of
matches, they never expired, and every one was held live with a follower polling the store.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bench.progress import STALL_SECONDS
from server.app import make_app
from server.services.match_registry import IDLE_KEPT
from server.services.matches import MatchService
from server.settings import Settings
from server.store.read_models import read_rows, rebuild
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok, register
from tests.server.manual_clock import ManualClock

LIMIT = 10
EXPIRY = 3600


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def client(url: str, clock: ManualClock) -> Iterator[TestClient]:
    settings = Settings(
        database_url=url,
        director_token=DIRECTOR_TOKEN,
        sqlite_synchronous="NORMAL",
        bot_think_seconds=0,
        open_invitations_per_player=LIMIT,
        invitation_expiry_seconds=EXPIRY,
    )
    with TestClient(make_app(settings, clock), raise_server_exceptions=False) as test_client:
        yield test_client


def service(client: TestClient) -> MatchService:
    found: MatchService = client.app.state.matches  # type: ignore[attr-defined]
    return found


def invite(client: TestClient, headers: dict[str, str], opponent: str) -> Any:
    return client.post("/api/matches", headers=headers, json={"opponent": opponent})


def running_tasks(client: TestClient) -> int:
    """The tasks on the server's event loop (followers, clocks in flight, bot moves, the hold loop)."""

    async def count() -> int:
        return len(asyncio.all_tasks())

    found: int = client.portal.call(count)  # type: ignore[union-attr]
    return found


def poll(check: Callable[[], bool]) -> None:
    """Look until ``check()`` holds (the server's loop runs what came due). Only the stall window
    (minutes) fails it: 500 looks of 20 ms once ran out on a loaded machine in CI."""
    deadline = time.monotonic() + STALL_SECONDS
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError("the condition never held")


def test_a_player_may_have_only_so_many_open_invitations(client: TestClient) -> None:
    _, attacker = register(client, "vandal")
    victim, victim_headers = register(client, "victim")
    answers = [invite(client, attacker, victim) for _ in range(1000)]
    made = [a for a in answers if a.status_code == 201]
    refused = [a for a in answers if a.status_code != 201]
    assert len(made) == LIMIT and len(refused) == 1000 - LIMIT
    assert {a.status_code for a in refused} == {409} and {a.json()["code"] for a in refused} == {"too_many_open"}
    assert "the most one player may have open" in refused[0].json()["message"]
    listed = ok(client.get("/api/me", headers=victim_headers))["matches"]
    assert len(listed) == LIMIT and {m["status"] for m in listed} == {"waiting"}
    # An invitation that starts is no longer open: the creator may invite again.
    first = made[0].json()["id"]
    ok(client.post(f"/api/matches/{first}/join", headers=attacker, json={"entropy": "a"}))
    assert invite(client, attacker, victim).status_code == 409  # half joined: still open
    ok(client.post(f"/api/matches/{first}/join", headers=victim_headers, json={"entropy": "b"}))
    assert invite(client, attacker, victim).status_code == 201


def test_matches_nobody_started_hold_nothing_live(client: TestClient) -> None:
    matches = service(client)
    tasks_before = running_tasks(client)
    victim, victim_headers = register(client, "victim")
    made: list[str] = []
    creator_headers: dict[str, str] = {}
    for n in range(20):  # 20 players × 10 invitations: 200 matches nobody has joined
        _, headers = register(client, f"p{n}")
        creator_headers = creator_headers or headers
        made += [ok(invite(client, headers, victim), 201)["id"] for _ in range(LIMIT)]
    for match_id in made[:50]:  # reading them loads them on demand, and holds nothing either
        assert ok(client.get(f"/api/matches/{match_id}"))["match"]["status"] == "waiting"
    assert len(matches.registry.live) == 0 and running_tasks(client) <= tasks_before  # no follower, clock or poll each
    assert matches.clocks.armed() == 0 and matches.registry.idle() <= IDLE_KEPT
    assert not any(live.follower for live in matches.registry._idle.values())
    # A seat joins: still waiting, still nothing held. Both seats: it is played, and held live.
    match_id = made[0]
    ok(client.post(f"/api/matches/{match_id}/join", headers=victim_headers, json={"entropy": "v"}))
    assert len(matches.registry.live) == 0
    ok(client.post(f"/api/matches/{match_id}/join", headers=creator_headers, json={"entropy": "c"}))
    assert list(matches.registry.live) == [match_id] and matches.registry.live[match_id].follower is not None


def test_an_invitation_nobody_started_expires_and_cannot_be_joined(client: TestClient, clock: ManualClock) -> None:
    _, ada_headers = register(client, "ada")
    bob, bob_headers = register(client, "bob")
    match_id = ok(invite(client, ada_headers, bob), 201)["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=ada_headers, json={"entropy": "a"}))
    clock.advance(EXPIRY - 1)
    later = ok(invite(client, ada_headers, bob), 201)["id"]  # made later: expires later
    assert ok(client.get(f"/api/matches/{match_id}"))["match"]["status"] == "waiting"
    clock.advance(2)
    poll(lambda: ok(client.get(f"/api/matches/{match_id}"))["match"]["status"] == "annulled")
    refused = client.post(f"/api/matches/{match_id}/join", headers=bob_headers, json={"entropy": "b"})
    assert refused.status_code == 409 and refused.json()["code"] == "not_now"
    assert "expired" in refused.json()["message"]
    listed = {m["id"]: m["status"] for m in ok(client.get("/api/me", headers=bob_headers))["matches"]}
    assert listed == {match_id: "annulled", later: "waiting"}
    # The later one expires on the timer armed for it; the read models agree with a rebuild.
    clock.advance(EXPIRY)
    poll(lambda: ok(client.get(f"/api/matches/{later}"))["match"]["status"] == "annulled")
    engine = service(client).store.engine
    before = read_rows(engine)
    rebuild(engine)
    assert read_rows(engine) == before
    assert invite(client, ada_headers, bob).status_code == 201  # expired ones are not open any more


def test_a_watcher_holds_an_unstarted_match_while_it_watches_and_sees_it_start(client: TestClient) -> None:
    _, ada = register(client, "ada")
    bob, bob_headers = register(client, "bob")
    matches = service(client)
    quiet = ok(invite(client, ada, bob), 201)["id"]
    with client.websocket_connect(f"/api/matches/{quiet}/ws?since=0") as ws:
        assert ws.receive_json()["type"] == "event"  # the match's first event: the feed is open
        assert list(matches.registry.live) == [quiet]
    poll(lambda: quiet not in matches.registry.live)  # the last watcher left: idle again, its follower gone
    match_id = ok(invite(client, ada, bob), 201)["id"]
    with client.websocket_connect(f"/api/matches/{match_id}/ws?since=0") as ws:
        first = ws.receive_json()
        ok(client.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "a"}))
        ok(client.post(f"/api/matches/{match_id}/join", headers=bob_headers, json={"entropy": "b"}))
        seen = [first]
        while not any(m.get("event", {}).get("type") == "round_started" for m in seen):
            seen.append(ws.receive_json())
    assert match_id in matches.registry.live  # started: held live from now on
