"""House bots with a think delay act through the same path as people, after the delay."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import make_app
from server.settings import Settings
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok, register, with_color

THINK = 0.3
DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}


@pytest.fixture
def slow_bots(url: str) -> Iterator[TestClient]:
    settings = Settings(
        database_url=url, director_token=DIRECTOR_TOKEN, sqlite_synchronous="NORMAL", bot_think_seconds=THINK
    )
    with TestClient(make_app(settings), raise_server_exceptions=False) as client:
        yield client


def events(client: TestClient, match_id: str) -> list[dict[str, Any]]:
    text = client.get(f"/api/matches/{match_id}/events", headers=DIRECTOR).text
    return [json.loads(line) for line in text.splitlines()]


def test_a_bot_answers_after_its_think_delay_and_the_answer_reaches_the_socket(slow_bots: TestClient) -> None:
    client = slow_bots
    _, headers = register(client, "ada")
    match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "x"}))
    rng = random.Random(5)
    with client.websocket_connect(f"/api/matches/{match_id}/ws", headers=headers) as socket:
        for step in range(6):
            deadline = time.monotonic() + 10
            seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
            while not seen["legal"] and time.monotonic() < deadline:  # the bot is thinking
                time.sleep(0.05)
                seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
            assert seen["legal"], "the bot never moved"
            command = with_color(seen["legal"][0], rng)
            body = {"command_id": f"c{step}", "expected_version": seen["version"], "command": command}
            answer = ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body))
            assert all(e["data"].get("seat", 0) == 0 or e["type"] != "command" for e in answer["events"])
        last = answer["view"]["version"]
        received: list[int] = []
        while not received or received[-1] < last:
            received.append(json.loads(socket.receive_text())["event"]["seq"])
        assert received == list(range(1, last + 1))
    found = events(client, match_id)
    heads = [e for e in found if e["type"] == "command"]
    by_seq = {e["seq"]: e for e in found}
    bot_moves = [h for h in heads if h["data"]["seat"] == 1]
    assert bot_moves, "the bot never moved"
    for head in bot_moves:  # each bot move came at least THINK after the event before it
        before = by_seq[head["seq"] - 1]
        gap = datetime.fromisoformat(head["at"]) - datetime.fromisoformat(before["at"])
        assert gap.total_seconds() >= THINK * 0.9, (gap, head, before)
