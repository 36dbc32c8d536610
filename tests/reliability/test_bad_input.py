"""Bad input at every door: each a clear 4xx (or, on the socket, a refusal or a documented close
code), nothing stored, and no echo of what was sent (every answer under a few KB).

The doors: ``POST /api/players``, ``/api/matches``, ``…/join``, ``…/commands``,
``/api/tournaments`` (the director), ``…/withdraw``, ``…/disputes``, ``/api/disputes/…/ruling``,
the query parameters (``since``, ``at``, ``follow``, ``status``), the path and the token, and
the WebSocket. The inputs: oversized bodies (declared and chunked) and socket messages, JSON
nested 10,000 deep (and 900 deep, under Python's recursion limit, inside a field), invalid
UTF-8, bodies that are not objects, unknown fields, huge integers (10**30, 2**63), control and
format characters in names and notes. "Nothing stored" is checked on every table's row count
before and after each request. In-process on SQLite and PostgreSQL, and against a real
``unoduo serve`` for what only a real server does (uvicorn's own limits, raw bytes).
"""

from __future__ import annotations

import contextlib
import json
import select as io_select
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from starlette.websockets import WebSocketDisconnect

from server.app import make_app
from server.settings import Settings
from server.store.event_store import EventStore
from server.store.models import (
    events_table,
    match_seats_table,
    match_secrets_table,
    match_summaries_table,
    player_tokens_table,
    players_table,
    processed_table,
    server_secrets_table,
    sign_in_codes_table,
    snapshots_table,
    standings_table,
)
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import ok, register

DIRECTOR_TOKEN = "director-token-for-bad-input-0123456789"
DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
SMALL = 4096  # bytes: no answer to bad input is bigger (none echoes what it was sent)
TABLES = [
    events_table,
    processed_table,
    players_table,
    player_tokens_table,
    sign_in_codes_table,
    match_summaries_table,
    match_seats_table,
    standings_table,
    snapshots_table,
    match_secrets_table,
    server_secrets_table,
]
DEEP = 10_000
HUGE = [10**30, 2**63, -(10**30)]
HIDDEN = ["\x00", "\x1b[31m", "a\nb", "\u202eevil", "\u200b", "\x7f", " ", "\t"]


@dataclass
class Door:
    """A route that takes a body: where it is, who may use it, and a body it would take."""

    name: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    text_fields: tuple[str, ...] = ()  # fields a person reads: no control or format characters
    int_fields: tuple[str, ...] = ()


@dataclass
class House:
    client: TestClient
    store: EventStore
    doors: list[Door]
    match_id: str  # live, human against human; ada is seat 0
    ada: dict[str, str]
    tried: int = 0

    def rows(self) -> dict[str, int]:
        with self.store.engine.connect() as conn:
            return {t.name: conn.execute(select(func.count()).select_from(t)).scalar_one() for t in TABLES}

    def refused(
        self, send: Callable[[], httpx.Response], statuses: set[int] | None = None, what: str = ""
    ) -> dict[str, Any]:
        """``send()`` is answered with a 4xx ErrorBody under SMALL bytes, and nothing is stored."""
        before = self.rows()
        response = send()
        after = self.rows()
        self.tried += 1
        assert 400 <= response.status_code < 500, (what, response.status_code, response.text[:300])
        if statuses is not None:
            assert response.status_code in statuses, (what, response.status_code, response.text[:300])
        assert len(response.content) < SMALL, (what, len(response.content))
        body = response.json()
        assert set(body) == {"code", "message", "rule"} and body["message"], (what, body)
        assert after == before, (what, before, after)
        return dict(body)


@pytest.fixture
def house(url: str) -> Iterator[House]:
    settings = Settings(
        database_url=url,
        director_token=DIRECTOR_TOKEN,
        sqlite_synchronous="NORMAL",
        bot_think_seconds=0,
        register_per_minute=0,
        bad_tokens_per_minute=0,
    )
    app = make_app(settings)
    with TestClient(app, raise_server_exceptions=False) as client:
        ada_id, ada = register(client, "ada")
        bob_id, bob = register(client, "bob")
        match_id = ok(client.post("/api/matches", headers=ada, json={"opponent": bob_id}), 201)["id"]
        for headers in (ada, bob):
            ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "e"}))
        t = ok(
            client.post(
                "/api/tournaments",
                headers=DIRECTOR,
                json={"name": "club", "players": [ada_id, bob_id], "rules": {"target": 30}},
            ),
            201,
        )
        t = ok(client.post(f"/api/tournaments/{t['id']}/start", headers=DIRECTOR))
        paired = t["rounds"][0]["pairings"][0]["match"]
        dispute = ok(client.post(f"/api/matches/{paired}/disputes", headers=ada, json={"seq": 1, "note": "n"}), 201)
        doors = [
            Door("register", "/api/players", {}, {"name": "cy"}, text_fields=("name",)),
            Door("create a match", "/api/matches", ada, {"opponent": bob_id}, int_fields=("move_seconds",)),
            Door("join", f"/api/matches/{match_id}/join", ada, {"entropy": "e"}),
            Door(
                "command",
                f"/api/matches/{match_id}/commands",
                ada,
                {"command_id": "bad-1", "expected_version": 0, "command": {"type": "draw"}},
                int_fields=("expected_version",),
            ),
            Door(
                "create a tournament",
                "/api/tournaments",
                DIRECTOR,
                {"name": "cup", "players": [ada_id, bob_id]},
                text_fields=("name",),
                int_fields=("move_seconds", "join_seconds"),
            ),
            Door(
                "withdraw",
                f"/api/tournaments/{t['id']}/withdraw",
                DIRECTOR,
                {"player": "p_nobody", "note": "n"},
                text_fields=("note",),
            ),
            Door(
                "dispute",
                f"/api/matches/{paired}/disputes",
                ada,
                {"seq": 1, "note": "again"},
                text_fields=("note",),
                int_fields=("seq",),
            ),
            Door(
                "ruling",
                f"/api/disputes/{dispute['id']}/ruling",
                DIRECTOR,
                {"decision": "award", "seat": 0, "note": "n"},
                text_fields=("note",),
                int_fields=("seat",),
            ),
        ]
        house = House(client, app.state.store, doors, match_id, ada)
        yield house
        print(f"\nbad input: {house.tried} requests and messages refused, nothing stored")


def post(
    house: House, door: Door, content: bytes, content_type: str = "application/json"
) -> Callable[[], httpx.Response]:
    return lambda: house.client.post(door.path, headers={**door.headers, "Content-Type": content_type}, content=content)


def nested(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def test_every_door_refuses_bad_bodies_and_stores_nothing(house: House) -> None:
    for door in house.doors:
        what = door.name
        valid = json.dumps(door.body)
        # Too large: declared (refused before reading), and chunked (counted as it arrives).
        big = json.dumps({**door.body, "padding": "a" * 1_000_000}).encode()
        assert house.refused(post(house, door, big), {413}, f"{what}: 1 MB")["code"] == "too_large"
        chunks = iter([big[i : i + 65_536] for i in range(0, len(big), 65_536)])
        chunked = lambda d=door, c=chunks: house.client.post(  # noqa: E731
            d.path, headers={**d.headers, "Content-Type": "application/json"}, content=c
        )
        assert house.refused(chunked, {413}, f"{what}: 1 MB chunked")["code"] == "too_large"
        # Deep: 10,000 arrays as the body, as an unknown field, and 900 (parseable) in a known field.
        house.refused(post(house, door, nested(DEEP).encode()), {400}, f"{what}: deep body")
        deep_field = valid[:-1] + f', "deep": {nested(DEEP)}}}'
        house.refused(post(house, door, deep_field.encode()), {400}, f"{what}: deep unknown field")
        first = next(iter(door.body))
        shallow = json.dumps({**door.body, first: "X"}).replace('"X"', nested(900))
        house.refused(post(house, door, shallow.encode()), {400}, f"{what}: 900 deep in {first}")
        # Not JSON, not UTF-8, not an object.
        for raw in (b"{", b'{"a": 1} trailing', b"\xff\xfe\x00", valid.replace('"', '"\xff', 1).encode("latin-1")):
            house.refused(post(house, door, raw), {400}, f"{what}: {raw[:12]!r}")
        for not_an_object in ("[]", '"x"', "null", "1e999", "NaN", "true"):
            # A join's body is optional: null is no body (entropy ""), which this seat did not join with.
            statuses = {409} if (door.name, not_an_object) == ("join", "null") else {400}
            house.refused(post(house, door, not_an_object.encode()), statuses, f"{what}: {not_an_object}")
        house.refused(post(house, door, valid.encode(), "text/plain"), {400, 415}, f"{what}: text/plain")
        # Unknown fields: refused by name (a misspelt field is not silently dropped).
        for extra in ({"surprise": 1}, {"k" * 50_000: 1}, {"expected_vresion": 3}):
            body = house.refused(
                lambda d=door, e=extra: house.client.post(d.path, headers=d.headers, json={**d.body, **e}),
                {400},
                f"{what}: unknown field",
            )
            assert "not a field of this request" in body["message"], body
        # Huge integers where integers go; integers where text goes.
        for name in door.int_fields:
            for value in HUGE:
                house.refused(
                    lambda d=door, n=name, v=value: house.client.post(d.path, headers=d.headers, json={**d.body, n: v}),
                    {400},
                    f"{what}: {name}={value}",
                )
        for name in door.text_fields:
            for value in HIDDEN:
                body = house.refused(
                    lambda d=door, n=name, v=value: house.client.post(d.path, headers=d.headers, json={**d.body, n: v}),
                    {400},
                    f"{what}: {name}={value!r}",
                )
                assert "character" in body["message"] or "printable" in body["message"], body


def test_huge_integers_inside_rules_and_commands_are_refused_or_harmless(house: House) -> None:
    """Integers inside the free-form objects (a tournament's ``rules``, a ``command``) reach the
    engine's own parsers: a clear 4xx, never a 5xx, nothing stored."""
    ada_id = house.client.get("/api/me", headers=house.ada).json()["id"]
    # Points and target are bounded so that every score fits the 32-bit score columns: before,
    # {"wild_points": 10**30} was taken and the first scored round could never be stored.
    for rules in (
        {"target": 10**30},
        {"target": 2**31},
        {"wild_points": 10**30},
        {"action_points": 2**40},
        {"wild_draw_four_points": 2**63},
        {"hand_size": 10**30},
        {"deck_size": 2**63},
        {"target": -(10**30)},
    ):
        body = {"name": "big", "players": [ada_id, "bot:random"], "rules": rules}
        house.refused(lambda b=body: house.client.post("/api/tournaments", headers=DIRECTOR, json=b), {400}, str(rules))
    path = f"/api/matches/{house.match_id}/commands"
    for command in (
        {"type": "draft", "keep": 10**30},
        {"type": "play", "card": 10**30},
        {"type": "dump", "cards": [2**63] * 3},
        {"type": 10**30},
        {"type": "play", "card": "R5", "color": 10**30},
        {"type": "draw", "expected_version": 10**30},
    ):
        body = {"command_id": "huge", "command": command}
        house.refused(lambda b=body: house.client.post(path, headers=house.ada, json=b), {400, 409, 422}, str(command))


def test_query_path_and_token_refusals_are_small_and_clear(house: House) -> None:
    match = f"/api/matches/{house.match_id}"
    for query in (
        "since=1000000000000000000000000000000",
        "since=-1",
        "since=abc",
        "since=1.5",
        "since=",
        "since=%00",
        "since=%ff",
        "since=1&since=x",
        "follow=2",
        "follow=1000000000000000000000000000000",
        "follow=yes",
        "follow=-1",
    ):
        house.refused(lambda q=query: house.client.get(f"{match}/events?{q}"), {400}, query)
    for query in ("at=0", "at=1000000000000000000000000000000", "at=-5", "at=abc", "at=%ff", "at=99999"):
        house.refused(lambda q=query: house.client.get(f"{match}?{q}", headers=house.ada), {400}, query)
    for query in ("status=bogus", "status=open%00", "status=" + "x" * 5000):
        house.refused(lambda q=query: house.client.get(f"/api/disputes?{q}", headers=DIRECTOR), {400}, query)
    for path in (
        "/api/matches/" + "m" * 10_000,
        "/api/matches/m%00",
        "/api/matches/%ff%fe",
        "/api/tournaments/" + "t" * 5000,
    ):
        house.refused(lambda p=path: house.client.get(p), {400, 404}, path[:40])
    for token in ("x" * 10_000, "tok\x01en", "Basic abc", ""):
        header = {"Authorization": token if token.startswith("Basic") or not token else f"Bearer {token}"}
        house.refused(lambda h=header: house.client.get("/api/me", headers=h), {401}, token[:20])


def test_the_socket_refuses_bad_messages_and_stays_open(house: House) -> None:
    client, match_id, ada = house.client, house.match_id, house.ada
    version = ok(client.get(f"/api/matches/{match_id}", headers=ada))["view"]["version"]
    valid = {"type": "command", "command_id": "ws-bad", "expected_version": version, "command": {"type": "draw"}}
    bad: list[tuple[str, str | bytes]] = [
        ("too_large", json.dumps({**valid, "pad": "a" * 100_000})),
        ("malformed", nested(DEEP)),
        ("malformed", json.dumps({**valid, "command": {"type": "play", "card": "X"}}).replace('"X"', nested(DEEP))),
        ("malformed", "{"),
        ("malformed", "[]"),
        ("malformed", b"\xff\xfe binary"),
        ("malformed", json.dumps({**valid, "surprise": 1})),
        ("malformed", json.dumps({**valid, "k" * 30_000: 1})),
        ("malformed", json.dumps({**valid, "expected_version": 10**30})),
        ("malformed", json.dumps({**valid, "expected_version": 2**63})),
        ("malformed", json.dumps({**valid, "expected_version": -1})),
        ("malformed", json.dumps({**valid, "command_id": "tab\there"})),
        ("malformed", json.dumps({**valid, "command_id": "x" * 191})),
        ("malformed", json.dumps({**valid, "command": {"type": "play", "card": 10**30}})),
    ]
    before = house.rows()
    with client.websocket_connect(f"/api/matches/{match_id}/ws?since={version}", headers=ada) as ws:
        for code, message in bad:
            if isinstance(message, bytes):
                ws.send_bytes(message)
            else:
                ws.send_text(message)
            raw = ws.receive_text()
            assert len(raw) < SMALL, (code, len(raw))
            answer = json.loads(raw)
            assert answer["type"] == "result" and not answer["ok"], answer
            assert answer["error"]["code"] == code, (str(message)[:60], answer)
            house.tried += 1
        ws.send_text(json.dumps({**valid, "expected_version": version + 5}))  # still answering commands
        assert json.loads(ws.receive_text())["error"]["code"] == "stale_version"
    assert house.rows() == before
    for query, close in (
        ("since=1000000000000000000000000000000", 1008),
        ("since=-1", 1008),
        ("since=abc", 1008),
        ("token=" + "t" * 500, 1008),
        ("token=nobody", 4401),
    ):
        with pytest.raises(WebSocketDisconnect) as closed:
            with client.websocket_connect(f"/api/matches/{match_id}/ws?{query}") as ws:
                ws.receive_text()
        assert closed.value.code == close, (query, closed.value.code)
        house.tried += 1
    for path, close in (("/api/matches/" + "m" * 5000 + "/ws", 4404), ("/api/matches/m_nope/ws", 4404)):
        with pytest.raises(WebSocketDisconnect) as closed:
            with client.websocket_connect(path) as ws:
                ws.receive_text()
        assert closed.value.code == close and len(closed.value.reason or "") <= 123, closed.value
        house.tried += 1
    assert house.rows() == before


# ---------------------------------------------------------------- against a real server


@pytest.fixture
def real_server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    env = serve_env(
        UNODUO_DIRECTOR_TOKEN=DIRECTOR_TOKEN, UNODUO_REGISTER_PER_MINUTE="0", UNODUO_BAD_TOKENS_PER_MINUTE="0"
    )
    port = free_port()
    log = tmp_path / "serve.log"
    process = serve("--port", str(port), "--db", str(tmp_path / "real.sqlite3"), env=env, log=log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        yield base, port
    finally:
        stop(process)
    output = log.read_text()
    # uvicorn itself logs the invalid UTF-8 text frame with a traceback (its websockets_sansio_impl),
    # after closing that socket with 1007; nothing else may have one.
    assert output.count("Traceback") == output.count("Invalid UTF-8 sequence received from client"), output[-3000:]
    assert " 500 " not in output, output[-3000:]


def raw_http(port: int, head: bytes, body: bytes = b"", piece: int = 65_536) -> bytes:
    """Send bytes as they are (no client library to tidy them), the body in pieces, and read the
    answer; a server that answers before the body is all sent is heard (it may then reset)."""
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(head)
        try:
            for start in range(0, len(body), piece):
                if io_select.select([conn], [], [], 0.01)[0]:
                    break  # the server answered already (a 413 before the whole body)
                conn.sendall(body[start : start + piece])
        except (BrokenPipeError, ConnectionResetError):
            pass
        with contextlib.suppress(ConnectionResetError, TimeoutError):
            while chunk := conn.recv(65_536):
                answer += chunk
    return answer


def http_head(method: str, path: str, *lines: str) -> bytes:
    return "\r\n".join([f"{method} {path} HTTP/1.1", "Host: x", "Connection: close", *lines, "", ""]).encode()


def test_a_real_server_refuses_what_only_a_real_server_sees(real_server: tuple[str, int]) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    base, port = real_server
    with httpx.Client(base_url=base, timeout=10) as client:
        _, ada = register(client, "ada")
        match_id = ok(client.post("/api/matches", headers=ada, json={"opponent": "bot:greedy"}), 201)["id"]
        version = ok(client.post(f"/api/matches/{match_id}/join", headers=ada, json={}))["view"]["version"]
        players = client.get("/api/me", headers=ada).json()
        # Raw bytes: a declared 1 GB body, invalid UTF-8, 180 KB of "[" in chunks, undecodable paths.
        json_type = "Content-Type: application/json"
        bad_utf8 = b'{"name": "\xff"}'
        chunked = b"".join(b"%x\r\n%s\r\n" % (60_000, b"[" * 60_000) for _ in range(3)) + b"0\r\n\r\n"
        for head, body in (
            (http_head("POST", "/api/players", json_type, "Content-Length: 999999999"), b"{"),
            (http_head("POST", "/api/players", json_type, f"Content-Length: {len(bad_utf8)}"), bad_utf8),
            (http_head("POST", "/api/players", json_type, "Transfer-Encoding: chunked"), chunked),
            (http_head("GET", "/api/matches/%ff%fe"), b""),
            (http_head("GET", f"/api/matches/{match_id}/events?since=%ff"), b""),
            (http_head("GET", f"/api/matches/{match_id}/events?follow=%00"), b""),
        ):
            answer = raw_http(port, head, body)
            assert answer.startswith(b"HTTP/1.1 4") and len(answer) < SMALL, (head[:60], answer[:300])
        assert client.get("/api/me", headers=ada).json() == players  # nothing stored on the way

        url = base.replace("http://", "ws://") + f"/api/matches/{match_id}/ws?since={version}"
        headers = {"Authorization": ada["Authorization"]}
        # Over the app's limit (64 KiB a message, uvicorn's ws_max_size): closed with 1009 (message
        # too big) as soon as the frame's header is read; a client still sending the rest may see
        # a reset instead. 200 KB and 17 MiB alike.
        for size in (200_000, 17 * 1024 * 1024):
            with connect(url, additional_headers=headers, max_size=None, open_timeout=10) as ws:
                with contextlib.suppress(ConnectionClosed, OSError):
                    ws.send("a" * size)
                    ws.recv(timeout=10)
            code = ws.protocol.close_rcvd.code if ws.protocol.close_rcvd is not None else None
            assert code in (1009, None), (size, code)
        # A text frame that is not UTF-8: the protocol's own refusal, 1007 (invalid frame payload data).
        with connect(url, additional_headers=headers, open_timeout=10) as ws:
            ws.send(b'{"type": "command", "command_id": "\xff"}', text=True)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007, closed.value
        # Under the limit, a message the protocol does not have: a malformed result; the socket stays.
        with connect(url, additional_headers=headers, open_timeout=10) as ws:
            ws.send(json.dumps({"type": "command", "pad": "a" * 60_000}))
            answer = json.loads(ws.recv(timeout=10))
            assert answer["error"]["code"] == "malformed"
            ws.send(
                json.dumps({"type": "command", "command_id": "x", "expected_version": 0, "command": {"type": "draw"}})
            )
            assert json.loads(ws.recv(timeout=10))["error"]["code"] == "stale_version"
        after = ok(client.get(f"/api/matches/{match_id}", headers=ada))["view"]["version"]
        assert after == version, "nothing the socket refused was applied"
