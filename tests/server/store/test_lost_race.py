"""An append that keeps losing the race for a shared stream's head is "try again" (503), not malformed.

Two processes appending to one stream without an expected seq (the ``players`` stream of two
servers registering at once) both read the head and insert the next seq; the loser breaks the
unique ``(stream, seq)``. The store tries again (jittered); if it loses every time, the caller
gets ``StoreUnavailableError`` (503 ``unavailable``: nothing was written, send it again), where it
used to get ``InvalidAppendError`` (400 ``malformed``), found by ``unoduo bench scale``. Any other
constraint a request breaks is still the request's fault.
"""

from __future__ import annotations

from typing import Any, NoReturn

import pytest
from sqlalchemy.exc import IntegrityError

from server.store import event_store
from server.store.errors import InvalidAppendError, StoreUnavailableError
from server.store.event_store import EventStore, lost_race
from server.store.server_events import PlayerRegistered
from server.store.streams import PLAYERS_STREAM


def test_a_unique_violation_of_stream_and_seq_is_a_lost_race() -> None:
    assert lost_race(Exception('duplicate key value violates unique constraint "uq_events_stream_seq"'))
    assert lost_race(Exception("UNIQUE constraint failed: events.stream, events.seq"))
    assert not lost_race(Exception('duplicate key value violates unique constraint "players_pkey"'))
    assert not lost_race(None)


@pytest.mark.parametrize(
    ("constraint", "expected"),
    [
        ('duplicate key value violates unique constraint "uq_events_stream_seq"', StoreUnavailableError),
        ('duplicate key value violates unique constraint "something_else"', InvalidAppendError),
    ],
)
def test_an_append_that_loses_every_time(
    store: EventStore, monkeypatch: pytest.MonkeyPatch, constraint: str, expected: type[Exception]
) -> None:
    def lose(_requests: Any) -> NoReturn:
        raise IntegrityError("INSERT INTO events …", {}, Exception(constraint))

    monkeypatch.setattr(store, "_transaction", lose)
    monkeypatch.setattr(event_store.time, "sleep", lambda _seconds: None)
    with pytest.raises(expected):
        store.append(PLAYERS_STREAM, [PlayerRegistered("p1", "ada", "human").event()], expected_seq=None)


def test_a_cancelled_waiter_does_not_break_the_others_of_its_batch(store: EventStore) -> None:
    """A request whose waiter was cancelled (a stopping server cancels its clocks' tasks) is still
    appended, and the other requests of the same group-commit batch get their own outcomes."""
    gone = store._request(
        PLAYERS_STREAM, [PlayerRegistered("p1", "ada", "human").event()], None, None, None, None, None
    )
    waiting = store._request(
        PLAYERS_STREAM, [PlayerRegistered("p2", "bob", "human").event()], None, None, None, None, None
    )
    assert gone.promise().cancel()
    outcome = waiting.promise()  # as EventStore.submit does: before the batch runs
    store._run_batch([gone, waiting])
    assert outcome.result().head_seq == 2
    assert [e.seq for e in store.read(PLAYERS_STREAM, 1)] == [1, 2]
