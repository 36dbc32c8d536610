"""The server's own events, typed: one class per event type, built and read through these only.

Engine events are ``engine.game.events`` (a record per type); these are the events of the
``matches`` and ``players`` streams (``server.store.streams``). Each class declares its type
(``TYPE``) and version (``VERSION``) and its fields; ``engine.record.event_codec`` derives its stored
data (:meth:`payload`, :meth:`event`) and its reading back (``from_payload``) from them, and the
upcasters below read the shapes older servers wrote (docs/EVENTS.md "Versions").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.record.event_codec import CODEC, Recorded, recorded_when_set
from server.store.streams import ServerEventType


def _creator_recorded(event: MatchRegistered, creator: str | None) -> bool:
    """A casual match's creator is written only when it is not seat 0 (read as seat 0 when absent)."""
    return creator is not None and creator != event.seats[0]


@CODEC.register
@dataclass(frozen=True, slots=True)
class MatchRegistered(Recorded):
    """``matches``: a match's seats (player ids, one per seat, 2 to 10; the engine knows only seat
    numbers), its tournament and round (None for a casual match), ruleset, per-move limit (None:
    no clock) and, for a casual match, its ``creator`` (whose invitation it is; recorded when the
    creator is not seat 0, read as seat 0 when absent, as every casual match before tables was)."""

    TYPE: ClassVar[ServerEventType] = ServerEventType.MATCH_REGISTERED
    VERSION: ClassVar[int] = 1

    match: str
    seats: tuple[str | None, ...]
    tournament: str | None = None
    round: int | None = None
    ruleset: str | None = None
    move_seconds: int | None = None
    creator: str | None = recorded_when_set(None, when=_creator_recorded)

    def __post_init__(self) -> None:
        # One reading of an absent creator, whoever builds the record: a casual match's is seat 0.
        if self.creator is None and self.tournament is None and self.seats:
            object.__setattr__(self, "creator", self.seats[0])


@CODEC.upcaster(ServerEventType.MATCH_REGISTERED, 0)
def _registered_before_every_field(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0: a registration that left out its tournament, round, ruleset or clock (the
    current writer records all four, None included): each absent one reads as None."""
    for name in ("tournament", "round", "ruleset", "move_seconds"):
        data.setdefault(name, None)
    return data


@CODEC.register
@dataclass(frozen=True, slots=True)
class MatchAnnulled(Recorded):
    """``matches``: the match counts for nobody and is not played on (a ruling, a withdrawal, a no-show,
    or an invitation that expired before it started: ``reason`` says which); ``replaced_by``: the
    match a replay ruling plays instead (absent otherwise)."""

    TYPE: ClassVar[ServerEventType] = ServerEventType.MATCH_ANNULLED
    VERSION: ClassVar[int] = 1

    match: str
    reason: str
    replaced_by: str | None = recorded_when_set(None)


@CODEC.upcaster(ServerEventType.MATCH_ANNULLED, 0)
def _annulled_without_reason(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0: an annulment without a reason (the current writer always records one): empty."""
    data.setdefault("reason", "")
    return data


@CODEC.register
@dataclass(frozen=True, slots=True)
class PlayerRegistered(Recorded):
    """``players``: a player's id, name and kind; the token's hash is in the players table only."""

    TYPE: ClassVar[ServerEventType] = ServerEventType.PLAYER_REGISTERED
    VERSION: ClassVar[int] = 1

    id: str
    name: str
    kind: str
