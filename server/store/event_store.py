"""The event store: append-only, hash-chained streams of events (docs/FAIRNESS.md).

**Append** is one transaction: if the command id was seen before, the first result comes back
and nothing is written; otherwise the stream's head must be at ``expected_seq`` (else
:class:`ConcurrencyError`), the events are sealed onto the chain and written together with the
processed-command row and the read-model changes, all or nothing. On PostgreSQL the same
transaction sends ``NOTIFY``; followers in this process are woken after the commit.

**Group commit** (default): appends are handed to one writer thread, which runs everything
waiting as one transaction, each command still checked on its own. If that transaction fails
(a race with another process, a constraint), it is rolled back and each of its commands is run
again alone, so one command's failure never costs the others.

Races are settled by the database: SQLite writers take the lock at ``BEGIN IMMEDIATE``;
PostgreSQL's unique (stream, seq) and (stream, command_id) keys make the second writer fail,
after which its command is checked again and reported as stale or as a duplicate.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import random
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, InvalidStateError
from typing import Any

from sqlalchemy import Connection, Engine, and_, func, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError

from engine.game.events import Event
from engine.record.chain import ZERO_HASH, first_broken_seq
from engine.record.sealing import split
from server.db import is_postgres, make_engine
from server.settings import Settings
from server.store import read_models
from server.store.append import AppendRequest, Batch, ExtraRows, WriteSql
from server.store.errors import (
    InvalidAppendError,
    StoreClosedError,
    StoreError,
    StoreUnavailableError,
)
from server.store.group_commit import GroupCommitter
from server.store.models import COMMAND_ID_LEN, MAX_SEQ, events_table, processed_table
from server.store.notify import LocalNotifier, PgListener
from server.store.records import AppendResult, ChainedAppend, Envelope, ProcessedCommandInfo, StoredEvent
from server.store.streams import is_valid_event_type, is_valid_stream
from server.store.values import Now, format_at, normalize_json, utc_now
from server.store.waiters import LoopWaiter, wake_waiters

__all__ = [
    "AppendResult",
    "Envelope",
    "EventStore",
    "Now",
    "ProcessedCommandInfo",
    "StoredEvent",
    "format_at",
    "normalize_json",
    "utc_now",
]

log = logging.getLogger(__name__)

ALONE_ATTEMPTS = 8
HEADS_CHUNK = 1000  # stream names per query of heads()
# Speed: the names as one parameter, not a compiled UNION ALL of a SELECT each (measured, 1,000 streams: 178 -> 4.7 ms CPU).
_EVENTS = events_table.name
_PG_HEADS = text(
    f"SELECT s.name, (SELECT max(e.seq) FROM {_EVENTS} e WHERE e.stream = s.name) "
    "FROM unnest(CAST(:names AS text[])) AS s(name)"
)
_SQLITE_HEADS = text(
    f"SELECT s.value, (SELECT max(e.seq) FROM {_EVENTS} e WHERE e.stream = s.value) FROM json_each(:names) AS s"
)


def _hand_over(future: Future[AppendResult] | None, outcome: AppendResult | StoreError) -> None:
    """Give a request's waiter its outcome, unless the waiter was cancelled meanwhile (a server
    stopping cancels its clocks' and bots' tasks): its append stands in the store all the same.
    Setting a cancelled future raises, and the group commit then handed that error to every other
    request of the batch (a timeout of another match failed with InvalidStateError: found by the
    chaos test on two PostgreSQL servers)."""
    if future is None:  # no thread waits: a coroutine's waiter is woken by the batch (wake_waiters)
        return
    with contextlib.suppress(InvalidStateError):
        if isinstance(outcome, AppendResult):
            future.set_result(outcome)
        else:
            future.set_exception(outcome)


def lost_race(cause: BaseException | None) -> bool:
    """Whether a unique violation is the events' ``(stream, seq)``: another process appended to the
    same stream between this one's read of the head and its insert (never the request's fault)."""
    text = str(cause)
    return "uq_events_stream_seq" in text or "events.stream, events.seq" in text


def _read(conn: Connection, stream: str, from_seq: int, to_seq: int | None, limit: int | None) -> list[StoredEvent]:
    if from_seq > MAX_SEQ:  # past the seq column's range: nothing there (and the database would refuse the number)
        return []
    if to_seq is not None:
        to_seq = min(to_seq, MAX_SEQ)
    events = events_table.c
    query = select(events_table).where(and_(events.stream == stream, events.seq >= from_seq))
    if to_seq is not None:
        query = query.where(events.seq <= to_seq)
    query = query.order_by(events.seq)
    if limit is not None:
        query = query.limit(limit)
    return [StoredEvent.from_row(r) for r in conn.execute(query).mappings()]


def _orders_by_code_point(conn: Connection) -> bool:
    """Whether the database compares text (the ``stream`` column, which names no collation) by code
    point: SQLite's BINARY always; PostgreSQL when the database's collation is C, POSIX or C.UTF-8
    (libc or builtin, not ICU). Anything else (en_US.UTF-8 ignores punctuation at first) is not."""
    if conn.dialect.name != "postgresql":
        return True
    try:
        row = conn.execute(
            text("SELECT datcollate, datlocprovider FROM pg_database WHERE datname = current_database()")
        ).first()
    except DBAPIError:  # before PostgreSQL 15 there is no datlocprovider: libc
        conn.rollback()
        row = conn.execute(text("SELECT datcollate, 'c' FROM pg_database WHERE datname = current_database()")).first()
    if row is None:
        return False
    collation, provider = str(row[0]), str(row[1])
    return provider in ("c", "b") and (collation in ("C", "POSIX") or collation.upper().startswith("C."))


def _unexpected(exc: Exception) -> StoreError:
    error = StoreError(f"append failed: {exc!r}")
    error.__cause__ = exc
    return error


class EventStore:
    """Append, read and follow hash-chained event streams. Thread-safe; one per process is enough."""

    def __init__(
        self,
        engine: Engine,
        *,
        clock: Now = utc_now,
        group_commit: bool = True,
        max_batch: int = 256,
        channel: str = "unoduo_events",
        follow_poll_seconds: float = 2.0,
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.channel = channel
        self.follow_poll_seconds = follow_poll_seconds
        self.notifier = LocalNotifier()
        self._sql = WriteSql(engine.dialect.name)
        # The append path talks to the driver directly, so its errors come unwrapped too.
        dbapi = engine.dialect.dbapi
        self._db_errors: tuple[type[Exception], ...] = (DBAPIError, dbapi.Error) if dbapi else (DBAPIError,)
        self._integrity_errors: tuple[type[Exception], ...] = (
            (IntegrityError, dbapi.IntegrityError) if dbapi else (IntegrityError,)
        )
        self._listeners: dict[asyncio.AbstractEventLoop, PgListener] = {}
        self._ordered_by_code_point: bool | None = None  # how the database compares stream names (_starts_with)
        self._closed = False
        self._follows_ended = False  # set by end_follows() and close(): every follow() ends
        self._writer_conn: Connection | None = None  # the group-commit thread's own connection
        self._committer: GroupCommitter[AppendRequest] | None = (
            GroupCommitter(self._run_batch, max_batch, name="unoduo-group-commit") if group_commit else None
        )

    @classmethod
    def open(
        cls,
        url: str | None = None,
        settings: Settings | None = None,
        *,
        clock: Now = utc_now,
        migrate: bool = True,
        **overrides: Any,
    ) -> EventStore:
        """A store on ``url`` (default: the settings' database), migrated to the latest schema."""
        settings = settings or Settings()
        url = url or settings.database_url
        if migrate:
            from server.store.migrate import upgrade

            upgrade(url, settings=settings)
        options: dict[str, Any] = {
            "group_commit": settings.group_commit,
            "max_batch": settings.group_commit_max,
            "channel": settings.notify_channel,
            "follow_poll_seconds": settings.follow_poll_seconds,
        }
        options.update(overrides)
        return cls(make_engine(url, settings), clock=clock, **options)

    # ------------------------------------------------------------ appending

    def _request(
        self,
        stream: str,
        events: Sequence[Event],
        expected_seq: int | None,
        command_id: str | None,
        result: Any,
        extra_rows: ExtraRows | None,
        seal_seed: bytes | None,
    ) -> AppendRequest:
        if self._closed:
            raise StoreClosedError("the event store is closed")
        if not is_valid_stream(stream):
            raise InvalidAppendError(
                f"bad stream name {stream!r}: 1-200 letters, digits or _ . : @ -, starting with a letter or digit"
            )
        if expected_seq is not None and (
            not isinstance(expected_seq, int) or isinstance(expected_seq, bool) or expected_seq < 0
        ):
            raise InvalidAppendError(f"expected_seq must be a whole number >= 0 or None, not {expected_seq!r}")
        if command_id is not None and (
            not isinstance(command_id, str) or not 0 < len(command_id) <= COMMAND_ID_LEN or not command_id.isprintable()
        ):
            raise InvalidAppendError(f"command_id must be 1-{COMMAND_ID_LEN} printable characters, not {command_id!r}")
        if isinstance(events, (str, bytes, Mapping, Event)) or not isinstance(events, Sequence):
            raise InvalidAppendError("events must be a list of engine.game.events.Event")
        if not events and command_id is None:
            raise InvalidAppendError("nothing to append: no events and no command id to record")
        checked: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
        for i, event in enumerate(events):
            if not isinstance(event, Event):
                raise InvalidAppendError(f"events[{i}] is a {type(event).__name__}, not an engine.game.events.Event")
            if not is_valid_event_type(event.type):
                raise InvalidAppendError(f"events[{i}]: bad event type {event.type!r}")
            if not isinstance(event.data, Mapping):
                raise InvalidAppendError(f"events[{i}] ({event.type}): data must be a JSON object")
            type_ = str(event.type)
            data = normalize_json(event.data, f"events[{i}].data")
            public, hidden = split(type_, data)
            if hidden and seal_seed is None:
                raise InvalidAppendError(
                    f"events[{i}] ({type_}) has hidden fields ({', '.join(hidden)}) but no seed to seal them with"
                )
            read_models.check_event(stream, type_, public)
            checked.append((type_, public, hidden))  # split once: the writer seals these parts
        return AppendRequest(
            stream=stream,
            events=checked,
            seal_seed=seal_seed,
            expected_seq=expected_seq,
            command_id=command_id,
            result=normalize_json(result, "result"),
            extra_rows=extra_rows,
        )

    def submit(
        self,
        stream: str,
        events: Sequence[Event],
        *,
        expected_seq: int | None,
        command_id: str | None = None,
        result: Any = None,
        extra_rows: ExtraRows | None = None,
        seal_seed: bytes | None = None,
    ) -> Future[AppendResult]:
        """Start an append; the future holds its :class:`AppendResult` or its error."""
        req = self._request(stream, events, expected_seq, command_id, result, extra_rows, seal_seed)
        future = req.promise()
        if self._committer is not None:
            self._committer.submit(req)
        else:
            self._run_batch([req])
        return future

    def append(
        self,
        stream: str,
        events: Sequence[Event],
        *,
        expected_seq: int | None,
        command_id: str | None = None,
        result: Any = None,
        extra_rows: ExtraRows | None = None,
        seal_seed: bytes | None = None,
    ) -> AppendResult:
        """Append ``events`` (all or none) after seq ``expected_seq`` (None: wherever the head is).

        With ``command_id``, the first run's outcome is recorded with ``result``; a retry returns
        it (``duplicate=True``) and appends nothing. Raises ConcurrencyError if the head is
        elsewhere. ``extra_rows(at)`` gives rows to insert in the same transaction. Hidden fields
        (``engine.game.events``) are sealed with salts from ``seal_seed``, the match's server seed.
        """
        return self.submit(
            stream,
            events,
            expected_seq=expected_seq,
            command_id=command_id,
            result=result,
            extra_rows=extra_rows,
            seal_seed=seal_seed,
        ).result()

    async def append_async(
        self,
        stream: str,
        events: Sequence[Event],
        *,
        expected_seq: int | None,
        command_id: str | None = None,
        result: Any = None,
        extra_rows: ExtraRows | None = None,
        seal_seed: bytes | None = None,
    ) -> AppendResult:
        """:meth:`append` for a coroutine: the event loop waits, it is never blocked."""
        options: dict[str, Any] = {
            "expected_seq": expected_seq,
            "command_id": command_id,
            "result": result,
            "extra_rows": extra_rows,
            "seal_seed": seal_seed,
        }
        if self._committer is None:  # without the writer thread, an append runs in its caller's thread
            return await asyncio.to_thread(functools.partial(self.append, stream, events, **options))
        req = self._request(stream, events, expected_seq, command_id, result, extra_rows, seal_seed)
        req.waiter = LoopWaiter.here()
        self._committer.submit(req)
        outcome: AppendResult = await req.waiter.future
        return outcome

    async def append_chain_async(self, stream: str, steps: Sequence[ChainedAppend]) -> list[AppendResult | StoreError]:
        """Append several commands to ``stream`` in order, each only if the one before it appended
        something new (else it gets ``ConcurrencyError`` and nothing of it is written).

        The steps are handed to the writer together, so they usually share one transaction: a
        command and the house bot moves decided on the state it leads to cost one commit, not
        one each. Returns each step's outcome: its result, or the error it met.
        """
        requests: list[AppendRequest] = []
        for step in steps:
            req = self._request(
                stream, step.events, step.expected_seq, step.command_id, step.result, None, step.seal_seed
            )
            req.after = requests[-1] if requests else None
            requests.append(req)
        if self._committer is None:
            waits = [asyncio.wrap_future(req.promise()) for req in requests]
            await asyncio.to_thread(self._run_batch, requests)
        else:
            for req in requests:
                req.waiter = LoopWaiter.here()
                self._committer.submit(req)
            waits = [req.waiter.future for req in requests if req.waiter is not None]
        outcomes: list[AppendResult | StoreError] = []
        for wait in waits:
            try:
                result: AppendResult = await wait
            except StoreError as error:
                outcomes.append(error)
            else:
                outcomes.append(result)
        return outcomes

    def _in_writer_thread(self) -> bool:
        return self._committer is not None and threading.current_thread() is self._committer.thread

    def _transaction(self, requests: list[AppendRequest]) -> list[AppendResult | StoreError]:
        if self._in_writer_thread():
            if self._writer_conn is None:
                self._writer_conn = self.engine.connect().execution_options(sqlite_begin="IMMEDIATE")
            try:
                return self._transaction_on(self._writer_conn, requests)
            except BaseException:
                conn, self._writer_conn = self._writer_conn, None
                conn.close()  # a fresh connection next time, whatever state this one is in
                raise
        with self.engine.connect().execution_options(sqlite_begin="IMMEDIATE") as conn:
            return self._transaction_on(conn, requests)

    def _transaction_on(self, conn: Connection, requests: list[AppendRequest]) -> list[AppendResult | StoreError]:
        with conn.begin():
            batch = Batch(conn, self._sql, self.clock, self.channel)
            batch.prefetch(requests)
            outcomes = [batch.apply(req) for req in requests]
            batch.write()
        return outcomes

    def _run_alone(self, req: AppendRequest) -> AppendResult | StoreError:
        last: Exception | None = None
        for attempt in range(ALONE_ATTEMPTS):
            try:
                return self._transaction([req])[0]
            except StoreError as exc:
                return exc
            except self._db_errors as exc:  # a race lost to another process, a deadlock, a lock timeout
                last = exc
                # Jittered: processes that raced for one stream's head do not all come back at once.
                time.sleep(random.uniform(0.5, 1.0) * 0.005 * (2**attempt))
            except Exception as exc:  # noqa: BLE001 - a bug: report it to this caller only
                return _unexpected(exc)
        cause = getattr(last, "orig", None) or last
        if isinstance(last, self._integrity_errors) and not lost_race(cause):
            return InvalidAppendError(f"the append breaks a database constraint: {cause}")
        # A race for the head of a busy shared stream lost every time: try again later (503), not
        # a malformed request (found by unoduo bench scale: registrations on three servers at once).
        return StoreUnavailableError(f"could not append to {req.stream!r}: {cause}")

    def _run_batch(self, requests: list[AppendRequest]) -> None:
        grown: list[tuple[str, int]] = []
        try:
            grown = self._settle_batch(requests)
        except Exception as exc:  # noqa: BLE001 - a bug: every request not settled yet gets it, no waiter hangs
            for req in requests:
                if req.outcome is None:
                    req.outcome = _unexpected(exc)
                    _hand_over(req.future, req.outcome)
        finally:
            # The results first: each caller learns what it appended before followers wake.
            wake_waiters(requests)
        for stream, head in grown:
            self.notifier.notify(stream, head)

    def _settle_batch(self, requests: list[AppendRequest]) -> list[tuple[str, int]]:
        """Run ``requests`` in one transaction (one by one if it fails) and settle each one's
        future; the streams that grew, with their new heads."""
        # Same-stream requests keep their order; sorting by stream makes every process take
        # PostgreSQL's row and index locks in one order, so batches do not deadlock each other.
        ordered = sorted(requests, key=lambda r: r.stream)
        outcomes: list[AppendResult | StoreError]
        try:
            outcomes = self._transaction(ordered)
        except Exception as exc:  # noqa: BLE001 - retried one by one, each caller gets its own outcome
            if len(ordered) == 1 and not isinstance(exc, self._db_errors):
                outcomes = [exc if isinstance(exc, StoreError) else _unexpected(exc)]
            else:
                outcomes = []
                for req in ordered:  # in order: a chained append reads the outcome of the one before
                    req.outcome = self._run_alone(req)
                    outcomes.append(req.outcome)
        grown: list[tuple[str, int]] = []
        for req, outcome in zip(ordered, outcomes, strict=False):
            req.outcome = outcome  # what really happened (a chained append after it depends on it)
            _hand_over(req.future, outcome)
            if isinstance(outcome, AppendResult) and outcome.events and not outcome.duplicate:
                grown.append((req.stream, outcome.head_seq))
        return grown

    # ------------------------------------------------------------ reading

    def read(
        self, stream: str, from_seq: int = 1, *, to_seq: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """The events of ``stream`` with from_seq <= seq (<= to_seq), in seq order."""
        with self.engine.connect() as conn:
            return _read(conn, stream, from_seq, to_seq, limit)

    def iter_stream(self, stream: str, from_seq: int = 1, chunk: int = 1000) -> Iterator[StoredEvent]:
        """Every event of ``stream`` from ``from_seq``, read in chunks."""
        seq = from_seq
        while True:
            events = self.read(stream, seq, limit=chunk)
            yield from events
            if len(events) < chunk:
                return
            seq = events[-1].seq + 1

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[StoredEvent]:
        """Events of every stream in global position order."""
        with self.engine.connect() as conn:
            position = events_table.c.position
            rows = conn.execute(
                select(events_table).where(position > after_position).order_by(position).limit(limit)
            ).mappings()
            return [StoredEvent.from_row(r) for r in rows]

    def head(self, stream: str) -> int:
        """The seq of the stream's last event, 0 if it has none."""
        with self.engine.connect() as conn:
            events = events_table.c
            found = conn.execute(select(func.max(events.seq)).where(events.stream == stream)).scalar()
        return int(found or 0)

    def head_hash(self, stream: str) -> str:
        """The hash of the stream's last event (64 zeros if it has none)."""
        with self.engine.connect() as conn:
            events = events_table.c
            found = conn.execute(
                select(events.hash).where(events.stream == stream).order_by(events.seq.desc()).limit(1)
            ).scalar()
        return str(found) if found is not None else ZERO_HASH

    def streams(self, prefix: str = "") -> list[str]:
        with self.engine.connect() as conn:
            stream = events_table.c.stream
            query = select(stream).distinct().order_by(stream)
            if prefix:
                query = query.where(self._starts_with(conn, prefix))
            return [r[0] for r in conn.execute(query)]

    def stream_heads(self, prefix: str) -> dict[str, int]:
        """Every stream whose name starts with ``prefix``, with the seq of its last event: one query,
        an index range over ``(stream, seq)`` where the database orders names by code point."""
        with self.engine.connect() as conn:
            events = events_table.c
            query = (
                select(events.stream, func.max(events.seq))
                .where(self._starts_with(conn, prefix))
                .group_by(events.stream)
            )
            return {str(stream): int(head) for stream, head in conn.execute(query)}

    def heads(self, streams: Sequence[str]) -> dict[str, int]:
        """The seq of the last event of each of ``streams`` that has any: one query (per
        ``HEADS_CHUNK`` names) with the names as one parameter, each one lookup at the end of the
        ``(stream, seq)`` index."""
        found: dict[str, int] = {}
        with self.engine.connect() as conn:
            postgres = is_postgres(self.engine)
            for start in range(0, len(streams), HEADS_CHUNK):
                names = list(streams[start : start + HEADS_CHUNK])
                query, param = (_PG_HEADS, names) if postgres else (_SQLITE_HEADS, json.dumps(names))
                rows = conn.execute(query, {"names": param})
                found.update({str(name): int(head) for name, head in rows if head is not None})
        return found

    def _starts_with(self, conn: Connection, prefix: str) -> Any:
        """``stream`` starts with ``prefix``. A ``substr`` alone reads every event of the table; with
        a code-point ordering (SQLite's, PostgreSQL's C collations) the names between ``prefix`` and
        the next string of its length are exactly those, and the unique index finds them."""
        stream = events_table.c.stream
        exact = func.substr(stream, 1, len(prefix)) == prefix
        if self._ordered_by_code_point is None:
            self._ordered_by_code_point = _orders_by_code_point(conn)
        if not self._ordered_by_code_point or not prefix or ord(prefix[-1]) >= 0x10FFFF:
            return exact
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        return and_(stream >= prefix, stream < upper, exact)

    def processed(self, stream: str, command_id: str) -> ProcessedCommandInfo | None:
        with self.engine.connect() as conn:
            processed = processed_table.c
            row = (
                conn.execute(
                    select(processed_table).where(and_(processed.stream == stream, processed.command_id == command_id))
                )
                .mappings()
                .first()
            )
        return None if row is None else ProcessedCommandInfo(**dict(row))

    def verify_chain(self, stream: str) -> int | None:
        """The seq of the first event whose position, link or hash is wrong; None if all hold."""
        return first_broken_seq(e.envelope() for e in self.iter_stream(stream))

    # ------------------------------------------------------------ following

    @property
    def shared(self) -> bool:
        """Other processes may append to this database (PostgreSQL): what this process did not
        write can appear, and a notification lost while the listener reconnected must be swept
        for. On SQLite one process owns the file: nothing changes unseen, so nothing polls."""
        return is_postgres(self.engine)

    async def _ensure_listener(self) -> None:
        if not is_postgres(self.engine):
            return
        loop = asyncio.get_running_loop()
        listener = self._listeners.get(loop)
        if listener is None:
            url = self.engine.url.set(drivername="postgresql")
            conninfo = url.render_as_string(hide_password=False)
            listener = PgListener(conninfo, self.channel, self.notifier, self.heads, self.follow_poll_seconds)
            self._listeners[loop] = listener
        await listener.start()

    async def follow(
        self,
        stream: str,
        after_seq: int = 0,
        *,
        chunk: int = 500,
        known: Callable[[], int] | None = None,
    ) -> AsyncIterator[StoredEvent]:
        """Every event of ``stream`` after ``after_seq``, then each new one as it is appended.

        Wakes at once on appends of this process, and of other processes through LISTEN/NOTIFY
        on PostgreSQL, where the listener's sweep (every ``follow_poll_seconds``, one query for all
        followers of the event loop) also wakes it if a notification was lost. It never reads on
        a timer of its own: an idle follower costs nothing (on SQLite only this process appends,
        and every append of it wakes the stream's followers). Ends (without
        an error) once :meth:`end_follows` or :meth:`close` has been called: a server that is
        stopping lets its open streams finish instead of waiting for them.

        ``known()``, if given, is the last seq the caller already has by other means (what it
        appended itself): those events are not read again, and a wake-up that names no later
        head reads nothing.
        """
        if not is_valid_stream(stream):
            raise InvalidAppendError(f"bad stream name {stream!r}")
        if self._follows_ended:
            return
        await self._ensure_listener()
        waiter = self.notifier.waiter(stream, known, after_seq)
        try:
            seq = after_seq
            read = True
            while not self._follows_ended:
                waiter.clear()  # before reading, so an append during the read still wakes us
                if known is not None:
                    seq = max(seq, known())
                events: list[StoredEvent] = []
                if read or waiter.latest > seq:
                    waiter.forced = False
                    try:
                        events = await asyncio.to_thread(self.read, stream, seq + 1, limit=chunk)
                    except self._db_errors as exc:  # the database is away: the follow goes on, reading again later
                        log.warning("follow %s: the database is unavailable (%s); reading again", stream, exc)
                        await waiter.wait(self.follow_poll_seconds)
                        read = True
                        continue
                if events:
                    waiter.seen = events[-1].seq  # in hand: a wake-up for these (the sweep's, a late one) is skipped
                for event in events:
                    seq = event.seq
                    yield event
                if len(events) < chunk and not self._follows_ended:
                    await waiter.wait(None)
                    read = waiter.forced or known is None
                else:
                    read = True
        finally:
            self.notifier.remove(waiter)

    def end_follows(self) -> None:
        """End every :meth:`follow` now and any started later (the server is stopping). Thread-safe."""
        self._follows_ended = True
        self.notifier.notify_all()

    # ------------------------------------------------------------ lifecycle

    @property
    def stats(self) -> dict[str, int]:
        """Group-commit counters: transactions run and commands they held."""
        c = self._committer
        return {"batches": c.batches if c else 0, "commands": c.requests if c else 0}

    def close(self) -> None:
        """End the follows, finish queued appends, stop the writer thread, close the connections."""
        if self._closed:
            return
        self._closed = True
        self.end_follows()
        if self._committer is not None:
            self._committer.close()
        if self._writer_conn is not None:
            self._writer_conn.close()
            self._writer_conn = None
        self.engine.dispose()

    async def aclose(self) -> None:
        """Stop this event loop's LISTEN connection, then :meth:`close`."""
        listener = self._listeners.pop(asyncio.get_running_loop(), None)
        if listener is not None:
            await listener.close()
        await asyncio.to_thread(self.close)

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
