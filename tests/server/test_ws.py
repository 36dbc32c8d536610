"""``WS /api/matches/{id}/ws``: the live feed (envelope, openings, view per event), commands on
the socket, reconnecting with ``since``, spectators, the end of the feed, and refusals."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from engine.record.chain import ZERO_HASH
from server.store.errors import StoreUnavailableError
from tests.server.helpers import check_seat_response, ok, play_to_end, register, shedding, with_color


def open_match(client: TestClient, opponent: str = "bot:greedy") -> tuple[str, dict[str, str]]:
    _, headers = register(client, "ada")
    match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": opponent}), 201)["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "ada"}))
    return match_id, headers


def receive_until(ws: Any, version: int) -> list[dict[str, Any]]:
    """Event messages until the view reaches ``version``."""
    out: list[dict[str, Any]] = []
    while not out or out[-1]["view"]["version"] < version:
        message = ws.receive_json()
        assert message["type"] == "event", message
        out.append(message)
    return out


def check_chain(messages: list[dict[str, Any]], prev: str = ZERO_HASH) -> str:
    """Each envelope links to the one before (as a client checks it live); returns the last hash."""
    for message in messages:
        envelope = message["event"]
        assert envelope["prev"] == prev and message["view"]["version"] == envelope["seq"]
        prev = envelope["hash"]
    return prev


def test_a_seat_plays_over_the_socket_and_every_message_checks_out(client: TestClient) -> None:
    match_id, headers = open_match(client)
    version = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]["version"]
    rng = random.Random(3)
    with client.websocket_connect(f"/api/matches/{match_id}/ws", headers=headers) as ws:
        messages = receive_until(ws, version)
        prev = check_chain(messages)
        check_seat_response({"view": messages[-1]["view"], "events": [m["event"] for m in messages]}, 0)
        for step in range(6):
            view = messages[-1]["view"]
            command = with_color(rng.choice(shedding(view["legal"])), rng)
            ws.send_json(
                {"type": "command", "command_id": f"ws-{step}", "expected_version": view["version"], "command": command}
            )
            result = None
            new: list[dict[str, Any]] = []
            while result is None or not new or new[-1]["view"]["version"] < result["version"]:
                message = ws.receive_json()
                if message["type"] == "result":
                    assert message["ok"] and message["command_id"] == f"ws-{step}", message
                    result = message
                else:
                    new.append(message)
            prev = check_chain(new, prev)
            check_seat_response({"view": new[-1]["view"], "events": [m["event"] for m in new]}, 0)
            messages = new
            if messages[-1]["view"]["phase"] == "match_over":
                break


def test_a_stale_or_malformed_command_is_answered_and_changes_nothing(client: TestClient) -> None:
    match_id, headers = open_match(client)
    version = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]["version"]
    with client.websocket_connect(f"/api/matches/{match_id}/ws", headers=headers) as ws:
        answers = receive_until(ws, version)
        ws.send_json({"type": "command", "command_id": "x", "expected_version": 0, "command": {"type": "draw"}})
        result = ws.receive_json()
        assert result["type"] == "result" and not result["ok"] and result["error"]["code"] == "stale_version"
        ws.send_text("not json")
        ws.send_json({"type": "hello"})
        refusals = [ws.receive_json(), ws.receive_json()]
        assert [r["error"]["code"] for r in refusals] == ["malformed", "malformed"]
    after = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]["version"]
    assert after == max(a["view"]["version"] for a in answers if a["type"] == "event")


def test_reconnecting_with_since_misses_nothing_and_repeats_nothing(client: TestClient) -> None:
    match_id, headers = open_match(client)
    view = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    rng = random.Random(8)
    for step in range(5):  # a few moves over HTTP, so there is a log to resume in
        command = with_color(rng.choice(shedding(view["legal"])), rng)
        body = {"command_id": f"h{step}", "expected_version": view["version"], "command": command}
        view = ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body))["view"]
    total = view["version"]
    cut = total // 2
    with client.websocket_connect(f"/api/matches/{match_id}/ws?since=0", headers=headers) as ws:
        first = receive_until(ws, cut)
    with client.websocket_connect(
        f"/api/matches/{match_id}/ws?since={first[-1]['event']['seq']}", headers=headers
    ) as ws:
        rest = receive_until(ws, total)
    seqs = [m["event"]["seq"] for m in first + rest]
    assert seqs == list(range(1, total + 1))
    check_chain(first + rest)


def test_a_spectator_gets_the_same_envelopes_and_nothing_hidden(client: TestClient) -> None:
    match_id, headers = open_match(client)
    version = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]["version"]
    with client.websocket_connect(f"/api/matches/{match_id}/ws", headers=headers) as ws:
        seat = receive_until(ws, version)
    with client.websocket_connect(f"/api/matches/{match_id}/ws") as ws:
        watcher = receive_until(ws, version)
    assert [m["event"]["hash"] for m in seat] == [m["event"]["hash"] for m in watcher]
    assert all(m["event"]["open"] == {} for m in watcher) and any(m["event"]["open"] for m in seat)
    assert watcher[-1]["view"]["viewer"] == "spectator" and watcher[-1]["view"]["hand"] is None


def test_the_feed_of_a_finished_match_ends_after_its_last_event(client: TestClient) -> None:
    match_id, headers = open_match(client, opponent="bot:random")
    final, _ = play_to_end(client, match_id, headers, 0, random.Random(11))
    with client.websocket_connect(f"/api/matches/{match_id}/ws") as ws:
        messages = receive_until(ws, final["version"])
        assert messages[-1]["event"]["type"] == "seed_revealed"
        assert messages[-1]["view"]["viewer"] == "auditor"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 1000
    with client.websocket_connect(f"/api/matches/{match_id}/ws?since={final['version']}") as ws:
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()  # nothing after the last event: the feed ends at once


@pytest.mark.parametrize(
    ("path", "headers", "code"),
    [
        ("/api/matches/m_nope/ws", {}, 4404),
        ("/api/matches/m_nope/ws?token=nobody", {}, 4401),
        ("/api/matches/m_nope/ws", {"Authorization": "Basic abc"}, 4401),
    ],
)
def test_refusals_close_the_socket_with_a_code(
    client: TestClient, path: str, headers: dict[str, str], code: int
) -> None:
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(path, headers=headers) as ws:
        ws.receive_json()
    assert closed.value.code == code


def test_since_out_of_range_is_refused(client: TestClient) -> None:
    match_id, _ = open_match(client)
    with (
        pytest.raises(WebSocketDisconnect) as closed,
        client.websocket_connect(f"/api/matches/{match_id}/ws?since={2**40}") as ws,
    ):
        ws.receive_json()
    assert closed.value.code in (1008, 4400)


def test_an_unavailable_database_means_the_same_on_the_socket_as_over_http(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HTTP answers 503 ``unavailable``; a socket command gets an ``unavailable`` result and the
    socket stays; a feed that cannot read closes 1013 "try again later" (was 1011 "internal error")."""
    match_id, headers = open_match(client)
    version = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]["version"]
    matches = client.app.state.matches  # type: ignore[attr-defined]

    async def database_down(*_args: Any, **_kwargs: Any) -> Any:
        raise StoreUnavailableError("the connection was lost")

    command = {"type": "command", "command_id": "down", "expected_version": version, "command": {"type": "draw"}}
    with client.websocket_connect(f"/api/matches/{match_id}/ws", headers=headers) as ws:
        receive_until(ws, version)
        monkeypatch.setattr(matches, "command_version", database_down)
        monkeypatch.setattr(matches, "command", database_down)
        answers = []
        for _ in range(2):
            ws.send_json(command)
            answers.append(ws.receive_json())
        assert [a["error"]["code"] for a in answers] == ["unavailable", "unavailable"], answers
    body = {k: v for k, v in command.items() if k != "type"}
    http = client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body)
    assert http.status_code == 503 and http.json()["code"] == "unavailable"

    def feed_down(*_args: Any, **_kwargs: Any) -> Any:
        async def down() -> Any:
            raise StoreUnavailableError("the connection was lost")
            yield  # an async generator

        return down()

    monkeypatch.setattr(client.app.state.match_reads, "watch", feed_down)  # type: ignore[attr-defined]
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(f"/api/matches/{match_id}/ws") as ws:
        ws.receive_json()
    assert closed.value.code == 1013


def test_unknown_keys_inside_a_command_are_refused_the_same_way_on_both_ways_in(client: TestClient) -> None:
    match_id, headers = open_match(client)
    view = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    command = {**with_color(view["legal"][0], random.Random(1)), "colour": "red"}
    body = {"command_id": "extra", "expected_version": view["version"], "command": command}
    http = client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body)
    assert http.status_code == 400 and http.json()["code"] == "malformed" and "colour" in http.json()["message"]
    with client.websocket_connect(f"/api/matches/{match_id}/ws?since={view['version']}", headers=headers) as ws:
        ws.send_json({"type": "command", **body})
        answer = ws.receive_json()
    assert answer["error"]["code"] == "malformed" and "colour" in answer["error"]["message"]
    assert ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]["version"] == view["version"]
