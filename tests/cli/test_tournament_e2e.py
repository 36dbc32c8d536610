"""Round-robin tournaments for real: ``unoduo serve`` as a process, house bots in every seat.

A 7-player round-robin (byes included) runs to its end by itself, and everything it shows adds
up; a server stopped in the middle of a round (Ctrl-C, SIGTERM, or SIGKILL) and started again on
the same database file goes on where it was and loses nothing.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.progress import Stall
from engine.fairness.verify import verify_replay
from engine.record.replay import parse_replay
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import ok

TOKEN = "e2e-director-token-0123456789abcdef"
DIRECTOR = {"Authorization": f"Bearer {TOKEN}"}
POLL = 0.25  # the server's access log goes to a pipe nobody reads until the end: poll gently


def _start(db: Path, think: str = "0") -> tuple[subprocess.Popen[str], str]:
    """A server on ``db``; ``think`` is the house bots' think delay (0: a match of two bots runs
    as fast as the server can decide, several moves a commit)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = serve_env(UNODUO_DIRECTOR_TOKEN=TOKEN, UNODUO_BOT_THINK_SECONDS=think)
    process = serve("--port", str(port), "--db", f"sqlite:///{db}", env=env)
    wait_until_up(base, process)
    return process, base


def _create(client: httpx.Client, entries: list[str], target: int) -> str:
    body = {"name": "club night", "players": entries, "rules": {"target": target}}
    created = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    assert created["status"] == "created" and [p["kind"] for p in created["players"]] == ["bot"] * len(entries)
    tournament_id: str = created["id"]
    return tournament_id


def _wait_finished(client: httpx.Client, tournament_id: str) -> dict[str, Any]:
    """Poll until finished; fails only when the rounds and pairings have not moved for the stall window."""
    stall = Stall()
    while True:
        t: dict[str, Any] = ok(client.get(f"/api/tournaments/{tournament_id}"))
        if t["status"] == "finished":
            return t
        stall.moved(repr(t["rounds"]))
        assert not stall.stuck, "stopped moving: rounds " + ", ".join(
            f"{r['number']} {r['status']} {[p['status'] for p in r['pairings']]}" for r in t["rounds"]
        )
        time.sleep(POLL)


def _check_round_robin(t: dict[str, Any], players: int) -> list[str]:
    """Everything a finished single round-robin of ``players`` shows adds up; its played match ids."""
    ids = [p["id"] for p in t["players"]]
    assert len(ids) == len(set(ids)) == players
    rounds = t["rounds"]
    assert [r["number"] for r in rounds] == list(range(1, players + players % 2))
    assert all(r["status"] == "finished" for r in rounds)
    met: Counter[frozenset[str]] = Counter()
    matches: list[str] = []
    with_winner = 0
    won: Counter[str] = Counter()
    for r in rounds:
        pairings = r["pairings"]
        assert len(pairings) == players // 2, r
        if players % 2:
            assert r["bye"] in ids
        else:
            assert r["bye"] is None
        seated = [p[side]["id"] for p in pairings for side in ("white", "black")] + [r["bye"]] * (players % 2)
        assert sorted(seated) == sorted(ids), f"round {r['number']} does not seat everyone once"
        summaries = {m["id"]: m for m in r["matches"]}
        assert len(summaries) == len(pairings)
        for p in pairings:
            white, black = p["white"]["id"], p["black"]["id"]
            met[frozenset((white, black))] += 1
            result = p["result"]
            assert p["status"] == "decided" and result is not None, p
            assert result["forfeit"] is False and result["reason"] == "played", p  # house bots answer at once
            assert result["match"] == p["match"] and p["annulled"] == []
            assert result["winner"] in (white, black)
            assert max(result["scores"]) >= t["rules"]["target"]
            with_winner += 1
            won[result["winner"]] += 1
            summary = summaries[p["match"]]
            assert [s["id"] for s in summary["seats"]] == [white, black]  # seats[0] is the pairing's white
            assert summary["status"] == "finished" and summary["winner"] == result["winner"]
            assert summary["tournament"] == t["id"] and summary["round"] == r["number"]
            assert summary["scores"] == result["scores"]
            matches.append(p["match"])
    assert len(met) == players * (players - 1) // 2 and set(met.values()) == {1}, "every pair meets exactly once"

    standings = t["standings"]
    assert sorted(row["player"] for row in standings) == sorted(ids)
    assert [row["rank"] for row in standings] == list(range(1, players + 1))
    assert sum(row["won"] for row in standings) == with_winner == len(matches)
    assert sum(row["lost"] for row in standings) == len(matches)
    assert sum(row["points_for"] for row in standings) == sum(row["points_against"] for row in standings)
    for row in standings:
        assert row["played"] == players - 1 and row["won"] + row["lost"] == row["played"], row
        assert row["byes"] == players % 2 and row["forfeits"] == 0 and row["withdrawn"] is False, row
        assert row["won"] == won[row["player"]] == row["tiebreaks"]["match_wins"], row
    assert standings[-1]["decided_by"] is None
    assert t["server_seed"] and t["open_disputes"] == 0
    return matches


def _replay(client: httpx.Client, match_id: str) -> str:
    response = client.get(f"/api/matches/{match_id}/replay")
    assert response.status_code == 200, response.text
    return response.text


def test_a_seven_player_round_robin_of_house_bots_runs_to_the_end_by_itself(tmp_path: Path) -> None:
    process, base = _start(tmp_path / "seven.sqlite3")
    try:
        with httpx.Client(base_url=base, timeout=30.0) as client:
            entries = ["bot:random", "bot:greedy"] * 3 + ["bot:random"]
            tournament_id = _create(client, entries, target=60)
            started = ok(client.post(f"/api/tournaments/{tournament_id}/start", headers=DIRECTOR))
            assert started["status"] == "running" and len(started["rounds"]) == 7
            assert started["rounds"][0]["status"] == "running"

            t = _wait_finished(client, tournament_id)
            matches = _check_round_robin(t, 7)
            assert len(matches) == 21
            assert sorted(r["bye"] for r in t["rounds"]) == sorted(p["id"] for p in t["players"])  # one bye each
            assert ok(client.get("/api/tournaments"))[0] == {
                "id": tournament_id,
                "name": "club night",
                "status": "finished",
                "players": 7,
                "rounds": 7,
                "opened": 7,
                "open": False,  # entrants named by the director, not entering themselves
                "entries": 7,
                "entered": None,  # no player's token asked
                "format": "round_robin",
                "check_in_opens": None,  # no check-in
                "checked_in": 0,
                "you_checked_in": None,
                "late_entry_until": None,
                "you_missed_check_in": None,  # no late entry
            }
            for match_id in matches[::4]:  # a few of them, from rounds 1, 2, 3, 5, 6 and 7
                text = _replay(client, match_id)
                report = verify_replay(text)
                assert report.ok, (match_id, report.line, report.failure)
                _, lines = parse_replay(text)
                first_round = next(x for x in lines if x["type"] == "round_started")
                assert first_round["data"]["player1"] == 0, match_id  # white drafts first in round 1
    finally:
        output = stop(process)
    assert "Traceback" not in output and "ERROR" not in output, output


def _events(client: httpx.Client, match_id: str) -> list[tuple[int, str]]:
    response = client.get(f"/api/matches/{match_id}/events")
    assert response.status_code == 200, response.text
    return [(e["seq"], e["hash"]) for e in map(json.loads, response.text.splitlines()) if e]


def _wait_mid_round(client: httpx.Client, tournament_id: str) -> dict[str, Any]:
    """The tournament once a round is running with a match of it some way in (and not over);
    fails only when the tournament has not moved for the stall window."""
    stall = Stall()
    while not stall.stuck:
        t: dict[str, Any] = ok(client.get(f"/api/tournaments/{tournament_id}"))
        running = [r for r in t["rounds"] if r["status"] == "running"]
        for p in running[0]["pairings"] if running else []:
            if p["status"] == "live":
                view = ok(client.get(f"/api/matches/{p['match']}"))["view"]
                if view["version"] >= 40 and view["phase"] != "match_over":
                    return t
        stall.moved(repr(t["rounds"]))
        time.sleep(0.05)
    raise AssertionError("no round was seen running with a match some way in")


def _stop_by(process: subprocess.Popen[str], how: str) -> str:
    if how == "sigint":
        return stop(process)  # Ctrl-C, as an operator stops it
    if how == "sigterm":
        process.send_signal(signal.SIGTERM)  # as a service manager stops it
        output, _ = process.communicate(timeout=15)
        # uvicorn shuts down gracefully, then passes the signal on: the exit status says SIGTERM
        assert process.returncode in (0, -signal.SIGTERM), output
        assert "Application shutdown complete." in output, output
        return output
    process.kill()  # SIGKILL: a crash, nothing is flushed or shut down
    output, _ = process.communicate(timeout=15)
    assert process.returncode == -signal.SIGKILL
    return output


def _tournament_events(db: Path, tournament_id: str) -> list[tuple[str, dict[str, Any]]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT seq, type, data FROM events WHERE stream = ? ORDER BY seq", (f"tournament-{tournament_id}",)
        ).fetchall()
    assert [seq for seq, _, _ in rows] == list(range(1, len(rows) + 1))
    return [(kind, json.loads(data)) for _, kind, data in rows]


@pytest.mark.parametrize("how", ["sigint", "sigterm", "sigkill"])
def test_a_restart_in_the_middle_of_a_round_loses_nothing(tmp_path: Path, how: str) -> None:
    db = tmp_path / "restart.sqlite3"
    entries = ["bot:random", "bot:greedy", "bot:random", "bot:greedy", "bot:greedy"]
    # Bots that think 5 ms a move before the stop, so that it surely comes in the middle of a
    # round (with no delay a whole match can be over in a tenth of a second); at once after it.
    process, base = _start(db, think="0.005")
    try:
        with httpx.Client(base_url=base, timeout=30.0) as client:
            tournament_id = _create(client, entries, target=150)
            ok(client.post(f"/api/tournaments/{tournament_id}/start", headers=DIRECTOR))
            before = _wait_mid_round(client, tournament_id)
            live = [p["match"] for r in before["rounds"] for p in r["pairings"] if p["status"] == "live"]
            assert live
            seen = {m: _events(client, m) for m in live}
    finally:
        output = _stop_by(process, how)
    assert "Traceback" not in output, output
    decided = {
        p["slot"]: p["result"] for r in before["rounds"] for p in r["pairings"] if p["result"] is not None
    }  # as they were shown before the stop
    running = next(r["number"] for r in before["rounds"] if r["status"] == "running")

    process, base = _start(db)  # the same database file
    try:
        with httpx.Client(base_url=base, timeout=30.0) as client:
            try:
                t = _wait_finished(client, tournament_id)
            except AssertionError as exc:  # what the restarted server said is the first thing to read
                said = [line for line in stop(process).splitlines() if '"GET ' not in line]  # not the polls
                raise AssertionError(f"{exc}\nthe restarted server's output:\n" + "\n".join(said[-80:])) from None
            matches = _check_round_robin(t, 5)
            after = {p["slot"]: p["result"] for r in t["rounds"] for p in r["pairings"]}
            for slot, result in decided.items():
                assert after[slot] == result, f"pairing {slot} was decided before the stop, differently"
            went_on = 0
            for match_id, events in seen.items():  # the matches in play at the stop went on from where they were
                _, lines = parse_replay(_replay(client, match_id))
                assert [(x["seq"], x["hash"]) for x in lines[: len(events)]] == events, match_id
                assert lines[-1]["type"] == "seed_revealed"
                went_on += len(lines) > len(events)
            assert went_on, "every match in play had ended before the stop: it did not come in the middle of a round"
            for match_id in [*seen, matches[0], matches[-1]]:
                report = verify_replay(_replay(client, match_id))
                assert report.ok, (match_id, report.line, report.failure)
    finally:
        output = stop(process)
    assert "Traceback" not in output, output

    # The tournament's own stream: each step recorded exactly once, the restart notwithstanding.
    stream = _tournament_events(db, tournament_id)
    kinds = Counter(kind for kind, _ in stream)
    assert kinds["tournament_created"] == kinds["tournament_started"] == kinds["tournament_finished"] == 1
    opened = [data["round"] for kind, data in stream if kind == "round_opened"]
    assert opened == [1, 2, 3, 4, 5], opened
    results = Counter(data["slot"] for kind, data in stream if kind == "result_recorded")
    assert len(results) == 10 and set(results.values()) == {1}, results
    assert len({data["match"] for kind, data in stream if kind == "result_recorded"}) == 10
    assert running in opened
    with sqlite3.connect(db) as conn:
        made = conn.execute("SELECT id FROM match_summaries WHERE tournament = ?", (tournament_id,)).fetchall()
        streams = conn.execute(
            "SELECT stream, COUNT(*), MAX(seq) FROM events WHERE stream LIKE ? GROUP BY stream",
            (f"match-m_{tournament_id.removeprefix('t_')}_%",),
        ).fetchall()
    assert len(set(matches)) == 10 and sorted(m for (m,) in made) == sorted(matches)  # no pairing got a second match
    assert len(streams) == 10 and all(count == head for _, count, head in streams), streams
