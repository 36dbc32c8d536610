"""Late entry and half-point byes over HTTP (docs/TOURNAMENTS.md "Late entry", "Half-point
byes"), on SQLite and PostgreSQL: each refusal a clear 4xx that changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import ok, register
from tests.server.test_tournaments import DIRECTOR, QUICK, show, start


def swiss(client: TestClient, players: list[str], **options: Any) -> dict[str, Any]:
    body = {"name": "Late night", "players": players, "rules": QUICK, "format": "swiss", "rounds": 3, **options}
    made: dict[str, Any] = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    return made


def bye(client: TestClient, tournament_id: str, headers: dict[str, str], body: Any) -> Any:
    return client.post(f"/api/tournaments/{tournament_id}/byes", headers=headers, json=body)


def test_a_half_point_bye_is_asked_for_before_its_round_and_honoured(client: TestClient) -> None:
    ann, ann_h = register(client, "ann")
    _bob, bob_h = register(client, "bob")
    _eve, eve_h = register(client, "eve")
    t = swiss(client, ["ann", "bob", "bot:greedy", "bot:random"])
    tid = t["id"]
    asked = ok(bye(client, tid, ann_h, {"round": 2}), 201)
    assert asked["half_byes"] == {"2": [ann]}
    assert ok(bye(client, tid, ann_h, {"round": 2}), 201)["half_byes"] == {"2": [ann]}  # again: the same
    before = show(client, tid)
    for headers, body, status in (
        (eve_h, {"round": 2}, 404),  # not entered
        ({}, {"round": 2}, 401),
        (DIRECTOR, {"round": 2}, 401),  # the player's own token
        (bob_h, {"round": 0}, 400),
        (bob_h, {"round": 4}, 400),  # past the tournament's rounds
        (bob_h, {"round": "2"}, 400),
        (bob_h, {}, 400),
        (bob_h, {"round": 2, "extra": 1}, 400),
    ):
        refused = bye(client, tid, headers, body)
        assert refused.status_code == status, (body, refused.text)
    ok(bye(client, tid, ann_h, {"round": 3}), 201)
    third = bye(client, tid, ann_h, {"round": 1})
    assert third.status_code == 409 and "at most" in third.json()["message"]
    assert show(client, tid)["half_byes"] == {"2": [ann], "3": [ann]}
    assert {k: v for k, v in show(client, tid).items() if k != "half_byes"} == {
        k: v for k, v in before.items() if k != "half_byes"
    }
    started = start(client, tid)
    paired = bye(client, tid, bob_h, {"round": 1})
    assert paired.status_code == 409 and "paired already" in paired.json()["message"]
    assert started["half_byes"] == {"2": [ann], "3": [ann]}


def test_a_round_robin_takes_no_bye_requests(client: TestClient) -> None:
    _ann, ann_h = register(client, "ann")
    t = ok(
        client.post("/api/tournaments", headers=DIRECTOR, json={"name": "RR", "players": ["ann", "bot:random"]}), 201
    )
    refused = bye(client, t["id"], ann_h, {"round": 1})
    assert refused.status_code == 409 and "swiss" in refused.json()["message"]


def test_late_entry_until_the_set_round_is_paired(client: TestClient) -> None:
    late, late_h = register(client, "late")
    register(client, "later")
    t = swiss(client, ["bot:greedy", "bot:random", "bot:greedy", "bot:random"], open=True, late_entry_rounds=1)
    tid = t["id"]
    start_body = ok(client.post(f"/api/tournaments/{tid}/start", headers=DIRECTOR))
    assert start_body["late_entry_rounds"] == 1
    # Round 1 opened with the start: it is paired, so entries closed with it.
    refused = client.post(f"/api/tournaments/{tid}/entries", headers=late_h)
    assert refused.status_code == 409 and "late entries until round 1" in refused.json()["message"]
    assert late not in [p["id"] for p in show(client, tid)["players"]]


def test_a_late_entrant_enters_after_the_start_and_is_paired_from_the_next_round(client: TestClient) -> None:
    late, late_h = register(client, "late")
    t = swiss(
        client,
        ["bot:greedy", "bot:random", "bot:greedy", "bot:random"],
        open=True,
        late_entry_rounds=2,
        late_entry_bye=True,
        round_starts=["2999-01-01T00:00:00+00:00"],
    )
    tid = t["id"]
    started = ok(client.post(f"/api/tournaments/{tid}/start", headers=DIRECTOR))
    assert started["status"] == "running" and started["rounds"][0]["pairings"] == []  # round 1 waits for its time
    line = next(x for x in ok(client.get("/api/tournaments", headers=late_h)) if x["id"] == tid)
    assert (line["status"], line["late_entry_until"], line["entered"]) == ("running", 2, False)  # the lobby offers it
    entered = ok(client.post(f"/api/tournaments/{tid}/entries", headers=late_h), 201)
    assert entered["late_entries"] == {late: 1} and late in [p["id"] for p in entered["players"]]
    leaving = client.delete(f"/api/tournaments/{tid}/entries/late", headers=late_h)
    assert leaving.status_code == 409  # leaving after the start is a withdrawal, the director's


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"late_entry_rounds": 4}, "late_entry_rounds"),
        ({"late_entry_rounds": 0}, "late_entry_rounds"),
        ({"late_entry_bye": True}, "needs late_entry_rounds"),
        ({"late_entry_rounds": 1, "duplicate": True}, "duplicate"),
        ({"late_entry_rounds": "1"}, "late_entry_rounds"),
    ],
)
def test_late_entry_that_cannot_work_is_a_400_that_makes_nothing(
    client: TestClient, options: dict[str, Any], says: str
) -> None:
    before = ok(client.get("/api/tournaments"))
    body = {"name": "x", "players": ["bot:greedy", "bot:random"], "format": "swiss", "rounds": 1}
    refused = client.post(
        "/api/tournaments",
        headers=DIRECTOR,
        json={**body, "rounds": 3, **options, "players": ["bot:greedy", "bot:random", "bot:greedy", "bot:random"]},
    )
    assert refused.status_code == 400, refused.text
    assert says in refused.text
    assert ok(client.get("/api/tournaments")) == before
