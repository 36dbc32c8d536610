"""Append and read: seq numbering, the chain, expected-seq checks, command ids, bad input."""

from __future__ import annotations

import math
import threading
from concurrent.futures import Future
from datetime import datetime
from enum import StrEnum
from typing import Any

import pytest
from sqlalchemy import func, select

from engine.game.events import Event
from engine.record.chain import ZERO_HASH, chain_envelope, envelope_hash, first_broken_seq
from server.db import make_engine
from server.settings import Settings
from server.store.errors import ConcurrencyError, InvalidAppendError, StoreClosedError
from server.store.event_store import EventStore
from server.store.models import events_table, players_table, processed_table
from server.store.players import register_player
from server.store.records import AppendResult
from tests.server.store.helpers import TickClock


def count_rows(store: EventStore, table: Any) -> int:
    with store.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def ev(type_: str = "thing", **data: Any) -> Event:
    return Event(type_, data)


def test_append_numbers_seals_and_reads_back(store: EventStore) -> None:
    first = store.append("match-a", [ev(n=1), ev("other", n=2)], expected_seq=0)
    second = store.append("match-a", [ev(n=3)], expected_seq=2)
    assert [e["seq"] for e in first.events] == [1, 2] and first.head_seq == 2
    assert second.events[0]["seq"] == 3 and not second.duplicate
    stored = store.read("match-a")
    assert [e.envelope() for e in stored] == list(first.events) + list(second.events)
    assert stored[0].prev == ZERO_HASH
    assert stored[1].prev == stored[0].hash and stored[2].prev == stored[1].hash
    for e in stored:
        assert e.hash == envelope_hash(e.stream, e.seq, e.type, e.data, e.sealed, e.at, e.prev)
    assert stored[0].at == "2026-11-29T19:55:34.001000Z"  # the injected clock, one tick per command
    assert stored[0].at == stored[1].at and stored[2].at == "2026-11-29T19:55:34.002000Z"
    assert store.verify_chain("match-a") is None
    assert store.head("match-a") == 3 and store.head("nothing") == 0
    assert store.head_hash("match-a") == stored[2].hash and store.head_hash("nothing") == ZERO_HASH


def test_read_ranges_streams_and_global_positions(store: EventStore) -> None:
    for i in range(5):
        store.append("match-x", [ev(i=i)], expected_seq=i)
        store.append("players", [ev(i=i)], expected_seq=None)
    assert [e.seq for e in store.read("match-x", 3)] == [3, 4, 5]
    assert [e.seq for e in store.read("match-x", 2, to_seq=3)] == [2, 3]
    assert [e.seq for e in store.read("match-x", 1, limit=2)] == [1, 2]
    assert [e.seq for e in store.iter_stream("match-x", 2, chunk=2)] == [2, 3, 4, 5]
    assert store.streams() == ["match-x", "players"] and store.streams("match-") == ["match-x"]
    everything = store.read_all()
    positions = [e.position for e in everything]
    assert positions == sorted(positions) and len(set(positions)) == 10
    assert [(e.stream, e.data["i"]) for e in everything][:2] == [("match-x", 0), ("players", 0)]
    assert [e.seq for e in store.read_all(after_position=positions[7])] == [5, 5]


def test_a_stale_expected_seq_raises_and_writes_nothing(store: EventStore) -> None:
    store.append("match-a", [ev(), ev()], expected_seq=0)
    with pytest.raises(ConcurrencyError) as caught:
        store.append("match-a", [ev(), ev(), ev()], expected_seq=1, command_id="late")
    assert (caught.value.stream, caught.value.expected, caught.value.actual) == ("match-a", 1, 2)
    with pytest.raises(ConcurrencyError):
        store.append("match-a", [ev()], expected_seq=5)
    assert store.head("match-a") == 2
    assert store.processed("match-a", "late") is None  # a refused command is not recorded
    assert count_rows(store, events_table) == 2


def test_expected_none_appends_at_the_head(store: EventStore) -> None:
    store.append("players", [ev()], expected_seq=None)
    result = store.append("players", [ev(), ev()], expected_seq=None)
    assert [e["seq"] for e in result.events] == [2, 3]
    assert store.verify_chain("players") is None


def test_a_retried_command_returns_its_first_result_and_appends_nothing(store: EventStore) -> None:
    first = store.append("match-a", [ev(n=1), ev(n=2)], expected_seq=0, command_id="cmd-1", result={"view": [1, "x"]})
    store.append("match-a", [ev(n=3)], expected_seq=2, command_id="cmd-2")
    again = store.append("match-a", [ev(n=99)], expected_seq=0, command_id="cmd-1", result={"view": "other"})
    assert again.duplicate and not first.duplicate
    assert again.result == {"view": [1, "x"]} and again.events == first.events and again.head_seq == 2
    assert store.head("match-a") == 3 and count_rows(store, processed_table) == 2
    info = store.processed("match-a", "cmd-1")
    assert info is not None and (info.first_seq, info.count, info.result) == (1, 2, {"view": [1, "x"]})
    # a command id belongs to its stream: the same id elsewhere is another command
    other = store.append("match-b", [ev()], expected_seq=0, command_id="cmd-1")
    assert not other.duplicate


@pytest.mark.parametrize("result", [None, "text", 7, 2.5, True, [1, [2]], {"a": None, "b": {"c": "é"}}])
def test_command_results_of_every_json_kind_come_back_unchanged(store: EventStore, result: Any) -> None:
    store.append("match-r", [ev()], expected_seq=0, command_id="c", result=result)
    assert store.append("match-r", [ev()], expected_seq=0, command_id="c").result == result


def test_a_refusal_can_be_recorded_without_events(store: EventStore) -> None:
    refusal = {"error": {"code": "not_your_turn"}}
    recorded = store.append("match-a", [], expected_seq=0, command_id="bad-1", result=refusal)
    assert recorded.events == () and recorded.head_seq == 0 and not recorded.duplicate
    again = store.append("match-a", [ev()], expected_seq=0, command_id="bad-1")
    assert again.duplicate and again.result == refusal and again.events == ()
    assert store.head("match-a") == 0


def test_data_is_stored_as_json_and_hashes_as_read_back(store: EventStore) -> None:
    class Colour(StrEnum):
        RED = "red"

    data = {"t": (1, 2, (3,)), "c": Colour.RED, "u": "ünïcødé ☂", "f": 0.5, "n": None, "b": False, "big": 2**70}
    result = store.append("match-j", [Event("thing", data)], expected_seq=0)
    stored = store.read("match-j")[0]
    assert stored.data == {
        "t": [1, 2, [3]],
        "c": "red",
        "u": "ünïcødé ☂",
        "f": 0.5,
        "n": None,
        "b": False,
        "big": 2**70,
    }
    assert type(stored.data["c"]) is str
    assert result.events[0] == stored.envelope()
    assert stored.hash == chain_envelope("match-j", 1, "thing", stored.data, {}, stored.at, ZERO_HASH)["hash"]
    assert first_broken_seq([stored.envelope()]) is None


@pytest.mark.parametrize(
    ("stream", "events", "kwargs", "message"),
    [
        ("", [ev()], {}, "bad stream name"),
        ("match a", [ev()], {}, "bad stream name"),
        ("x" * 201, [ev()], {}, "bad stream name"),
        ("match-a", [Event("Bad Type", {})], {}, "bad event type"),
        ("match-a", [{"type": "x", "data": {}}], {}, "not an engine.game.events.Event"),
        ("match-a", [Event("x", [1])], {}, "must be a JSON object"),  # type: ignore[arg-type]
        ("match-a", [ev(x=math.nan)], {}, "cannot be stored as JSON"),
        ("match-a", [ev(x=[1, ({"y": math.nan},)])], {}, r"events\[0\]\.data\.x\[1\]\[0\]\.y: nan cannot"),
        ("match-a", [Event("x", {"a": {1: 2}})], {}, "keys must be strings"),
        ("match-a", [ev(x=object())], {}, "is not JSON"),
        ("match-a", [ev(x={1, 2})], {}, "is not JSON"),
        ("match-a", [ev()], {"command_id": ""}, "command_id"),
        ("match-a", [ev()], {"command_id": "x" * 201}, "command_id"),
        ("match-a", [ev()], {"command_id": "a\nb"}, "command_id"),
        ("match-a", [ev()], {"expected_seq": -1}, "expected_seq"),
        ("match-a", [ev()], {"expected_seq": True}, "expected_seq"),
        ("match-a", [], {}, "nothing to append"),
        ("match-a", ev(), {}, "must be a list"),
        ("match-a", [ev()], {"result": {"x": math.inf}}, "cannot be stored as JSON"),
        ("matches", [Event("match_registered", {"match": "m", "seats": ["a"]})], {}, "seats"),
        ("match-a", [Event("match_ended", {"winner": 2, "scores": [1, 2]})], {}, "winner"),
    ],
)
def test_bad_input_is_refused_clearly_and_writes_nothing(
    store: EventStore, stream: str, events: Any, kwargs: dict[str, Any], message: str
) -> None:
    store.append("match-a", [ev()], expected_seq=0)
    options: dict[str, Any] = {"expected_seq": 1, **kwargs}
    with pytest.raises(InvalidAppendError, match=message):
        store.append(stream, events, **options)
    assert count_rows(store, events_table) == 1 and count_rows(store, processed_table) == 0


def test_a_multi_event_command_with_one_bad_event_writes_none(store: EventStore) -> None:
    with pytest.raises(InvalidAppendError):
        store.append("match-a", [ev(i=1), ev(i=2), ev(bad=math.nan)], expected_seq=0, command_id="c")
    assert store.head("match-a") == 0 and store.processed("match-a", "c") is None


def test_a_naive_clock_is_refused(url: str) -> None:
    store = EventStore(make_engine(url), clock=lambda: datetime(2026, 1, 1))
    try:
        with pytest.raises(InvalidAppendError, match="aware datetime"):
            store.append("match-a", [ev()], expected_seq=0)
        assert store.head("match-a") == 0
    finally:
        store.close()


@pytest.mark.parametrize("group_commit", [True, False], ids=["group", "direct"])
def test_concurrent_appends_each_get_their_own_outcome(url: str, group_commit: bool) -> None:
    """Many appends at once, some stale: each is judged alone, none is lost, chains hold."""
    store = EventStore(make_engine(url, Settings(db_pool_size=20)), clock=TickClock(), group_commit=group_commit)
    streams = [f"match-{i}" for i in range(4)]
    outcomes: dict[tuple[str, int], AppendResult | Exception] = {}
    lock = threading.Lock()
    start = threading.Barrier(8)

    def writer(w: int) -> None:
        stream = streams[w % 4]
        start.wait()
        for k in range(15):
            seq = store.head(stream)
            expected = seq if k % 3 else seq + 7  # every third one is stale on purpose
            try:
                outcome: AppendResult | Exception = store.append(
                    stream, [ev(w=w, k=k), ev(w=w, k=k, part=2)], expected_seq=expected, command_id=f"{w}-{k}"
                )
            except (ConcurrencyError, InvalidAppendError) as exc:
                outcome = exc
            with lock:
                outcomes[(stream, w * 100 + k)] = outcome

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert len(outcomes) == 8 * 15  # every writer ran to the end
        appended = [o for o in outcomes.values() if isinstance(o, AppendResult)]
        assert all(isinstance(o, (AppendResult, ConcurrencyError)) for o in outcomes.values())
        assert len(appended) >= 8  # two writers per stream: at least the first of each succeeds
        for stream in streams:
            events = store.read(stream)
            assert store.verify_chain(stream) is None
            ours = sorted(e["seq"] for o in appended if o.stream == stream for e in o.events)
            assert ours == [e.seq for e in events]  # every success is there, nothing else is
            assert all(events[i].data["k"] == events[i + 1].data["k"] for i in range(0, len(events), 2))
        assert count_rows(store, processed_table) == len(appended)
    finally:
        store.close()


def test_one_failing_command_in_a_group_commit_costs_the_others_nothing(store: EventStore) -> None:
    """A batch whose transaction fails (here: a duplicate player id) is redone command by command."""
    register_player(store, player_id="p1", name="Ann", kind="human", token="t" * 32)
    inside, gate = threading.Event(), threading.Event()

    def hold(at: str) -> list[Any]:
        inside.set()
        gate.wait(5)
        return []

    futures: list[Future[AppendResult]] = []
    # hold the writer thread so the next submissions queue up and run as one batch
    futures.append(store.submit("match-hold", [ev()], expected_seq=0, extra_rows=hold))
    assert inside.wait(5)
    for i in range(5):
        futures.append(store.submit(f"match-{i}", [ev(i=i)], expected_seq=0, command_id=f"c{i}"))
    futures.append(
        store.submit(
            "players",
            [Event("player_registered", {"id": "p1", "name": "Bob", "kind": "human"})],
            expected_seq=None,
            extra_rows=lambda at: [
                (players_table, {"id": "p1", "name": "Bob", "kind": "human", "name_key": "bob", "created_at": at})
            ],
        )
    )
    gate.set()
    results = [f.exception(timeout=30) or f.result() for f in futures]
    assert isinstance(results[-1], InvalidAppendError) and "constraint" in str(results[-1])
    assert all(isinstance(r, AppendResult) for r in results[:-1])
    assert store.head("players") == 1 and all(store.head(f"match-{i}") == 1 for i in range(5))
    assert store.stats == {"batches": 3, "commands": 8}  # the registration, the hold, then one batch of six


def test_appending_after_close_is_refused(store: EventStore) -> None:
    store.close()
    with pytest.raises(StoreClosedError):
        store.append("match-a", [ev()], expected_seq=0)


def test_the_append_lookups_use_indexes_on_sqlite(tmp_path: Any) -> None:
    """The per-batch head and command-id lookups must seek, never scan the growing tables."""
    from server.store.append import WriteSql
    from server.store.migrate import upgrade

    url = f"sqlite:///{tmp_path / 'plan.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    sql = WriteSql("sqlite")
    try:
        with engine.connect() as conn:
            raw = conn.connection.cursor()
            for query, args in ((sql.heads(3), ["a", "b", "c"]), (sql.processed(3), ["a", "1", "b", "2", "c", "3"])):
                plan = " | ".join(str(row[3]) for row in raw.execute("EXPLAIN QUERY PLAN " + query, args))
                assert "SCAN events" not in plan and "SCAN processed_commands" not in plan, plan
                assert plan.count("SEARCH") == 3, plan
    finally:
        engine.dispose()
