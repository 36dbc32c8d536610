"""The server's own events, typed: one class per event type, built and read through these only.

Engine events are ``engine.events`` (a record per type); these are the events of the
``matches`` and ``players`` streams (``server.store.streams``). Each class knows its type
(``TYPE``), turns itself into the ``Event`` the store appends (:meth:`event`) and back from a
stored payload (``from_payload``), so the shape of each event lives in one place and every
place that builds or folds one (match creation, annulment, the read models) agrees on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.events import Event
from server.store.streams import ServerEventType


@dataclass(frozen=True, slots=True)
class MatchRegistered:
    """``matches``: a match's seats (player ids, one per seat, 2 to 10; the engine knows only seat
    numbers), its tournament and round (None for a casual match), ruleset, per-move limit (None:
    no clock) and, for a casual match, its ``creator`` (whose invitation it is; recorded when the
    creator is not seat 0, read as seat 0 when absent, as every casual match before tables was)."""

    TYPE: ClassVar[ServerEventType] = ServerEventType.MATCH_REGISTERED

    match: str
    seats: tuple[str | None, ...]
    tournament: str | None = None
    round: int | None = None
    ruleset: str | None = None
    move_seconds: int | None = None
    creator: str | None = None

    def __post_init__(self) -> None:
        # One reading of an absent creator, whoever builds the record: a casual match's is seat 0.
        if self.creator is None and self.tournament is None and self.seats:
            object.__setattr__(self, "creator", self.seats[0])

    def payload(self) -> dict[str, Any]:
        out = {
            "match": self.match,
            "seats": list(self.seats),
            "tournament": self.tournament,
            "round": self.round,
            "ruleset": self.ruleset,
            "move_seconds": self.move_seconds,
        }
        if self.creator is not None and self.creator != self.seats[0]:
            out["creator"] = self.creator
        return out

    def event(self) -> Event:
        return Event(self.TYPE, self.payload())

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> MatchRegistered:
        seats = tuple(data["seats"])
        tournament = data.get("tournament")
        creator = data.get("creator")
        return cls(
            match=data["match"],
            seats=seats,
            tournament=tournament,
            round=data.get("round"),
            ruleset=data.get("ruleset"),
            move_seconds=data.get("move_seconds"),
            creator=creator if isinstance(creator, str) else None,
        )


@dataclass(frozen=True, slots=True)
class MatchAnnulled:
    """``matches``: the match counts for nobody and is not played on (a ruling, a withdrawal, a no-show,
    or an invitation that expired before it started: ``reason`` says which); ``replaced_by``: the
    match a replay ruling plays instead (absent otherwise)."""

    TYPE: ClassVar[ServerEventType] = ServerEventType.MATCH_ANNULLED

    match: str
    reason: str
    replaced_by: str | None = None

    def payload(self) -> dict[str, Any]:
        out = {"match": self.match, "reason": self.reason}
        if self.replaced_by is not None:
            out["replaced_by"] = self.replaced_by
        return out

    def event(self) -> Event:
        return Event(self.TYPE, self.payload())

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> MatchAnnulled:
        replaced_by = data.get("replaced_by")
        return cls(
            match=data["match"],
            reason=str(data.get("reason", "")),
            replaced_by=replaced_by if isinstance(replaced_by, str) else None,
        )


@dataclass(frozen=True, slots=True)
class PlayerRegistered:
    """``players``: a player's id, name and kind; the token's hash is in the players table only."""

    TYPE: ClassVar[ServerEventType] = ServerEventType.PLAYER_REGISTERED

    id: str
    name: str
    kind: str

    def payload(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "kind": self.kind}

    def event(self) -> Event:
        return Event(self.TYPE, self.payload())

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> PlayerRegistered:
        return cls(id=data["id"], name=data["name"], kind=data["kind"])
