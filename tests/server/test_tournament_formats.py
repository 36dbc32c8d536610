"""The formats of POST /api/tournaments (docs/TOURNAMENTS.md "Formats") through the HTTP API, on
SQLite and PostgreSQL: a Swiss of house bots paired round by round, a tables tournament of
classic UNO, start times that hold a round back, and what a director is refused."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from itertools import combinations
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import ok
from tests.server.test_tournaments import DIRECTOR, QUICK, create, finished, show, start, wait_for


def two_seat_games(t: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """Every pairing as (white, black, winner)."""
    return [
        (p["white"]["id"], p["black"]["id"], (p["result"] or {}).get("winner"))
        for r in t["rounds"]
        for p in r["pairings"]
    ]


def test_a_swiss_of_bots_is_paired_round_by_round_without_repeats_and_its_standings_add_up(client: TestClient) -> None:
    entries = ["bot:random", "bot:greedy"] * 4 + ["bot:random"]  # 9 players: a bye every round
    t = create(client, entries, format="swiss", rounds=4)
    assert t["format"] == "swiss" and t["rounds_planned"] == 4
    assert [r["status"] for r in t["rounds"]] == ["pending"] * 4 and not t["rounds"][0]["pairings"]
    started = start(client, t["id"])
    assert started["rounds"][0]["pairings"] and not started["rounds"][1]["pairings"]  # round 2 not paired yet
    t = wait_for(client, t["id"], finished)

    games = two_seat_games(t)
    assert len(games) == 4 * 4
    met = Counter(frozenset((w, b)) for w, b, _ in games)
    assert max(met.values()) == 1  # nobody met anyone twice
    byes = [r["bye"] for r in t["rounds"]]
    assert None not in byes and len(set(byes)) == 4  # one bye a round, never twice to one player
    colours = Counter[str]()
    for w, b, _ in games:
        colours[w] += 1
        colours[b] -= 1
    assert all(abs(d) <= 2 for d in colours.values())

    rows = {r["player"]: r for r in t["standings"]}
    assert [r["rank"] for r in t["standings"]] == list(range(1, 10))
    assert list(t["standings"][0]["tiebreaks"]) == [
        "score",
        "buchholz",
        "sonneborn_berger",
        "match_wins",
        "points_difference",
        "points_conceded",
        "lot",
    ]
    assert sum(r["won"] for r in rows.values()) == 16 and sum(r["byes"] for r in rows.values()) == 4
    for player, r in rows.items():
        assert r["score"] == r["won"] + r["byes"] == r["tiebreaks"]["score"]
        opponents = [b if w == player else w for w, b, _ in games if player in (w, b)]
        assert r["tiebreaks"]["buchholz"] == sum(rows[o]["score"] for o in opponents)
    scores = [r["score"] for r in t["standings"]]
    assert scores == sorted(scores, reverse=True)


def test_a_swiss_exports_as_fide_trf(client: TestClient) -> None:
    t = create(client, ["bot:random", "bot:greedy"] * 3, format="swiss", rounds=3)
    start(client, t["id"])
    t = wait_for(client, t["id"], finished)
    reply = client.get(f"/api/tournaments/{t['id']}/trf")
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/plain")
    lines = reply.text.splitlines()
    assert any(line.startswith("012 ") for line in lines)
    players = [line for line in lines if line.startswith("001 ")]
    assert len(players) == 6
    names = {p["name"] for p in t["players"]}
    assert all(any(name in line for name in names) for line in players)


def test_a_tables_tournament_seats_16_players_in_5_rounds_so_that_everyone_meets_everyone_once(
    client: TestClient,
) -> None:
    entries = ["bot:random", "bot:greedy"] * 8
    rules = {"target": 500, "round_limit": 1}  # one round per table: quick
    t = create(client, entries, format="tables", ruleset="classic", rules=rules, rounds=5, table_size=4)
    assert t["format"] == "tables" and t["table_size"] == 4 and t["placement_points"] == [3, 2, 1, 0]
    start(client, t["id"])
    t = wait_for(client, t["id"], finished)

    tables = [p for r in t["rounds"] for p in r["pairings"]]
    assert len(tables) == 5 * 4 and all(len(p["seats"]) == 4 for p in tables)
    met = Counter(frozenset(pair) for p in tables for pair in combinations([s["id"] for s in p["seats"]], 2))
    assert len(met) == 16 * 15 // 2 and set(met.values()) == {1}  # the affine plane of order 4
    dealers = Counter(p["seats"][0]["id"] for p in tables)
    assert max(dealers.values()) - min(dealers.get(x["id"], 0) for x in t["players"]) <= 1  # dealing rotates

    rows = {r["player"]: r for r in t["standings"]}
    handed_out = 0
    for p in tables:
        places = p["result"]["places"]
        assert sorted(places)[0] == 1 and len(places) == 4
        handed_out += sum([3, 2, 1, 0][place - 1] for place in places)
        winner = p["result"]["winner"]
        assert winner == p["seats"][places.index(1)]["id"]
    assert sum(r["score"] for r in rows.values()) == handed_out
    assert list(t["standings"][0]["tiebreaks"]) == ["placement_points", "match_points", "firsts", "lot"]
    assert sum(r["won"] for r in rows.values()) == 20 and all(r["played"] == 5 for r in rows.values())
    assert client.get(f"/api/tournaments/{t['id']}/trf").status_code == 409


def test_a_round_with_a_start_time_waits_for_it_and_says_when(client: TestClient) -> None:
    later = datetime.now(UTC) + timedelta(hours=2)
    t = create(client, ["bot:random", "bot:greedy"], round_starts=[later.isoformat()])
    t = start(client, t["id"])
    assert t["status"] == "running" and t["rounds"][0]["status"] == "pending"
    assert datetime.fromisoformat(t["rounds"][0]["starts_at"]) == later.replace(microsecond=later.microsecond)
    assert not any(p["match"] for p in t["rounds"][0]["pairings"])


def test_a_round_whose_start_time_comes_opens_then_by_itself(client: TestClient) -> None:
    soon = datetime.now(UTC) + timedelta(seconds=1)
    t = create(client, ["bot:random", "bot:greedy"], round_starts=[soon.isoformat()])
    start(client, t["id"])
    t = wait_for(client, t["id"], finished)  # the timer armed at the start opened round 1
    assert datetime.now(UTC) >= soon and t["rounds"][0]["pairings"][0]["result"]["reason"] == "played"


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"format": "swiss"}, "rounds"),
        ({"format": "swiss", "rounds": 3, "table_size": 4}, "table_size"),
        ({"format": "swiss", "rounds": 9}, "twice"),
        ({"format": "tables", "rounds": 3, "table_size": 4}, "classic"),
        ({"format": "tables", "rounds": 3, "ruleset": "classic"}, "table_size"),
        (
            {"format": "tables", "rounds": 3, "ruleset": "classic", "table_size": 4, "placement_points": [1, 2]},
            "go down",
        ),
        ({"format": "round_robin", "rounds": 3}, "round_robin"),
        ({"format": "swiss", "rounds": 2, "double": True}, "double"),
        ({"round_starts": ["2026-12-08T19:30:00"]}, "timezone"),
        ({"round_starts": ["2026-12-08T19:30:00Z", "2026-12-01T19:30:00Z"]}, "forward"),
        ({"round_starts": ["2026-12-08T19:30:00Z"] * 9}, "start times"),
        ({"format": "knockout"}, "format"),
    ],
)
def test_what_a_format_cannot_do_is_refused_with_a_reason(
    client: TestClient, options: dict[str, Any], says: str
) -> None:
    body = {"name": "Refused", "players": ["bot:random", "bot:greedy"] * 2, "rules": QUICK, **options}
    reply = client.post("/api/tournaments", headers=DIRECTOR, json=body)
    assert reply.status_code in (400, 422), reply.text
    assert says in reply.text, reply.text
    assert not [x for x in ok(client.get("/api/tournaments")) if x["name"] == "Refused"]


def test_a_round_robin_reads_as_before(client: TestClient) -> None:
    t = create(client, ["bot:random", "bot:greedy", "bot:random"])
    assert t["format"] == "round_robin" and t["rounds_planned"] == 3
    t = start(client, t["id"])
    assert t["rounds_planned"] == 3 and all(len(p["seats"]) == 2 for r in t["rounds"] for p in r["pairings"])
    assert all(r["score"] == r["won"] for r in show(client, t["id"])["standings"])
