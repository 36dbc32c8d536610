"""Rulesets as data: every switch of docs/RULES.md's last table is a field here.

A match records its whole ruleset in its first event, so a dispute can name the rule in force.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from enum import Enum, StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from engine.game.cards import Card, Rank, canonical_deck
from engine.game.errors import UnoDuoError, describe_invalid

if TYPE_CHECKING:
    from pydantic import ConfigDict, TypeAdapter, ValidationError


class Deal(StrEnum):
    DRAFT = "draft"  # D3
    DEAL = "deal"  # classic: 7 each, one at a time


class Scoring(StrEnum):
    LOSER_SCORES = "loser_scores"  # uno-duo: the loser of a round scores; reaching the target loses
    WINNER_SCORES = "winner_scores"  # classic: the winner scores the loser's hand; reaching it wins


class ReverseRule(StrEnum):
    DUMP = "dump"  # D10
    GO_AGAIN = "go_again"  # two-player classic: a Reverse acts as a Skip
    DIRECTION = "direction"  # classic at 2-10 seats (D20): the direction turns; at two seats a Skip


class DrawRule(StrEnum):
    ONE = "one"  # D6, D21: one card
    UNTIL_PLAYABLE = "until_playable"  # D21, the seed's variant: until a playable card, at most 10


class WildDrawFourRule(StrEnum):
    NO_PLAYABLE = "no_playable"  # D13, UNO Duo text
    NO_COLOUR_MATCH = "no_colour_match"  # the official rules' challenge (D13c override)
    NO_MATCH = "no_match"  # D13c, seed 004: no card matching the top's colour, number or symbol


class WildDrawFourCheck(StrEnum):
    CHALLENGE = "challenge"  # D13: the opponent may challenge
    ENFORCED = "enforced"  # D13c: refused at play time when the hand breaks wd4_rule


class StarterWild(StrEnum):
    NAME_COLOR = "name_color"  # D4: Player 1 names the colour (a W+4 then hits Player 2)
    RESTART = "restart"  # classic-2p, seed 004: reshuffle the cards and deal again


class Recycle(StrEnum):
    SHUFFLE = "shuffle"  # D7
    FLIP = "flip"  # the seed's literal "turn it over"


@dataclass(frozen=True, slots=True)
class Ruleset:
    __pydantic_config__: ClassVar[ConfigDict] = {"extra": "forbid"}  # an unknown field is refused, not ignored

    name: str
    deck_size: int
    deal: Deal
    target: int
    scoring: Scoring
    action_points: int
    wild_points: int
    wild_draw_four_points: int
    draw_two_stacking: bool
    reverse: ReverseRule
    wd4_rule: WildDrawFourRule
    wd4_check: WildDrawFourCheck
    starter_wild: StarterWild
    recycle: Recycle
    uno_penalty: int
    hand_size: int = 7
    failed_challenge_draw: int = 6
    draw: DrawRule = DrawRule.ONE
    # Issue 22, a table tournament's "round limit the director sets": 0 is none. A project
    # ruling over RULES.md D23 (the target still ends a match first): once round ``round_limit``
    # has ended and been scored with nobody at the target, the match ends and the best total
    # wins (the highest where the winner scores; the lowest under ``loser_scores``, where
    # reaching the target loses); the places follow the totals as D23 says (equal totals share a
    # place). While two or more seats share the best total, one more round is played at a time,
    # until a round ends with a single best total. Decided by ``engine.game.decide._after_round``.
    round_limit: int = 0
    # RULES.md D25 (amended 2026-12-06), "no decision without a choice": without
    # ``draw_two_stacking`` a Draw Two's next player draws at once and loses the turn, asked
    # nothing (as a Draw Two starter, D4/D19, and an enforced Wild Draw Four, D13c). With
    # stacking the switch has no effect: the volley decision stays (D8). False is how a match
    # recorded before D25 was played: the seat was asked for a ``draw`` it could not refuse.
    # Recorded only where it differs from ``draw_two_stacking`` (see ``_fields_of``), so a
    # uno-duo match records (and hashes) the same ruleset as before it existed, and a classic
    # match recorded before it, which lacks the key, reads as False (``from_record``).
    draw_two_at_once: bool = True

    @property
    def wild_count(self) -> int:
        return self.deck_size - 104

    @property
    def deck(self) -> tuple[Card, ...]:
        return canonical_deck(self.wild_count)

    def points(self, card: Card) -> int:
        rank = card.rank
        if rank.is_number:
            return int(rank.value)
        if rank is Rank.WILD:
            return self.wild_points
        if rank is Rank.WILD_DRAW_FOUR:
            return self.wild_draw_four_points
        return self.action_points

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-ready (a fresh dict: the caller may keep or change it)."""
        return dict(_fields_of(self))

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Ruleset:
        """The ruleset a match recorded (``match_created``'s ``ruleset``, a view's ``rules``: a
        :meth:`to_dict` output), read as it was played: a key the record lacks takes the value
        the record was made under, not today's. ``draw_two_at_once`` absent means
        ``draw_two_stacking``'s value (a classic match recorded before D25 asked the seat)."""
        if "draw_two_at_once" not in data:
            base = RULESETS.get(str(data.get("name", "")), UNO_DUO)
            stacking = data.get("draw_two_stacking", base.draw_two_stacking)
            # (a stacking that is no boolean is refused by from_dict under its own name)
            data = {**data, "draw_two_at_once": stacking if isinstance(stacking, bool) else True}
        return cls.from_dict(data)

    @property
    def draw_two_hits_at_once(self) -> bool:
        """D25: a Draw Two's next player draws at once, asked nothing (no stacking, and not a
        ruleset recorded before D25)."""
        return self.draw_two_at_once and not self.draw_two_stacking

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        """A ruleset over the named ruleset's fields (``name`` picks the base, default uno-duo):
        a partial override, or a whole ruleset; anything unknown or out of range raises
        :class:`RulesetError` naming the field. A key left out takes today's value of the named
        ruleset: read a :meth:`to_dict` record (a match's, a tournament's) with
        :meth:`from_record`, which reads it as it was made."""
        from pydantic import ValidationError  # pydantic is loaded when a ruleset is first read (_adapter)

        base = RULESETS.get(str(data.get("name", "")), UNO_DUO)
        merged = {**base.to_dict(), **data}
        try:
            # Strict, as JSON: true is no number and "7" none either; enums are read by value.
            return _adapter().validate_json(json.dumps(merged), strict=True)
        except ValidationError as exc:
            raise RulesetError(_explain(exc)) from None

    def __post_init__(self) -> None:
        _check_limits(self)


# Speed: every view carries its ruleset; asdict() per view cost a third of view() (measured).
@cache
def _fields_of(ruleset: Ruleset) -> dict[str, Any]:
    fields_ = {k: (v.value if isinstance(v, Enum) else v) for k, v in asdict(ruleset).items()}
    if ruleset.draw is DrawRule.ONE:
        # Added with the classic tables: left out at its default, so a two-seat match records
        # (and hashes) the same ruleset as before it existed; from_dict fills it back in.
        del fields_["draw"]
    if not ruleset.round_limit:
        del fields_["round_limit"]  # the same: added with table tournaments (issue 22)
    if ruleset.draw_two_at_once == ruleset.draw_two_stacking:
        # Added with D25: a record without it reads as ``draw_two_stacking`` (from_record), so
        # uno-duo (stacking, at once by default) records as before, as does a classic ruleset
        # played the pre-D25 way; a classic one played under D25 records ``true``.
        del fields_["draw_two_at_once"]
    return fields_


class RulesetError(UnoDuoError, ValueError):
    """A ruleset (or an override of one) the engine cannot play."""


def _explain(exc: ValidationError) -> str:
    return describe_invalid(exc.errors(include_url=False), "unknown ruleset field")


# A score stays far inside 32 bits (the server's score columns): under the target before a
# round, plus at most a whole deck of the dearest cards. Without a bound, a tournament's rules of
# {"wild_points": 10**30} were taken and its first scored round could never be stored.
MAX_TARGET = 100_000
MAX_CARD_POINTS = 1_000
MAX_ROUND_LIMIT = 100  # a tournament table's round limit (issue 22)
MAX_HAND_SIZE = 20
MIN_SEATS, MAX_SEATS = 2, 10


def _check_limits(ruleset: Ruleset) -> None:
    """Keep an overridden ruleset playable: a full draft (or a deal at two seats) plus a starter
    must fit in the deck (:func:`deal_problem`; a table's size is checked by :func:`seats_allowed`),
    and every score a 32-bit integer (``MAX_TARGET``, ``MAX_CARD_POINTS``)."""
    if ruleset.deck_size not in (108, 112):
        raise ValueError("deck_size must be 108 or 112")
    if not 1 <= ruleset.hand_size <= MAX_HAND_SIZE:
        raise ValueError(f"hand_size must be between 1 and {MAX_HAND_SIZE}")
    problem = deal_problem(ruleset, MIN_SEATS)
    if problem is not None:  # pragma: no cover - 20 a hand fits every deck at two seats
        raise ValueError(problem)
    if not 1 <= ruleset.target <= MAX_TARGET:
        raise ValueError(f"target must be between 1 and {MAX_TARGET}")
    if not 0 <= ruleset.round_limit <= MAX_ROUND_LIMIT:
        raise ValueError(f"round_limit must be 0 (no limit) or between 1 and {MAX_ROUND_LIMIT}")
    for name in ("action_points", "wild_points", "wild_draw_four_points"):
        if getattr(ruleset, name) > MAX_CARD_POINTS:
            raise ValueError(f"{name} must be at most {MAX_CARD_POINTS}")
    for name in ("uno_penalty", "failed_challenge_draw"):
        if getattr(ruleset, name) > 20:
            raise ValueError(f"{name} must be at most 20")
    for field in fields(ruleset):
        value = getattr(ruleset, field.name)
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise ValueError(f"{field.name} must be a whole number, not {value}")


def cards_before_play(ruleset: Ruleset, seats: int) -> int:
    """The cards a round takes from its deck before anyone plays: the hands (a draft, D3, takes two
    cards a step, four per card of a hand; a deal, D18, ``hand_size`` a seat) and the starter (D4,
    D19). A starter's own draws (a Draw Two's 2, a Wild Draw Four's 4) take what is left and lapse
    beyond it (D7); a wild starter under ``starter_wild = restart`` shuffles the whole deck again."""
    per_card = 4 if ruleset.deal is Deal.DRAFT else seats
    return per_card * ruleset.hand_size + 1


def deal_problem(ruleset: Ruleset, seats: int) -> str | None:
    """Why ``ruleset`` cannot deal a round at ``seats`` seats (its deck is too small for the hands and
    a starter), or None when it can."""
    needed = cards_before_play(ruleset, seats)
    if needed <= ruleset.deck_size:
        return None
    n, deck = ruleset.hand_size, ruleset.deck_size
    if ruleset.deal is Deal.DRAFT:
        return (
            f"hand_size {n}: the draft takes {needed - 1} cards and a starter, more than the {deck}-card deck holds "
            f"(hand_size {(deck - 1) // 4} at most)"
        )
    most = (deck - 1) // n
    return (
        f"hand_size {n} at {seats} seats deals {needed - 1} cards and turns a starter: {needed} cards, more than "
        f"the {deck}-card deck holds (at {seats} seats hand_size is at most {(deck - 1) // seats}; with hand_size "
        f"{n}, a table has at most {most} seats)"
    )


UNO_DUO = Ruleset(
    name="uno-duo",
    deck_size=112,
    deal=Deal.DRAFT,
    target=200,
    scoring=Scoring.LOSER_SCORES,
    action_points=10,
    wild_points=15,
    wild_draw_four_points=20,
    draw_two_stacking=True,
    reverse=ReverseRule.DUMP,
    wd4_rule=WildDrawFourRule.NO_PLAYABLE,
    wd4_check=WildDrawFourCheck.CHALLENGE,
    starter_wild=StarterWild.NAME_COLOR,
    recycle=Recycle.SHUFFLE,
    uno_penalty=2,
)

CLASSIC_2P = Ruleset(
    name="classic-2p",
    deck_size=108,
    deal=Deal.DEAL,
    target=500,
    scoring=Scoring.WINNER_SCORES,
    action_points=20,
    wild_points=50,
    wild_draw_four_points=50,
    draw_two_stacking=False,
    reverse=ReverseRule.GO_AGAIN,
    wd4_rule=WildDrawFourRule.NO_MATCH,
    wd4_check=WildDrawFourCheck.ENFORCED,
    starter_wild=StarterWild.RESTART,
    recycle=Recycle.SHUFFLE,
    uno_penalty=2,
)

# Classic UNO at 2-10 seats (D18-D24): classic-2p's switches, but a Reverse turns the direction.
CLASSIC = replace(CLASSIC_2P, name="classic", reverse=ReverseRule.DIRECTION)

RULESETS: dict[str, Ruleset] = {r.name: r for r in (UNO_DUO, CLASSIC_2P, CLASSIC)}


def seats_allowed(ruleset: Ruleset) -> range:
    """The table sizes a ruleset plays (RULES.md D18): a dealt deck with a turning direction, any
    size from 2 to 10 whose hands and starter the deck holds (``hand_size`` 10 at most at ten seats:
    :func:`deal_problem`); a draft (D3), a Reverse dump (D10) or a go-again Reverse, two seats only."""
    if ruleset.deal is Deal.DEAL and ruleset.reverse is ReverseRule.DIRECTION:
        most = min(MAX_SEATS, (ruleset.deck_size - 1) // ruleset.hand_size)
        return range(MIN_SEATS, most + 1)
    return range(2, 3)


def check_seats(ruleset: Ruleset, seats: int) -> None:
    """RulesetError, saying why, unless ``ruleset`` plays a table of ``seats`` (every path that takes
    rules and a table size asks this before anything is dealt or stored)."""
    allowed = seats_allowed(ruleset)
    if seats in allowed:
        return
    problem = deal_problem(ruleset, seats) if MIN_SEATS <= seats <= MAX_SEATS else None
    if problem is not None and MIN_SEATS <= seats <= seats_allowed(replace(ruleset, hand_size=1)).stop - 1:
        raise RulesetError(problem)
    raise RulesetError(f"{ruleset.name} is played by {allowed.start} to {allowed.stop - 1} seats, not {seats}")


# Speed: pydantic is imported and the adapter built when a ruleset is first read from data, not
# when the engine is imported (measured: 0.25-0.35 s of CPU in every import of the engine).
@cache
def _adapter() -> TypeAdapter[Ruleset]:
    from pydantic import TypeAdapter

    return TypeAdapter(Ruleset)


def get_ruleset(name: str) -> Ruleset:
    try:
        return RULESETS[name]
    except KeyError:
        raise RulesetError(f"unknown ruleset {name!r}: choose one of {', '.join(RULESETS)}") from None
