"""An event edited, removed or re-sealed directly in the database is caught by chain verification."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from cli.main import app
from engine.game.events import Event
from engine.record.chain import chain_envelope
from server.store.event_store import EventStore


@pytest.fixture
def ten(store: EventStore) -> EventStore:
    for i in range(10):
        store.append("match-t", [Event("thing", {"i": i, "who": "ann"})], expected_seq=i)
    store.append("match-other", [Event("thing", {"i": 0})], expected_seq=0)
    assert store.verify_chain("match-t") is None
    return store


def sql(store: EventStore, statement: str, **params: object) -> None:
    with store.engine.begin() as conn:
        conn.execute(text(statement), params)


def test_edited_data_is_named_by_its_seq(ten: EventStore) -> None:
    cast = "CAST(:data AS JSON)" if ten.engine.dialect.name == "postgresql" else ":data"
    sql(
        ten,
        f"UPDATE events SET data = {cast} WHERE stream = 'match-t' AND seq = 4",
        data=json.dumps({"i": 3, "who": "bob"}),
    )
    assert ten.verify_chain("match-t") == 4
    assert ten.verify_chain("match-other") is None


@pytest.mark.parametrize(
    ("column", "value"),
    [("at", "2020-01-01T00:00:00.000000Z"), ("type", "other"), ("hash", "0" * 64), ("prev", "1" * 64)],
)
def test_any_edited_field_is_named(ten: EventStore, column: str, value: str) -> None:
    sql(ten, f"UPDATE events SET {column} = :v WHERE stream = 'match-t' AND seq = 7", v=value)
    assert ten.verify_chain("match-t") == 7


def test_a_removed_event_is_named(ten: EventStore) -> None:
    sql(ten, "DELETE FROM events WHERE stream = 'match-t' AND seq = 5")
    assert ten.verify_chain("match-t") == 5


def test_a_removed_last_event_is_not_a_break_but_the_head_moves(ten: EventStore) -> None:
    """Truncation keeps a valid chain: receipts (docs/FAIRNESS.md) are what catch it."""
    last = ten.read("match-t")[-1]
    sql(ten, "DELETE FROM events WHERE stream = 'match-t' AND seq = 10")
    assert ten.verify_chain("match-t") is None and ten.head_hash("match-t") != last.hash


def test_a_resealed_event_breaks_the_link_after_it(ten: EventStore) -> None:
    """Rewriting an event with a correct hash of its own still breaks the next event's link."""
    old = ten.read("match-t", 3, to_seq=3)[0]
    forged = chain_envelope("match-t", 3, "thing", {"i": 2, "who": "mallory"}, {}, old.at, old.prev)
    cast = "CAST(:data AS JSON)" if ten.engine.dialect.name == "postgresql" else ":data"
    sql(
        ten,
        f"UPDATE events SET data = {cast}, hash = :h WHERE stream = 'match-t' AND seq = 3",
        data=json.dumps(forged["data"]),
        h=forged["hash"],
    )
    assert ten.verify_chain("match-t") == 4


def test_the_cli_names_the_broken_stream_and_seq(ten: EventStore, url: str) -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["db", "verify", "--db", url])
    assert ok.exit_code == 0, ok.output
    assert "2 streams checked, 0 broken" in ok.output
    sql(ten, "UPDATE events SET at = 'x' WHERE stream = 'match-t' AND seq = 2")
    bad = runner.invoke(app, ["db", "verify", "--db", url])
    assert bad.exit_code == 1
    assert "match-t: chain broken at seq 2" in bad.output and "1 broken" in bad.output
    one = runner.invoke(app, ["db", "verify", "--db", url, "--stream", "match-other"])
    assert one.exit_code == 0 and "1 streams checked, 0 broken" in one.output
