"""The match state that events fold into. Nothing outside the fold ever holds game state."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from engine.game.cards import Card, Color
from engine.game.deck_facts import DeckFacts, deck_facts
from engine.game.rulesets import UNO_DUO, Ruleset


class Phase(StrEnum):
    NEW = "new"  # before match_created
    WAITING = "waiting"  # seats joining
    DRAFT = "draft"
    PLAY = "play"
    ROUND_OVER = "round_over"  # a hand is empty; the final Wild Draw Four is still to settle (D15)
    MATCH_OVER = "match_over"


class PendingKind(StrEnum):
    DRAFT = "draft"
    TURN = "turn"
    DRAWN = "drawn"
    VOLLEY = "volley"
    WILD_DRAW_FOUR = "wild_draw_four"
    DUMP = "dump"
    COLOR = "color"
    NONE = "none"


# Speed: the same alias trick as engine.game.cards.Ranks (measured together: ~6% of self-play).
class Phases:
    """The :class:`Phase` members as plain class attributes."""

    NEW: Final = Phase.NEW
    WAITING: Final = Phase.WAITING
    DRAFT: Final = Phase.DRAFT
    PLAY: Final = Phase.PLAY
    ROUND_OVER: Final = Phase.ROUND_OVER
    MATCH_OVER: Final = Phase.MATCH_OVER


# Speed: the same alias trick as engine.game.cards.Ranks (measured together: ~6% of self-play).
class PendingKinds:
    """The :class:`PendingKind` members as plain class attributes."""

    DRAFT: Final = PendingKind.DRAFT
    TURN: Final = PendingKind.TURN
    DRAWN: Final = PendingKind.DRAWN
    VOLLEY: Final = PendingKind.VOLLEY
    WILD_DRAW_FOUR: Final = PendingKind.WILD_DRAW_FOUR
    DUMP: Final = PendingKind.DUMP
    COLOR: Final = PendingKind.COLOR
    NONE: Final = PendingKind.NONE


@dataclass(frozen=True, slots=True)
class Pending:
    """The decision the match waits for, and whose it is."""

    kind: PendingKind
    seat: int | None = None
    total: int = 0  # volley: cards the seat draws if it does not volley (D8)
    card: int | None = None  # drawn: the drawn card's id (D6); color: the starter's id (D4)
    starter: bool = False  # dump: offered by a Reverse starter (D4), so a normal turn is also open


NO_PENDING = Pending(PendingKind.NONE)


@dataclass(frozen=True, slots=True)
class WildDrawFourContext:
    """What a challenge is judged on (D13): the hand as the Wild Draw Four left it."""

    player: int
    hand: tuple[int, ...]
    top_before: int
    color_before: Color | None


@dataclass(frozen=True)
class MatchState:
    """Everything a match is, folded from its events. Frozen: a state, once handed out, never changes."""

    # Speed: no ``slots``, so engine.game.evolve and engine.game.decide build the next state by writing a
    # private copy's __dict__; ``dataclasses.replace`` per event is several times slower.

    version: int = 0
    ruleset: Ruleset = UNO_DUO
    commitment: str = ""
    # Every per-seat tuple below has one entry per seat (``seats``: 2, or 2-10 in classic).
    seats: int = 2
    entropies: tuple[str | None, ...] = (None, None)
    phase: Phase = Phase.NEW
    round: int = 0
    player1: int | None = None
    scores: tuple[int, ...] = (0, 0)
    cuts: int = 0
    draw_pile: tuple[int, ...] = ()  # index 0 is the top
    draft_pile: tuple[int, ...] = ()  # in the order the cards were placed
    discard: tuple[int, ...] = ()  # last element is the top
    hands: tuple[tuple[int, ...], ...] = ((), ())
    color: Color | None = None
    pending: Pending = NO_PENDING
    uno_said: tuple[bool, ...] = (False, False)
    uno_open: tuple[bool, ...] = (False, False)
    direction: int = 1  # 1 clockwise (seat numbers up), -1 counter-clockwise (D18, D20)
    departed: tuple[bool, ...] = (False, False)  # seats that left the table by forfeit (3+ seats)
    departures: tuple[int, ...] = ()  # the seats that left, in the order they left
    wd4: WildDrawFourContext | None = None
    last_challenge: dict[str, object] | None = None
    recycles: int = 0
    restarts: int = 0  # fresh starts of this round so far (classic-2p Wild starter)
    empty_draws: int = 0  # draws in a row that received nothing (D17, D24: one per seat ends the round)
    draft_steps: int = 0
    winner: int | None = None
    last_round: dict[str, object] | None = None
    server_seed: str | None = None
    timeouts: tuple[int, ...] = (0, 0)  # each seat's timeouts in a row (outlives a round)
    scheduled_first_drafter: int | None = None  # round 1's Player 1 set by a schedule (no cut)
    time_called: str | None = None  # the moment a timed round's time was called (D26); outlives a round

    def __post_init__(self) -> None:
        # Run when a state is built by its constructor (a decoded snapshot); the fold and the
        # Decider derive states from states and never come here.
        for name in _PER_SEAT:
            if len(getattr(self, name)) != self.seats:
                raise ValueError(f"{name} must have one entry per seat ({self.seats})")

    @property
    def deck(self) -> tuple[Card, ...]:
        return self.ruleset.deck

    @property
    def facts(self) -> DeckFacts:
        return deck_facts(self.ruleset.deck_size - 104)

    @property
    def turn(self) -> int | None:
        return self.pending.seat

    @property
    def top(self) -> int | None:
        return self.discard[-1] if self.discard else None

    def card(self, card_id: int) -> Card:
        return self.ruleset.deck[card_id]


_PER_SEAT = ("entropies", "scores", "hands", "uno_said", "uno_open", "departed", "timeouts")
INITIAL_STATE = MatchState()
