"""Alembic: upgrade from empty, down to base and up again, no drift from the models, the CLI;
a start on a database already at the head does not import Alembic."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import sqlalchemy
from sqlalchemy import inspect, text
from typer.testing import CliRunner

from cli.main import app
from engine.game.events import Event
from server.db import make_engine
from server.store.event_store import EventStore
from server.store.migrate import code_head, current_revision, downgrade, drift, head_revision, upgrade

ROOT = Path(__file__).resolve().parents[3]

TABLES = {
    "events",
    "servers",
    "match_leases",
    "processed_commands",
    "snapshots",
    "players",
    "player_tokens",
    "sign_in_codes",
    "match_summaries",
    "match_seats",
    "ratings",
    "rating_changes",
    "rated_matches",
    "ratings_state",
    "standings",
    "match_secrets",
    "server_secrets",
    "name_key_version",
}


def tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_from_empty_then_down_to_base_and_up_again(db_url: str) -> None:
    assert tables(db_url) == set() and current_revision(db_url) is None
    upgrade(db_url)
    assert current_revision(db_url) == head_revision() == "0011"
    assert tables(db_url) == TABLES | {"alembic_version"}
    assert drift(db_url) == []
    upgrade(db_url)  # a second upgrade is a no-op
    downgrade(db_url, "base")
    assert tables(db_url) == {"alembic_version"} and current_revision(db_url) is None
    upgrade(db_url)
    assert current_revision(db_url) == head_revision() and drift(db_url) == []
    store = EventStore(make_engine(db_url))
    try:
        store.append("match-a", [Event("x", {"ok": True})], expected_seq=0)
        assert store.verify_chain("match-a") is None
    finally:
        store.close()


def test_drift_is_reported_when_the_database_differs_from_the_models(url: str) -> None:
    assert drift(url) == []
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("DROP INDEX ix_match_summaries_tournament"))
            conn.execute(text("CREATE TABLE stray (id INTEGER PRIMARY KEY)"))
    finally:
        engine.dispose()
    kinds = {change[0] for change in drift(url)}
    assert {"add_index", "remove_table"} <= kinds


def test_servers_starting_together_migrate_once(db_url: str) -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            upgrade(db_url)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and current_revision(db_url) == "0011"


def test_event_store_open_migrates(db_url: str) -> None:
    store = EventStore.open(db_url)
    try:
        assert current_revision(db_url) == "0011"
        store.append("players", [Event("x", {})], expected_seq=None)
    finally:
        store.close()


def test_the_head_read_from_the_files_is_alembics() -> None:
    assert code_head() == head_revision() == "0011"


def start_imports_alembic(url: str) -> bool:
    """Whether a fresh process that opens the store on ``url`` as the server's start does imports Alembic."""
    code = (
        "import sys\nfrom server.store.event_store import EventStore\n"
        "EventStore.open(sys.argv[1]).close()\nprint('alembic' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, url], cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, check=True
    )
    return {"True": True, "False": False}[done.stdout.strip()]


def test_a_start_at_the_head_does_not_import_alembic(db_url: str) -> None:
    upgrade(db_url)
    assert not start_imports_alembic(db_url)
    assert current_revision(db_url) == "0011"


def test_a_start_on_an_older_database_migrates_it(db_url: str) -> None:
    upgrade(db_url, "0010")
    assert start_imports_alembic(db_url)
    assert current_revision(db_url) == "0011"


def test_a_database_ahead_of_the_code_is_refused(db_url: str) -> None:
    """A revision this code does not know (a newer server migrated it): the upgrade fails, as Alembic says."""
    from alembic.util import CommandError

    upgrade(db_url)
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = '0012'"))
    finally:
        engine.dispose()
    with pytest.raises(CommandError, match="Can't locate revision identified by '0012'"):
        upgrade(db_url)
    assert current_revision(db_url) == "0012"


def test_cli_upgrade(db_url: str) -> None:
    result = CliRunner().invoke(app, ["db", "upgrade", "--db", db_url])
    assert result.exit_code == 0, result.output
    assert "database at revision 0011" in result.output
    assert current_revision(db_url) == "0011"


def test_cli_upgrade_uses_the_environment(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNODUO_DATABASE_URL", db_url)
    result = CliRunner().invoke(app, ["db", "upgrade"])
    assert result.exit_code == 0, result.output
    assert current_revision(db_url) == "0011"


@pytest.mark.parametrize(
    ("bad_url", "code", "message"),
    [
        ("nonsense:x", 2, "not a database URL"),  # a plain word is a SQLite file path, as for serve
        ("sqlite://", 2, "in-memory SQLite"),
        ("mysql://u@h/db", 2, "unsupported database"),
        ("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=2", 1, "cannot use the database"),
    ],
)
def test_cli_refuses_bad_urls_clearly(bad_url: str, code: int, message: str) -> None:
    result = CliRunner().invoke(app, ["db", "upgrade", "--db", bad_url])
    assert result.exit_code == code and message in result.output


def test_cli_rebuild_and_verify_want_an_upgraded_database(db_url: str) -> None:
    for command in ("rebuild", "verify"):
        result = CliRunner().invoke(app, ["db", command, "--db", db_url])
        assert result.exit_code == 1 and "run `unoduo db upgrade` first" in result.output


def insert_players(db_url: str, rows: list[tuple[str, str, str, str, str]]) -> None:
    """Players as an older revision stored them: (id, name, kind, created_at, name_key); a bot holds no name."""
    from server.store.models import players_table

    engine = make_engine(db_url)
    with engine.begin() as conn:
        for player_id, name, kind, at, key in rows:
            values = {"id": player_id, "name": name, "kind": kind, "created_at": at, "name_key": key}
            conn.execute(players_table.insert().values(**values, unique_key=None if kind == "bot" else key))
    engine.dispose()


# ---------------------------------------------------------------- 0010: look-alike names become one name


def test_0010_keys_look_alikes_as_one_name_keeping_both_players(db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """A database at 0009 holding admin and its look-alikes (registered when each was its own name):
    after 0010 the oldest of each key holds the name, the later ones keep their rows and tokens
    without it (a warning names each), and the upgrade does not fail."""
    from server.names import KEY_VERSION, folded, name_key
    from server.services.players import resolve_player
    from server.store.models import name_key_version_table, players_table
    from server.store.players import add_token, holder_of, tokens_of

    upgrade(db_url, "0009")
    rows = [  # (id, name, kind, created_at): in 0009's keys each name was its own
        ("p_admin", "admin", "human", "2026-12-01T19:00:00.000000Z"),
        ("p_adrnin", "adrnin", "human", "2026-12-01T19:05:00.000000Z"),
        ("p_admin_dotless", "adm\u0131n", "human", "2026-12-01T19:10:00.000000Z"),
        ("p_paypal_cyr", "\u0440\u0430\u0443\u0440\u0430\u04cf", "bot_account", "2026-12-01T18:00:00.000000Z"),
        ("p_paypal", "paypal", "human", "2026-12-01T19:20:00.000000Z"),
        ("p_oscar", "oscar", "human", "2026-12-01T19:30:00.000000Z"),
        ("bot-greedy-1", "greedy-1", "bot", "2026-12-01T17:00:00.000000Z"),
    ]
    insert_players(db_url, [(player_id, name, kind, at, folded(name)) for player_id, name, kind, at in rows])
    with caplog.at_level("WARNING", logger="unoduo.names"):
        upgrade(db_url)
    store = EventStore(make_engine(db_url))
    try:
        with store.engine.connect() as conn:
            keys = dict(conn.execute(sqlalchemy.select(players_table.c.id, players_table.c.unique_key)).all())
            version = conn.execute(sqlalchemy.select(name_key_version_table.c.version)).scalar_one()
        assert version == KEY_VERSION
        assert keys == {
            "p_admin": name_key("admin"),
            "p_adrnin": None,
            "p_admin_dotless": None,
            "p_paypal_cyr": name_key("paypal"),  # the older of the two holds it, whatever its script
            "p_paypal": None,
            "p_oscar": "oscar",
            "bot-greedy-1": None,
        }
        lost = {line for line in caplog.messages if "no longer holds its name" in line}
        assert len(lost) == 3 and any("p_adrnin" in line and "p_admin" in line for line in lost), lost
        holder = holder_of(store, name_key("ADMIN"))
        assert holder is not None and holder.id == "p_admin"
        assert resolve_player(store, "p_adrnin").name == "adrnin"  # still there, by its id
        add_token(store, "p_adrnin", "a-token-for-adrnin-0123456789abcdef")
        assert tokens_of(store, "p_adrnin") == 1
    finally:
        store.close()
    downgrade(db_url, "0009")  # back to the folded keys: nothing collides under the older rule
    upgrade(db_url)


def test_keys_made_with_another_unicode_are_made_again_at_start(db_url: str) -> None:
    """An ICU update changes the skeletons: the server's upgrade at start finds the recorded version
    differs and recomputes every key, in the migration's lock."""
    from server.names import KEY_VERSION, name_key
    from server.services.players import register_human
    from server.store.models import name_key_version_table, players_table

    upgrade(db_url)
    store = EventStore(make_engine(db_url))
    try:
        player, _ = register_human(store, "adrnin")
        with store.engine.begin() as conn:
            conn.execute(players_table.update().values(name_key="stale", unique_key="stale"))
            conn.execute(name_key_version_table.update().values(version="uts39 unicode 1.0 icu 1.0 rules 0"))
    finally:
        store.close()
    upgrade(db_url)
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            row = conn.execute(
                sqlalchemy.select(players_table.c.name_key, players_table.c.unique_key).where(
                    players_table.c.id == player.id
                )
            ).one()
            version = conn.execute(sqlalchemy.select(name_key_version_table.c.version)).scalar_one()
    finally:
        engine.dispose()
    assert tuple(row) == (name_key("admin"), name_key("admin")) and version == KEY_VERSION


# ---------------------------------------------------------------- 0011: house bots named by their engine


def test_0011_names_house_bots_by_their_engine_and_the_old_names_still_answer(db_url: str) -> None:
    """A database at 0010 with the casual ``greedy-1`` and an older tournament's own two greedy
    bots (``greedy-1``, ``greedy-2``): after 0011 they are ``greedy``, ``greedy``, ``greedy-2``;
    ``greedy`` and ``greedy-1`` answer the casual one (by its id: not ambiguous); a downgrade
    gives the old names back."""
    from server.names import name_key
    from server.services.players import resolve_player
    from server.store.models import players_table

    upgrade(db_url, "0010")
    old = {
        "bot-greedy-1": "greedy-1",
        "bot-greedy-0123456789abcdef-1": "greedy-1",
        "bot-greedy-0123456789abcdef-2": "greedy-2",
        "p_ann": "ann",
    }
    at = "2026-12-01T19:00:00.000000Z"
    insert_players(
        db_url, [(p, name, "human" if p == "p_ann" else "bot", at, name_key(name)) for p, name in old.items()]
    )

    def names() -> dict[str, str]:
        engine = make_engine(db_url)
        try:
            with engine.connect() as conn:
                c = players_table.c
                rows = conn.execute(sqlalchemy.select(c.id, c.name, c.name_key)).all()
        finally:
            engine.dispose()
        assert all(key == name_key(name) for _id, name, key in rows)
        return {player_id: name for player_id, name, _key in rows}

    upgrade(db_url)
    assert names() == {
        "bot-greedy-1": "greedy",
        "bot-greedy-0123456789abcdef-1": "greedy",
        "bot-greedy-0123456789abcdef-2": "greedy-2",
        "p_ann": "ann",
    }
    store = EventStore(make_engine(db_url))
    try:
        assert resolve_player(store, "greedy").id == resolve_player(store, "greedy-1").id == "bot-greedy-1"
    finally:
        store.close()
    downgrade(db_url, "0010")
    assert names() == old
    upgrade(db_url)
