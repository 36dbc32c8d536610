"""Single and double elimination through the HTTP API, on SQLite and PostgreSQL (docs/TOURNAMENTS.md
"Knockouts"): house bots play a bracket to its end; the tournament shows its bracket, each
pairing's node and the final places; the JSON export; what a director is refused."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import ok, register
from tests.server.test_tournaments import DIRECTOR, QUICK, create, finished, show, start, tournament_when

BOTS = ["bot:random", "bot:greedy"]


def played(t: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for r in t["rounds"] for p in r["pairings"]]


def test_a_single_elimination_of_six_bots_ends_with_places_and_exports(client: TestClient) -> None:
    t = create(client, BOTS * 3, format="single_elimination")
    assert t["format"] == "single_elimination" and t["bracket"] == [] and t["places"] == []
    started = start(client, t["id"])
    assert started["rounds_planned"] == 3
    first = {n["id"]: n for n in started["bracket"]}
    assert first["W1-1"]["status"] == "walkover" and first["W1-1"]["sources"] == ["seed 1"]  # seeds 1, 2: byes
    assert first["W1-2"]["sources"] == ["seed 4", "seed 5"]
    assert first["F"]["sources"] == ["winner of W2-1", "winner of W2-2"] and first["F"]["status"] == "waiting"
    t = tournament_when(client, t["id"], finished)

    pairings = played(t)
    assert len(pairings) == 5  # n - 1: byes are not matches
    assert all(p["bracket"] in ("winners", "final") and p["node"] for p in pairings)
    summaries = [m for r in t["rounds"] for m in r["matches"]]
    assert {(m["id"], m["node"]) for m in summaries} == {(p["match"], p["node"]) for p in pairings}
    nodes = {n["id"]: n for n in t["bracket"]}
    assert all(n["status"] in ("decided", "walkover") for n in nodes.values())
    champion = nodes["F"]["winner"]
    places = [(p["place"], p["player"]) for p in t["places"]]
    assert [place for place, _ in places] == [1, 2, 3, 3, 5, 5]
    assert places[0][1] == champion
    assert [r["player"] for r in t["standings"]] == [player for _, player in places]
    assert [r["rank"] for r in t["standings"]] == [1, 2, 3, 3, 5, 5]

    exported = ok(client.get(f"/api/tournaments/{t['id']}/export.json"))
    assert exported["places"] == t["places"] and exported["bracket"] == t["bracket"]
    assert len(exported["results"]) == 5 and exported["server_seed"] == t["server_seed"]
    assert [s["id"] for s in exported["seeds"]] == [p["id"] for p in t["players"]]
    trf = client.get(f"/api/tournaments/{t['id']}/trf")
    assert trf.status_code == 409 and "use export.json" in trf.text


def test_a_double_elimination_of_five_bots_loses_everyone_but_the_champion_twice(client: TestClient) -> None:
    t = create(client, [*BOTS * 2, "bot:random"], format="double_elimination", seeding="rating")
    start(client, t["id"])
    t = tournament_when(client, t["id"], finished)
    pairings = played(t)
    reset = any(p["node"] == "GF2" for p in pairings)
    assert len(pairings) == (2 * 5 - 1 if reset else 2 * 5 - 2)
    losses = Counter(s["id"] for p in pairings for s in p["seats"] if s["id"] != p["result"]["winner"])
    champion = t["places"][0]["player"]
    assert all(losses[p["id"]] == 2 for p in t["players"] if p["id"] != champion)
    assert [p["place"] for p in t["places"]] == [1, 2, 3, 4, 5]
    assert {p["bracket"] for p in pairings} >= {"winners", "losers", "final"}


def test_a_withdrawal_gives_the_other_side_a_walkover(client: TestClient) -> None:
    people = [register(client, name)[0] for name in ("ada", "bea", "cy", "dot")]  # they never join: matches wait
    t = create(client, people, format="single_elimination", join_seconds=3600, move_seconds=3600)
    t = start(client, t["id"])
    leaving = people[0]  # seed 1: in a match of round 1
    ok(client.post(f"/api/tournaments/{t['id']}/withdraw", headers=DIRECTOR, json={"player": leaving}))

    def first_of(t: dict[str, Any]) -> dict[str, Any]:
        return next(p for p in t["rounds"][0]["pairings"] if leaving in [s["id"] for s in p["seats"]])

    t = tournament_when(client, t["id"], lambda t: first_of(t)["result"] is not None)  # the match's end lands
    first = first_of(t)
    assert first["result"]["forfeit"] and first["result"]["winner"] != leaving
    assert t["withdrawals"] == [{"player": leaving, "annulled": False}]
    assert {n["id"]: n["status"] for n in t["bracket"]}["W1-1"] == "decided"


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"format": "single_elimination", "ruleset": "classic"}, "two-seat"),
        ({"format": "double_elimination", "table_size": 4}, "table_size"),
        ({"format": "single_elimination", "rounds": 3}, "rounds"),
        ({"format": "double_elimination", "double": True}, "double"),
        ({"format": "single_elimination", "duplicate": True}, "duplicate"),
        ({"format": "double_elimination", "players": ["bot:random"]}, "2"),
        ({"format": "single_elimination", "players": ["bot:random"] * 65}, "64"),
    ],
)
def test_what_a_knockout_cannot_use_is_refused_and_nothing_is_made(
    client: TestClient, options: dict[str, Any], says: str
) -> None:
    body = {"name": "Refused", "players": BOTS * 2, "rules": QUICK, **options}
    reply = client.post("/api/tournaments", headers=DIRECTOR, json=body)
    assert reply.status_code in (400, 422), reply.text
    assert says in reply.text, reply.text
    assert not [x for x in ok(client.get("/api/tournaments")) if x["name"] == "Refused"]


def test_export_json_is_a_knockouts(client: TestClient) -> None:
    t = create(client, BOTS, format="round_robin")
    reply = client.get(f"/api/tournaments/{t['id']}/export.json")
    assert reply.status_code == 409 and "/trf" in reply.text


def test_a_replay_ruling_replays_a_knockout_match_and_an_award_decides_it(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy"], format="single_elimination", join_seconds=3600)
    start(client, t["id"])
    t = tournament_when(client, t["id"], lambda t: t["rounds"][0]["status"] == "running")
    final = t["rounds"][0]["pairings"][0]
    assert final["node"] == "F" and final["bracket"] == "final"
    match_id = final["match"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "dice"}))
    first = ok(
        client.post(f"/api/matches/{match_id}/disputes", headers=headers, json={"seq": 2, "note": "misdeal"}), 201
    )
    ok(
        client.post(
            f"/api/disputes/{first['id']}/ruling", headers=DIRECTOR, json={"decision": "replay", "note": "again"}
        )
    )
    pairing = show(client, t["id"])["rounds"][0]["pairings"][0]
    assert pairing["annulled"] == [match_id] and pairing["match"] != match_id and pairing["node"] == "F"
    replayed = pairing["match"]
    second = ok(client.post(f"/api/matches/{replayed}/disputes", headers=headers, json={"seq": 1, "note": "seat"}), 201)
    body = {"decision": "award", "note": "to ada", "seat": 0}
    ok(client.post(f"/api/disputes/{second['id']}/ruling", headers=DIRECTOR, json=body))
    t = tournament_when(client, t["id"], finished)
    assert t["places"][0] == {"place": 1, "player": ada}
    assert t["rounds"][0]["pairings"][0]["result"]["reason"] == "ruling"
