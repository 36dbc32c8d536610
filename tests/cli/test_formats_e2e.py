"""The tournament formats for real (issue 22): ``unoduo serve`` as a process, house bots in every
seat, each tournament run to its end by itself.

- A 20-player Swiss of 5 rounds: nobody meets twice, colour differences stay within ±2, nobody
  has the same colour three times running, the standings add up, the FIDE TRF export has every
  player and every game, and the matches verify.
- A 16-player tables tournament of classic UNO at tables of 4 over 5 rounds: every table has 4
  seats, everyone meets every other player exactly once (0 repeat meetings), the first dealer
  rotates, each table's places follow D23, and the placement points add up.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import combinations
from pathlib import Path
from typing import Any

import httpx

from engine.fairness.verify import verify_replay
from tests.cli.serving import stop
from tests.cli.test_tournament_e2e import DIRECTOR, _replay, _start, _wait_finished
from tests.server.helpers import ok


def _create(client: httpx.Client, body: dict[str, Any]) -> str:
    created = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    ok(client.post(f"/api/tournaments/{created['id']}/start", headers=DIRECTOR))
    return str(created["id"])


def test_a_20_player_swiss_of_5_rounds_runs_to_the_end_by_itself(tmp_path: Path) -> None:
    process, base = _start(tmp_path / "swiss.sqlite3")
    try:
        with httpx.Client(base_url=base, timeout=30.0) as client:
            entries = ["bot:random", "bot:greedy"] * 10
            body = {"name": "Swiss night", "players": entries, "rules": {"target": 60}, "format": "swiss", "rounds": 5}
            t = _wait_finished(client, _create(client, body))
            ids = [p["id"] for p in t["players"]]
            assert t["format"] == "swiss" and len(t["rounds"]) == 5

            met: Counter[frozenset[str]] = Counter()
            colours: dict[str, list[str]] = defaultdict(list)
            wins_before_last: Counter[str] = Counter()
            last_opponent: dict[str, str] = {}
            for r in t["rounds"]:
                if r["number"] < 5:
                    wins_before_last.update(p["result"]["winner"] for p in r["pairings"])
                else:
                    last_opponent.update({p["white"]["id"]: p["black"]["id"] for p in r["pairings"]})
                    last_opponent.update({p["black"]["id"]: p["white"]["id"] for p in r["pairings"]})
                assert r["status"] == "finished" and r["bye"] is None  # an even field: no bye
                seated = [p["seats"][i]["id"] for p in r["pairings"] for i in (0, 1)]
                assert sorted(seated) == sorted(ids), f"round {r['number']} seats everyone once"
                for p in r["pairings"]:
                    white, black = p["white"]["id"], p["black"]["id"]
                    met[frozenset((white, black))] += 1
                    colours[white].append("w")
                    colours[black].append("b")
                    assert p["result"]["reason"] == "played" and p["result"]["winner"] in (white, black)
            assert set(met.values()) == {1}, "nobody meets anyone twice"
            for player, seq in colours.items():
                assert abs(seq.count("w") - seq.count("b")) <= 2, (player, seq)
                # FIDE C.04.3 A.7: in the last round a pairing with a topscorer (more than half of the 4
                # points played for) may give a colour a third time in a row; no other, and never earlier.
                pair = (player, last_opponent[player])
                allowed = any(wins_before_last[q] > 2 for q in pair)
                assert "www" not in "".join(seq[:4]) and "bbb" not in "".join(seq[:4]), (player, seq)
                assert len({*seq[2:]}) > 1 or allowed, (player, seq, wins_before_last[player])

            rows = t["standings"]
            assert [r["rank"] for r in rows] == list(range(1, 21))
            assert sum(r["won"] for r in rows) == 50 and all(r["played"] == 5 for r in rows)
            assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
            by_id = {r["player"]: r for r in rows}
            for player, r in by_id.items():
                opponents = [next(iter(pair - {player})) for pair in met if player in pair]
                assert r["tiebreaks"]["buchholz"] == sum(by_id[o]["score"] for o in opponents)

            trf = client.get(f"/api/tournaments/{t['id']}/trf")
            assert trf.status_code == 200
            lines = [line for line in trf.text.splitlines() if line.startswith("001 ")]
            assert len(lines) == 20

            for r in t["rounds"][::2]:
                match_id = r["pairings"][0]["match"]
                report = verify_replay(_replay(client, match_id))
                assert report.ok, (match_id, report.line, report.failure)
    finally:
        stop(process)


def test_a_16_player_tables_tournament_of_5_rounds_meets_everyone_once(tmp_path: Path) -> None:
    process, base = _start(tmp_path / "tables.sqlite3")
    try:
        with httpx.Client(base_url=base, timeout=30.0) as client:
            entries = ["bot:random", "bot:greedy"] * 8
            body = {
                "name": "Classic night",
                "players": entries,
                "ruleset": "classic",
                "rules": {"target": 200, "round_limit": 3},
                "format": "tables",
                "rounds": 5,
                "table_size": 4,
            }
            t = _wait_finished(client, _create(client, body))
            ids = [p["id"] for p in t["players"]]
            assert t["format"] == "tables" and t["placement_points"] == [3, 2, 1, 0]

            met: Counter[frozenset[str]] = Counter()
            dealt: Counter[str] = Counter()
            handed_out = 0
            for r in t["rounds"]:
                assert r["status"] == "finished" and len(r["pairings"]) == 4
                seated = [s["id"] for p in r["pairings"] for s in p["seats"]]
                assert sorted(seated) == sorted(ids), f"round {r['number']} seats everyone once"
                summaries = {m["id"]: m for m in r["matches"]}
                for p in r["pairings"]:
                    seats = [s["id"] for s in p["seats"]]
                    assert len(seats) == 4
                    met.update(frozenset(pair) for pair in combinations(seats, 2))
                    dealt[seats[0]] += 1
                    result = p["result"]
                    assert result["reason"] == "played"
                    places, scores = result["places"], result["scores"]
                    for a, b in combinations(range(4), 2):  # D23: places follow the totals, the winner first
                        if places[a] != 1 and places[b] != 1:
                            assert (scores[a] > scores[b]) == (places[a] < places[b]) or scores[a] == scores[b]
                    summary = summaries[p["match"]]
                    assert [s["id"] for s in summary["seats"]] == seats and summary["places"] == places
                    handed_out += sum([3, 2, 1, 0][place - 1] for place in places)
            assert len(met) == 120 and set(met.values()) == {1}, "everyone meets everyone exactly once"
            assert max(dealt.values()) - min(dealt[i] for i in ids) <= 1, "the first dealer rotates"

            rows = t["standings"]
            assert [r["rank"] for r in rows] == list(range(1, 17))
            assert sum(r["score"] for r in rows) == handed_out
            assert sum(r["won"] for r in rows) == 20 and all(r["played"] == 5 for r in rows)
            report = verify_replay(_replay(client, t["rounds"][4]["pairings"][0]["match"]))
            assert report.ok, (report.line, report.failure)
    finally:
        stop(process)
