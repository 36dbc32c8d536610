"""Match ownership with real servers on one PostgreSQL database (issue 24).

Two ``unoduo serve`` processes, each told where the other reaches it (``UNODUO_PEER_URL``).
A match started through server one is owned by it; a player whose socket and commands go to
server two plays all the same: server two forwards them to the owner (its access log shows the
forwarded requests, which no client sent it). Then the owner is killed with ``kill -9``: within
the lease (3 s) and a beat the other server takes the match over, its clock goes on from each
decision's start, every decision times out once and never early, a socket that reconnects with
``since`` misses nothing and gets nothing twice, and the replay verifies.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from engine.fairness.verify import verify_replay
from engine.record.jsonfmt import AT_FORMAT
from server.store import leases
from tests.cli.serving import STALL_SECONDS, free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import ok, register

DIRECTOR_TOKEN = "director-token-ownership-0123456789"
LEASE_SECONDS = 3.0
BEAT_SECONDS = LEASE_SECONDS / 3
TAKEOVER_SLACK = 20.0  # loading the match and a loaded machine: the bound is lease + beat + this

pytestmark = pytest.mark.parametrize("db_kind", ["postgres"])


@dataclass
class Server:
    base: str
    process: subprocess.Popen[str]
    log: Path

    def access_log(self) -> str:
        return self.log.read_text()


@pytest.fixture
def servers(url: str, tmp_path: Path) -> Iterator[list[Server]]:
    started: list[Server] = []
    try:
        for n in range(2):
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            env = serve_env(
                UNODUO_DATABASE_URL=url,
                UNODUO_DIRECTOR_TOKEN=DIRECTOR_TOKEN,
                UNODUO_PEER_URL=base,
                UNODUO_LEASE_SECONDS=str(LEASE_SECONDS),
            )
            log = tmp_path / f"server{n}.log"
            process = serve("--port", str(port), env=env, log=log)
            started.append(Server(base, process, log))
            wait_until_up(base, process)
        yield started
    finally:
        for server in started:
            if server.process.poll() is None:
                stop(server.process)
    for server in started:
        assert "Traceback" not in server.access_log(), server.access_log()


def owner_url(url: str, match_id: str) -> str | None:
    engine = create_engine(url)
    try:
        owner = leases.owner_of(engine, match_id)
    finally:
        engine.dispose()
    return None if owner is None else owner.peer_url


def socket_url(base: str, match_id: str, token: str, since: int = 0) -> str:
    return base.replace("http://", "ws://") + f"/api/matches/{match_id}/ws?token={token}&since={since}"


def first_legal(view: dict[str, Any]) -> dict[str, Any]:
    command = dict(view["legal"][0])
    if command["type"] == "color" or command.get("card") in ("W", "W+4"):
        command["color"] = "red"
    return command


def test_commands_and_sockets_reaching_another_server_are_forwarded_to_the_owner(
    servers: list[Server], url: str
) -> None:
    one, two = servers
    with httpx.Client(base_url=one.base, timeout=30) as first, httpx.Client(base_url=two.base, timeout=30) as second:
        _ada, ada = register(first, "ada")
        match_id = ok(first.post("/api/matches", headers=ada, json={"opponent": "bot:random"}), 201)["id"]
        ok(first.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "ada"}))
        assert owner_url(url, match_id) == one.base

        # Over HTTP through server two: answered by the owner.
        view = ok(second.get(f"/api/matches/{match_id}", headers=ada))["view"]
        body = {"command_id": "h1", "expected_version": view["version"], "command": first_legal(view)}
        answer = ok(second.post(f"/api/matches/{match_id}/commands", headers=ada, json=body))
        assert answer["view"]["version"] > view["version"]
        assert f'"POST /api/matches/{match_id}/commands HTTP/1.1" 200' in one.access_log()

        # A live event stream on server two: streamed through from the owner.
        with second.stream("GET", f"/api/matches/{match_id}/events", params={"follow": 1}) as streamed:
            first_line = json.loads(next(streamed.iter_lines()))
            assert streamed.status_code == 200 and first_line["seq"] == 1
        assert f'"GET /api/matches/{match_id}/events?follow=1 HTTP/1.1" 200' in one.access_log()

        # A spectator's socket on server two: joined to one on the owner (it moves no seat closer).
        with connect(two.base.replace("http://", "ws://") + f"/api/matches/{match_id}/ws", open_timeout=30) as ws:
            assert json.loads(ws.recv(timeout=STALL_SECONDS))["type"] == "event"
        assert f'"WebSocket /api/matches/{match_id}/ws' in one.access_log()
        assert owner_url(url, match_id) == one.base

        # Ada's own socket on server two: no seat's own socket is open on the owner, so the match
        # is handed over to server two, which plays it from now on; commands on it answered there.
        token = ada["Authorization"].removeprefix("Bearer ")
        with connect(socket_url(two.base, match_id, token), open_timeout=30) as ws:
            assert owner_url(url, match_id) == two.base
            last: dict[str, Any] = {}
            while last.get("view", {}).get("version") != answer["view"]["version"]:
                last = json.loads(ws.recv(timeout=STALL_SECONDS))
            view = last["view"]
            ws.send(json.dumps({"type": "command", "command_id": "w1", "command": first_legal(view)}))
            while True:
                message = json.loads(ws.recv(timeout=STALL_SECONDS))
                if message["type"] == "result":
                    assert message["ok"] and message["command_id"] == "w1", message
                    break
        assert f'"POST /api/matches/{match_id}/handoff HTTP/1.1" 200' in one.access_log()
        assert owner_url(url, match_id) == two.base
        assert "answering here" not in two.access_log()
        # Only servers may ask for a match: to anyone else the handoff route is not there.
        assert second.post(f"/api/matches/{match_id}/handoff").status_code == 404
        wrong = {"x-unoduo-peer-key": "0" * 64}
        assert second.post(f"/api/matches/{match_id}/handoff", headers=wrong).status_code == 404
        assert owner_url(url, match_id) == two.base


def test_a_killed_owners_match_is_taken_over_and_its_clock_fires_once(servers: list[Server], url: str) -> None:
    one, two = servers
    with httpx.Client(base_url=one.base, timeout=30) as first, httpx.Client(base_url=two.base, timeout=30) as second:
        _ada, ada = register(first, "ada")
        bob_id, bob = register(first, "bob")
        body = {"opponent": bob_id, "move_seconds": 2}
        match_id = ok(first.post("/api/matches", headers=ada, json=body), 201)["id"]
        ok(first.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "ada"}))
        ok(first.post(f"/api/matches/{match_id}/join", headers=bob, json={"entropy": "bob"}))
        assert owner_url(url, match_id) == one.base

        # Ada's own socket on the owner keeps the match there; Bob's socket on server two is
        # forwarded to it (no handoff while a seat's own socket is open on the owner).
        seen: list[dict[str, Any]] = []
        closed_with: int | None = None
        ada_socket = connect(socket_url(one.base, match_id, ada["Authorization"].removeprefix("Bearer ")))
        ada_socket.recv(timeout=STALL_SECONDS)
        token = bob["Authorization"].removeprefix("Bearer ")
        with ada_socket, connect(socket_url(two.base, match_id, token), open_timeout=30) as ws:
            assert owner_url(url, match_id) == one.base
            seen.append(json.loads(ws.recv(timeout=STALL_SECONDS)))
            one.process.send_signal(signal.SIGKILL)
            one.process.wait()
            killed = datetime.now(UTC).replace(tzinfo=None)
            with contextlib.suppress(ConnectionClosed):
                while True:
                    seen.append(json.loads(ws.recv(timeout=STALL_SECONDS)))
            closed_with = ws.close_code
        assert closed_with == 1012, closed_with  # the owner went away: reconnect with since
        with connect(socket_url(two.base, match_id, token, since=seen[-1]["event"]["seq"]), open_timeout=30) as ws:
            with contextlib.suppress(ConnectionClosed):
                while True:
                    seen.append(json.loads(ws.recv(timeout=STALL_SECONDS)))

        events = [json.loads(line) for line in second.get(f"/api/matches/{match_id}/events").text.splitlines()]
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert [m["event"]["seq"] for m in seen] == [e["seq"] for e in events]  # nothing lost or twice
        assert events[-1]["type"] == "seed_revealed"
        timeouts = [i for i, e in enumerate(events) if e["type"] == "timed_out"]
        awaiting = [i for i, e in enumerate(events) if e["type"] == "awaiting"]
        for index in timeouts:  # one timeout per decision, never early
            opened = max(a for a in awaiting if a < index)
            assert [t for t in timeouts if opened < t <= index] == [index]
            started = datetime.strptime(events[opened]["at"], AT_FORMAT)
            assert datetime.strptime(events[index]["at"], AT_FORMAT) >= started + timedelta(seconds=2)
        after = [e for e in events if datetime.strptime(e["at"], AT_FORMAT) > killed]
        assert after, "nothing moved after the kill"
        due = max(
            killed,
            datetime.strptime(events[max(a for a in awaiting if events[a]["seq"] < after[0]["seq"])]["at"], AT_FORMAT)
            + timedelta(seconds=2),
        )
        took = (datetime.strptime(after[0]["at"], AT_FORMAT) - due).total_seconds()
        assert took <= LEASE_SECONDS + BEAT_SECONDS + TAKEOVER_SLACK, f"taken over {took:.1f} s after it was due"
        report = verify_replay(second.get(f"/api/matches/{match_id}/replay").text)
        assert report.ok, report.failure
