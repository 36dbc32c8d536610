"""Duplicate rounds (docs/TOURNAMENTS.md, docs/FAIRNESS.md "Duplicate rounds") through the HTTP
API, on SQLite and PostgreSQL: every match of a round dealt the same order from a deal key the
tournament reveals when the round is over, the replays verifying with it, the same-deal column,
a finished match's cards kept back while its round is played, and what is refused."""

from __future__ import annotations

import copy
import hashlib
import json
from collections import defaultdict
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from cli.deal_check import check_deals
from engine.fairness.verify import verify_replay
from engine.game.duplicate import round_deal_key
from tests.server.helpers import ok, register
from tests.server.test_tournaments import (
    DIRECTOR,
    create,
    finished,
    pairing_of,
    play_my_match,
    show,
    start,
    tournament_when,
)
from tests.server.test_ws import receive_until


def replay_lines(client: TestClient, match_id: str) -> list[dict[str, Any]]:
    reply = client.get(f"/api/matches/{match_id}/replay")
    assert reply.status_code == 200, reply.text
    return [json.loads(line) for line in reply.text.splitlines()]


def first_deck(lines: list[dict[str, Any]]) -> list[int]:
    return next(line["open"]["deck"] for line in lines[1:] if line["type"] == "round_started")


def expected_same_deal(t: dict[str, Any]) -> dict[str, float | None]:
    """The column recomputed from the published results: matchpoints per (round, seat) group."""
    groups: dict[tuple[int, int], list[tuple[str, int]]] = defaultdict(list)
    for r in t["rounds"]:
        for p in r["pairings"]:
            result = p["result"]
            if result is None or result["forfeit"]:
                continue
            white, black = result["scores"]
            sign = -1 if t["rules"]["scoring"] != "winner_scores" else 1
            groups[(r["number"], 0)].append((p["white"]["id"], sign * (white - black)))
            groups[(r["number"], 1)].append((p["black"]["id"], sign * (black - white)))
    points: dict[str, float] = defaultdict(float)
    compared: dict[str, int] = defaultdict(int)
    for members in groups.values():
        for player, margin in members:
            for other, theirs in members:
                if other != player:
                    points[player] += 1.0 if margin > theirs else 0.5 if margin == theirs else 0.0
                    compared[player] += 1
    return {
        p["id"]: (round(100 * points[p["id"]] / compared[p["id"]], 1) if compared[p["id"]] else None)
        for p in t["players"]
    }


def test_a_duplicate_round_robin_deals_each_round_once_and_reveals_it(client: TestClient) -> None:
    t = create(client, ["bot:random", "bot:greedy", "bot:random", "bot:greedy"], duplicate=True)
    assert t["duplicate"] is True and t["deal_keys"] == {}
    start(client, t["id"])
    t = tournament_when(client, t["id"], finished)
    seed = bytes.fromhex(t["server_seed"])
    assert hashlib.sha256(seed).hexdigest() == t["commitment"]
    assert sorted(t["deal_keys"]) == ["1", "2", "3"]
    decks = set()
    for r in t["rounds"]:
        key = bytes.fromhex(t["deal_keys"][str(r["number"])])
        assert key == round_deal_key(seed, r["number"], [""] * 4)  # the tournament-level check
        firsts = []
        for pairing in r["pairings"]:
            lines = replay_lines(client, pairing["match"])
            assert lines[0]["deal_key"] == key.hex()
            link = lines[1]["data"]["duplicate"]
            assert link == {"tournament": t["id"], "round": r["number"], "deal": hashlib.sha256(key).hexdigest()}
            report = verify_replay("\n".join(json.dumps(line) for line in lines))
            assert report.ok, report.failure
            firsts.append(first_deck(lines))
        assert len(firsts) == 2 and firsts[0] == firsts[1]  # every pairing of the round: the same order
        decks.add(tuple(firsts[0]))
    assert len(decks) == 3  # and each round its own
    column = {row["player"]: row["same_deal"] for row in t["standings"]}
    assert column == expected_same_deal(t)
    assert all(value is not None for value in column.values())
    # every comparison hands out 1 point: the four percentages add up to 200, give or take their rounding to 0.1
    assert sum(v for v in column.values() if v is not None) == pytest.approx(4 * 50, abs=4 * 0.05)

    def replay_of(match_id: str) -> str:
        return client.get(f"/api/matches/{match_id}/replay").text

    report = check_deals(t, replay_of)  # what `unoduo tournament deals` checks
    assert report.passed, report.failures
    assert any("3 deal keys follow from it" in line for line in report.ok)
    swapped = copy.deepcopy(t)
    swapped["deal_keys"]["2"] = t["deal_keys"]["1"]  # a server claiming round 1's deal for round 2
    failures = check_deals(swapped, replay_of).failures
    assert any(f.startswith("round 2, ") for f in failures)
    assert any("round 2: the revealed key is not" in f for f in failures)


def test_a_tournament_without_the_option_deals_and_reads_as_before(client: TestClient) -> None:
    t = create(client, ["bot:random", "bot:greedy"])
    assert t["duplicate"] is False
    start(client, t["id"])
    t = tournament_when(client, t["id"], finished)
    assert t["deal_keys"] == {} and t["standings"][0]["same_deal"] is None
    lines = replay_lines(client, t["rounds"][0]["pairings"][0]["match"])
    assert "duplicate" not in lines[1]["data"] and "deal_key" not in lines[0]
    assert verify_replay("\n".join(json.dumps(line) for line in lines)).ok


def test_a_finished_match_keeps_its_cards_back_until_its_round_is_over(client: TestClient) -> None:
    ada, headers = register(client, "Ada")
    t = create(client, [ada, "bot:greedy", "bot:random", "bot:greedy"], duplicate=True)
    t = start(client, t["id"])
    mine = pairing_of(t, ada, 1)
    other = next(p for p in t["rounds"][0]["pairings"] if p is not mine and p["match"] != mine["match"])

    def bots_done(t: dict[str, Any]) -> bool:  # the director's tournament: everything as it stands
        return next(p for p in t["rounds"][0]["pairings"] if p["match"] == other["match"])["result"] is not None

    tournament_when(client, t["id"], bots_done, headers=DIRECTOR)
    t = show(client, t["id"])
    assert t["deal_keys"] == {} and t["rounds"][0]["matches"] == []  # everyone else: nothing of the round
    assert all(p["status"] == "withheld" and p["result"] is None for p in t["rounds"][0]["pairings"])
    for who in ({}, headers):  # nobody, and an entrant playing the other table of the round
        for path in ("", "?at=1", "/events?since=0", "/replay"):
            reply = client.get(f"/api/matches/{other['match']}{path}", headers=who)
            assert reply.status_code == 403 and reply.json()["code"] == "withheld", (path, reply.text)
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            client.websocket_connect(f"/api/matches/{other['match']}/ws?since=0", headers=who) as ws,
        ):
            ws.receive_json()
        assert closed.value.code == 4403
    audit = ok(client.get(f"/api/matches/{other['match']}", headers=DIRECTOR))
    assert audit["view"]["phase"] == "match_over" and "draw_order" in audit["view"]  # the director audits all along
    reply = client.get(f"/api/matches/{other['match']}/replay", headers=DIRECTOR)
    assert reply.status_code == 409 and "round 1" in reply.text  # no replay before the round's key is out

    play_my_match(client, t, ada, headers, 1)
    t = tournament_when(client, t["id"], lambda t: "1" in t["deal_keys"])
    lines = replay_lines(client, other["match"])
    assert lines[0]["deal_key"] == t["deal_keys"]["1"]
    assert verify_replay("\n".join(json.dumps(line) for line in lines)).ok
    seen = ok(client.get(f"/api/matches/{other['match']}"))["view"]
    assert "draw_order" in seen  # everyone audits a finished match once its round is revealed
    with client.websocket_connect(f"/api/matches/{other['match']}/ws?since=0") as ws:
        messages = receive_until(ws, seen["version"])
    assert messages[-1]["event"]["type"] == "seed_revealed"
    assert messages[-1]["view"]["viewer"] == "spectator"  # its feed ends as it went: the round's deal, kept back


def test_duplicate_is_refused_for_tables_and_entropy_from_the_director(client: TestClient) -> None:
    body = {
        "name": "Refused",
        "players": ["bot:random", "bot:greedy"] * 2,
        "format": "tables",
        "ruleset": "classic",
        "rounds": 2,
        "table_size": 4,
        "duplicate": True,
    }
    reply = client.post("/api/tournaments", headers=DIRECTOR, json=body)
    assert reply.status_code in (400, 422) and "duplicate rounds are for round_robin and swiss" in reply.text
    t = create(client, [], open=True, duplicate=True)
    reply = client.post(
        f"/api/tournaments/{t['id']}/entries", headers=DIRECTOR, json={"player": "bot:random", "entropy": "x"}
    )
    assert reply.status_code in (400, 422) and "entropy" in reply.text


def test_an_entrants_entropy_moves_the_deal(client: TestClient) -> None:
    ada, headers = register(client, "Ada")
    t = create(client, [], open=True, duplicate=True)
    ok(client.post(f"/api/tournaments/{t['id']}/entries", headers=headers, json={"entropy": "ada's dice"}), 201)
    ok(client.post(f"/api/tournaments/{t['id']}/entries", headers=DIRECTOR, json={"player": "bot:greedy"}), 201)
    t = start(client, t["id"])
    bot = next(p["id"] for p in t["players"] if p["id"] != ada)
    ok(client.post(f"/api/tournaments/{t['id']}/withdraw", headers=DIRECTOR, json={"player": ada}))
    t = tournament_when(client, t["id"], finished)
    seed = bytes.fromhex(t["server_seed"])
    order = [p["id"] for p in t["players"]]
    entropies = ["ada's dice" if p == ada else "" for p in order]
    assert order.index(bot) >= 0 and t["deal_keys"]["1"] == round_deal_key(seed, 1, entropies).hex()
    assert t["deal_keys"]["1"] != round_deal_key(seed, 1, ["", ""]).hex()
    assert t["entropies"] == {ada: "ada's dice"}  # published at the end, for anyone to recompute the keys
    assert show(client, t["id"])["duplicate"] is True


def test_a_duplicate_swiss_deals_each_round_as_it_is_paired(client: TestClient) -> None:
    t = create(client, ["bot:random", "bot:greedy"] * 3, format="swiss", rounds=3, duplicate=True)
    assert t["duplicate"] and t["format"] == "swiss"
    start(client, t["id"])
    t = tournament_when(client, t["id"], finished)
    assert sorted(t["deal_keys"]) == ["1", "2", "3"]

    def replay_of(match_id: str) -> str:
        return client.get(f"/api/matches/{match_id}/replay").text

    report = check_deals(t, replay_of)
    assert report.passed, report.failures
    assert all(any(line.startswith(f"round {n}: 3 matches verify") for line in report.ok) for n in (1, 2, 3))
    assert {row["player"]: row["same_deal"] for row in t["standings"]} == expected_same_deal(t)
