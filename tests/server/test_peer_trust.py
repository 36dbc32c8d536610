"""What only another server of the database may do (issue 32, point 6), on SQLite and PostgreSQL:

- ``x-unoduo-forwarded`` is believed only with the servers' key: a client's own header made a
  server that does not own the match answer its command itself instead of forwarding it;
- a worker's peer port answers only requests carrying the servers' key (it served the whole API,
  uncapped per address, to anyone who could reach it); the public port is unchanged;
- ``…/handoff`` is the same 404 whatever the method, without the key (a GET answered 405, which
  said the route was there).
"""

from __future__ import annotations

import asyncio

import pytest
from fastapi.testclient import TestClient
from starlette.datastructures import State
from starlette.requests import Request
from starlette.websockets import WebSocketDisconnect

from server.api.forwarding import FORWARDED, PEER_KEY, forwarded, owner_elsewhere
from tests.server.helpers import register

TESTCLIENT_PORT = 80  # the local port of every TestClient request (its ASGI "server")


class Owners:
    """A match owned by another server, at ``OWNER_URL``."""

    OWNER_URL = "http://10.0.0.2:41000"

    def owns(self, _match_id: str) -> bool:
        return False

    async def owner_url(self, _match_id: str) -> str:
        return self.OWNER_URL


class App:
    def __init__(self, key: str | None) -> None:
        self.state = State({"peer_key": key, "match_registry": State({"ownership": Owners()})})


def request(key: str | None, headers: dict[str, str]) -> Request:
    raw = [(name.encode(), value.encode()) for name, value in headers.items()]
    return Request({"type": "http", "app": App(key), "headers": raw, "method": "POST", "path": "/"})


@pytest.mark.parametrize(
    ("headers", "answered_here"),
    [
        ({}, False),
        ({FORWARDED: "1"}, False),  # a client's own header: forwarded all the same
        ({FORWARDED: "1", PEER_KEY: "not-the-key"}, False),
        ({PEER_KEY: "the-key"}, False),  # the key alone is no forwarding
        ({FORWARDED: "1", PEER_KEY: "the-key"}, True),  # another server's: answered here (one hop)
    ],
)
def test_the_forwarded_header_is_believed_only_with_the_servers_key(
    headers: dict[str, str], answered_here: bool
) -> None:
    asked = request("the-key", headers)
    assert forwarded(asked) is answered_here
    owner = asyncio.run(owner_elsewhere(asked, "m_1"))
    assert owner == (None if answered_here else Owners.OWNER_URL)


def test_without_a_key_of_its_own_a_server_believes_no_forwarded_header() -> None:
    """SQLite (one owner of everything) has no servers' key: nothing is a peer's."""
    assert not forwarded(request(None, {FORWARDED: "1", PEER_KEY: ""}))


def key_of(client: TestClient) -> str | None:
    key: str | None = client.app.state.peer_key  # type: ignore[attr-defined]
    return key


def test_a_peer_port_answers_only_the_servers_key_and_the_public_port_everyone(
    client: TestClient, db_kind: str
) -> None:
    _ada, ada = register(client, "ada")
    assert client.get("/api/me", headers=ada).status_code == 200  # the public port: as before
    client.app.state.peer_ports = frozenset({TESTCLIENT_PORT})  # type: ignore[attr-defined]
    try:
        for answer in (
            client.get("/api"),
            client.get("/api/me", headers=ada),
            client.get("/api/tournaments"),
            client.post("/api/players", json={"name": "mallory"}),
            client.get("/api/me", headers={**ada, PEER_KEY: "a-guess"}),
        ):
            assert answer.status_code == 404, answer.text
            assert answer.json()["code"] == "not_found" and "other servers" in answer.json()["message"]
            assert answer.headers["connection"] == "close"
        with pytest.raises(WebSocketDisconnect), client.websocket_connect("/api/me/ws", headers=ada) as socket:
            socket.receive_json()
        key = key_of(client)
        if db_kind == "postgres":  # servers sharing a PostgreSQL database have a key; a forwarded request carries it
            assert key is not None
            forwarded_here = client.get("/api/me", headers={**ada, PEER_KEY: key, FORWARDED: "1"})
            assert forwarded_here.status_code == 200 and forwarded_here.json()["name"] == "ada"
        else:
            assert key is None  # SQLite is one process's: no peers, no peer port
    finally:
        client.app.state.peer_ports = frozenset()  # type: ignore[attr-defined]
    assert client.get("/api/me", headers=ada).status_code == 200
    assert client.post("/api/players", json={"name": "mallory"}).status_code == 201


@pytest.mark.parametrize("method", ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
def test_handoff_is_not_there_for_a_client_whatever_the_method(client: TestClient, method: str) -> None:
    unknown = client.request(method, "/api/matches/m_1/nothing-here")
    answer = client.request(method, "/api/matches/m_1/handoff", headers={PEER_KEY: "a-guess"})
    assert answer.status_code == 404 == unknown.status_code
    if method != "HEAD":
        assert answer.json() == unknown.json()


def test_handoff_with_the_key_answers_a_peer(client: TestClient, db_kind: str) -> None:
    key = key_of(client)
    if key is None:
        assert db_kind == "sqlite"
        return
    answer = client.post("/api/matches/m_unknown/handoff", headers={PEER_KEY: key})
    assert answer.status_code == 200 and answer.json() == {"handed_over": False}  # it owns no such match
    assert client.get("/api/matches/m_unknown/handoff", headers={PEER_KEY: key}).status_code == 404
