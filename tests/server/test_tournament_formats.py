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

from server.services.tournaments import TournamentService
from tests.server.helpers import ok, register
from tests.server.test_tournaments import DIRECTOR, QUICK, create, finished, row, show, start, tournament_when


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
    t = tournament_when(client, t["id"], finished)

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
    t = tournament_when(client, t["id"], finished)
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
    t = tournament_when(client, t["id"], finished)

    tables = [p for r in t["rounds"] for p in r["pairings"]]
    assert len(tables) == 5 * 4 and all(len(p["seats"]) == 4 for p in tables)
    met = Counter(frozenset(pair) for p in tables for pair in combinations([s["id"] for s in p["seats"]], 2))
    assert len(met) == 16 * 15 // 2 and set(met.values()) == {1}  # the affine plane of order 4
    assert t["repeat_meetings"] == 0
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
    t = tournament_when(client, t["id"], finished)  # the timer armed at the start opened round 1
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


# ---------------------------------------------------------------- forfeits, withdrawals, rulings in every format

TABLES_QUICK = {"format": "tables", "ruleset": "classic", "rules": {"target": 500, "round_limit": 1}}


def seat_of_player(pairing: dict[str, Any], player: str) -> int:
    return [s["id"] for s in pairing["seats"]].index(player)


def table_of(t: dict[str, Any], player: str, number: int) -> dict[str, Any]:
    return next(p for p in t["rounds"][number - 1]["pairings"] if player in [s["id"] for s in p["seats"]])


def test_a_seat_that_never_joins_its_table_leaves_it_and_finishes_last(client: TestClient) -> None:
    ada, _ = register(client, "ada")
    t = create(client, [ada, "bot:greedy", "bot:random"], **TABLES_QUICK, rounds=1, table_size=3, join_seconds=1)
    start(client, t["id"])
    t = tournament_when(client, t["id"], finished)
    table = table_of(t, ada, 1)
    places = table["result"]["places"]
    assert places[seat_of_player(table, ada)] == 3 and sorted(places) == [1, 2, 3]
    assert table["result"]["reason"] == "played"  # the other two played it out
    assert row(t, ada)["score"] == 0 and row(t, ada)["rank"] == 3


def test_a_player_who_withdraws_from_a_tables_tournament_is_seated_no_more(client: TestClient) -> None:
    ada, _ = register(client, "ada")
    t = create(
        client, [ada, *(["bot:greedy", "bot:random"] * 4)], **TABLES_QUICK, rounds=3, table_size=3, join_seconds=3600
    )
    start(client, t["id"])
    t = ok(client.post(f"/api/tournaments/{t['id']}/withdraw", headers=DIRECTOR, json={"player": ada, "note": "ill"}))
    assert t["withdrawals"] == [{"player": ada, "annulled": True}]  # nothing played yet: every result annulled
    t = tournament_when(client, t["id"], finished)
    for number in (1, 2, 3):
        table = table_of(t, ada, number)
        assert len(table["seats"]) == 3 and table["status"] == "decided"
        if number > 1:  # the later tables played without her
            summary = next(m for m in t["rounds"][number - 1]["matches"] if m["id"] == table["match"])
            assert ada not in [s["id"] for s in summary["seats"]] and len(summary["seats"]) == 2
    mine = row(t, ada)
    assert mine["withdrawn"] and mine["rank"] == 9 and mine["played"] == 0
    assert all(r["played"] == 3 for r in t["standings"] if r["player"] != ada)


def test_a_dispute_at_a_table_replays_it_and_an_award_puts_a_seat_first(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy", "bot:random"], **TABLES_QUICK, rounds=2, table_size=3, join_seconds=3600)
    start(client, t["id"])
    t = tournament_when(client, t["id"], lambda t: t["rounds"][0]["status"] == "running")
    table = table_of(t, ada, 1)
    match_id = table["match"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "dice"}))
    dispute = ok(client.post(f"/api/matches/{match_id}/disputes", headers=headers, json={"seq": 1, "note": "odd"}), 201)
    assert (
        client.post(
            f"/api/disputes/{dispute['id']}/ruling",
            headers=DIRECTOR,
            json={"decision": "award", "seat": 3, "note": "x"},
        ).status_code
        == 400
    )
    ruled = ok(
        client.post(
            f"/api/disputes/{dispute['id']}/ruling",
            headers=DIRECTOR,
            json={"decision": "replay", "note": "again", "rule": "D18"},
        )
    )
    assert ruled["decision"] == "replay" and ruled["rule"] == "D18"
    t = show(client, t["id"])
    table = table_of(t, ada, 1)
    assert table["annulled"] == [match_id] and table["match"] != match_id
    new = table["match"]
    ok(client.post(f"/api/matches/{new}/join", headers=headers, json={"entropy": "dice again"}))
    second = ok(client.post(f"/api/matches/{new}/disputes", headers=headers, json={"seq": 1, "note": "still odd"}), 201)
    last_seat = 2  # a table's last seat: the award takes any seat of the table, not only 0 or 1
    winner = table["seats"][last_seat]["id"]
    ok(
        client.post(
            f"/api/disputes/{second['id']}/ruling",
            headers=DIRECTOR,
            json={"decision": "award", "seat": last_seat, "note": "to the last seat"},
        )
    )
    t = tournament_when(client, t["id"], lambda t: table_of(t, ada, 1)["status"] == "decided")
    result = table_of(t, ada, 1)["result"]
    assert result["winner"] == winner and result["reason"] == "ruling" and result["places"][last_seat] == 1
    assert sorted(result["places"]) == [1, 3, 3]


def test_a_swiss_pairs_a_withdrawn_player_no_more(client: TestClient) -> None:
    ada, _ = register(client, "ada")
    t = create(client, [ada, *(["bot:greedy", "bot:random"] * 3)], format="swiss", rounds=3, join_seconds=3600)
    start(client, t["id"])
    t = ok(client.post(f"/api/tournaments/{t['id']}/withdraw", headers=DIRECTOR, json={"player": ada, "note": "gone"}))
    t = tournament_when(client, t["id"], finished)
    for r in t["rounds"][1:]:
        assert ada not in [s["id"] for p in r["pairings"] for s in p["seats"]] and r["bye"] != ada
        assert len(r["pairings"]) == 3 and r["bye"] is None  # six left: three boards, no bye
    assert row(t, ada)["withdrawn"] and row(t, ada)["rank"] == 7


def test_a_player_sees_when_their_next_round_starts(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    later = datetime.now(UTC) + timedelta(days=7)
    t = create(client, [ada, "bot:greedy"], round_starts=[later.isoformat()])
    start(client, t["id"])
    nxt = ok(client.get("/api/me", headers=headers))["next"]
    assert len(nxt) == 1 and nxt[0]["match"] is None and nxt[0]["opponents"]
    assert datetime.fromisoformat(nxt[0]["starts_at"]) == later


def test_a_round_waiting_for_its_start_holds_one_timer_however_often_it_is_looked_at(client: TestClient) -> None:
    """The bound on what a start time adds: one timer per tournament, keyed by its round, however
    many reads, advances and tournaments' rounds look at it (measured: the service's timers)."""
    service: TournamentService = client.app.state.tournaments  # type: ignore[attr-defined]
    later = datetime.now(UTC) + timedelta(hours=3)
    t = create(client, ["bot:random", "bot:greedy"], round_starts=[later.isoformat()])
    before = len(service._deadlines)
    start(client, t["id"])
    for _ in range(50):
        show(client, t["id"])
        client.portal.call(service.advance, t["id"])  # type: ignore[union-attr]
    timers = [key for key in service._deadlines if key[0] == t["id"]]
    assert timers == [(t["id"], -1)] and len(service._deadlines) == before + 1
