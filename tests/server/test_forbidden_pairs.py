"""Forbidden pairings over HTTP (docs/TOURNAMENTS.md "Forbidden pairings"), on SQLite and
PostgreSQL: named by name or id, resolved to ids, avoided, said where not; bad input a 4xx."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import ok, register
from tests.server.test_tournaments import DIRECTOR, QUICK, start


def create(client: TestClient, players: list[str], pairs: Any, **options: Any) -> Any:
    body = {"name": "Rivals", "players": players, "rules": QUICK, "format": "swiss", "rounds": 1, **options}
    return client.post("/api/tournaments", headers=DIRECTOR, json={**body, "forbidden_pairs": pairs})


def test_a_forbidden_pair_is_kept_apart_and_a_round_that_cannot_says_so(client: TestClient) -> None:
    ids = {name: register(client, name)[0] for name in ("ann", "bob", "cy", "di")}
    t = ok(create(client, ["ann", "bob", "cy", "di"], [["ANN", ids["cy"]]]), 201)
    assert t["forbidden_pairs"] == [[ids["ann"], ids["cy"]]]  # by name (any case) or id: ids kept
    first = start(client, t["id"])["rounds"][0]
    assert all({p["white"]["id"], p["black"]["id"]} != {ids["ann"], ids["cy"]} for p in first["pairings"])
    assert first["note"] is None
    duo = ok(create(client, ["ann", "bob"], [["ann", "bob"]]), 201)
    forced = start(client, duo["id"])["rounds"][0]
    assert forced["note"] is not None and "ann and bob" in forced["note"]


@pytest.mark.parametrize(
    ("pairs", "status", "says"),
    [
        ([["ann", "nobody"]], 404, "nobody"),
        ([["ann"]], 400, "forbidden_pairs"),
        ([["ann", "bob", "cy"]], 400, "forbidden_pairs"),
        ([["ann", "ann"]], 400, "two players"),
        ([["ann", "bob"], ["bob", "ann"]], 400, "twice"),
        ([[f"a{n}", f"b{n}"] for n in range(33)], 400, "forbidden_pairs"),
        ("ann,bob", 400, "forbidden_pairs"),
        ([["ann", 7]], 400, "forbidden_pairs"),
    ],
)
def test_forbidden_pairs_that_cannot_be_are_refused_and_make_nothing(
    client: TestClient, pairs: Any, status: int, says: str
) -> None:
    for name in ("ann", "bob", "cy", "di"):
        register(client, name)
    before = ok(client.get("/api/tournaments"))
    refused = create(client, ["ann", "bob", "cy", "di"], pairs)
    assert refused.status_code == status, refused.text
    assert says in refused.text
    assert ok(client.get("/api/tournaments")) == before


def test_a_round_robin_takes_no_forbidden_pairs(client: TestClient) -> None:
    register(client, "ann")
    register(client, "bob")
    refused = create(client, ["ann", "bob"], [["ann", "bob"]], format="round_robin", rounds=None)
    assert refused.status_code == 400 and "swiss" in refused.json()["message"]


def test_a_bracket_swaps_round_one_seeds_apart(client: TestClient) -> None:
    players = ["bot:greedy", "bot:random", "bot:random", "bot:greedy"]  # round 1: 1 v 4 (the greedies), 2 v 3
    t = ok(create(client, players, [["greedy", "greedy-2"]], format="single_elimination", rounds=None), 201)
    first = start(client, t["id"])["rounds"][0]
    met = [{p["name"] for p in pairing["seats"]} for pairing in first["pairings"]]
    assert {"greedy", "greedy-2"} not in met and len(met) == 2 and first["note"] is None
