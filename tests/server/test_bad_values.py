"""Every value checked before anything is written, and no read failing on what was stored
(issue 32, point 4), on SQLite and PostgreSQL.

``round_starts: ["0001-01-01T00:00:00-12:00"]`` was answered 500 *and stored*: the year came back
as ``1-01-01T…``, which no reader takes, so the tournament's page, its start (500, yet started),
and every entrant's ``GET /api/me`` and lobby socket failed from then on; ``9999-12-31T23:59:59-14:00``
was a 500 (OverflowError). Now a start time is from 2000-01-01 to 2999-12-31 in UTC (400 otherwise,
nothing stored), and a stored time that cannot be read counts as none. A tables tournament whose
``hand_size`` leaves the deck too small for a table's hands and a starter is refused before it is
made, or at its start when the entries make such a table.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.game.rulesets import UNO_DUO
from engine.game.shuffle import commitment_of
from server.services.tournaments import _event, new_tournament_id
from server.store.event_store import EventStore
from server.store.secrets import match_seed_rows, new_server_seed
from server.tournaments.model import TournamentCreated, tournament_stream
from tests.server.helpers import ok, register
from tests.server.test_lobby_socket import lobby
from tests.server.test_tournaments import DIRECTOR, QUICK

CLASSIC_11 = {"ruleset": "classic", "rules": {"hand_size": 11, "target": 30}, "format": "tables", "rounds": 1}


def listed(client: TestClient) -> list[str]:
    return [t["id"] for t in ok(client.get("/api/tournaments", params={"limit": 200}))]


@pytest.mark.parametrize(
    "start",
    [
        "0001-01-01T00:00:00-12:00",  # the probe's: stored as "1-01-01T12:00:00…Z", then unreadable
        "0999-12-31T23:00:00Z",
        "9999-12-31T23:59:59-14:00",  # past datetime's end in UTC: OverflowError
        "9999-12-31T23:59:59+14:00",
        "1999-12-31T23:59:59Z",
        "2000-01-01T00:30:00+01:00",  # 1999 in UTC
        "3000-01-01T00:00:00Z",
    ],
)
def test_a_start_time_out_of_range_is_refused_and_nothing_is_stored(client: TestClient, start: str) -> None:
    before = listed(client)
    body = {"name": "Far away", "players": ["bot:random", "bot:greedy"], "rules": QUICK, "round_starts": [start]}
    answer = client.post("/api/tournaments", headers=DIRECTOR, json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "malformed" and "2000-01-01 to 2999-12-31" in answer.json()["message"]
    assert listed(client) == before


@pytest.mark.parametrize("start", ["2000-01-01T00:00:00Z", "2999-12-31T23:59:59.999999Z", "2999-12-31T23:00:00-00:59"])
def test_the_ends_of_the_range_are_taken_and_read_back(client: TestClient, start: str) -> None:
    body = {"name": "Edge", "players": ["bot:random", "bot:greedy"], "rules": QUICK, "round_starts": [start]}
    made = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    assert ok(client.get(f"/api/tournaments/{made['id']}"))["rounds"][0]["starts_at"].endswith("Z")


def store_of(client: TestClient) -> EventStore:
    store: EventStore = client.app.state.store  # type: ignore[attr-defined]
    return store


def stored_with_start(client: TestClient, players: list[str], start: str) -> str:
    """A tournament written straight to the store with ``start`` as round 1's start time, as a
    server before issue 32 could write it."""
    tournament_id = new_tournament_id()
    seed = new_server_seed()
    created = TournamentCreated(
        name="Stored long ago",
        players=tuple(players),
        ruleset={**UNO_DUO.to_dict(), **QUICK},
        double=False,
        move_seconds=60,
        join_seconds=3600,
        commitment=commitment_of(seed),
        round_starts=(start,),
    )
    store_of(client).append(
        tournament_stream(tournament_id),
        [_event(created)],
        expected_seq=0,
        command_id="create",
        result={"ok": True},
        extra_rows=lambda at: match_seed_rows(tournament_id, seed, at),
    )
    return tournament_id


@pytest.mark.parametrize(
    ("stored", "opens"),
    [
        ("1-01-01T12:00:00.000000Z", True),  # what the probe's 0001-01-01T00:00:00-12:00 became: unreadable
        ("not a time", True),
        ("2026-12-08T19:30:00", True),  # no offset: no time a round can wait for
        ("9999-12-31T09:59:59.000000Z", False),  # 9999-12-31T23:59:59+14:00, taken before: readable, far
    ],
)
def test_no_read_fails_on_a_start_time_stored_before_it_was_checked(
    client: TestClient, stored: str, opens: bool
) -> None:
    ada, ada_h = register(client, "ada")
    bob, _ = register(client, "bob")
    tournament_id = stored_with_start(client, [ada, bob], stored)

    t = ok(client.get(f"/api/tournaments/{tournament_id}"))
    assert t["status"] == "created"
    assert tournament_id in listed(client)
    assert ok(client.get("/api/me", headers=ada_h))["next"] == []

    t = ok(client.post(f"/api/tournaments/{tournament_id}/start", headers=DIRECTOR))
    assert t["status"] == "running"
    first = t["rounds"][0]
    if opens:  # a time that cannot be read is none: round 1 opens at the start
        assert first["starts_at"] is None and first["status"] == "running" and first["pairings"][0]["match"]
    else:
        assert first["starts_at"] == "9999-12-31T09:59:59.000000Z" and first["status"] == "pending"
    ok(client.get(f"/api/tournaments/{tournament_id}"))
    mine = ok(client.get("/api/me", headers=ada_h))["next"]
    assert [n["tournament"] for n in mine] == [tournament_id]
    assert (mine[0]["match"] is not None) is opens
    with lobby(client, ada_h) as socket:
        state: dict[str, Any] = socket.receive_json()
        assert tournament_id in json.dumps(state)


def test_a_table_whose_hands_and_starter_the_deck_cannot_hold_is_refused_before_it_is_made(client: TestClient) -> None:
    before = listed(client)
    ten = ["bot:random", "bot:greedy"] * 5
    for options, says in (
        ({"table_size": 10}, "hand_size 11 at 10 seats deals 110 cards"),  # 110 cards and a starter: over 108
        ({"table_size": 9}, "10 players at tables of about 9 sit 10 at a table"),  # one table of 10
    ):
        body = {"name": "Big hands", "players": ten, **CLASSIC_11, **options}
        answer = client.post("/api/tournaments", headers=DIRECTOR, json=body)
        assert answer.status_code == 400, answer.text
        assert says in answer.json()["message"], answer.text
    assert listed(client) == before
    nine = ok(
        client.post(
            "/api/tournaments",
            headers=DIRECTOR,
            json={"name": "Fits", "players": ten[:9], **CLASSIC_11, "table_size": 9},
        ),
        201,
    )
    assert nine["table_size"] == 9  # 9 hands of 11 and a starter: 100 of 108 cards


def test_an_open_tables_tournament_whose_entries_make_a_table_too_big_does_not_start(client: TestClient) -> None:
    body = {"name": "Open big hands", "players": [], "open": True, **CLASSIC_11, "table_size": 9}
    made = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    for bot in ["bot:random", "bot:greedy"] * 5:
        ok(client.post(f"/api/tournaments/{made['id']}/entries", headers=DIRECTOR, json={"player": bot}), 201)
    answer = client.post(f"/api/tournaments/{made['id']}/start", headers=DIRECTOR)
    assert answer.status_code == 409 and "sit 10 at a table" in answer.json()["message"], answer.text
    assert ok(client.get(f"/api/tournaments/{made['id']}"))["status"] == "created"
