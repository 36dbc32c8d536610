"""``WS /api/matches/{id}/ws?frames=decision``: one message per decision (docs/PROTOCOL.md).

Each message must hold exactly what the one-message-per-event socket sends for the same events,
concatenated: the same envelopes with the same ``open`` for this viewer, and the view after the
decision's last event; every decision starts with its head event and holds no other. Proven
against the ``frames=event`` socket of the same viewer, for every kind of viewer (each seat, a
spectator, the director), on history and live, across the end of the match (everyone an auditor
from then on); reconnecting with ``since`` (at a decision's end or inside one, or after being cut
off for falling behind) loses and repeats nothing; an unknown ``frames`` is refused 1008. Every
wait is on a message, never on time.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from engine.game.events import HEAD_TYPES
from engine.record.chain import ZERO_HASH
from server.services import live_match
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import check_seat_response, ok, register, shedding, with_color
from tests.server.test_tournaments import round_limited_match

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
WS = "/api/matches/{}/ws?since={}&frames={}"


def two_seats(
    client: TestClient, ruleset: str = "uno-duo", rounds: int | None = None
) -> tuple[str, list[dict[str, str]]]:
    """A match between two people, both joined: its id and each seat's headers. With ``rounds``,
    it ends after that many (RULES.md D23's round limit): the one match of a two-player round
    robin, since a casual match always plays to the ruleset's target."""
    ada_id, ada = register(client, "ada")
    bob_id, bob = register(client, "bob")
    if rounds is None:
        body = {"opponent": bob_id, "ruleset": ruleset}
        match_id = ok(client.post("/api/matches", headers=ada, json=body), 201)["id"]
    else:
        match_id, (ada, bob) = round_limited_match(client, {ada_id: ada, bob_id: bob}, ruleset, rounds)
    for headers, entropy in ((ada, "a"), (bob, "b")):
        ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": entropy}))
    return match_id, [ada, bob]


def play(client: TestClient, match_id: str, seats: list[dict[str, str]], rng: random.Random, moves: int) -> int:
    """Up to ``moves`` random legal commands by whichever seat is to act (over HTTP); the version after."""
    view = ok(client.get(f"/api/matches/{match_id}", headers=DIRECTOR))["view"]
    for step in range(moves):
        if view["phase"] == "match_over":
            break
        seat = view["pending"]["seat"]
        seat_view = ok(client.get(f"/api/matches/{match_id}", headers=seats[seat]))["view"]
        command = with_color(rng.choice(shedding(seat_view["legal"])), rng)
        body = {"command_id": f"c{view['version']}-{step}", "expected_version": seat_view["version"]}
        view = ok(
            client.post(f"/api/matches/{match_id}/commands", headers=seats[seat], json={**body, "command": command})
        )["view"]
    return int(view["version"])


def receive(ws: Any, kind: str, version: int | None) -> list[dict[str, Any]]:
    """The ``kind`` messages until one's view reaches ``version`` (None: until the socket closes 1000)."""
    out: list[dict[str, Any]] = []
    while version is None or not out or out[-1]["view"]["version"] < version:
        try:
            message = ws.receive_json()
        except WebSocketDisconnect as closed:
            assert version is None and closed.code == 1000, closed
            return out
        if message["type"] == "result":
            continue
        assert message["type"] == kind, message
        out.append(message)
    return out


def envelopes(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for decision in decisions for event in decision["events"]]


def assert_same_as_events(decisions: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    """The decisions are the event messages concatenated: the same envelopes and openings, the same views."""
    assert envelopes(decisions) == [m["event"] for m in events]
    view_at = {m["event"]["seq"]: m["view"] for m in events}
    for decision in decisions:
        assert decision["view"] == view_at[decision["events"][-1]["seq"]]


def assert_whole_decisions(decisions: list[dict[str, Any]]) -> None:
    """Each message is one decision: its head event first, no other head in it; the chain unbroken."""
    prev = ZERO_HASH
    for decision in decisions:
        types = [e["type"] for e in decision["events"]]
        assert types[0] in HEAD_TYPES and not HEAD_TYPES & set(types[1:]), types
        for envelope in decision["events"]:
            assert envelope["prev"] == prev
            prev = envelope["hash"]
        assert decision["view"]["version"] == decision["events"][-1]["seq"]


def test_decisions_are_the_event_stream_concatenated_for_every_viewer_live_and_to_the_end(
    client: TestClient,
) -> None:
    # Three rounds, not the ten or so of a match to 200: every round is dealt, drafted and played
    # alike, and the match's end (everyone an auditor from then on) comes after any number of them.
    match_id, seats = two_seats(client, rounds=3)
    rng = random.Random(5)
    head = play(client, match_id, seats, rng, 12)  # a history to read first
    viewers = {"seat 0": seats[0], "seat 1": seats[1], "spectator": {}, "director": DIRECTOR}
    got: dict[str, dict[str, list[dict[str, Any]]]] = {}
    sockets = {
        (who, frames): client.websocket_connect(WS.format(match_id, 0, frames), headers=headers)
        for who, headers in viewers.items()
        for frames in ("event", "decision")
    }
    opened = {key: socket.__enter__() for key, socket in sockets.items()}
    try:
        for (who, frames), ws in opened.items():  # the history, then the rest of the match live
            got.setdefault(who, {})[frames] = receive(ws, frames, head)
        play(client, match_id, seats, rng, 5000)
        for (who, frames), ws in opened.items():
            got[who][frames] += receive(ws, frames, None)
    finally:
        for socket in sockets.values():
            socket.__exit__(None, None, None)

    for who, by_frames in got.items():
        events, decisions = by_frames["event"], by_frames["decision"]
        assert events[-1]["event"]["type"] == "seed_revealed", who
        assert_same_as_events(decisions, events)
        assert_whole_decisions(decisions)
        assert len(decisions) < len(events) / 2, "decisions should batch several events each"

    # Each viewer got only its own openings while the match was live (then everyone is an auditor).
    for seat in (0, 1):
        for decision in got[f"seat {seat}"]["decision"]:
            check_seat_response(decision, seat)
    live_opens = {
        who: {
            (e["seq"], name)
            for d in got[who]["decision"]
            if d["view"]["phase"] != "match_over"
            for e in d["events"]
            for name in e["open"]
        }
        for who in viewers
    }
    assert live_opens["seat 0"] and live_opens["seat 1"] and not live_opens["seat 0"] & live_opens["seat 1"]
    assert live_opens["spectator"] == set()
    assert live_opens["seat 0"] | live_opens["seat 1"] < live_opens["director"]
    last = got["spectator"]["decision"][-1]
    assert last["view"]["viewer"] == "auditor" and last["events"][-1]["type"] == "seed_revealed"


def test_a_seat_plays_on_a_decision_socket_and_each_answer_comes_whole(client: TestClient) -> None:
    _, headers = register(client, "ada")
    match_id = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "ada"}))
    version = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]["version"]
    rng = random.Random(4)
    with client.websocket_connect(WS.format(match_id, 0, "decision"), headers=headers) as ws:
        decisions = receive(ws, "decision", version)
        for step in range(8):
            view = decisions[-1]["view"]
            if view["phase"] == "match_over":
                break
            command = with_color(rng.choice(shedding(view["legal"])), rng)
            body = {"type": "command", "command_id": f"d{step}", "expected_version": view["version"]}
            ws.send_json({**body, "command": command})
            result = None
            while result is None or decisions[-1]["view"]["version"] < result["version"]:
                message = ws.receive_json()
                if message["type"] == "result":
                    assert message["ok"] and message["command_id"] == f"d{step}", message
                    result = message
                else:
                    assert message["type"] == "decision", message
                    decisions.append(message)
                    check_seat_response(message, 0)
            mine = [d for d in decisions if d["events"][0]["seq"] == view["version"] + 1]
            assert mine and mine[0]["events"][0]["type"] == "command" and mine[0]["events"][0]["data"]["seat"] == 0
    assert_whole_decisions(decisions)
    with client.websocket_connect(WS.format(match_id, 0, "event"), headers=headers) as ws:
        events = receive(ws, "event", decisions[-1]["view"]["version"])
    assert_same_as_events(decisions, events)


def test_reconnecting_with_since_loses_and_repeats_nothing(client: TestClient) -> None:
    match_id, seats = two_seats(client)
    total = play(client, match_id, seats, random.Random(9), 16)
    url = WS.format(match_id, "{}", "decision")
    with client.websocket_connect(url.format(0), headers=seats[0]) as ws:
        whole = receive(ws, "decision", total)
    assert_whole_decisions(whole)
    cut = len(whole) // 2
    with client.websocket_connect(url.format(0), headers=seats[0]) as ws:
        first = receive(ws, "decision", whole[cut]["view"]["version"])
    with client.websocket_connect(url.format(first[-1]["view"]["version"]), headers=seats[0]) as ws:
        rest = receive(ws, "decision", total)
    assert first + rest == whole  # resumed at a decision's end: the same messages, none twice

    inside = next(d for d in whole[1:] if len(d["events"]) > 2)  # resumed inside a decision
    since = inside["events"][1]["seq"]
    with client.websocket_connect(url.format(since), headers=seats[0]) as ws:
        resumed = receive(ws, "decision", total)
    assert resumed[0]["events"] == inside["events"][2:] and resumed[0]["view"] == inside["view"]
    assert resumed[1:] == whole[whole.index(inside) + 1 :]


@pytest.mark.parametrize("frames", ["events", "", "DECISION", "decision,event"])
def test_an_unknown_framing_is_refused(client: TestClient, frames: str) -> None:
    match_id, seats = two_seats(client)
    with (
        pytest.raises(WebSocketDisconnect) as closed,
        client.websocket_connect(WS.format(match_id, 0, frames), headers=seats[0]) as ws,
    ):
        ws.receive_json()
    assert closed.value.code == 1008


def test_a_history_page_that_cuts_a_decision_does_not_cut_its_message(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id, seats = two_seats(client)
    total = play(client, match_id, seats, random.Random(2), 10)
    url = WS.format(match_id, 0, "decision")
    with client.websocket_connect(url, headers=seats[1]) as ws:
        whole = receive(ws, "decision", total)
    monkeypatch.setattr(live_match, "HISTORY_PAGE", 3)  # pages far shorter than most decisions
    with client.websocket_connect(url, headers=seats[1]) as ws:
        paged = receive(ws, "decision", total)
    assert paged == whole and max(len(d["events"]) for d in whole) > 3
    assert_whole_decisions(paged)


def test_a_decision_watcher_that_falls_behind_is_cut_off_and_resumes_with_since(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id, seats = two_seats(client)
    head = ok(client.get(f"/api/matches/{match_id}", headers=seats[0]))["view"]["version"]
    url = WS.format(match_id, "{}", "decision")
    got: list[dict[str, Any]] = []
    with client.websocket_connect(url.format(head - 1), headers=seats[0]) as ws:
        got += receive(ws, "decision", head)  # the feed is open: this watcher's queue is in place
        monkeypatch.setattr(live_match, "MAX_QUEUED", 2)  # an append of 3 events or more overflows it
        total = play(client, match_id, seats, random.Random(6), 3)
        code = None
        while got[-1]["view"]["version"] < total:  # not cut off: ends here, and the test fails
            try:
                message = ws.receive_json()
            except WebSocketDisconnect as closed:
                code = closed.code
                break
            if message["type"] == "decision":
                got.append(message)
    assert code == 1013
    monkeypatch.undo()
    with client.websocket_connect(url.format(got[-1]["events"][-1]["seq"]), headers=seats[0]) as ws:
        got += receive(ws, "decision", total)
    assert [e["seq"] for e in envelopes(got)] == list(range(head, total + 1))
