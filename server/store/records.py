"""What the store hands back: stored events, append results, processed-command records."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.events import Event

Envelope = dict[str, Any]  # FAIRNESS.md: stream, seq, type, data, at, prev, hash


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One stored event: the FAIRNESS.md envelope plus its global ``position``."""

    position: int
    stream: str
    seq: int
    type: str
    data: dict[str, Any]
    at: str
    prev: str
    hash: str

    def envelope(self) -> Envelope:
        return {
            "stream": self.stream,
            "seq": self.seq,
            "type": self.type,
            "data": self.data,
            "at": self.at,
            "prev": self.prev,
            "hash": self.hash,
        }

    def event(self) -> Event:
        return Event(self.type, self.data)

    @classmethod
    def from_row(cls, row: Mapping[Any, Any]) -> StoredEvent:
        return cls(
            position=row["position"],
            stream=row["stream"],
            seq=row["seq"],
            type=row["type"],
            data=row["data"],
            at=row["at"],
            prev=row["prev"],
            hash=row["hash"],
        )


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append did: the envelopes written (on a retry: those the first run wrote)."""

    stream: str
    events: tuple[Envelope, ...]
    head_seq: int  # the stream's head right after this command
    result: Any  # the caller's result, as stored with the command id
    duplicate: bool = False  # True: the command id was seen before and nothing was appended now


@dataclass(frozen=True, slots=True)
class ProcessedCommandInfo:
    stream: str
    command_id: str
    first_seq: int
    count: int
    result: Any
    at: str
