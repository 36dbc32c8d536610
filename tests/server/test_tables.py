"""Casual ``classic`` tables of 2 to 10 (issue 21): ``POST /api/matches`` with ``opponents``, the
start when every seat has joined, a seat leaving by forfeit while the rest play on, per-seat
clocks, the summary's seats and places, ``GET /api/me`` and the lobby socket for every seated
person, and every refusal a clear 4xx that changes nothing. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bench.progress import Stall
from engine.fairness.verify import verify_replay
from engine.record.replay import parse_replay
from engine.record.sealing import SPECTATOR, Viewer, may_open, opening_problem
from server.app import make_app
from server.services.lobby import starts_play
from server.services.matches import MatchService
from server.settings import Settings
from server.store.records import StoredEvent
from server.store.streams import MATCHES_STREAM
from tests.server.conftest import DIRECTOR_TOKEN, app_client
from tests.server.helpers import check_seat_response, ok, register, shedding, with_color
from tests.server.manual_clock import ManualClock
from tests.server.test_clocks import events, of_type
from tests.server.test_lobby_socket import lobby, receive, until

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
LIMIT = 2  # open invitations per player in these tests


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def client(url: str, clock: ManualClock) -> Iterator[TestClient]:
    with app_client(url, clock, open_invitations_per_player=LIMIT) as made:
        yield made


def service(client: TestClient) -> MatchService:
    found: MatchService = client.app.state.matches  # type: ignore[attr-defined]
    return found


def table(client: TestClient, headers: dict[str, str], opponents: list[str], **options: Any) -> dict[str, Any]:
    body = {"opponents": opponents, "ruleset": "classic", **options}
    made: dict[str, Any] = ok(client.post("/api/matches", headers=headers, json=body), 201)
    return made


def view_of(client: TestClient, match_id: str, headers: dict[str, str]) -> dict[str, Any]:
    found: dict[str, Any] = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    return found


def play_seats(
    client: TestClient, match_id: str, people: dict[int, dict[str, str]], rng: random.Random, max_steps: int = 20_000
) -> dict[str, Any]:
    """The people at the table (seat -> headers) send random legal commands until the match is
    over (the house bots answer within each request); every answer must be a 200 that checks out."""
    for step in range(max_steps):
        moved = False
        for seat, headers in people.items():
            seen = view_of(client, match_id, headers)
            if seen["phase"] == "match_over":
                return seen
            if not seen["legal"]:
                continue
            command = with_color(rng.choice(shedding(seen["legal"])), rng)
            body = {"command_id": f"c-{step}-{seat}", "expected_version": seen["version"], "command": command}
            check_seat_response(ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body)), seat)
            moved = True
        assert moved, "nobody at the table has anything to do, and the match is not over"
    raise AssertionError("the match did not end")


def check_ndjson_while_live(client: TestClient, match_id: str, people: dict[int, dict[str, str]]) -> None:
    """``GET …/events`` (NDJSON) for each seat and a spectator: the same envelopes for all, each
    opened only what that viewer may see (a seat its own hand of ``cards_dealt``, no other)."""
    logs: list[list[dict[str, Any]]] = []
    viewers: list[tuple[Viewer, dict[str, str]]] = [*people.items(), (SPECTATOR, {})]
    for viewer, headers in viewers:
        response = client.get(f"/api/matches/{match_id}/events", headers=headers)
        assert response.status_code == 200 and response.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in response.text.splitlines()]
        for line in lines:
            for name, opening in line["open"].items():
                assert may_open(line["type"], line["data"], name, viewer), (viewer, line["type"], name)
                assert opening_problem(line, name, opening) is None
            if line["type"] == "cards_dealt":
                assert set(line["open"]) == ({f"hand{viewer}"} if isinstance(viewer, int) else set())
        logs.append([{k: v for k, v in line.items() if k != "open"} for line in lines])
    assert all(log == logs[0] for log in logs) and any(e["type"] == "cards_dealt" for e in logs[0])


def test_a_table_of_five_seats_everyone_starts_when_all_joined_and_plays_to_the_end(client: TestClient) -> None:
    ada, ada_h = register(client, "ada")
    bob, bob_h = register(client, "bob")
    with lobby(client, bob_h) as bob_lobby:
        assert receive(bob_lobby)["type"] == "state"
        made = table(client, ada_h, ["bob", "bot:greedy", "bot:random", "bot:greedy"], seat=1)
        match_id = made["id"]
        assert until(bob_lobby, lambda m: m["type"] == "match")[0]["status"] == "waiting"
        seats = made["seats"]
        assert [p["id"] for p in seats][:2] == [bob, ada] and made["status"] == "waiting"
        assert [(p["name"], p["kind"]) for p in seats[2:]] == [
            ("greedy", "bot"),
            ("random", "bot"),
            ("greedy-2", "bot"),
        ]
        assert len({p["id"] for p in seats}) == 5 and made["scores"] == [0] * 5 and made["places"] is None
        for headers in (ada_h, bob_h):  # every seated person is shown the table
            assert [m["id"] for m in ok(client.get("/api/me", headers=headers))["matches"]] == [match_id]

        joined = ok(client.post(f"/api/matches/{match_id}/join", headers=ada_h, json={"entropy": "a"}))
        assert joined["view"]["phase"] == "waiting" and joined["match"]["status"] == "waiting"
        ok(client.post(f"/api/matches/{match_id}/join", headers=bob_h, json={"entropy": "b"}))
        assert until(bob_lobby, lambda m: m["type"] == "match")[0]["status"] == "live"
        first = view_of(client, match_id, bob_h)
        assert first["seats"] == 5 and len(first["hand_counts"]) == 5 and first["phase"] != "waiting"
        check_ndjson_while_live(client, match_id, {0: bob_h, 1: ada_h})

        final = play_seats(client, match_id, {0: bob_h, 1: ada_h}, random.Random(21))
        # The next news of this match is its end: "live" is said once, even when a Wild starter
        # starts round 1 again (classic, D19), which it said twice before.
        assert until(bob_lobby, lambda m: m["type"] == "match")[0]["status"] == "finished"
    summary = ok(client.get(f"/api/matches/{match_id}"))["match"]
    assert summary["status"] == "finished" and len(summary["scores"]) == 5
    places = summary["places"]
    assert len(places) == 5 and places[[p["id"] for p in seats].index(summary["winner"])] == 1
    assert final["scores"] == summary["scores"]
    replay = client.get(f"/api/matches/{match_id}/replay").text
    assert verify_replay(replay).ok
    assert parse_replay(replay)[0]["players"] == [p["id"] for p in seats]


def test_every_refusal_is_a_clear_4xx_and_changes_nothing(client: TestClient) -> None:
    _ada, ada_h = register(client, "ada")
    bob, _bob_h = register(client, "bob")
    register(client, "cy")
    head = service(client).store.head(MATCHES_STREAM)
    players = service(client).store.head("players")
    bad: list[tuple[dict[str, Any], int, str]] = [
        ({"opponents": []}, 400, "table.opponents: List should have at least 1 item"),
        ({"opponents": ["bot:random"] * 10}, 400, "table.opponents: List should have at most 9 items"),
        ({"opponent": "bob", "opponents": ["cy"]}, 400, "one of the two"),
        ({}, 400, "one of the two"),
        ({"opponent": "bob", "seat": 1}, 400, "seat goes with opponents"),
        ({"opponents": ["bob", bob], "ruleset": "classic"}, 400, "named twice"),
        ({"opponents": ["bob", "ada"]}, 400, "leave yourself out"),
        ({"opponents": ["bob", "cy"], "ruleset": "uno-duo"}, 400, "played by two"),
        ({"opponents": ["bob", "bot:greedy"], "ruleset": "classic-2p"}, 400, "played by two"),
        ({"opponents": ["bob", "cy"], "ruleset": "nope"}, 400, "unknown ruleset"),
        ({"opponents": ["bob", "nobody-here"]}, 404, "nobody-here"),
        ({"opponents": ["bot:greedy", "bot:nope"]}, 404, "bot:nope"),
        ({"opponents": ["bob", "cy"], "seat": 3}, 400, "seat must be 0 to 2"),
        ({"opponents": ["bob", "cy"], "seat": -1}, 400, "seat"),
        ({"opponents": "bob"}, 400, "opponents"),
    ]
    for body, status, words in bad:
        response = client.post("/api/matches", headers=ada_h, json=body)
        assert response.status_code == status, (body, response.text)
        assert words in response.json()["message"], (body, response.json())
    assert service(client).store.head(MATCHES_STREAM) == head  # no match registered
    assert service(client).store.head("players") == players  # not even a house bot
    assert ok(client.get("/api/me", headers=ada_h))["matches"] == []
    # a seat that is not a person's cannot be joined by someone else, nor a seat twice
    match_id = table(client, ada_h, ["bob", "bot:random"])["id"]
    _eve, eve_h = register(client, "eve")
    assert client.post(f"/api/matches/{match_id}/join", headers=eve_h, json={}).status_code == 403


def test_a_table_is_one_invitation_of_its_creator_whatever_their_seat(client: TestClient) -> None:
    _ada, ada_h = register(client, "ada")
    _bob, bob_h = register(client, "bob")
    for _ in range(LIMIT):
        table(client, ada_h, ["bob", "bot:greedy"], seat=2)
    refused = client.post("/api/matches", headers=ada_h, json={"opponents": ["bob", "bot:greedy"], "seat": 1})
    assert refused.status_code == 409 and refused.json()["code"] == "too_many_open"
    table(client, bob_h, ["ada", "bot:random"])  # bob is seated at ada's tables, and has made none
    assert len(ok(client.get("/api/me", headers=bob_h))["matches"]) == LIMIT + 1


def test_a_seat_that_forfeits_leaves_a_table_of_four_and_the_rest_play_on(client: TestClient) -> None:
    _ada, ada_h = register(client, "ada")
    _bob, bob_h = register(client, "bob")
    made = table(client, ada_h, ["bob", "bot:greedy", "bot:greedy"])
    match_id = made["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=ada_h, json={"entropy": "a"}))
    ok(client.post(f"/api/matches/{match_id}/join", headers=bob_h, json={"entropy": "b"}))
    portal = client.portal
    assert portal is not None
    assert portal.call(service(client).commands.forfeit, match_id, 0, "ruling")  # the director's forfeit of ada's seat
    assert not portal.call(service(client).commands.forfeit, match_id, 0, "ruling")  # once: she has left
    after = view_of(client, match_id, ada_h)
    assert after["phase"] != "match_over" and after["legal"] == [] and after["departed"][0] is True
    assert ok(client.get(f"/api/matches/{match_id}"))["match"]["status"] == "live"
    forfeited = of_type(events(client, match_id), "match_forfeited")
    assert [e["data"]["seat"] for e in forfeited] == [0]

    play_seats(client, match_id, {1: bob_h}, random.Random(4))  # bob and the bots play on
    found = events(client, match_id)
    assert [e["data"]["seat"] for e in of_type(found, "match_forfeited")] == [0]
    assert of_type(found, "command")[-1]["seq"] > forfeited[0]["seq"]  # play went on after she left
    summary = ok(client.get(f"/api/matches/{match_id}"))["match"]
    assert summary["status"] == "finished" and summary["places"][0] == 4  # the seat that left is last
    assert summary["winner"] != made["seats"][0]["id"]
    assert verify_replay(client.get(f"/api/matches/{match_id}/replay").text).ok


def test_three_timeouts_in_a_row_take_a_seat_out_and_the_bots_finish_the_match(url: str, clock: ManualClock) -> None:
    settings = Settings(
        database_url=url, director_token=DIRECTOR_TOKEN, sqlite_synchronous="NORMAL", bot_think_seconds=0
    )
    with TestClient(make_app(settings, clock), raise_server_exceptions=False) as client:
        _ada, ada_h = register(client, "ada")
        made = table(client, ada_h, ["bot:greedy", "bot:random"], move_seconds=1)
        match_id = made["id"]
        ok(client.post(f"/api/matches/{match_id}/join", headers=ada_h, json={"entropy": "a"}))
        stall = Stall()
        ran_out: set[int] = set()  # the versions of ada's decisions whose clock was moved past its end
        while True:  # the clock is moved on only while it is ada's turn: the bots move by themselves
            seen = view_of(client, match_id, DIRECTOR)
            if seen["phase"] == "match_over":
                break
            stall.moved(seen["version"])
            assert not stall.stuck, f"the table stopped at version {seen['version']}"
            # Once per decision: a second move before her timeout is applied (a loaded loop) would
            # run out the clock of the bot whose turn that timeout opens (a bot at a table answers
            # on a task of its own after a timeout).
            if seen["turn"] == 0 and seen["version"] not in ran_out:
                ran_out.add(seen["version"])
                clock.advance(1.1)
            time.sleep(0.02)  # let the server's loop run what came due (polling, not a time budget)
        found = events(client, match_id)
        timeouts = of_type(found, "timed_out")
        assert {t["data"]["seat"] for t in timeouts} == {0}  # only the person's clock runs out
        assert [t["data"]["count"] for t in timeouts] == [1, 2, 3]
        forfeit = of_type(found, "match_forfeited")
        assert [e["data"]["seat"] for e in forfeit] == [0]
        ended = of_type(found, "match_ended")[0]
        assert ended["seq"] > forfeit[0]["seq"] and ended["data"]["winner"] in (1, 2)
        assert ended["data"]["places"][0] == 3
        assert verify_replay(client.get(f"/api/matches/{match_id}/replay").text).ok


def test_a_table_holds_nothing_live_until_every_seat_joined_and_expires_unstarted(
    client: TestClient, clock: ManualClock
) -> None:
    matches = service(client)
    _ada, ada_h = register(client, "ada")
    _bob, bob_h = register(client, "bob")
    _cy, cy_h = register(client, "cy")
    played = table(client, ada_h, ["bob", "cy", "bot:random"])["id"]
    idle = table(client, bob_h, ["ada", "cy"])["id"]
    for headers in (ada_h, bob_h):  # two of the three people: still waiting, nothing held, no clock
        ok(client.post(f"/api/matches/{played}/join", headers=headers, json={}))
    assert len(matches.registry.live) == 0 and matches.clocks.armed() == 0
    assert ok(client.get(f"/api/matches/{played}"))["match"]["status"] == "waiting"
    ok(client.post(f"/api/matches/{played}/join", headers=cy_h, json={}))  # the last seat: it starts
    assert list(matches.registry.live) == [played]
    # the table nobody joined is annulled when invitations expire, and is shown so to every seat
    clock.advance(Settings().invitation_expiry_seconds + 1)
    deadline = Stall()
    while ok(client.get(f"/api/matches/{idle}"))["match"]["status"] != "annulled":
        deadline.moved(None)
        assert not deadline.stuck, "the unstarted table was never annulled"
        time.sleep(0.02)
    for headers in (ada_h, bob_h, cy_h):
        listed = {m["id"]: m["status"] for m in ok(client.get("/api/me", headers=headers))["matches"]}
        assert listed[idle] == "annulled"
    refused = client.post(f"/api/matches/{idle}/join", headers=cy_h, json={})
    assert refused.status_code == 409 and "expired" in refused.json()["message"]


def test_a_restarted_round_one_is_not_a_second_start() -> None:
    """A classic Wild starter starts round 1 again (D19, ``restart`` 1): the lobby says "live"
    once, on the first start only (it said it again for each restart)."""

    def started(round_number: int, restart: int) -> StoredEvent:
        data = {"round": round_number, "player1": 0, "restart": restart}
        return StoredEvent(1, "match-m_1", 5, "round_started", data, {}, "", "", "", {})

    assert starts_play(started(1, 0))
    assert not starts_play(started(1, 1)) and not starts_play(started(1, 2))
    assert not starts_play(started(2, 0))
