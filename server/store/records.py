"""What the store hands back: stored events, append results, processed-command records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine.game.events import Event
from engine.record.event_codec import read_event
from engine.record.sealing import Opening, Viewer, join, openings_for

Envelope = dict[str, Any]  # docs/FAIRNESS.md: stream, seq, type, data, sealed, at, prev, hash


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One stored event: the envelope, the openings of its sealed fields, its global ``position``."""

    position: int
    stream: str
    seq: int
    type: str
    data: dict[str, Any]
    sealed: dict[str, str]
    at: str
    prev: str
    hash: str
    openings: dict[str, Opening]

    def envelope(self) -> Envelope:
        """The envelope every viewer receives alike (hidden fields only as commitments)."""
        return {
            "stream": self.stream,
            "seq": self.seq,
            "type": self.type,
            "data": self.data,
            "sealed": self.sealed,
            "at": self.at,
            "prev": self.prev,
            "hash": self.hash,
        }

    def for_viewer(self, viewer: Viewer) -> Envelope:
        """The envelope plus ``open``: the openings (value and salt) ``viewer`` may see."""
        return {**self.envelope(), "open": openings_for(self.type, self.data, self.openings, viewer)}

    def event(self) -> Event:
        """The whole event, hidden fields included: what the server folds."""
        return read_event(self.type, join(self.data, {k: o["value"] for k, o in self.openings.items()}))

    @classmethod
    def from_append(cls, envelope: Envelope, openings: dict[str, Opening]) -> StoredEvent:
        """An event just appended, from its :class:`AppendResult` (its global ``position`` unknown: -1)."""
        return cls(
            position=-1,
            stream=envelope["stream"],
            seq=envelope["seq"],
            type=envelope["type"],
            data=envelope["data"],
            sealed=envelope["sealed"],
            at=envelope["at"],
            prev=envelope["prev"],
            hash=envelope["hash"],
            openings=openings,
        )

    @classmethod
    def from_row(cls, row: Mapping[Any, Any]) -> StoredEvent:
        return cls(
            position=row["position"],
            stream=row["stream"],
            seq=row["seq"],
            type=row["type"],
            data=row["data"],
            sealed=row["sealed"],
            at=row["at"],
            prev=row["prev"],
            hash=row["hash"],
            openings=row["openings"],
        )


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append did: the envelopes written (on a retry: those the first run wrote)."""

    stream: str
    events: tuple[Envelope, ...]
    head_seq: int  # the stream's head right after this command
    result: Any  # the caller's result, as stored with the command id
    duplicate: bool = False  # True: the command id was seen before and nothing was appended now
    openings: tuple[dict[str, Opening], ...] = ()  # per event: the openings of its sealed fields


class ChainedAppend(NamedTuple):
    """One step of ``EventStore.append_chain_async``: a command's events and its append options."""

    events: Sequence[Event]
    expected_seq: int | None
    command_id: str | None = None
    result: Any = None
    seal_seed: bytes | None = None


@dataclass(frozen=True, slots=True)
class ProcessedCommandInfo:
    stream: str
    command_id: str
    first_seq: int
    count: int
    result: Any
    at: str
