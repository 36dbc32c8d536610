"""The table knockout and pools into a bracket through the HTTP API, on SQLite and PostgreSQL
(docs/TOURNAMENTS.md "Table knockout", "Pools into a bracket"): what a director is refused, what
a creation records."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import ok
from tests.server.test_tournaments import DIRECTOR, QUICK, create

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
