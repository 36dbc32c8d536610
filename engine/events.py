"""Events: the append-only facts a match is made of. docs/EVENTS.md describes each one.

An event is ``(type, data)`` with JSON-ready data; the store wraps it in the hash-chained
envelope of FAIRNESS.md. Every batch produced by one command starts with a *head* event
(``match_created``, ``seat_joined`` or ``command``) from which an auditor rebuilds the command
and re-runs the decision.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, NamedTuple


class EventType(str, Enum):
    MATCH_CREATED = "match_created"
    SEAT_JOINED = "seat_joined"
    COMMAND = "command"
    CUT = "cut"
    ROUND_STARTED = "round_started"
    CARDS_DEALT = "cards_dealt"
    DRAFTED = "drafted"
    DRAFT_COMPLETED = "draft_completed"
    STARTER_TURNED = "starter_turned"
    STARTER_RETURNED = "starter_returned"
    AWAITING = "awaiting"
    CARD_PLAYED = "card_played"
    CARDS_DRAWN = "cards_drawn"
    DRAW_LAPSED = "draw_lapsed"
    PILE_RECYCLED = "pile_recycled"
    COLOR_CHOSEN = "color_chosen"
    CHALLENGE_RESOLVED = "challenge_resolved"
    UNO_SAID = "uno_said"
    UNO_CAUGHT = "uno_caught"
    ROUND_ENDED = "round_ended"
    MATCH_ENDED = "match_ended"
    SEED_REVEALED = "seed_revealed"


HEAD_TYPES = frozenset(
    {EventType.MATCH_CREATED.value, EventType.SEAT_JOINED.value, EventType.COMMAND.value}
)


class Event(NamedTuple):
    """A named pair rather than a dataclass: the Decider builds a few per command, and a tuple
    is the cheapest immutable record Python builds."""

    type: str
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "data": self.data}

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> Event:
        return cls(type=obj["type"], data=obj["data"])
