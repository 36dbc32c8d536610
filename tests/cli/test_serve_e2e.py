"""``unoduo serve`` for real: a uvicorn process on a free port, a whole match over HTTP, Ctrl-C
while a follow stream is open (quick and quiet)."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from engine.fairness.verify import verify_replay
from tests.cli.serving import free_port, serve, stop, wait_until_up
from tests.server.helpers import ok, play_to_end, register


def test_unoduo_serve_plays_a_match_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = serve("--port", str(port), "--db", f"sqlite:///{tmp_path / 'e2e.sqlite3'}")
    try:
        wait_until_up(base, process)
        with httpx.Client(base_url=base, timeout=10.0) as client:
            player_id, headers = register(client, "zoe")
            match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
            ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "zoe"}))

            followed: list[dict[str, Any]] = []

            def follow() -> None:
                url = f"{base}/api/matches/{match_id}/events"
                with httpx.stream("GET", url, params={"follow": 1}, headers=headers, timeout=30.0) as response:
                    assert response.status_code == 200
                    for line in response.iter_lines():
                        if line:
                            followed.append(json.loads(line))

            follower = threading.Thread(target=follow, daemon=True)
            follower.start()
            final, _ = play_to_end(client, match_id, headers, 0, random.Random(11))
            follower.join(timeout=20)
            assert not follower.is_alive(), "the follow stream did not end with the match"

            assert final["phase"] == "match_over"
            assert [e["seq"] for e in followed] == list(range(1, final["version"] + 1))
            assert followed[-1]["type"] == "seed_revealed"
            replay = client.get(f"/api/matches/{match_id}/replay")
            assert replay.status_code == 200 and verify_replay(replay.text).ok
            assert ok(client.get("/api/me", headers=headers))["matches"][0]["status"] == "finished"
            assert player_id
            assert ok(client.get("/"))["docs"] == "/docs" and ok(client.get("/api"))["name"] == "unoduo"

            # A live match's follow stream stays open: Ctrl-C must end it, quickly and quietly.
            live = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
            ok(client.post(f"/api/matches/{live}/join", headers=headers, json={"entropy": "again"}))
            opened = threading.Event()
            ended: list[str] = []

            def hold_open() -> None:
                url = f"{base}/api/matches/{live}/events"
                try:
                    with httpx.stream("GET", url, params={"follow": 1}, headers=headers, timeout=30.0) as response:
                        for _line in response.iter_lines():
                            opened.set()
                    ended.append("ended")
                except httpx.HTTPError as exc:
                    ended.append(repr(exc))

            holder = threading.Thread(target=hold_open, daemon=True)
            holder.start()
            assert opened.wait(10), "the follow stream did not open"
    finally:
        stop_started = time.monotonic()
        output = stop(process)
    stop_seconds = time.monotonic() - stop_started
    assert stop_seconds < 3, (stop_seconds, output)
    assert "Traceback" not in output and "CancelledError" not in output, output
    holder.join(timeout=5)
    assert ended, "the follow stream did not end with the server"
    assert f"http://127.0.0.1:{port}/docs" in output
    assert "director token" in output


def test_ctrl_c_closes_live_sockets_with_1012_and_no_traceback(tmp_path: Path) -> None:
    """A socket open on a live match when the server stops is told to reconnect (1012), quietly."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = serve("--port", str(port), "--db", str(tmp_path / "ws.sqlite3"))
    closed: list[int | None] = []
    try:
        wait_until_up(base, process)
        with httpx.Client(base_url=base, timeout=10.0) as client:
            _, headers = register(client, "zed")
            match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
            ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "z"}))
        token = headers["Authorization"].removeprefix("Bearer ")
        opened = threading.Event()

        def hold() -> None:
            with connect(f"ws://127.0.0.1:{port}/api/matches/{match_id}/ws?token={token}") as socket:
                opened.set()
                try:
                    for _ in socket:
                        pass
                except ConnectionClosed as closing:
                    closed.append(closing.rcvd.code if closing.rcvd else None)
                else:
                    closed.append(socket.close_code)

        holder = threading.Thread(target=hold, daemon=True)
        holder.start()
        assert opened.wait(10)
        time.sleep(0.5)
    finally:
        output = stop(process)
    holder.join(timeout=10)
    assert closed == [1012], (closed, output)
    assert "Traceback" not in output and "never retrieved" not in output, output
