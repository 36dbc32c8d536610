"""Scale-out on PostgreSQL: two ``unoduo serve`` processes on different ports, one database.

A player on one server watches over the WebSocket while the opponent plays through the other:
every move arrives through LISTEN/NOTIFY (the servers' fallback poll is set to a minute, so a
move that arrives within seconds came by notification). Server one owns the match (the join that
started it was made there): it holds it and runs its clock, and server two forwards Bob's
commands to it. Then nobody moves: each decision times out once, never early, until a seat
forfeits; the replay verifies. (Forwarding and a killed owner: tests/cli/test_match_ownership_e2e.py.)
"""

from __future__ import annotations

import contextlib
import itertools
import json
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from bench.progress import STALL_SECONDS, Stall, wait_for
from engine.fairness.verify import verify_replay
from engine.record.jsonfmt import AT_FORMAT
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import ok, register

DIRECTOR_TOKEN = "director-token-two-servers-0123456789"
DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
# The servers' sweep for lost notifications runs hourly: longer than any wait of this test
# (bench.progress's stall window), so whatever reaches the other server came by a notification.
SWEEP_SECONDS = "3600"


@pytest.fixture
def two_servers(url: str) -> Iterator[tuple[str, str]]:
    env = serve_env(
        UNODUO_DATABASE_URL=url,
        UNODUO_DIRECTOR_TOKEN=DIRECTOR_TOKEN,
        UNODUO_FOLLOW_POLL_SECONDS=SWEEP_SECONDS,
    )
    processes: list[subprocess.Popen[str]] = []
    bases: list[str] = []
    try:
        for _ in range(2):
            port = free_port()
            process = serve("--port", str(port), env=env)
            processes.append(process)
            base = f"http://127.0.0.1:{port}"
            wait_until_up(base, process)
            bases.append(base)
        yield bases[0], bases[1]
    finally:
        outputs = [stop(p) for p in processes]
    for output in outputs:
        assert "Traceback" not in output, output


def watch(base: str, match_id: str, token: str, into: list[dict[str, Any]], opened: threading.Event) -> None:
    ws_url = base.replace("http://", "ws://") + f"/api/matches/{match_id}/ws?token={token}"
    with connect(ws_url, open_timeout=STALL_SECONDS) as socket:
        opened.set()
        with contextlib.suppress(ConnectionClosed):  # a server stopping (test failed early) closes with 1012
            for text in socket:
                into.append(json.loads(text))


@pytest.mark.parametrize("db_kind", ["postgres"])
def test_two_servers_share_a_match_live_and_its_clock_fires_once(two_servers: tuple[str, str]) -> None:
    one, two = two_servers
    with httpx.Client(base_url=one, timeout=10) as first, httpx.Client(base_url=two, timeout=10) as second:
        ada_id, ada = register(first, "ada")
        bob_id, bob = register(second, "bob")
        created = first.post("/api/matches", headers=ada, json={"opponent": bob_id, "move_seconds": 2})
        match_id = ok(created, 201)["id"]
        ok(first.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "ada"}))
        seen: list[dict[str, Any]] = []
        opened = threading.Event()
        token = ada["Authorization"].removeprefix("Bearer ")
        watcher = threading.Thread(target=watch, args=(one, match_id, token, seen, opened), daemon=True)
        watcher.start()
        wait_for(opened.is_set, "ada's socket open")
        ok(second.post(f"/api/matches/{match_id}/join", headers=bob, json={"entropy": "bob"}))

        # Bob plays two decisions through server two; Ada's socket on server one gets each at once.
        moves = 0
        stall = Stall()  # Ada's own decisions take her clock's 2 s each to time out: the match moves on
        for step in itertools.count():
            view = ok(second.get(f"/api/matches/{match_id}", headers=bob))["view"]
            stall.moved(view["version"])
            if stall.stuck:
                break
            if view["phase"] == "match_over" or moves >= 2:
                break
            if view["turn"] != 1 or not view["legal"]:
                time.sleep(0.05)
                continue
            command = dict(view["legal"][0])
            if command["type"] == "color" or command.get("card") in ("W", "W+4"):
                command["color"] = "red"
            body = {"command_id": f"b{step}", "expected_version": view["version"], "command": command}
            answer = second.post(f"/api/matches/{match_id}/commands", headers=bob, json=body)
            if answer.status_code != 200:
                continue  # Ada's clock moved the match meanwhile: look again
            version = answer.json()["view"]["version"]
            wait_for(lambda v=version: any(m["event"]["seq"] == v for m in seen), "ada's socket got the move")
            arrived = next(m for m in seen if m["event"]["seq"] == version)
            assert arrived["view"]["viewer"] == 0 and arrived["view"]["version"] == version
            moves += 1
        assert moves == 2, "Bob never got two decisions to make"

        # Nobody moves now: the owner's clock runs; each decision times out once, never early.
        wait_for(lambda: ok(first.get(f"/api/matches/{match_id}"))["view"]["phase"] == "match_over", "the match's end")
        events = [json.loads(line) for line in first.get(f"/api/matches/{match_id}/events").text.splitlines()]
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        timeouts = [i for i, e in enumerate(events) if e["type"] == "timed_out"]
        assert len(timeouts) >= 3
        for index in timeouts:
            awaiting = next(e for e in reversed(events[:index]) if e["type"] == "awaiting")
            started = datetime.strptime(awaiting["at"], AT_FORMAT)
            fired = datetime.strptime(events[index]["at"], AT_FORMAT)
            assert fired >= started + timedelta(seconds=2), "a clock fired early"
        decisions = [i for i, e in enumerate(events) if e["type"] == "awaiting"]
        for index in timeouts:  # one timeout per decision: the next head after a decision is at most one timeout
            before = max(d for d in decisions if d < index)
            assert [t for t in timeouts if before < t <= index] == [index]
        assert any(e["type"] == "match_forfeited" for e in events)
        replay = second.get(f"/api/matches/{match_id}/replay")
        assert replay.status_code == 200
        report = verify_replay(replay.text)
        assert report.ok, report.failure
        watcher.join(timeout=10)
        assert seen[-1]["event"]["type"] == "seed_revealed"
        assert ada_id != bob_id
