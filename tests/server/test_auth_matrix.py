"""The auth matrix (docs/API.md "Who is calling"): every path × every kind of caller, allowed or
refused exactly as the table says. "Allowed" means the caller gets past authentication: any
answer but 401/403 (a rule may still refuse the command itself); "refused" is exactly 401 or 403.
Tokens are at rest only as hashes (checked last)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from server.store.players import hash_token
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok

CALLERS = ("none", "bad", "stranger", "seat", "other_seat", "director")
ANYONE = dict.fromkeys(CALLERS, "ok") | {"bad": 401}  # no token is a spectator; a token nobody has is refused
REGISTER = dict.fromkeys(CALLERS, "ok")  # registration reads no token at all (nor does finding a player)
SIGN_IN = dict.fromkeys(CALLERS, 401)  # reads no token: a wrong password is 401 whoever sends it
PLAYER = {"none": 401, "bad": 401, "stranger": "ok", "seat": "ok", "other_seat": "ok", "director": 401}
SEAT = {"none": 403, "bad": 401, "stranger": 403, "seat": "ok", "other_seat": "ok", "director": 403}
DIRECTOR = {"none": 401, "bad": 401, "stranger": 401, "seat": 401, "other_seat": 401, "director": "ok"}
ENTRANT = {"none": 401, "bad": 401, "stranger": "ok", "seat": "ok", "other_seat": "ok", "director": "ok"}
THAT_PLAYER = {"none": 401, "bad": 401, "stranger": 403, "seat": "ok", "other_seat": 403, "director": "ok"}


def _world(client: TestClient) -> dict[str, Any]:
    tokens: dict[str, str] = {}
    ids: dict[str, str] = {}
    for who in ("seat", "other_seat", "stranger"):
        body = ok(client.post("/api/players", json={"name": who}), 201)
        tokens[who], ids[who] = body["token"], body["id"]
    headers = {
        "none": {},
        "bad": {"Authorization": "Bearer not-a-token-of-anyone-0123"},
        "director": {"Authorization": f"Bearer {DIRECTOR_TOKEN}"},
        **{who: {"Authorization": f"Bearer {token}"} for who, token in tokens.items()},
    }
    casual = ok(client.post("/api/matches", headers=headers["seat"], json={"opponent": ids["other_seat"]}), 201)["id"]
    created = ok(
        client.post(
            "/api/tournaments",
            headers=headers["director"],
            json={"name": "matrix", "players": [ids["seat"], ids["other_seat"]], "join_seconds": 3600},
        ),
        201,
    )
    ok(client.post(f"/api/tournaments/{created['id']}/start", headers=headers["director"]))
    t = ok(client.get(f"/api/tournaments/{created['id']}"))
    scheduled = t["rounds"][0]["pairings"][0]["match"]
    return {"headers": headers, "ids": ids, "tokens": tokens, "casual": casual, "t": created["id"], "tm": scheduled}


def _cases(w: dict[str, Any]) -> list[tuple[str, str, dict[str, Any] | None, dict[str, Any]]]:
    m, t, tm = w["casual"], w["t"], w["tm"]
    return [
        ("POST", "/api/players", {"name": "newcomer"}, REGISTER),
        ("GET", "/api/me", None, PLAYER),
        ("POST", "/api/matches", {"opponent": "bot:random"}, PLAYER),
        ("POST", f"/api/matches/{m}/join", {"entropy": "x"}, SEAT),
        ("GET", f"/api/matches/{m}", None, ANYONE),
        ("POST", f"/api/matches/{m}/commands", {"command_id": "k", "command": {"type": "draw"}}, SEAT),
        ("GET", f"/api/matches/{m}/events", None, ANYONE),
        ("GET", f"/api/matches/{m}/replay", None, ANYONE),  # 409 while live: past authentication
        ("GET", f"/api/matches/{m}/review", None, ANYONE),  # 409 while live: past authentication
        ("POST", "/api/tournaments", {"name": "x", "players": ["bot:random", "bot:greedy"]}, DIRECTOR),
        ("GET", "/api/tournaments", None, ANYONE),
        ("GET", f"/api/tournaments/{t}", None, ANYONE),
        ("POST", f"/api/tournaments/{t}/start", None, DIRECTOR),  # 409: started
        ("POST", f"/api/tournaments/{t}/withdraw", {"player": "p_nobody"}, DIRECTOR),  # 404: past auth
        ("POST", f"/api/matches/{tm}/disputes", {"seq": 1, "note": "look"}, SEAT),
        ("GET", "/api/disputes", None, DIRECTOR),
        ("POST", f"/api/disputes/{t}-d99/ruling", {"decision": "stands", "note": "n"}, DIRECTOR),  # 404
        ("POST", f"/api/tournaments/{t}/entries", None, ENTRANT),  # 409 started / 400 whom: past auth
        ("DELETE", f"/api/tournaments/{t}/entries/{w['ids']['seat']}", None, THAT_PLAYER),  # 409 started
        ("GET", "/api/me/disputes", None, PLAYER),
        ("GET", "/api/players?name=s", None, REGISTER),
        ("GET", f"/api/players/{w['ids']['seat']}", None, REGISTER),
        ("POST", f"/api/players/{w['ids']['seat']}/codes", None, DIRECTOR),
        ("POST", "/api/sessions", {"name": "seat", "password": "not the password"}, SIGN_IN),
        ("DELETE", "/api/sessions/current", None, PLAYER),  # last: it signs the players' tokens out
    ]


def test_every_path_allows_and_refuses_each_kind_of_caller_as_api_md_says(client: TestClient) -> None:
    w = _world(client)
    seen: list[str] = []
    for method, path, body, expected in _cases(w):
        for caller in CALLERS:
            response = client.request(method, path, headers=w["headers"][caller], json=body)
            want = expected[caller]
            where = f"{method} {path} as {caller}: {response.status_code} {response.text[:200]}"
            assert response.status_code < 500, where
            if want == "ok":
                assert response.status_code not in (401, 403), where
            else:
                assert response.status_code == want, where
            seen.append(where)
    assert len(seen) == 25 * len(CALLERS)


@pytest.mark.parametrize("who", ["seat", "other_seat"])
def test_a_seat_cannot_act_for_the_other_seat(client: TestClient, who: str) -> None:
    w = _world(client)
    m = w["casual"]
    for joiner in ("seat", "other_seat"):
        ok(client.post(f"/api/matches/{m}/join", headers=w["headers"][joiner], json={"entropy": joiner}))
    view = ok(client.get(f"/api/matches/{m}", headers=w["headers"][who]))["view"]
    mine = 0 if who == "seat" else 1
    assert view["viewer"] == mine and "hands" not in view and "draw_order" not in view
    assert len(view["hand"]) == view["hand_counts"][mine]
    # A token acts only as its own seat: a command for the other seat's turn is refused by the rules.
    turn = view["turn"]
    if turn is not None and turn != mine:
        refused = client.post(
            f"/api/matches/{m}/commands",
            headers=w["headers"][who],
            json={"command_id": "x", "command": {"type": "draft", "keep": True}},
        )
        assert refused.status_code == 422 and refused.json()["code"] == "not_your_turn"


def test_tokens_are_stored_only_as_hashes(client: TestClient, url: str) -> None:
    w = _world(client)
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.engine.connect() as conn:
        rows = [
            tuple(r) for table in ("players", "player_tokens") for r in conn.execute(text(f"SELECT * FROM {table}"))
        ]
        events = " ".join(str(r) for r in conn.execute(text("SELECT data FROM events")))
    dumped = " ".join(str(r) for r in rows)
    for token in w["tokens"].values():
        assert token not in dumped and token not in events
        assert hash_token(token) in dumped
        assert hash_token(token) == hashlib.sha256(token.encode()).hexdigest() or len(hash_token(token)) >= 32
