"""Match snapshots: a cache of folded ``MatchState``, so loading a long match folds only its tail.

A snapshot is (stream, seq, hash of the event at seq, encoded state). Loading takes the latest
snapshot, checks that the event at its seq still has that hash, and folds the events after it;
a snapshot that does not fit (stale hash, other format, unreadable) is ignored and the match
is folded from its first event. Deleting every snapshot therefore changes no result, only speed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy import Connection, and_, delete, func, insert, select
from sqlalchemy.exc import IntegrityError

from engine.game.evolve import fold
from engine.game.state import INITIAL_STATE, MatchState
from engine.record.snapshot_codec import SNAPSHOT_FORMAT, decode_state, encode_state
from server.store.event_store import AppendResult, EventStore, format_at
from server.store.models import snapshots_table

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SnapshotRecord:
    stream: str
    seq: int
    hash: str
    state: MatchState


class Snapshots:
    def __init__(self, store: EventStore, every: int = 100) -> None:
        if every < 1:
            raise ValueError("snapshot interval must be at least 1 event")
        self.store = store
        self.every = every

    def _writing(self) -> Connection:
        return self.store.engine.connect().execution_options(sqlite_begin="IMMEDIATE")

    def latest(self, stream: str) -> SnapshotRecord | None:
        """The newest readable snapshot of ``stream`` (unreadable ones are skipped)."""
        snapshots = snapshots_table.c
        with self.store.engine.connect() as conn:
            rows = conn.execute(
                select(snapshots_table)
                .where(and_(snapshots.stream == stream, snapshots.format == SNAPSHOT_FORMAT))
                .order_by(snapshots.seq.desc())
            ).mappings()
            for row in rows:
                try:
                    state = decode_state(row["state"])
                except ValueError as exc:
                    log.warning("ignoring unreadable snapshot %s@%s: %s", stream, row["seq"], exc)
                    continue
                if state.version == row["seq"]:
                    return SnapshotRecord(stream, row["seq"], row["hash"], state)
        return None

    def save(self, stream: str, state: MatchState, event_hash: str) -> bool:
        """Store ``state`` as of seq ``state.version`` (whose event hash is ``event_hash``)."""
        if state.version < 1:
            raise ValueError("nothing to snapshot before the first event")
        row = {
            "stream": stream,
            "seq": state.version,
            "hash": event_hash,
            "format": SNAPSHOT_FORMAT,
            "state": encode_state(state),
            "at": format_at(self.store.clock()),
        }
        try:
            with self._writing() as conn, conn.begin():
                conn.execute(insert(snapshots_table), [row])
        except IntegrityError:
            return False  # someone saved this one already
        return True

    def load(self, stream: str, *, use_snapshots: bool = True, save: bool = True) -> MatchState:
        """The state of ``stream``'s match: the latest fitting snapshot plus the events after it.

        With ``save``, a tail of ``every`` events or more is snapshotted for next time.
        """
        snap = self.latest(stream) if use_snapshots else None
        state, from_seq = INITIAL_STATE, 1
        if snap is not None:
            anchor = self.store.read(stream, snap.seq, to_seq=snap.seq)
            if anchor and anchor[0].hash == snap.hash:
                state, from_seq = snap.state, snap.seq + 1
            else:
                log.warning("snapshot %s@%s does not match the log; folding from the start", stream, snap.seq)
        tail = list(self.store.iter_stream(stream, from_seq))
        state = fold((e.event() for e in tail), state)
        if save and len(tail) >= self.every:
            self.save(stream, state, tail[-1].hash)
        return state

    def state_at(self, stream: str, version: int) -> MatchState:
        """The match just after event ``version``: the newest fitting snapshot at or before it, plus the
        events between (at most ``every`` - 1 of them when snapshots are being written), not a fold from
        the first event. Nothing is saved."""
        snapshots = snapshots_table.c
        with self.store.engine.connect() as conn:
            rows = conn.execute(
                select(snapshots_table)
                .where(and_(snapshots.stream == stream, snapshots.format == SNAPSHOT_FORMAT, snapshots.seq <= version))
                .order_by(snapshots.seq.desc())
                .limit(3)
            ).mappings()
            found = list(rows)
        state, from_seq = INITIAL_STATE, 1
        for row in found:
            try:
                snap = decode_state(row["state"])
            except ValueError:
                continue
            anchor = self.store.read(stream, row["seq"], to_seq=row["seq"])
            if snap.version == row["seq"] and anchor and anchor[0].hash == row["hash"]:
                state, from_seq = snap, row["seq"] + 1
                break
        if from_seq <= version:
            state = fold((e.event() for e in self.store.read(stream, from_seq, to_seq=version)), state)
        return state

    def due(self, appended: AppendResult) -> bool:
        """Whether ``appended`` crossed a multiple of ``every`` (then :meth:`after_append` writes one)."""
        if appended.duplicate or not appended.events:
            return False
        first, last = appended.events[0]["seq"], appended.events[-1]["seq"]
        return bool((first - 1) // self.every != last // self.every)

    def after_append(self, stream: str, state: MatchState, appended: AppendResult) -> bool:
        """Snapshot ``state`` (the match after ``appended``) if the append crossed a multiple of ``every``."""
        if not self.due(appended):
            return False
        last = appended.events[-1]
        if state.version != last["seq"]:
            raise ValueError(f"state is at version {state.version}, the append ended at seq {last['seq']}")
        return self.save(stream, state, last["hash"])

    def delete(self, stream: str | None = None) -> int:
        """Delete the snapshots of ``stream`` (all streams if None); returns how many."""
        query = delete(snapshots_table)
        if stream is not None:
            query = query.where(snapshots_table.c.stream == stream)
        with self._writing() as conn, conn.begin():
            return int(conn.execute(query).rowcount)

    def count(self, stream: str | None = None) -> int:
        query = select(func.count()).select_from(snapshots_table)
        if stream is not None:
            query = query.where(snapshots_table.c.stream == stream)
        with self.store.engine.connect() as conn:
            return int(conn.execute(query).scalar_one())
