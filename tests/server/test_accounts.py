"""Accounts (issue 20, point 1): unique names, passwords, sign-in on another device by password or
by a director's one-time code, several tokens per player and signing one out, finding players by
name, and the one resolver of what someone typed into a player. On SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import pytest
import sqlalchemy
from fastapi.testclient import TestClient

from server.app import make_app
from server.domain_errors import AmbiguousName, NameTaken, PlayerNotFound
from server.services import passwords
from server.services.players import register_human, resolve_player
from server.settings import Settings
from server.store.event_store import EventStore
from server.store.models import player_tokens_table, players_table
from server.store.players import MAX_TOKENS, tokens_of
from server.store.streams import PLAYERS_STREAM
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok
from tests.server.manual_clock import ManualClock

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
PASSWORD = "correct horse battery"


def settings_for(url: str, **overrides: object) -> Settings:
    options: dict[str, object] = {
        "database_url": url,
        "director_token": DIRECTOR_TOKEN,
        "sqlite_synchronous": "NORMAL",
        "bot_think_seconds": 0,
    }
    options.update(overrides)
    return Settings(**options)  # type: ignore[arg-type]


@pytest.fixture
def manual() -> ManualClock:
    return ManualClock(datetime(2026, 12, 1, 19, 0, tzinfo=UTC))


@pytest.fixture
def app_client(url: str, manual: ManualClock) -> Iterator[TestClient]:
    with TestClient(make_app(settings_for(url), manual), raise_server_exceptions=False) as client:
        yield client


def store_of(client: TestClient) -> EventStore:
    store: EventStore = client.app.state.store  # type: ignore[attr-defined]
    return store


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def registrations(client: TestClient) -> int:
    return len(store_of(client).read(PLAYERS_STREAM))


def humans(client: TestClient) -> int:
    with store_of(client).engine.connect() as conn:
        count: int = conn.execute(
            sqlalchemy.select(sqlalchemy.func.count()).where(players_table.c.kind == "human")
        ).scalar_one()
    return count


def new_player(client: TestClient, name: str, password: str | None = None) -> dict[str, str]:
    body: dict[str, str] = {"name": name} if password is None else {"name": name, "password": password}
    player: dict[str, str] = ok(client.post("/api/players", json=body), 201)
    return player


# ---------------------------------------------------------------- unique names


@pytest.mark.parametrize("again", ["ann", "Ann", "ANN", "\uff21\uff2e\uff2e", " ann  "])
def test_a_taken_name_is_409_name_taken_in_any_case_or_width_and_appends_nothing(
    app_client: TestClient, again: str
) -> None:
    new_player(app_client, "ann")
    before, people = registrations(app_client), humans(app_client)
    refused = app_client.post("/api/players", json={"name": again, "password": PASSWORD})
    assert refused.status_code == 409, refused.text
    body = refused.json()
    assert body["code"] == "name_taken" and "sign in" in body["message"]
    assert (registrations(app_client), humans(app_client)) == (before, people)


def test_a_house_bots_name_is_one_player_and_says_its_engine(app_client: TestClient) -> None:
    """Issue 33.2: ``bot:greedy`` entered in two tournaments, twice each, and seated twice at a
    table, is the same two players everywhere: ``greedy`` and ``greedy-2`` (a number only for the
    second of one engine); the name finds the one player (it was 409 ambiguous: every tournament
    made a ``greedy-1`` of its own)."""
    players = [new_player(app_client, n)["id"] for n in ("ann", "bob")]
    for name in ("Cup", "Plate"):
        body = {"name": name, "players": [*players, "bot:greedy", "bot:random", "bot:greedy"]}
        made = ok(app_client.post("/api/tournaments", json=body, headers=DIRECTOR), 201)
        bots = [(p["id"], p["name"]) for p in made["players"] if p["kind"] == "bot"]
        assert bots == [("bot-greedy-1", "greedy"), ("bot-random-1", "random"), ("bot-greedy-2", "greedy-2")]
    cyd = bearer(new_player(app_client, "cyd")["token"])
    body = {"opponents": ["bot:greedy", "bot:greedy"], "ruleset": "classic"}
    table = ok(app_client.post("/api/matches", json=body, headers=cyd), 201)
    assert [s["name"] for s in table["seats"][1:]] == ["greedy", "greedy-2"]
    found = ok(app_client.get("/api/players", params={"name": "greedy"}))  # names starting so
    assert sorted((p["id"], p["name"]) for p in found) == [("bot-greedy-1", "greedy"), ("bot-greedy-2", "greedy-2")]
    for entry, player_id in (("greedy", "bot-greedy-1"), ("GREEDY", "bot-greedy-1"), ("greedy-2", "bot-greedy-2")):
        assert ok(app_client.get(f"/api/players/{entry}"))["id"] == player_id
    assert ok(app_client.get("/api/players/greedy-1"))["id"] == "bot-greedy-1"  # its name before issue 33
    missing = app_client.get("/api/players/greedy-7")  # no such bot: 404, and none is made
    assert missing.status_code == 404 and app_client.get("/api/players/bot-greedy-7").status_code == 404


def test_a_house_bot_whose_name_has_a_hyphen_is_found_by_its_name(app_client: TestClient) -> None:
    """``bot:rule-v1`` (issue 37) seated twice is ``rule-v1`` and ``rule-v1-2``; both names, and the
    ids, find their player, and the ratings' identity is the engine (``bot-rule-v1-2`` plays for it)."""
    cyd = bearer(new_player(app_client, "cyd")["token"])
    body = {"opponents": ["bot:rule-v1", "bot:rule-v1"], "ruleset": "classic"}
    table = ok(app_client.post("/api/matches", json=body, headers=cyd), 201)
    assert [s["name"] for s in table["seats"][1:]] == ["rule-v1", "rule-v1-2"]
    for entry, player_id in (("rule-v1", "bot-rule-v1-1"), ("RULE-V1-2", "bot-rule-v1-2")):
        assert ok(app_client.get(f"/api/players/{entry}"))["id"] == player_id
    assert app_client.get("/api/players/rule-v1-7").status_code == 404


def test_racing_registrations_of_one_name_make_exactly_one_player(url: str, db_kind: str) -> None:
    """Two registrations of one name at once, through two stores (two server processes on
    PostgreSQL; on SQLite two connections): one wins, the other is NameTaken, one event."""
    stores = [EventStore.open(url, settings_for(url)) for _ in range(2)]
    try:
        for round_ in range(3):
            name = f"racer {round_}"
            start = threading.Barrier(2)
            outcomes: list[object] = []

            def race(
                store: EventStore, name: str = name, start: threading.Barrier = start, outcomes: list[object] = outcomes
            ) -> None:
                start.wait()
                try:
                    outcomes.append(register_human(store, name)[0].id)
                except NameTaken as exc:
                    outcomes.append(exc)

            threads = [threading.Thread(target=race, args=(s,)) for s in stores]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(type(o).__name__ for o in outcomes) == ["NameTaken", "str"], (db_kind, outcomes)
            events = [e for e in stores[0].read(PLAYERS_STREAM) if e.data.get("name") == name]
            assert len(events) == 1
    finally:
        for s in stores:
            s.close()


# ---------------------------------------------------------------- passwords and tokens


def test_password_sign_in_makes_a_new_token_and_both_work_until_one_signs_out(app_client: TestClient) -> None:
    first = new_player(app_client, "ann", PASSWORD)
    assert "password" not in first
    second = ok(app_client.post("/api/sessions", json={"name": "ANN", "password": PASSWORD}), 201)
    assert (second["id"], second["name"]) == (first["id"], "ann") and second["token"] != first["token"]
    for token in (first["token"], second["token"]):
        assert ok(app_client.get("/api/me", headers=bearer(token)))["id"] == first["id"]
    assert app_client.delete("/api/sessions/current", headers=bearer(first["token"])).status_code == 204
    gone = app_client.get("/api/me", headers=bearer(first["token"]))
    assert gone.status_code == 401  # at once, in this process (its cache forgot it)
    assert ok(app_client.get("/api/me", headers=bearer(second["token"])))["id"] == first["id"]
    assert app_client.delete("/api/sessions/current").status_code == 401
    assert app_client.delete("/api/sessions/current", headers=DIRECTOR).status_code == 401


def test_the_password_is_stored_as_an_argon2id_hash_only(app_client: TestClient) -> None:
    player = new_player(app_client, "ann", PASSWORD)
    with store_of(app_client).engine.connect() as conn:
        row = conn.execute(sqlalchemy.select(players_table).where(players_table.c.id == player["id"])).mappings().one()
        tokens = conn.execute(sqlalchemy.select(player_tokens_table.c.token_hash)).scalars().all()
    assert row["password_hash"].startswith("$argon2id$") and PASSWORD not in row["password_hash"]
    assert player["token"] not in tokens and len(tokens) >= 1


@pytest.mark.parametrize("password", ["short", "x" * 257])
def test_a_password_out_of_bounds_is_400_and_registers_nobody(app_client: TestClient, password: str) -> None:
    refused = app_client.post("/api/players", json={"name": "ann", "password": password})
    assert refused.status_code == 400 and refused.json()["code"] == "malformed"
    assert humans(app_client) == 0


def test_wrong_password_unknown_name_and_no_password_are_one_401(app_client: TestClient) -> None:
    new_player(app_client, "ann", PASSWORD)
    new_player(app_client, "bob")  # no password: nothing signs in as bob by password
    answers = [
        app_client.post("/api/sessions", json={"name": "ann", "password": "wrong password"}),
        app_client.post("/api/sessions", json={"name": "nobody", "password": PASSWORD}),
        app_client.post("/api/sessions", json={"name": "bob", "password": PASSWORD}),
        app_client.post("/api/sessions", json={"name": "ann", "code": "ABCD-EFGH"}),
    ]
    assert {a.status_code for a in answers} == {401}
    assert len({a.json()["message"] for a in answers}) == 1


def test_bad_sign_in_bodies_are_400(app_client: TestClient) -> None:
    for body in (
        {"name": "ann"},
        {"name": "ann", "password": PASSWORD, "code": "ABCD-EFGH"},
        {"name": "", "password": PASSWORD},
        {"name": "ann", "password": "x" * 300},
        {"name": "ann", "password": PASSWORD, "extra": 1},
    ):
        answer = app_client.post("/api/sessions", json=body)
        assert answer.status_code == 400 and answer.json()["code"] == "malformed", (body, answer.text)


def test_an_unknown_name_is_checked_against_a_dummy_hash(
    app_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No shortcut for a name nobody has: the same argon2 verification runs (so it takes as long)."""
    checked: list[str] = []
    real = passwords.hasher._hasher

    class Spy:
        def verify(self, stored: str, secret: str) -> bool:
            checked.append(stored)
            return real.verify(stored, secret)

        def hash(self, secret: str) -> str:
            return real.hash(secret)

    monkeypatch.setattr(passwords.hasher, "_hasher", Spy())
    new_player(app_client, "ann", PASSWORD)
    app_client.post("/api/sessions", json={"name": "nobody", "password": PASSWORD})
    app_client.post("/api/sessions", json={"name": "ann", "password": "not the password"})
    assert len(checked) == 2 and all(h.startswith("$argon2id$") for h in checked)


def test_wrong_passwords_count_against_the_wrong_token_limit(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'limit.sqlite3'}"
    with TestClient(make_app(settings_for(url, bad_tokens_per_minute=2)), raise_server_exceptions=False) as client:
        new_player(client, "ann", PASSWORD)
        for _ in range(2):
            assert client.post("/api/sessions", json={"name": "ann", "password": "guess guess"}).status_code == 401
        locked = client.post("/api/sessions", json={"name": "ann", "password": PASSWORD})
        assert locked.status_code == 429 and int(locked.headers["Retry-After"]) >= 1


def test_a_player_holds_at_most_twenty_tokens_the_oldest_dropped(app_client: TestClient) -> None:
    first = new_player(app_client, "ann", PASSWORD)
    tokens = [first["token"]]
    for _ in range(MAX_TOKENS):
        tokens.append(ok(app_client.post("/api/sessions", json={"name": "ann", "password": PASSWORD}), 201)["token"])
    assert tokens_of(store_of(app_client), first["id"]) == MAX_TOKENS
    app_client.app.state.callers.seconds = 0  # type: ignore[attr-defined]  # no cache: read the table
    assert app_client.get("/api/me", headers=bearer(tokens[0])).status_code == 401
    assert app_client.get("/api/me", headers=bearer(tokens[1])).status_code == 200


def test_a_token_signed_out_on_another_server_process_stops_within_the_cache_time(url: str) -> None:
    """Two apps on one database (two processes): a sign-out on one stops the token on the other
    once the other's remembered caller is older than ``Callers.seconds`` (its clock is moved by hand)."""
    now = [0.0]
    with (
        TestClient(make_app(settings_for(url)), raise_server_exceptions=False) as one,
        TestClient(make_app(settings_for(url)), raise_server_exceptions=False) as two,
    ):
        two.app.state.callers.clock = lambda: now[0]  # type: ignore[attr-defined]
        token = new_player(one, "ann")["token"]
        assert two.get("/api/me", headers=bearer(token)).status_code == 200
        assert one.delete("/api/sessions/current", headers=bearer(token)).status_code == 204
        assert one.get("/api/me", headers=bearer(token)).status_code == 401
        now[0] += two.app.state.callers.seconds  # type: ignore[attr-defined]
        assert two.get("/api/me", headers=bearer(token)).status_code == 401


# ---------------------------------------------------------------- one-time codes


def test_a_director_code_signs_in_once(app_client: TestClient) -> None:
    player = new_player(app_client, "ann")  # no password
    made = ok(app_client.post("/api/players/ann/codes", headers=DIRECTOR), 201)
    code = made["code"]
    assert made["player"]["id"] == player["id"] and len(code) == 9 and code[4] == "-"
    assert made["expires"].startswith("2026-12-01T19:15:00.")  # 15 minutes on (the clock is moved by hand)
    typed = code.replace("-", "").lower()  # any case, no dash
    signed = ok(app_client.post("/api/sessions", json={"name": "ann", "code": typed}), 201)
    assert signed["id"] == player["id"]
    assert app_client.get("/api/me", headers=bearer(signed["token"])).status_code == 200
    again = app_client.post("/api/sessions", json={"name": "ann", "code": code})
    assert again.status_code == 401  # used once, then gone


def test_a_code_expires_after_fifteen_minutes(app_client: TestClient, manual: ManualClock) -> None:
    new_player(app_client, "ann")
    code = ok(app_client.post(f"/api/players/{new_player(app_client, 'bob')['id']}/codes", headers=DIRECTOR), 201)
    late = ok(app_client.post("/api/players/ann/codes", headers=DIRECTOR), 201)
    manual.advance(14 * 60)
    assert app_client.post("/api/sessions", json={"name": "bob", "code": code["code"]}).status_code == 201
    manual.advance(61)
    assert app_client.post("/api/sessions", json={"name": "ann", "code": late["code"]}).status_code == 401


def test_a_new_code_replaces_the_last(app_client: TestClient) -> None:
    new_player(app_client, "ann")
    old = ok(app_client.post("/api/players/ann/codes", headers=DIRECTOR), 201)["code"]
    new = ok(app_client.post("/api/players/ann/codes", headers=DIRECTOR), 201)["code"]
    assert app_client.post("/api/sessions", json={"name": "ann", "code": old}).status_code == 401
    assert app_client.post("/api/sessions", json={"name": "ann", "code": new}).status_code == 201


def test_only_the_director_makes_codes(app_client: TestClient) -> None:
    ann = new_player(app_client, "ann")
    assert app_client.post("/api/players/ann/codes").status_code == 401
    assert app_client.post("/api/players/ann/codes", headers=bearer(ann["token"])).status_code == 401
    assert app_client.post("/api/players/nobody/codes", headers=DIRECTOR).status_code == 404
    bot = app_client.post("/api/players/bot:greedy/codes", headers=DIRECTOR)
    assert bot.status_code == 400 and "bot" in bot.json()["message"]


# ---------------------------------------------------------------- finding players, the resolver


def test_players_are_found_by_the_start_of_their_name(app_client: TestClient) -> None:
    for name in ("Ann", "annette", "Bob", "Ánna"):
        new_player(app_client, name)
    names = [p["name"] for p in ok(app_client.get("/api/players", params={"name": "AN"}))]
    assert names == ["Ann", "annette"]
    assert [p["name"] for p in ok(app_client.get("/api/players", params={"name": "\uff41"}))] == ["Ann", "annette"]
    assert ok(app_client.get("/api/players", params={"name": "%"})) == []  # no wildcard
    assert ok(app_client.get("/api/players", params={"name": "_nn"})) == []
    one = ok(app_client.get("/api/players", params={"name": "bob"}))[0]
    assert set(one) == {"id", "name", "kind"}
    page = ok(app_client.get(f"/api/players/{one['id']}"))
    assert {k: page[k] for k in ("id", "name", "kind")} == one  # the player page starts with the player
    assert ok(app_client.get("/api/players/BOB")) == page
    missing = app_client.get("/api/players/nobody")
    assert missing.status_code == 404 and "nobody" in missing.json()["message"]
    assert app_client.get("/api/players", params={"name": "x" * 101}).status_code == 400
    for control in ("a\x00", "\x00", "b\x1b["):  # PostgreSQL refuses NUL in text: never sent there
        assert ok(app_client.get("/api/players", params={"name": control})) == []
        assert app_client.get(f"/api/players/{quote(control)}").status_code == 404
        answer = app_client.post("/api/sessions", json={"name": control, "password": PASSWORD})
        assert answer.status_code == 401
        assert app_client.post(f"/api/players/{quote(control)}/codes", headers=DIRECTOR).status_code == 404


def test_find_is_capped_at_fifty(app_client: TestClient) -> None:
    store = store_of(app_client)
    for n in range(55):
        register_human(store, f"cap{n:02d}")
    assert len(ok(app_client.get("/api/players", params={"name": "cap"}))) == 50


def test_the_resolver_takes_an_id_a_name_or_a_bot(app_client: TestClient) -> None:
    store = store_of(app_client)
    ann = new_player(app_client, "Ann")
    assert resolve_player(store, ann["id"]).name == "Ann"
    assert resolve_player(store, " ＡＮＮ ").id == ann["id"]
    assert resolve_player(store, "bot:greedy").id == "bot-greedy-1"
    assert resolve_player(store, "greedy-1").id == "bot-greedy-1"
    for nobody in ("nobody", "bot:nobody", "", "x" * 500):
        with pytest.raises(PlayerNotFound):
            resolve_player(store, nobody)


def test_a_match_takes_its_opponent_by_name(app_client: TestClient) -> None:
    ann, bob = new_player(app_client, "ann"), new_player(app_client, "Bob")
    made = ok(app_client.post("/api/matches", json={"opponent": "bob"}, headers=bearer(ann["token"])), 201)
    assert [s["id"] for s in made["seats"]] == [ann["id"], bob["id"]]


def test_names_that_look_like_ids_are_refused(app_client: TestClient) -> None:
    refused = app_client.post("/api/players", json={"name": "p_0123456789abcdef"})
    assert refused.status_code == 400 and "id" in refused.json()["message"]


# ---------------------------------------------------------------- a database from before: three "ann"s


def test_the_migration_keeps_duplicate_names_usable(db_url: str) -> None:
    """A database at 0005 with three humans called ann (and a bot): after 0006 the oldest holds
    the name, the others keep their tokens and are named by id, and "ann" is ambiguous."""
    from server.db import make_engine
    from server.store.migrate import upgrade

    upgrade(db_url, "0005")
    engine = make_engine(db_url)
    old = sqlalchemy.table(
        "players", *(sqlalchemy.column(c) for c in ("id", "name", "kind", "token_hash", "created_at"))
    )
    rows = [
        ("p_ann3", "ann", "human", "c" * 64, "2026-12-01T19:30:00.000000Z"),
        ("p_ann1", "ann", "human", "a" * 64, "2026-12-01T19:00:00.000000Z"),
        ("p_ann2", "Ann", "human", "b" * 64, "2026-12-01T19:10:00.000000Z"),
        ("bot-greedy-1", "greedy-1", "bot", "d" * 64, "2026-12-01T18:00:00.000000Z"),
    ]
    with engine.begin() as conn:
        conn.execute(
            sqlalchemy.insert(old),
            [dict(zip(("id", "name", "kind", "token_hash", "created_at"), r, strict=True)) for r in rows],
        )
    engine.dispose()
    upgrade(db_url)
    store = EventStore(make_engine(db_url))
    try:
        with store.engine.connect() as conn:
            keys = dict(conn.execute(sqlalchemy.select(players_table.c.id, players_table.c.unique_key)).all())
        assert keys == {"p_ann1": "ann", "p_ann2": None, "p_ann3": None, "bot-greedy-1": None}
        assert tokens_of(store, "p_ann2") == 1
        with pytest.raises(AmbiguousName) as ambiguous:
            resolve_player(store, "ann")
        assert {"p_ann1", "p_ann2", "p_ann3"} <= set(ambiguous.value.ids)
        assert "p_ann1" in str(ambiguous.value) and "by its id" in str(ambiguous.value)
        assert resolve_player(store, "p_ann2").name == "Ann"
        with pytest.raises(NameTaken):
            register_human(store, "ANN")
    finally:
        store.close()
