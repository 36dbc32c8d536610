"""Bot accounts (docs/BOTS.md): a program someone registers with ``bot: true`` plays through the
API like a person, is labelled ``[bot]`` wherever it is shown, and enters a tournament only when
the director made it with ``bot_accounts: true``; on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.fairness.house_bots import house_bot_of_id
from server.services.players import house_bot_of
from server.store.models import PlayerPublic
from server.tournaments.model import TournamentCreated
from tests.server.helpers import ok, register
from tests.server.test_tournaments import DIRECTOR, QUICK, show


def register_bot(client: TestClient, name: str, **extra: Any) -> tuple[str, dict[str, str]]:
    body = ok(client.post("/api/players", json={"name": name, "bot": True, **extra}), 201)
    assert body["kind"] == "bot_account" and body["name"] == name and len(body["token"]) >= 32
    return body["id"], {"Authorization": f"Bearer {body['token']}"}


def refused(response: Any, status: int, code: str, words: str) -> None:
    assert response.status_code == status, (response.status_code, response.text)
    assert response.json()["code"] == code and words in response.json()["message"], response.json()


def test_a_bot_account_registers_and_is_a_player_the_server_never_moves_for(client: TestClient) -> None:
    bot, bot_h = register_bot(client, "Robo Ada", password="a long password")
    me = ok(client.get("/api/me", headers=bot_h))
    assert (me["id"], me["name"], me["kind"]) == (bot, "Robo Ada", "bot_account")
    assert ok(client.get("/api/players/robo ada"))["kind"] == "bot_account"
    # Not a house bot: nothing plays for it, whatever its id looks like.
    assert house_bot_of(PlayerPublic(id=bot, name="Robo Ada", kind="bot_account")) is None
    assert house_bot_of(PlayerPublic(id="bot-greedy-1", name="x", kind="bot_account")) is None
    assert house_bot_of_id("bot-greedy-1") == "greedy"
    # Its password signs it in elsewhere, as a person's does.
    session = ok(client.post("/api/sessions", json={"name": "robo ada", "password": "a long password"}), 201)
    assert (session["id"], session["kind"]) == (bot, "bot_account")
    code = ok(client.post(f"/api/players/{bot}/codes", headers=DIRECTOR), 201)["code"]
    assert ok(client.post("/api/sessions", json={"name": "Robo Ada", "code": code}), 201)["id"] == bot
    house = client.post("/api/players/bot:greedy/codes", headers=DIRECTOR)  # a house bot has nobody to sign in
    assert house.status_code == 400 and house.json()["code"] == "malformed"
    # A match against it waits for it to join: the server does not take its seat.
    _ada, ada_h = register(client, "ada")
    match = ok(client.post("/api/matches", headers=ada_h, json={"opponent": "Robo Ada"}), 201)
    ok(client.post(f"/api/matches/{match['id']}/join", headers=ada_h))
    assert ok(client.get(f"/api/matches/{match['id']}"))["match"]["status"] == "waiting"
    joined = ok(client.post(f"/api/matches/{match['id']}/join", headers=bot_h))
    assert joined["match"]["status"] == "live"
    assert [s["kind"] for s in joined["match"]["seats"]] == ["human", "bot_account"]
    # The chain names it with its label: replays, audits and the table say "[bot]".
    first = client.get(f"/api/matches/{match['id']}/events").text.splitlines()[0]
    assert '"names":["ada","Robo Ada [bot]"]' in first


def test_bot_accounts_follow_the_name_rules_of_people(client: TestClient) -> None:
    register_bot(client, "zed")
    refused(client.post("/api/players", json={"name": "ZED", "bot": True}), 409, "name_taken", "taken")
    refused(client.post("/api/players", json={"name": "Zed"}), 409, "name_taken", "taken")  # a person neither
    register(client, "amy")
    refused(client.post("/api/players", json={"name": "amy", "bot": True}), 409, "name_taken", "taken")
    refused(client.post("/api/players", json={"name": "greedy-1", "bot": True}), 400, "malformed", "house bots")
    refused(client.post("/api/players", json={"name": "\u3164", "bot": True}), 400, "malformed", "invisible")
    # Nobody takes the label: not a person posing as a bot account, not a bot account labelled twice.
    for name in ("sly [bot]", "sly [BOT]", "sly\uff3bbot\uff3d"):
        for bot in (True, False):
            refused(client.post("/api/players", json={"name": name, "bot": bot}), 400, "malformed", "[bot]")
    for body in ({"name": "x", "bot": "yes"}, {"name": "x", "bot": 1}, {"name": "x", "bot": None}, {"bot": True}):
        assert client.post("/api/players", json=body).status_code == 400, body
    assert ok(client.get("/api/players?name=x")) == []  # nothing was made


def create(client: TestClient, players: list[str], **options: Any) -> Any:
    return client.post(
        "/api/tournaments", headers=DIRECTOR, json={"name": "Cup", "players": players, "rules": QUICK, **options}
    )


def test_a_tournament_refuses_bot_accounts_unless_it_takes_them(client: TestClient) -> None:
    bot, bot_h = register_bot(client, "robo")
    register(client, "ada")
    # Named at creation: refused, nothing made.
    before = len(ok(client.get("/api/tournaments")))
    refused(create(client, ["ada", "robo"]), 409, "not_now", "does not take bot accounts")
    refused(create(client, ["ada", bot]), 409, "not_now", "bot_accounts: true")
    assert len(ok(client.get("/api/tournaments"))) == before
    # Entered by the director, or entering itself: refused while the setting is off.
    closed = ok(create(client, ["ada", "bot:greedy"], open=True), 201)
    assert closed["bot_accounts"] is False
    refused(
        client.post(f"/api/tournaments/{closed['id']}/entries", headers=DIRECTOR, json={"player": "robo"}),
        409,
        "not_now",
        "robo is a bot account",
    )
    refused(client.post(f"/api/tournaments/{closed['id']}/entries", headers=bot_h), 409, "not_now", "bot account")
    assert [p["name"] for p in show(client, closed["id"])["players"]] == ["ada", "greedy"]
    # Made with bot_accounts: named at creation, entered by the director, or by itself.
    taking = ok(create(client, ["ada", "robo"], bot_accounts=True), 201)
    assert taking["bot_accounts"] is True and [p["kind"] for p in taking["players"]] == ["human", "bot_account"]
    by_director = ok(create(client, ["ada", "bot:random"], bot_accounts=True), 201)
    entered = client.post(f"/api/tournaments/{by_director['id']}/entries", headers=DIRECTOR, json={"player": bot})
    assert [p["id"] for p in ok(entered, 201)["players"]][-1] == bot
    by_itself = ok(create(client, ["ada"], bot_accounts=True, open=True), 201)
    assert (
        ok(client.post(f"/api/tournaments/{by_itself['id']}/entries", headers=bot_h), 201)["players"][-1]["id"] == bot
    )
    # The setting takes nothing from people or house bots.
    assert ok(create(client, ["ada", "bot:greedy"]), 201)["bot_accounts"] is False
    refused(create(client, ["ada", "robo"], bot_accounts="yes"), 400, "malformed", "bot_accounts")


@pytest.mark.parametrize("setting", [False, True])
def test_the_setting_is_recorded_only_when_on_so_older_events_read_the_same(setting: bool) -> None:
    created = TournamentCreated(
        name="Cup",
        players=("p_1", "p_2"),
        ruleset={"name": "uno-duo"},
        double=False,
        move_seconds=60,
        join_seconds=300,
        commitment="00" * 32,
        bot_accounts=setting,
    )
    payload = created.payload()
    assert ("bot_accounts" in payload) is setting
    assert TournamentCreated.from_payload(payload) == created
