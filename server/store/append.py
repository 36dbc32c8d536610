"""One append transaction (a batch of commands): check each, seal its events, write them all.

The statements of this path go to the driver's cursor directly, in its own parameter style,
not through SQLModel or SQLAlchemy Core: here SQLAlchemy's per-statement overhead was several
times the database's own work, and group commit only pays off when a batch costs little more
than its disk sync (docs/BENCHMARKS.md). The read-model rows the batch changes are written
with Core (``read_models.Projection.flush``); reads elsewhere in the store use Core or SQLModel.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Table, insert

from engine.record.chain import ZERO_HASH
from engine.record.jsonfmt import compact
from engine.record.sealing import Opening, seal_split
from server.store import read_models
from server.store.errors import ConcurrencyError, StoreError
from server.store.records import AppendResult, Envelope
from server.store.values import Now, format_at
from server.store.waiters import LoopWaiter

ExtraRows = Callable[[str], Sequence[tuple[Table, Mapping[str, Any]]]]

LOOKUPS_PER_QUERY = 100  # SQLite allows 500 terms in a compound SELECT


@dataclass(slots=True)
class AppendRequest:
    """One command's append, validated and JSON-normalized by the caller's thread."""

    stream: str
    # Each event as its type, its public data and its hidden values (``engine.record.sealing.split``).
    events: list[tuple[str, dict[str, Any], dict[str, Any]]]
    seal_seed: bytes | None  # the match's server seed, which salts its sealed fields
    expected_seq: int | None
    command_id: str | None
    result: Any
    extra_rows: ExtraRows | None
    # Who waits: a thread on ``future`` (made by :meth:`promise` before the request is submitted)
    # or a coroutine on ``waiter``, settled once per batch (server.store.waiters). Speed: no
    # concurrent Future for a coroutine's append (its lock was a third of an append's checks, profiled).
    future: Future[AppendResult] | None = None
    waiter: LoopWaiter | None = None
    # A chained append (``EventStore.append_chain_async``) is made only if ``after`` was.
    after: AppendRequest | None = None
    outcome: AppendResult | StoreError | None = None  # set as the request is applied

    def promise(self) -> Future[AppendResult]:
        """The future a thread waits on for this request's outcome (made once, before submitting)."""
        if self.future is None:
            self.future = Future()
        return self.future


def appended(req: AppendRequest | None) -> bool:
    """Whether ``req`` was applied and appended something new (not refused, not a retry)."""
    return req is not None and isinstance(req.outcome, AppendResult) and not req.outcome.duplicate


class WriteSql:
    """The append path's SQL for one dialect (``?`` for sqlite3, ``%s`` for psycopg)."""

    def __init__(self, dialect: str) -> None:
        self.postgres = dialect == "postgresql"
        p = "%s" if self.postgres else "?"
        j = "%s::json" if self.postgres else "?"
        self.p = p
        self.insert_event = (
            "INSERT INTO events (stream, seq, type, data, sealed, at, prev, hash, openings) "
            f"VALUES ({p}, {p}, {p}, {j}, {j}, {p}, {p}, {p}, {j})"
        )
        self.insert_processed = (
            "INSERT INTO processed_commands (stream, command_id, first_seq, count, result, at) "
            f"VALUES ({p}, {p}, {p}, {p}, {j}, {p})"
        )
        self.range = (
            "SELECT stream, seq, type, CAST(data AS TEXT), CAST(sealed AS TEXT), at, prev, hash,"
            " CAST(openings AS TEXT) FROM events "
            f"WHERE stream = {p} AND seq >= {p} AND seq <= {p} ORDER BY seq"
        )
        self.notify = f"SELECT pg_notify({p}, {p})"

    @lru_cache(maxsize=512)  # noqa: B019 - one WriteSql per store, alive as long as the store
    def heads(self, n: int) -> str:
        """The last (stream, seq, hash) of n streams: one index seek each (a UNION ALL of LIMIT 1s)."""
        one = f"SELECT * FROM (SELECT stream, seq, hash FROM events WHERE stream = {self.p} ORDER BY seq DESC LIMIT 1) h{{}}"
        return " UNION ALL ".join(one.format(i) for i in range(n))

    @lru_cache(maxsize=512)  # noqa: B019 - as above
    def processed(self, n: int) -> str:
        """n (stream, command_id) lookups: one primary-key seek each (SQLite scans for a row-value IN)."""
        one = (
            "SELECT stream, command_id, first_seq, count, CAST(result AS TEXT) FROM processed_commands "
            f"WHERE stream = {self.p} AND command_id = {self.p}"
        )
        return " UNION ALL ".join([one] * n)


class Batch:
    """One transaction's worth of appends; ``apply`` each request in order, then ``write``."""

    def __init__(self, conn: Connection, sql: WriteSql, clock: Now, channel: str) -> None:
        self.conn = conn
        self.cursor = conn.connection.cursor()
        self.sql = sql
        self.clock = clock
        self.channel = channel
        self.heads: dict[str, tuple[int, str]] = {}
        self.seen: dict[tuple[str, str], tuple[int, int, Any]] = {}
        self.commands: dict[tuple[str, str], AppendResult] = {}
        self.event_rows: list[tuple[Any, ...]] = []
        self.processed_rows: list[tuple[Any, ...]] = []
        self.extra: list[tuple[Table, Mapping[str, Any]]] = []
        self.view = read_models.Projection(read_models.DbLoader(conn))
        self.touched: dict[str, int] = {}
        self._at: str | None = None

    @property
    def at(self) -> str:
        """The transaction's time: every event it appends carries it (one clock read per batch)."""
        if self._at is None:
            self._at = format_at(self.clock())
        return self._at

    def prefetch(self, requests: Sequence[AppendRequest]) -> None:
        """Read, in two queries, the stream heads and the known command ids the requests need."""
        streams = sorted({r.stream for r in requests} - set(self.heads))
        for i in range(0, len(streams), LOOKUPS_PER_QUERY):
            chunk = streams[i : i + LOOKUPS_PER_QUERY]
            self.cursor.execute(self.sql.heads(len(chunk)), chunk)
            for stream, seq, hash_ in self.cursor.fetchall():
                self.heads[stream] = (int(seq), str(hash_))
        for stream in streams:
            self.heads.setdefault(stream, (0, ZERO_HASH))
        keys = sorted({(r.stream, r.command_id) for r in requests if r.command_id is not None})
        for i in range(0, len(keys), LOOKUPS_PER_QUERY):
            pairs = keys[i : i + LOOKUPS_PER_QUERY]
            self.cursor.execute(self.sql.processed(len(pairs)), [v for key in pairs for v in key])
            for stream, command_id, first_seq, count, result in self.cursor.fetchall():
                self.seen[(stream, command_id)] = (first_seq, count, None if result is None else json.loads(result))

    def apply(self, req: AppendRequest) -> AppendResult | StoreError:
        req.outcome = self._apply(req)
        return req.outcome

    def _apply(self, req: AppendRequest) -> AppendResult | StoreError:
        if req.after is not None and not appended(req.after):
            seq = self.heads[req.stream][0]
            return ConcurrencyError(req.stream, req.expected_seq if req.expected_seq is not None else seq, seq)
        if req.command_id is not None:
            key = (req.stream, req.command_id)
            if key in self.commands:
                return replace(self.commands[key], duplicate=True)
            if key in self.seen:
                return self._duplicate(req.stream, *self.seen[key])
        seq, prev = self.heads[req.stream]
        if req.expected_seq is not None and seq != req.expected_seq:
            return ConcurrencyError(req.stream, req.expected_seq, seq)
        at = self.at
        first_seq = seq + 1
        envelopes: list[Envelope] = []
        openings: list[dict[str, Opening]] = []
        for type_, public, hidden in req.events:
            seq += 1
            sealed = seal_split(req.stream, seq, type_, public, hidden, at, prev, req.seal_seed)
            envelope = sealed.envelope
            prev = envelope["hash"]
            envelopes.append(envelope)
            openings.append(sealed.openings)
            self.event_rows.append(
                (
                    req.stream,
                    seq,
                    type_,
                    compact(envelope["data"]),
                    compact(envelope["sealed"]),
                    at,
                    envelope["prev"],
                    prev,
                    compact(sealed.openings),
                )
            )
            read_models.project(self.view, envelope)
        self.heads[req.stream] = (seq, prev)
        if req.extra_rows is not None:
            self.extra.extend(req.extra_rows(at))
        outcome = AppendResult(req.stream, tuple(envelopes), seq, req.result, openings=tuple(openings))
        if req.command_id is not None:
            result = None if req.result is None else compact(req.result)
            self.processed_rows.append((req.stream, req.command_id, first_seq, len(envelopes), result, at))
            self.commands[(req.stream, req.command_id)] = outcome
        if envelopes:
            self.touched[req.stream] = seq
        return outcome

    def _duplicate(self, stream: str, first: int, count: int, result: Any) -> AppendResult:
        """What a retried command gets: the first run's events and result."""
        events: list[Envelope] = []
        openings: list[dict[str, Opening]] = []
        if count:
            self.cursor.execute(self.sql.range, (stream, first, first + count - 1))
            for s, seq, type_, data, sealed, at, prev, hash_, opened in self.cursor.fetchall():
                events.append(
                    {
                        "stream": s,
                        "seq": seq,
                        "type": type_,
                        "data": json.loads(data),
                        "sealed": json.loads(sealed),
                        "at": at,
                        "prev": prev,
                        "hash": hash_,
                    }
                )
                openings.append(json.loads(opened))
        return AppendResult(stream, tuple(events), first + count - 1, result, duplicate=True, openings=tuple(openings))

    def write(self) -> None:
        """Insert everything the batch produced; the caller commits."""
        if self.event_rows:
            self.cursor.executemany(self.sql.insert_event, self.event_rows)
        if self.processed_rows:
            self.cursor.executemany(self.sql.insert_processed, self.processed_rows)
        for table, row in self.extra:
            self.conn.execute(insert(table), [dict(row)])
        self.view.flush(self.conn)
        if self.touched and self.sql.postgres:
            self.cursor.executemany(self.sql.notify, [(self.channel, f"{s}:{q}") for s, q in self.touched.items()])
