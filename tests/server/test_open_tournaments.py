"""Open tournaments (docs/TOURNAMENTS.md "Open tournaments"): players enter and leave themselves
until the start; the director enters and takes out anyone, by name; on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from server.tournaments.decide import MAX_PLAYERS
from tests.server.helpers import ok, register
from tests.server.test_tournaments import DIRECTOR, QUICK, show, start


def create_open(client: TestClient, players: list[str] | None = None, **options: Any) -> dict[str, Any]:
    body = {"name": "Open night", "open": True, "rules": QUICK, **options}
    if players is not None:
        body["players"] = players
    made: dict[str, Any] = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    return made


def entries(client: TestClient, tournament_id: str) -> list[str]:
    return [p["name"] for p in show(client, tournament_id)["players"]]


def listed(client: TestClient, tournament_id: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return next(t for t in ok(client.get("/api/tournaments", headers=headers or {})) if t["id"] == tournament_id)


def test_players_enter_and_leave_an_open_tournament_themselves_until_the_start(client: TestClient) -> None:
    ada, ada_h = register(client, "ada")
    _bob, bob_h = register(client, "bob")
    t = create_open(client)
    assert t["open"] is True and t["players"] == [] and t["status"] == "created"
    line = listed(client, t["id"], ada_h)
    assert (line["open"], line["entries"], line["entered"]) == (True, 0, False)
    assert listed(client, t["id"])["entered"] is None  # no token: nobody to ask about
    entered = ok(client.post(f"/api/tournaments/{t['id']}/entries", headers=ada_h), 201)
    assert [p["id"] for p in entered["players"]] == [ada]
    assert listed(client, t["id"], ada_h)["entered"] is True
    again = client.post(f"/api/tournaments/{t['id']}/entries", headers=ada_h)
    assert again.status_code == 409 and again.json()["code"] == "not_now" and "already" in again.json()["message"]
    # Starting with one player is refused in words; nothing changes.
    lonely = client.post(f"/api/tournaments/{t['id']}/start", headers=DIRECTOR)
    assert lonely.status_code == 409 and "at least 2" in lonely.json()["message"]
    assert show(client, t["id"])["status"] == "created"
    ok(client.post(f"/api/tournaments/{t['id']}/entries", headers=bob_h), 201)
    # A player leaves by name (any case), and enters again; another player cannot take them out.
    refused = client.delete(f"/api/tournaments/{t['id']}/entries/ada", headers=bob_h)
    assert refused.status_code == 403
    ok(client.delete(f"/api/tournaments/{t['id']}/entries/ADA", headers=ada_h))
    assert entries(client, t["id"]) == ["bob"]
    gone = client.delete(f"/api/tournaments/{t['id']}/entries/ada", headers=ada_h)
    assert gone.status_code == 404
    ok(client.post(f"/api/tournaments/{t['id']}/entries", headers=ada_h), 201)
    assert entries(client, t["id"]) == ["bob", "ada"]
    # The director enters anyone by name, id or bot:NAME.
    ok(client.post(f"/api/tournaments/{t['id']}/entries", headers=DIRECTOR, json={"player": "bot:greedy"}), 201)
    ok(client.post(f"/api/tournaments/{t['id']}/entries", headers=DIRECTOR, json={"player": "bot:greedy"}), 201)
    assert entries(client, t["id"]) == ["bob", "ada", "greedy", "greedy-2"]
    ok(client.delete(f"/api/tournaments/{t['id']}/entries/greedy-2", headers=DIRECTOR))
    started = start(client, t["id"])
    assert started["status"] == "running" and len(started["rounds"]) == 3  # 3 players: 3 rounds with a bye
    # Once started: no entries and no leaving.
    late = client.post(f"/api/tournaments/{t['id']}/entries", headers=DIRECTOR, json={"player": "bot:random"})
    assert late.status_code == 409 and "started" in late.json()["message"]
    leaving = client.delete(f"/api/tournaments/{t['id']}/entries/{ada}", headers=ada_h)
    assert leaving.status_code == 409
    assert entries(client, t["id"]) == ["bob", "ada", "greedy"]


def test_a_tournament_not_open_takes_entries_from_the_director_only(client: TestClient) -> None:
    ada, ada_h = register(client, "ada")
    _, bob_h = register(client, "bob")
    t = ok(
        client.post(
            "/api/tournaments",
            headers=DIRECTOR,
            json={"name": "Closed", "players": ["ada", "bot:random"], "rules": QUICK},
        ),
        201,
    )
    assert t["open"] is False and t["players"][0]["id"] == ada  # entered by name
    self_entry = client.post(f"/api/tournaments/{t['id']}/entries", headers=bob_h)
    assert self_entry.status_code == 409 and "not open" in self_entry.json()["message"]
    other = client.post(f"/api/tournaments/{t['id']}/entries", headers=bob_h, json={"player": "ada"})
    assert other.status_code == 403
    ok(client.post(f"/api/tournaments/{t['id']}/entries", headers=DIRECTOR, json={"player": "bob"}), 201)
    assert entries(client, t["id"]) == ["ada", "random", "bob"]
    # A player may still take themselves out before the start.
    ok(client.delete(f"/api/tournaments/{t['id']}/entries/bob", headers=bob_h))
    own_name = client.post(f"/api/tournaments/{t['id']}/entries", headers=ada_h, json={"player": "ADA"})
    assert own_name.status_code == 409  # naming oneself is entering oneself: not open
    nobody = client.post(f"/api/tournaments/{t['id']}/entries")
    assert nobody.status_code == 401
    missing = client.post(f"/api/tournaments/{t['id']}/entries", headers=DIRECTOR, json={"player": "zed"})
    assert missing.status_code == 404
    no_name = client.post(f"/api/tournaments/{t['id']}/entries", headers=DIRECTOR)
    assert no_name.status_code == 400
    assert client.post("/api/tournaments/t_nope/entries", headers=ada_h).status_code == 404
    # Without open, a tournament still needs two players to be made.
    one = client.post("/api/tournaments", headers=DIRECTOR, json={"name": "x", "players": ["ada"]})
    assert one.status_code == 400


def test_an_open_tournament_is_full_at_the_most_players_a_round_robin_takes(client: TestClient) -> None:
    t = create_open(client, ["bot:random"] * MAX_PLAYERS)
    assert len(t["players"]) == MAX_PLAYERS
    _, headers = register(client, "ada")
    full = client.post(f"/api/tournaments/{t['id']}/entries", headers=headers)
    assert full.status_code == 409 and "full" in full.json()["message"]
    assert len(show(client, t["id"])["players"]) == MAX_PLAYERS


def test_withdraw_takes_a_player_by_name(client: TestClient) -> None:
    ada, _ = register(client, "ada")
    t = ok(
        client.post(
            "/api/tournaments",
            headers=DIRECTOR,
            json={"name": "W", "players": ["ada", "bot:greedy", "bot:random"], "join_seconds": 3600, "rules": QUICK},
        ),
        201,
    )
    start(client, t["id"])
    after = ok(client.post(f"/api/tournaments/{t['id']}/withdraw", headers=DIRECTOR, json={"player": "Ada"}))
    assert [w["player"] for w in after["withdrawals"]] == [ada]
