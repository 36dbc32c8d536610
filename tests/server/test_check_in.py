"""Check-in over HTTP (docs/TOURNAMENTS.md "Check-in"), on SQLite and PostgreSQL: the window,
each refusal a clear 4xx that changes nothing, and the start at ``starts_at`` that withdraws
whoever did not confirm."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import app_client
from tests.server.helpers import ok, register
from tests.server.manual_clock import ManualClock
from tests.server.test_tournaments import DIRECTOR, QUICK, show, tournament_when

T0 = datetime(2026, 12, 7, 19, 0, tzinfo=UTC)
START = T0 + timedelta(hours=1)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


@pytest.fixture
def timed(url: str, clock: ManualClock) -> Iterator[TestClient]:
    with app_client(url, clock) as made:
        yield made


def create(client: TestClient, **options: Any) -> Any:
    body = {"name": "Check-in night", "open": True, "rules": QUICK, "format": "swiss", "rounds": 1, **options}
    return client.post("/api/tournaments", headers=DIRECTOR, json=body)


def check_in(client: TestClient, tournament_id: str, headers: dict[str, str]) -> Any:
    return client.post(f"/api/tournaments/{tournament_id}/check-in", headers=headers)


def test_check_in_in_the_window_and_the_start_withdraws_the_unconfirmed(timed: TestClient, clock: ManualClock) -> None:
    client = timed
    players = {name: register(client, name) for name in ("ada", "bob", "cy", "dee")}
    t = ok(create(client, starts_at=START.isoformat(), check_in_minutes=30), 201)
    tid = t["id"]
    assert t["check_in_minutes"] == 30 and t["check_in_opens"] is not None and t["starts_at"] is not None
    for name in ("ada", "bob", "cy"):
        ok(client.post(f"/api/tournaments/{tid}/entries", headers=players[name][1]), 201)
    ok(client.post(f"/api/tournaments/{tid}/entries", headers=DIRECTOR, json={"player": "bot:greedy"}), 201)
    early = check_in(client, tid, players["ada"][1])
    assert early.status_code == 409 and "opens at" in early.json()["message"]
    stranger = check_in(client, tid, players["dee"][1])
    assert stranger.status_code == 404
    assert check_in(client, tid, {}).status_code == 401
    assert check_in(client, tid, DIRECTOR).status_code == 401
    assert check_in(client, "t_nobody", players["ada"][1]).status_code == 404
    assert show(client, tid)["checked_in"] == []  # nothing changed by any refusal
    clock.advance(31 * 60)
    assert ok(check_in(client, tid, players["ada"][1]))["checked_in"] == [players["ada"][0]]
    assert ok(check_in(client, tid, players["ada"][1]))["checked_in"] == [players["ada"][0]]  # idempotent
    ok(check_in(client, tid, players["bob"][1]))
    clock.advance(30 * 60)
    running = tournament_when(client, tid, lambda shown: shown["status"] == "running")
    assert [p["id"] for p in running["not_checked_in"]] == [players["cy"][0]]
    assert [p["name"] for p in running["players"]] == ["ada", "bob", "greedy"]  # a house bot needs no check-in
    line = next(x for x in ok(client.get("/api/tournaments", headers=players["cy"][1])) if x["id"] == tid)
    assert line["you_missed_check_in"] is True  # the lobby tells cy why they play nothing
    line = next(x for x in ok(client.get("/api/tournaments", headers=players["ada"][1])) if x["id"] == tid)
    assert line["you_missed_check_in"] is False
    late = check_in(client, tid, players["ada"][1])
    assert late.status_code == 409 and "closed" in late.json()["message"]


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"check_in_minutes": 30}, "needs a start"),
        (
            {"check_in_minutes": 30, "starts_at": START.isoformat(), "open": False, "players": ["bot:random"] * 4},
            "open",
        ),
        ({"check_in_minutes": 0, "starts_at": START.isoformat()}, "check_in_minutes"),
        ({"check_in_minutes": "30", "starts_at": START.isoformat()}, "check_in_minutes"),
        ({"starts_at": "2026-12-07T21:00:00"}, "starts_at"),
        ({"starts_at": (T0 - timedelta(minutes=1)).isoformat()}, "future"),
    ],
)
def test_a_check_in_that_cannot_work_is_a_400_that_makes_nothing(
    timed: TestClient, options: dict[str, Any], says: str
) -> None:
    before = ok(timed.get("/api/tournaments"))
    refused = create(timed, **options)
    assert refused.status_code == 400, refused.text
    assert says in refused.text
    assert ok(timed.get("/api/tournaments")) == before
