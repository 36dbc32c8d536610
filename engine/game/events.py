"""Events: the append-only facts a match is made of, one typed record per event type.

An event is ``(type, data)`` with JSON-ready data. The Decider emits the *whole* data: what
everyone at the table may see and what is hidden (physical card ids, a drawn card, a hand).
Each type below declares its fields once; a field wrapped in ``Annotated[..., Sealed(...)]``
is hidden and, in the stored envelope, becomes a salted commitment (``engine.record.sealing``,
docs/FAIRNESS.md "Sealed fields") opened only to the viewer ``Sealed.to`` names. Every other
field is public and goes into the envelope's ``data`` in the clear. docs/EVENTS.md describes
each one; a test checks the two agree.

Every batch produced by one command starts with a *head* event (``match_created``,
``seat_joined``, ``command``, ``timed_out``, ``forfeit_declared`` or ``time_called``) from which an auditor rebuilds the command and re-runs the
decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, NamedTuple, NotRequired, TypedDict, get_args, get_origin, get_type_hints


class EventType(StrEnum):
    MATCH_CREATED = "match_created"
    SEAT_JOINED = "seat_joined"
    COMMAND = "command"
    CUT = "cut"
    ROUND_STARTED = "round_started"
    CARDS_DEALT = "cards_dealt"
    DRAFTED = "drafted"
    DRAFT_COMPLETED = "draft_completed"
    STARTER_TURNED = "starter_turned"
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
    TIMED_OUT = "timed_out"
    MATCH_FORFEITED = "match_forfeited"
    FORFEIT_DECLARED = "forfeit_declared"
    TIME_CALLED = "time_called"


HEAD_TYPES = frozenset(
    {
        EventType.MATCH_CREATED,
        EventType.SEAT_JOINED,
        EventType.COMMAND,
        EventType.TIMED_OUT,
        EventType.FORFEIT_DECLARED,
        EventType.TIME_CALLED,
    }
)


@dataclass(frozen=True, slots=True)
class Sealed:
    """Marks a hidden field. ``to`` names who may open it during play: the data key that holds
    a seat (``"seat"``, ``"by"``), a fixed seat (0 or 1), or None for nobody at the table (only
    auditors, and everyone once the seed is revealed)."""

    to: str | int | None = None


AUDITORS = Sealed(None)
THE_SEAT = Sealed("seat")


# ---------------------------------------------------------------- one record per event type


class MatchCreated(TypedDict):
    ruleset: dict[str, Any]
    commitment: str
    first_drafter: NotRequired[int]  # fixed by a tournament's schedule: no cut
    names: NotRequired[list[str]]  # the seats' player names, by seat (a server's match; not in older logs)
    seats: NotRequired[int]  # the table's size, 2-10 (classic); absent: two seats
    duplicate: NotRequired[
        dict[str, Any]
    ]  # a duplicate round's match: {tournament, round, deal} (engine.game.duplicate)


class SeatJoined(TypedDict):
    seat: int
    entropy: Annotated[str, THE_SEAT]


class CommandRecorded(TypedDict):
    seat: int
    command: dict[str, Any]


class Cut(TypedDict):
    cut: int
    codes: list[str]
    first_drafter: int | None
    cards: Annotated[list[int], AUDITORS]


class RoundStarted(TypedDict):
    round: int
    player1: int
    restart: int
    deck: Annotated[list[int], AUDITORS]


class CardsDealt(TypedDict):
    counts: list[int]
    cards: Annotated[list[list[int]], AUDITORS]
    hand0: Annotated[list[str], Sealed(0)]
    hand1: Annotated[list[str], Sealed(1)]
    # Tables of more than two (classic): seat i's hand, sealed to seat i.
    hand2: NotRequired[Annotated[list[str], Sealed(2)]]
    hand3: NotRequired[Annotated[list[str], Sealed(3)]]
    hand4: NotRequired[Annotated[list[str], Sealed(4)]]
    hand5: NotRequired[Annotated[list[str], Sealed(5)]]
    hand6: NotRequired[Annotated[list[str], Sealed(6)]]
    hand7: NotRequired[Annotated[list[str], Sealed(7)]]
    hand8: NotRequired[Annotated[list[str], Sealed(8)]]
    hand9: NotRequired[Annotated[list[str], Sealed(9)]]


class Drafted(TypedDict):
    seat: int
    keep: bool
    pile_code: str
    pile_card: Annotated[int, AUDITORS]
    hand_card: Annotated[int, AUDITORS]
    hand_code: Annotated[str, THE_SEAT]


class DraftCompleted(TypedDict):
    codes: list[str]
    cards: Annotated[list[int], AUDITORS]


class StarterTurned(TypedDict):
    code: str
    card: Annotated[int, AUDITORS]
    direction: NotRequired[int]  # a Reverse starter at a table of 3+: the new direction (D19)


class Awaiting(TypedDict):
    seat: int
    kind: str
    total: NotRequired[int]
    starter: NotRequired[bool]
    card: NotRequired[Annotated[int, AUDITORS]]
    code: NotRequired[Annotated[str, THE_SEAT]]


class CardPlayed(TypedDict):
    seat: int
    code: str
    color: str
    uno: bool
    card: Annotated[int, AUDITORS]
    direction: NotRequired[int]  # a Reverse at a table of 3+: the new direction (D20)


class CardsDrawn(TypedDict):
    seat: int
    count: int
    reason: str
    cards: Annotated[list[int], AUDITORS]
    codes: Annotated[list[str], THE_SEAT]


class DrawLapsed(TypedDict):
    seat: int
    missing: int
    received: int
    reason: str


class PileRecycled(TypedDict):
    recycle: int
    count: int
    set_aside: Annotated[int, AUDITORS]
    cards: Annotated[list[int], AUDITORS]


class ColorChosen(TypedDict):
    seat: int
    color: str


class Evidence(TypedDict):
    rule: str
    top: str
    color: str | None


class ChallengeResolved(TypedDict):
    by: int
    player: int
    verdict: str
    evidence: Evidence
    hand: Annotated[list[str], Sealed("by")]
    matching: Annotated[list[str], Sealed("by")]


class UnoSaid(TypedDict):
    seat: int


class UnoCaught(TypedDict):
    seat: int
    by: int


class RoundEnded(TypedDict):
    round: int
    winner: int | None
    loser: int | None
    points: int
    loser_hand: list[str]
    scores: list[int]
    blocked: bool
    hands: NotRequired[list[list[str]]]


class MatchEnded(TypedDict):
    winner: int
    loser: int | None  # the other seat at two seats; null at a table of more
    scores: list[int]
    rounds: int
    places: NotRequired[list[int]]  # classic: each seat's final place, 1 first (D23)


class SeedRevealed(TypedDict):
    server_seed: str
    entropies: list[str]


class TimedOut(TypedDict):
    seat: int
    kind: str  # the pending kind whose time ran out
    action: dict[str, Any] | None  # the default command applied (format_action's shape); None: a forfeit
    count: int  # this seat's timeouts in a row, this one included


class MatchForfeited(TypedDict):
    seat: int  # the seat that forfeits (at a table of 3+ it leaves and play goes on)
    reason: str  # "timeouts", or a ForfeitDeclared's reason


class ForfeitDeclared(TypedDict):
    seat: int  # the seat that loses by forfeit
    reason: str  # "join_deadline", "withdrawal" or "ruling"


class TimeCalled(TypedDict):
    moment: str  # when the round's time ran out (ISO 8601, the server's clock; RULES.md D26)


RECORDS: dict[EventType, type] = {
    EventType.MATCH_CREATED: MatchCreated,
    EventType.SEAT_JOINED: SeatJoined,
    EventType.COMMAND: CommandRecorded,
    EventType.CUT: Cut,
    EventType.ROUND_STARTED: RoundStarted,
    EventType.CARDS_DEALT: CardsDealt,
    EventType.DRAFTED: Drafted,
    EventType.DRAFT_COMPLETED: DraftCompleted,
    EventType.STARTER_TURNED: StarterTurned,
    EventType.AWAITING: Awaiting,
    EventType.CARD_PLAYED: CardPlayed,
    EventType.CARDS_DRAWN: CardsDrawn,
    EventType.DRAW_LAPSED: DrawLapsed,
    EventType.PILE_RECYCLED: PileRecycled,
    EventType.COLOR_CHOSEN: ColorChosen,
    EventType.CHALLENGE_RESOLVED: ChallengeResolved,
    EventType.UNO_SAID: UnoSaid,
    EventType.UNO_CAUGHT: UnoCaught,
    EventType.ROUND_ENDED: RoundEnded,
    EventType.MATCH_ENDED: MatchEnded,
    EventType.SEED_REVEALED: SeedRevealed,
    EventType.TIMED_OUT: TimedOut,
    EventType.MATCH_FORFEITED: MatchForfeited,
    EventType.FORFEIT_DECLARED: ForfeitDeclared,
    EventType.TIME_CALLED: TimeCalled,
}


VERSIONS: dict[EventType, int] = dict.fromkeys(EventType, 1)
"""Each engine event type's version: every one is at 1, the shape it has always had. A change of
shape raises it and registers an upcaster from the old one (``engine.record.event_codec``, docs/EVENTS.md
"Versions"); the engine's own hot path keeps building and folding plain dicts."""


# ---------------------------------------------------------------- the schema, read off the records


@dataclass(frozen=True, slots=True)
class EventSchema:
    """What one event type's records hold: every field, and which of them are sealed (and to whom)."""

    type: EventType
    fields: tuple[str, ...]
    required: frozenset[str]
    sealed: dict[str, Sealed]

    @property
    def public(self) -> tuple[str, ...]:
        return tuple(name for name in self.fields if name not in self.sealed)


def _sealed_mark(hint: Any) -> Sealed | None:
    if get_origin(hint) is NotRequired:
        hint = get_args(hint)[0]
    if get_origin(hint) is Annotated:
        for extra in hint.__metadata__:
            if isinstance(extra, Sealed):
                return extra
    return None


def _schema_of(event_type: EventType, record: type) -> EventSchema:
    hints = get_type_hints(record, include_extras=True)
    sealed = {name: mark for name, hint in hints.items() if (mark := _sealed_mark(hint)) is not None}
    # Read off the hints: with postponed annotations, ``__required_keys__`` misses NotRequired.
    required = frozenset(name for name, hint in hints.items() if get_origin(hint) is not NotRequired)
    return EventSchema(event_type, tuple(hints), required, sealed)


SCHEMAS: dict[str, EventSchema] = {t.value: _schema_of(t, record) for t, record in RECORDS.items()}
"""Per event type (by its string value): the fields, and the sealed ones."""


class Event(NamedTuple):
    """A named pair rather than a dataclass: the Decider builds a few per command, and a tuple
    is the cheapest immutable record Python builds. ``data`` is the whole record, hidden fields
    included; ``engine.record.sealing`` splits it for the envelope."""

    type: str
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"type": str(self.type), "data": self.data}

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> Event:
        return cls(type=obj["type"], data=obj["data"])
