"""``WS /api/me/ws``, the lobby live (docs/SERVER.md "The lobby socket"), on SQLite and PostgreSQL.

Each message arrives on the socket of the player it concerns and on no other (an outsider's
first message after its state is one of its own). No test sleeps for a message: each waits for
it, with a generous guard that only turns a hang into a failure.
"""

from __future__ import annotations

import contextlib
import queue
import random
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from engine.protocol.socket_protocol import Close
from server.app import make_app
from server.services.lobby import Closing, Lobby
from server.settings import Settings
from tests.server.conftest import DIRECTOR_TOKEN, app_client
from tests.server.helpers import ok, play_to_end, register
from tests.server.test_tournaments import DIRECTOR, QUICK, pairing_of, show, start

GUARD = 30.0  # seconds: a failure guard, never a budget (a message comes within one when it comes)
MESSAGE_KEYS = {
    "state": None,  # GET /api/me's body
    "pairing": {"type", "tournament", "name", "round", "match", "join_deadline", "opponent", "white", "seats", "label"},
    "match": {"type", "match", "status", "tournament", "round", "replaced_by"},
    "ruling": {"type", "dispute", "tournament", "match", "seq", "decision", "note", "rule"},
    "tournament": {"type", "tournament", "name", "status"},
}


def next_json(ws: Any, timeout: float = GUARD) -> dict[str, Any]:
    """The socket's next message, or a failure after ``timeout`` seconds (the guard)."""
    box: queue.Queue[Any] = queue.Queue()

    def read() -> None:
        try:
            box.put(ws.receive_json())
        except Exception as exc:  # noqa: BLE001 - handed to the test
            box.put(exc)

    threading.Thread(target=read, daemon=True).start()
    try:
        got = box.get(timeout=timeout)
    except queue.Empty:
        pytest.fail(f"no message within {timeout} s")
    if isinstance(got, Exception):
        raise got
    message: dict[str, Any] = got
    return message


def receive(ws: Any, timeout: float = GUARD) -> dict[str, Any]:
    """The lobby's next message, checked for its documented keys."""
    message = next_json(ws, timeout)
    check_shape(message)
    return message


def receive_table(ws: Any) -> dict[str, Any]:
    """A match socket's messages until one that is not an event."""
    while True:
        message = next_json(ws)
        if message["type"] != "event":
            return message


def check_shape(message: dict[str, Any]) -> None:
    """Only the documented keys: nothing a player may not see rides along."""
    assert message["type"] in MESSAGE_KEYS, message
    keys = MESSAGE_KEYS[message["type"]]
    if keys is not None:
        assert set(message) == keys, message
    for word in ("hand", "hands", "draw_order", "deck", "server_seed", "entropy", "token"):
        assert word not in message, message


def until(ws: Any, wanted: Callable[[dict[str, Any]], bool]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Messages until one is ``wanted``: that one and those before it."""
    before: list[dict[str, Any]] = []
    while True:
        message = receive(ws)
        if wanted(message):
            return message, before
        before.append(message)


def lobby(client: TestClient, headers: dict[str, str]) -> Any:
    return client.websocket_connect("/api/me/ws", headers=headers)


def create(client: TestClient, players: list[str], **options: Any) -> dict[str, Any]:
    body = {"name": "Tuesday club", "players": players, "rules": QUICK, "join_seconds": 3600, **options}
    made: dict[str, Any] = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    return made


def eventually(check: Callable[[], bool]) -> None:
    """Wait for a condition the server reaches after a socket closes (its handler's last step)."""
    deadline = time.monotonic() + GUARD
    while not check():
        assert time.monotonic() < deadline, "the server never got there"
        time.sleep(0.01)


def test_the_state_then_each_pairing_on_the_right_players_socket_and_none_on_others(client: TestClient) -> None:
    ada, ada_h = register(client, "ada")
    bob, bob_h = register(client, "bob")
    _eve, eve_h = register(client, "eve")
    with lobby(client, ada_h) as ada_ws, lobby(client, bob_h) as bob_ws, lobby(client, eve_h) as eve_ws:
        for ws, player in ((ada_ws, ada), (bob_ws, bob)):
            state = receive(ws)
            assert state["type"] == "state" and state["id"] == player and state["matches"] == [] and state["next"] == []
        assert receive(eve_ws)["type"] == "state"
        t = create(client, [ada, bob, "bot:greedy", "bot:random"])
        start(client, t["id"])
        shown = show(client, t["id"])
        for ws, player, name in ((ada_ws, ada, "ada"), (bob_ws, bob, "bob")):
            pairing, before = until(ws, lambda m: m["type"] == "pairing")
            assert before == [
                {"type": "tournament", "tournament": t["id"], "name": "Tuesday club", "status": "running"}
            ]
            expected = pairing_of(shown, player, 1)
            assert (pairing["tournament"], pairing["round"], pairing["match"]) == (t["id"], 1, expected["match"])
            assert pairing["white"] == (expected["white"]["id"] == player)
            assert pairing["opponent"]["name"] in ("greedy", "random") and pairing["opponent"]["kind"] == "bot"
            deadline = datetime.fromisoformat(pairing["join_deadline"])
            assert timedelta(seconds=3590) < deadline - datetime.now(deadline.tzinfo) <= timedelta(seconds=3600)
            # GET /api/me says the same, so a lobby that reconnects (a fresh state) can count down too.
            me = ok(client.get("/api/me", headers=ada_h if name == "ada" else bob_h))
            waiting = [n for n in me["next"] if n["match"] is not None]
            assert [(n["match"], n["join_deadline"]) for n in waiting] == [(pairing["match"], pairing["join_deadline"])]
        # The outsider's first message is about its own match: no tournament news reached it.
        casual = ok(client.post("/api/matches", headers=eve_h, json={"opponent": "bot:greedy"}), 201)
        assert receive(eve_ws) == {
            "type": "match",
            "match": casual["id"],
            "status": "waiting",
            "tournament": None,
            "round": None,
            "replaced_by": None,
        }
        # Ada takes her seat: the match starts (both seats in), and her socket says so.
        mine = pairing_of(shown, ada, 1)["match"]
        ok(client.post(f"/api/matches/{mine}/join", headers=ada_h, json={"entropy": "ada"}))
        started, _ = until(ada_ws, lambda m: m["type"] == "match")
        assert (started["match"], started["status"], started["tournament"], started["round"]) == (
            mine,
            "live",
            t["id"],
            1,
        )
    # A reconnecting lobby gets a fresh state with what it missed: the live match.
    with lobby(client, ada_h) as ada_ws:
        state = receive(ada_ws)
        assert [(m["id"], m["status"]) for m in state["matches"]] == [(mine, "live")]


def test_the_next_rounds_pairing_arrives_when_the_round_before_ends(client: TestClient) -> None:
    ada, ada_h = register(client, "ada")
    t = create(client, [ada, "bot:greedy"], double=True)
    with lobby(client, ada_h) as ws:
        assert receive(ws)["type"] == "state"
        start(client, t["id"])
        first, _ = until(ws, lambda m: m["type"] == "pairing")
        seat = 0 if first["white"] else 1
        ok(client.post(f"/api/matches/{first['match']}/join", headers=ada_h, json={"entropy": "r1"}))
        play_to_end(client, first["match"], ada_h, seat, random.Random(1))
        second, before = until(ws, lambda m: m["type"] == "pairing")
        assert [(m["type"], m["match"], m["status"]) for m in before] == [
            ("match", first["match"], "live"),
            ("match", first["match"], "finished"),
        ]
        assert second["round"] == 2 and second["white"] is not first["white"] and second["join_deadline"]
        assert second["match"] == pairing_of(show(client, t["id"]), ada, 2)["match"]


def test_a_replay_ruling_annuls_the_match_everywhere_and_points_to_the_new_one(client: TestClient) -> None:
    ada, ada_h = register(client, "ada")
    t = create(client, [ada, "bot:greedy"], double=True)
    start(client, t["id"])
    old = pairing_of(show(client, t["id"]), ada, 1)["match"]
    ok(client.post(f"/api/matches/{old}/join", headers=ada_h, json={"entropy": "dice"}))
    version = ok(client.get(f"/api/matches/{old}", headers=ada_h))["view"]["version"]
    with (
        lobby(client, ada_h) as ada_ws,
        client.websocket_connect(f"/api/matches/{old}/ws?since={version}", headers=ada_h) as table,
    ):
        assert receive(ada_ws)["type"] == "state"
        dispute = ok(
            client.post(f"/api/matches/{old}/disputes", headers=ada_h, json={"seq": version, "note": "no card shown"}),
            201,
        )
        ok(
            client.post(
                f"/api/disputes/{dispute['id']}/ruling", headers=DIRECTOR, json={"decision": "replay", "note": "again"}
            )
        )
        new = pairing_of(show(client, t["id"]), ada, 1)["match"]
        assert new != old
        # The lobby: the ruling, the old match annulled (pointing to the new one), the new pairing.
        ruling = receive(ada_ws)
        assert ruling == {
            "type": "ruling",
            "dispute": dispute["id"],
            "tournament": t["id"],
            "match": old,
            "seq": version,
            "decision": "replay",
            "note": "again",
            "rule": None,
        }
        assert receive(ada_ws) == {
            "type": "match",
            "match": old,
            "status": "annulled",
            "tournament": t["id"],
            "round": 1,
            "replaced_by": new,
        }
        pairing = receive(ada_ws)
        assert (pairing["type"], pairing["match"], pairing["round"]) == ("pairing", new, 1)
        assert pairing["join_deadline"] is not None  # the round's deadline is still to come
        # The old table's socket: a last message saying so, with a view that offers nothing, then closed.
        last = table.receive_json()
        while last["type"] == "event":
            last = table.receive_json()
        assert (last["type"], last["match"], last["replaced_by"]) == ("annulled", old, new)
        assert new in last["message"]
        assert last["view"]["legal"] == [] and last["view"]["deadline"] is None and last["view"]["annulled"] is True
        assert "hands" not in last["view"] and last["view"]["viewer"] == 0
        with pytest.raises(WebSocketDisconnect) as closed:
            table.receive_json()
        assert closed.value.code == 1000
    # Over HTTP: the annulled match's view offers nothing, its summary names the new match.
    seen = ok(client.get(f"/api/matches/{old}", headers=ada_h))
    assert seen["match"]["status"] == "annulled" and seen["match"]["replaced_by"] == new
    assert seen["view"]["legal"] == [] and seen["view"]["deadline"] is None and seen["view"]["replaced_by"] == new
    refused = client.post(
        f"/api/matches/{old}/commands", headers=ada_h, json={"command_id": "c1", "command": {"type": "draw"}}
    )
    assert refused.status_code == 409 and refused.json()["code"] == "not_now" and new in refused.json()["message"]
    rejoin = client.post(f"/api/matches/{old}/join", headers=ada_h, json={"entropy": "dice"})
    assert rejoin.status_code == 409 and new in rejoin.json()["message"]
    me = ok(client.get("/api/me", headers=ada_h))
    assert {m["id"]: m["replaced_by"] for m in me["matches"]}[old] == new
    # The player's disputes, with the ruling; the list of all disputes stays the director's.
    mine = ok(client.get("/api/me/disputes", headers=ada_h))
    assert [(d["id"], d["decision"], d["ruling_note"]) for d in mine] == [(dispute["id"], "replay", "again")]
    theirs = client.get("/api/disputes", headers=ada_h)
    assert theirs.status_code == 401 and "/api/me/disputes" in theirs.json()["message"]
    nobody = client.get("/api/disputes")
    assert nobody.status_code == 401 and "/api/me/disputes" in nobody.json()["message"]
    assert client.get("/api/me/disputes").status_code == 401


def test_the_other_seat_sees_a_dispute_of_its_match_without_the_note_while_it_is_live(client: TestClient) -> None:
    ada, ada_h = register(client, "ada")
    bob, bob_h = register(client, "bob")
    t = create(client, [ada, bob])
    start(client, t["id"])
    match_id = pairing_of(show(client, t["id"]), ada, 1)["match"]
    for headers in (ada_h, bob_h):
        ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "x"}))
    with lobby(client, bob_h) as bob_ws:
        assert receive(bob_ws)["type"] == "state"
        dispute = ok(
            client.post(f"/api/matches/{match_id}/disputes", headers=ada_h, json={"seq": 2, "note": "I hold R5"}), 201
        )
        [theirs] = ok(client.get("/api/me/disputes", headers=bob_h))
        assert theirs["id"] == dispute["id"] and "R5" not in theirs["note"]
        assert ok(client.get("/api/me/disputes", headers=ada_h))[0]["note"] == "I hold R5"
        ok(
            client.post(
                f"/api/disputes/{dispute['id']}/ruling", headers=DIRECTOR, json={"decision": "stands", "note": "fine"}
            )
        )
        ruling = receive(bob_ws)
        assert (ruling["type"], ruling["dispute"], ruling["decision"], ruling["note"]) == (
            "ruling",
            dispute["id"],
            "stands",
            "fine",
        )


def test_refusals_close_the_lobby_socket_with_a_code(client: TestClient) -> None:
    for headers, code in (({}, 4401), ({"Authorization": "Bearer nobody-has-this-token"}, 4401), (DIRECTOR, 4401)):
        with pytest.raises(WebSocketDisconnect) as closed, lobby(client, headers) as ws:
            ws.receive_json()
        assert closed.value.code == code


def test_a_fifth_socket_of_one_player_closes_the_oldest(client: TestClient) -> None:
    _ada, ada_h = register(client, "ada")
    with contextlib.ExitStack() as sockets:
        opened = [sockets.enter_context(lobby(client, ada_h)) for _ in range(4)]
        for ws in opened:
            assert receive(ws)["type"] == "state"
        newest = sockets.enter_context(lobby(client, ada_h))
        assert receive(newest)["type"] == "state"
        with pytest.raises(WebSocketDisconnect) as closed:
            opened[0].receive_json()
        assert closed.value.code == Close.REPLACED and "too_many_open" in str(closed.value.reason)
        assert len(client.app.state.lobby.sockets[_ada]) == 4  # type: ignore[attr-defined]


def test_a_reader_that_falls_behind_is_dropped_and_nothing_of_a_player_stays_after_the_last_socket(
    client: TestClient,
) -> None:
    ada, ada_h = register(client, "ada")
    service: Lobby = client.app.state.lobby  # type: ignore[attr-defined]
    player = ok(client.get("/api/me", headers=ada_h))
    from server.store.models import PlayerPublic

    me = PlayerPublic(id=ada, name=player["name"], kind="human")
    service.queued = 3
    socket, _state = client.portal.call(service.connect, me)  # type: ignore[union-attr]
    for n in range(4):
        client.portal.call(_send_async, service, ada, n)  # type: ignore[union-attr]
    queued = [socket.queue.get_nowait() for _ in range(socket.queue.qsize())]
    assert queued[-1] == Closing(Close.TRY_AGAIN, "you fell too far behind: reconnect for a fresh state")
    assert len(queued) == 4 and socket.closed and ada not in service.sockets
    # Sockets that come and go, with a match followed for them, leave nothing of the player.
    service.queued = 256
    match_id = ok(client.post("/api/matches", headers=ada_h, json={"opponent": "bot:greedy"}), 201)["id"]
    waiting_before = service.store.notifier.waiting
    for _ in range(3):
        with lobby(client, ada_h) as ws:
            assert receive(ws)["type"] == "state"
            assert match_id in service.tracked
    eventually(lambda: not service.sockets and not service.tracked)
    eventually(lambda: service.store.notifier.waiting == waiting_before)


async def _send_async(service: Lobby, player: str, n: int) -> None:
    service._send([player], {"type": "match", "match": f"m{n}", "status": "live"})


ON_POSTGRES = pytest.mark.parametrize("db_kind", ["postgres"])


@pytest.fixture
def two_apps(url: str, db_kind: str) -> Iterator[tuple[TestClient, TestClient]]:
    """Two servers on one PostgreSQL database; their fallback poll is a minute, so what arrives
    within seconds came by LISTEN/NOTIFY. Its tests run on PostgreSQL only (``ON_POSTGRES``):
    two server processes share a database there, never a SQLite file."""
    assert db_kind == "postgres", "two servers share a PostgreSQL database: mark the test ON_POSTGRES"

    def settings() -> Settings:
        return Settings(
            database_url=url,
            director_token=DIRECTOR_TOKEN,
            sqlite_synchronous="NORMAL",
            bot_think_seconds=0,
            follow_poll_seconds=60,
        )

    with TestClient(make_app(settings()), raise_server_exceptions=False) as one:
        with TestClient(make_app(settings()), raise_server_exceptions=False) as two:
            yield one, two


@ON_POSTGRES
def test_what_another_server_appends_reaches_the_lobby_by_notification(two_apps: tuple[TestClient, TestClient]) -> None:
    here, there = two_apps
    ada, ada_h = register(here, "ada")
    with lobby(here, ada_h) as ws:
        assert receive(ws)["type"] == "state"
        t = create(there, [ada, "bot:greedy"], double=True)
        began = time.monotonic()
        start(there, t["id"])
        pairing, before = until(ws, lambda m: m["type"] == "pairing")
        assert time.monotonic() - began < 10  # the poll is 60 s: this came by notification
        assert [m["type"] for m in before] == ["tournament"]
        old = pairing["match"]
        assert old == pairing_of(show(there, t["id"]), ada, 1)["match"]
        ok(there.post(f"/api/matches/{old}/join", headers=ada_h, json={"entropy": "far"}))
        started, _ = until(ws, lambda m: m["type"] == "match")
        assert (started["match"], started["status"]) == (old, "live")
        version = ok(here.get(f"/api/matches/{old}", headers=ada_h))["view"]["version"]
        with here.websocket_connect(f"/api/matches/{old}/ws?since={version}", headers=ada_h) as table:
            dispute = ok(there.post(f"/api/matches/{old}/disputes", headers=ada_h, json={"seq": 1, "note": "odd"}), 201)
            ok(
                there.post(
                    f"/api/disputes/{dispute['id']}/ruling",
                    headers=DIRECTOR,
                    json={"decision": "replay", "note": "again"},
                )
            )
            assert receive(ws)["type"] == "ruling"
            annulled = receive(ws)
            new = pairing_of(show(there, t["id"]), ada, 1)["match"]
            assert (annulled["match"], annulled["status"], annulled["replaced_by"]) == (old, "annulled", new)
            assert receive(ws)["match"] == new
            # The table on this server, where the match was not annulled, is told all the same.
            last = receive_table(table)
            assert (last["type"], last["replaced_by"], last["view"]["legal"]) == ("annulled", new, [])
    # This server, which did not annul it, answers for the annulled match all the same.
    refused = here.post(
        f"/api/matches/{old}/commands", headers=ada_h, json={"command_id": "c", "command": {"type": "draw"}}
    )
    assert refused.status_code == 409 and new in refused.json()["message"]


@ON_POSTGRES
def test_a_join_that_loses_a_race_to_the_other_seats_join_on_another_server_is_taken(
    two_apps: tuple[TestClient, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both seats of a pairing get it at the same moment and join on their own servers: the join
    decided on a copy that the other server's join has just overtaken tries again (it was 409)."""
    here, there = two_apps
    ada, ada_h = register(here, "ada")
    bob, bob_h = register(here, "bob")
    t = create(there, [ada, bob])
    start(there, t["id"])
    match = pairing_of(show(there, t["id"]), ada, 1)["match"]
    ok(here.get(f"/api/matches/{match}", headers=ada_h))  # here keeps a copy of the match, not yet joined

    async def stale(_copy: Any) -> None:  # the race's window, held open: the copy is not brought up to date
        return None

    monkeypatch.setattr(here.app.state.matches.registry, "_refresh", stale)  # type: ignore[attr-defined]
    ok(there.post(f"/api/matches/{match}/join", headers=bob_h, json={"entropy": "bob"}))
    joined = ok(here.post(f"/api/matches/{match}/join", headers=ada_h, json={"entropy": "ada"}))
    assert joined["match"]["status"] == "live"


def test_a_start_whose_round_1_waits_for_its_start_time_is_told_at_once(client: TestClient) -> None:
    """No match exists until round 1's start time, yet the players' lobbies hear of the start
    when it happens (the lobby used to find a tournament only by its first match)."""
    ada, ada_h = register(client, "ada")
    later = datetime.now(UTC) + timedelta(hours=2)
    t = create(client, [ada, "bot:greedy"], round_starts=[later.isoformat()])
    with lobby(client, ada_h) as ws:
        assert receive(ws)["type"] == "state"
        start(client, t["id"])
        told, before = until(ws, lambda m: m["type"] == "tournament")
        assert (told["tournament"], told["status"]) == (t["id"], "running") and not before


def test_the_lobby_folds_its_own_copy_of_a_tournament_it_finds_running_at_start(url: str) -> None:
    """At start the lobby follows each running tournament from the service's cached fold; folding
    new events into that very object moved the cache ahead of the stream (a read that copied it
    mid-fold applied an event twice: found after a kill -9, where results are recorded at start,
    as "stream at seq 4, not at the expected 5" fifty times and a tournament that stopped)."""
    with app_client(url) as before:
        players = [register(before, name)[0] for name in ("ada", "bob", "cy")]  # nobody joins: it stays running
        t = create(before, players)
        start(before, t["id"])
    with app_client(url) as after:  # a restart: the lobby finds the tournament running
        tournaments, lobby = after.app.state.tournaments, after.app.state.lobby  # type: ignore[attr-defined]
        handed_out = tournaments.load(t["id"])
        version = handed_out.version
        eventually(lambda: t["id"] in lobby.followed)
        ok(
            after.post(
                f"/api/tournaments/{t['id']}/withdraw", headers=DIRECTOR, json={"player": players[0], "note": "ill"}
            )
        )
        eventually(lambda: lobby.followed[t["id"]].version > version)
        assert handed_out.version == version, "a fold handed out was changed afterwards"
        assert tournaments.load(t["id"]).version == tournaments.store.head(f"tournament-{t['id']}")
