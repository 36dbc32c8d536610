"""The table knockout and pools into a bracket through the HTTP API, on SQLite and PostgreSQL
(docs/TOURNAMENTS.md "Table knockout", "Pools into a bracket"): what a director is refused, what
a creation records."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import ok
from tests.server.test_tournaments import DIRECTOR, QUICK, create, finished, start, tournament_when

HOUSE = ["bot:random", "bot:greedy"]


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"format": "table_knockout", "table_size": 4}, "ruleset of 3 or more seats"),
        ({"format": "table_knockout", "ruleset": "classic"}, "table_size"),
        ({"format": "table_knockout", "ruleset": "classic", "table_size": 4, "advance": 3}, "nobody out"),
        ({"format": "table_knockout", "ruleset": "classic", "table_size": 4, "rounds": 2}, "rounds"),
        ({"format": "pools", "pool_size": 4, "ruleset": "classic"}, "two-seat matches"),
        ({"format": "pools"}, "pool_size"),
        ({"format": "pools", "pool_size": 4, "advance": 4}, "advance"),
        ({"format": "pools", "pool_size": 4, "pool_format": "swiss"}, "Swiss pools need rounds"),
        ({"format": "pools", "pool_size": 4, "bracket": "ladder"}, "bracket"),
        ({"format": "pools", "pool_size": 2}, "pool_size"),
        ({"format": "swiss", "rounds": 2, "pool_size": 4}, "are for table_knockout and pools"),
    ],
)
def test_what_a_staged_knockout_cannot_do_is_refused_with_a_reason(
    client: TestClient, options: dict[str, Any], says: str
) -> None:
    body = {"name": "Refused", "players": HOUSE * 3, "rules": QUICK, **options}
    reply = client.post("/api/tournaments", headers=DIRECTOR, json=body)
    assert reply.status_code in (400, 422), reply.text
    assert says in reply.text, reply.text
    assert not [x for x in ok(client.get("/api/tournaments")) if x["name"] == "Refused"]


def test_a_creation_shows_what_it_recorded(client: TestClient) -> None:
    t = create(client, HOUSE * 4, ruleset="classic", format="table_knockout", table_size=4)
    assert (t["format"], t["table_size"], t["advance"]) == ("table_knockout", 4, 2)
    t = create(
        client, HOUSE * 4, format="pools", pool_size=4, pool_format="swiss", rounds=2, bracket="double_elimination"
    )
    assert (t["format"], t["pool_size"], t["pool_format"], t["advance"], t["bracket_format"]) == (
        "pools",
        4,
        "swiss",
        2,
        "double_elimination",
    )


def top(table: dict[str, Any], advance: int) -> list[dict[str, Any]]:
    """A decided table's first ``advance`` seats in place order, equal places by seat order."""
    places = table["result"]["places"]
    order = sorted(range(len(places)), key=lambda i: (places[i], i))
    return [table["seats"][i] for i in order[:advance]]


def test_a_table_knockout_of_house_bots_plays_down_to_its_final_table(client: TestClient) -> None:
    rules = {"target": 500, "round_limit": 1}  # one hand per table: quick
    t = create(client, HOUSE * 6, ruleset="classic", rules=rules, format="table_knockout", table_size=4)
    start(client, t["id"])
    t = tournament_when(client, t["id"], finished)
    tables = [[p for p in r["pairings"]] for r in t["rounds"] if r["pairings"]]
    assert [len(r) for r in tables] == [3, 2, 1]  # 12 -> 6 -> 4 at the final table
    assert [len(p["seats"]) for r in tables for p in r] == [4, 4, 4, 3, 3, 4]
    for earlier, later in itertools.pairwise(tables):  # the top 2 of each go on (equal places: seat order)
        went_on = {s["id"] for p in earlier for s in top(p, 2)}
        assert {s["id"] for p in later for s in p["seats"]} == went_on
    assert tables[-1][0]["node"] == "F" and tables[0][0]["node"] == "T1-1"
    assert {p["bracket"] for r in tables for p in r} == {"table"}
    summaries = [m for r in t["rounds"] for m in r["matches"]]
    assert len(summaries) == 6 and {(m["bracket"], m["node"][0]) for m in summaries} == {("table", "T"), ("table", "F")}


def test_pools_of_house_bots_play_into_a_bracket(client: TestClient) -> None:
    t = create(client, HOUSE * 4, format="pools", pool_size=4, advance=2)
    start(client, t["id"])
    t = tournament_when(client, t["id"], finished)
    rounds = [r["pairings"] for r in t["rounds"] if r["pairings"]]
    assert [len(r) for r in rounds] == [4, 4, 4, 2, 1]  # two pools of 4 (3 rounds), then a bracket of 4
    assert {p["node"] for r in rounds[:3] for p in r} == {"pool-A", "pool-B"}
    assert {p["bracket"] for r in rounds[:3] for p in r} == {"pool"}
    summaries = {m["node"]: m["bracket"] for r in t["rounds"] for m in r["matches"]}
    assert summaries == {"pool-A": "pool", "pool-B": "pool", "W1-1": "winners", "W1-2": "winners", "F": "final"}
    assert [p["node"] for p in rounds[3]] == ["W1-1", "W1-2"] and rounds[4][0]["node"] == "F"


def test_each_pools_standings_are_published_and_its_top_two_go_into_the_bracket(client: TestClient) -> None:
    t = create(client, HOUSE * 4, format="pools", pool_size=4, advance=2)
    assert create(client, HOUSE * 4)["pools"] == []  # other formats: none
    started = start(client, t["id"])
    assert [(p["pool"], p["node"], p["decided"], len(p["standings"])) for p in started["pools"]] == [
        ("A", "pool-A", False, 4),
        ("B", "pool-B", False, 4),
    ]
    t = tournament_when(client, t["id"], finished)
    assert all(p["decided"] for p in t["pools"])
    for pool in t["pools"]:
        rows = pool["standings"]
        assert pool["players"] == [r["player"] for r in rows]
        assert [r["rank"] for r in rows] == [1, 2, 3, 4]
        assert list(rows[0]["tiebreaks"]) == [  # a round-robin pool's own chain
            "match_wins",
            "head_to_head",
            "sonneborn_berger",
            "points_difference",
            "points_conceded",
            "lot",
        ]
        assert [r["won"] for r in rows] == sorted((r["won"] for r in rows), reverse=True)
    qualifiers = {r["player"] for p in t["pools"] for r in p["standings"][:2]}
    first_round = [n for n in t["bracket"] if n["round"] == 4]
    assert {s for n in first_round for s in n["seats"]} == qualifiers
    assert sorted(s for n in first_round for s in n["sources"]) == [
        "1st of pool A",
        "1st of pool B",
        "2nd of pool A",
        "2nd of pool B",
    ]
