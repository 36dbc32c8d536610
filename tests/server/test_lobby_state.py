"""The lobby socket's ``lobby`` message (``?lobby=1``): everything the lobby draws, live, and the
same as the HTTP API says at that moment (issue 33 points 1 and 2), on SQLite and PostgreSQL.

Every wait is for a message (``until_state``), with a guard that only turns a hang into a failure.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.server.helpers import ok, register, shedding, with_color
from tests.server.test_lobby_socket import next_json
from tests.server.test_tournaments import DIRECTOR, QUICK, pairing_of, show, start

HIDDEN = ("hand", "hands", "draw_order", "deck", "server_seed", "entropy", "token")


def lobby_ws(client: TestClient, headers: dict[str, str]) -> Any:
    return client.websocket_connect("/api/me/ws?lobby=1", headers=headers)


def until_state(ws: Any, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The lobby states until one is ``wanted`` (each checked for what must never be in one)."""
    while True:
        message = next_json(ws)
        if message["type"] != "lobby":
            continue
        text = str(message)
        assert not any(f"'{word}'" in text for word in HIDDEN), message
        state: dict[str, Any] = message["lobby"]
        if wanted(state):
            return state


def listed(state: dict[str, Any], tournament: str) -> dict[str, Any] | None:
    return next((t for t in state["tournaments"] if t["id"] == tournament), None)


def test_entries_show_on_every_lobby_as_they_happen_and_agree_with_the_api(client: TestClient) -> None:
    """One lobby said ``1 entered`` while another said ``6 entered``: each entry is an event, and
    every connected lobby gets a state with the count GET /api/tournaments gives."""
    _ada, ada_h = register(client, "ada")
    _bob, bob_h = register(client, "bob")
    with lobby_ws(client, ada_h) as ada_ws, lobby_ws(client, bob_h) as bob_ws:
        body = {"name": "Friday [b]Open[/b]", "open": True, "rules": QUICK}
        t = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)["id"]
        for ws in (ada_ws, bob_ws):
            until_state(ws, lambda s: (line := listed(s, t)) is not None and line["entries"] == 0)
        ok(client.post(f"/api/tournaments/{t}/entries", headers=bob_h), 201)
        ada_state = until_state(ada_ws, lambda s: (line := listed(s, t)) is not None and line["entries"] == 1)
        bob_state = until_state(bob_ws, lambda s: (line := listed(s, t)) is not None and line["entered"])
        assert listed(ada_state, t)["entered"] is False  # type: ignore[index]
        for state, headers in ((ada_state, ada_h), (bob_state, bob_h)):
            api = ok(client.get("/api/tournaments?limit=20", headers=headers))
            assert state["tournaments"] == api
            assert state == ok(client.get("/api/me/lobby", headers=headers))
            assert state["names"][t] == "Friday [b]Open[/b]"


def test_a_forfeit_says_so_and_a_bye_and_the_next_round_show_as_they_come(client: TestClient) -> None:
    """``you won 0–0`` was a forfeit: the match says how it ended (a withdrawal's forfeit here)."""
    ada, ada_h = register(client, "ada")
    bob, bob_h = register(client, "bob")
    made = {"name": "Cup", "players": [ada, bob], "rules": QUICK, "join_seconds": 3600, "double": True}
    t = ok(client.post("/api/tournaments", headers=DIRECTOR, json=made), 201)["id"]
    with lobby_ws(client, ada_h) as ws:
        until_state(ws, lambda s: listed(s, t) is not None)
        start(client, t)
        first = pairing_of(show(client, t), ada, 1)["match"]
        state = until_state(ws, lambda s: any(n["match"] == first for n in s["me"]["next"]))
        assert state["names"][t] == "Cup"
        for player, headers in ((ada, ada_h), (bob, bob_h)):
            ok(client.post(f"/api/matches/{first}/join", headers=headers, json={"entropy": player}))
        rng = random.Random(3)
        view = ok(client.get(f"/api/matches/{first}", headers=ada_h))["view"]
        while view["phase"] != "match_over":
            for headers in (ada_h, bob_h):
                seen = ok(client.get(f"/api/matches/{first}", headers=headers))["view"]
                if seen["legal"]:
                    one_move(client, first, headers, seen, rng)
            view = ok(client.get(f"/api/matches/{first}", headers=ada_h))["view"]
        second = until_state(ws, lambda s: any(n["round"] == 2 and n["match"] for n in s["me"]["next"]))
        match2 = next(n["match"] for n in second["me"]["next"] if n["round"] == 2)
        done = next(m for m in second["me"]["matches"] if m["id"] == first)
        assert done["ended"]["how"] == "played" and done["ended"]["forfeits"] == []
        ok(client.post(f"/api/tournaments/{t}/withdraw", headers=DIRECTOR, json={"player": bob, "note": "home"}))
        state = until_state(
            ws, lambda s: any(m["id"] == match2 and m["status"] == "finished" for m in s["me"]["matches"])
        )
        forfeit = next(m for m in state["me"]["matches"] if m["id"] == match2)
        assert forfeit["winner"] == ada
        assert forfeit["ended"]["how"] == "forfeit"
        bob_seat = next(i for i, p in enumerate(forfeit["seats"]) if p["id"] == bob)
        assert forfeit["ended"]["forfeits"] == [{"seat": bob_seat, "reason": "withdrawal"}]
        assert state["me"] == ok(client.get("/api/me", headers=ada_h))


def one_move(client: TestClient, match: str, headers: dict[str, str], seen: dict[str, Any], rng: random.Random) -> None:
    """One legal command of the seat whose turn it is."""
    command = with_color(rng.choice(shedding(seen["legal"])), rng)
    client.post(
        f"/api/matches/{match}/commands",
        headers=headers,
        json={
            "command_id": f"c-{seen['version']}-{rng.random()}",
            "expected_version": seen["version"],
            "command": command,
        },
    )
