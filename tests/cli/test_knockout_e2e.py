"""A 16-player double elimination for real (issue 36): ``unoduo serve`` as a process, fifteen house
bots and one bring-your-own bot (``examples/bot.py`` on its own bot account) run the bracket to
its end by themselves. Everything it shows adds up: 30 or 31 matches (2n-2, or 2n-1 with the
reset), everyone but the champion beaten twice, nobody playing after their second loss, the
usual places (1, 2, 3, 4, 5=, 7=, 9=, 13=), the JSON export the same, and every replay verified.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import httpx

from engine.fairness.verify import verify_replay
from tests.cli.serving import stop
from tests.cli.test_bot_example_e2e import _bot, _exited
from tests.cli.test_tournament_e2e import DIRECTOR, _replay, _start, _wait_finished
from tests.server.helpers import ok


def test_a_double_elimination_of_sixteen_bots_runs_to_its_places(tmp_path: Path) -> None:
    server, base = _start(tmp_path / "knockout.sqlite3")
    bots: list[subprocess.Popen[str]] = []
    log = tmp_path / "own-bot.log"
    try:
        with httpx.Client(base_url=base, timeout=30.0) as client:
            own = ok(client.post("/api/players", json={"name": "own-bot", "bot": True}), 201)
            entries = ["own-bot", *(["bot:greedy", "bot:random"] * 7), "bot:greedy"]
            body = {
                "name": "UNO championship",
                "players": entries,
                "rules": {"target": 60},
                "format": "double_elimination",
                "bot_accounts": True,
            }
            made = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
            started = ok(client.post(f"/api/tournaments/{made['id']}/start", headers=DIRECTOR))
            assert started["rounds_planned"] == 9  # W1..W4 beside L1..L6, the grand final and its reset
            bots.append(_bot(base, log=log, token=own["token"]))  # round 1 is open: it finds its match
            t = _wait_finished(client, made["id"])
            output = _exited(bots[0], log)

            pairings = [p for r in t["rounds"] for p in r["pairings"]]
            reset = any(p["node"] == "GF2" for p in pairings)
            assert len(pairings) == (31 if reset else 30)
            assert all(p["result"]["reason"] == "played" for p in pairings), "a match was not played out"
            losses: Counter[str] = Counter()
            for r in t["rounds"]:
                for p in r["pairings"]:
                    seats = [s["id"] for s in p["seats"]]
                    assert all(losses[s] < 2 for s in seats), f"{p['node']}: a player out played on"
                    losses.update(s for s in seats if s != p["result"]["winner"])
            champion = t["places"][0]["player"]
            assert all(losses[p["id"]] == 2 for p in t["players"] if p["id"] != champion)
            assert losses[champion] == (1 if reset else 0)
            assert Counter(p["place"] for p in t["places"]) == Counter(
                {1: 1, 2: 1, 3: 1, 4: 1, 5: 2, 7: 2, 9: 4, 13: 4}
            )
            assert [r["rank"] for r in t["standings"]] == [p["place"] for p in t["places"]]
            assert all(n["status"] in ("decided", "walkover", "void") for n in t["bracket"])
            exported = ok(client.get(f"/api/tournaments/{t['id']}/export.json"))
            assert exported["places"] == t["places"] and len(exported["results"]) == len(pairings)
            assert client.get(f"/api/tournaments/{t['id']}/trf").status_code == 409

            for p in pairings:  # every replay verifies
                report = verify_replay(_replay(client, p["match"]))
                assert report.ok, (p["match"], report.line, report.failure)
            own_matches = [p for p in pairings if own["id"] in [s["id"] for s in p["seats"]]]
            assert 2 <= len(own_matches) <= 9 and "refused" not in output and "Traceback" not in output, output
    finally:
        for process in bots:
            if process.poll() is None:
                process.kill()
                process.wait()
        out = stop(server)
    assert "Traceback" not in out, out
