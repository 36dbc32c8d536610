"""Cards, their notation (``R5``, ``BS``, ``YR``, ``R+2``, ``W``, ``W+4``) and the canonical deck.

Parse/format come in pairs, as in python-chess: ``parse_card("r+2")`` gives a :class:`Card`,
``card.code`` gives ``"R+2"`` back. Physical cards are identified by a stable id in the
canonical order of docs/FAIRNESS.md; two copies of the same face are the same card for play.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from typing import Final

from engine.game.errors import CardParseError, shown


class Color(StrEnum):
    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"

    @property
    def letter(self) -> str:
        return self.value[0].upper()


COLOR_ORDER: tuple[Color, ...] = (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE)
_COLOR_BY_LETTER = {c.letter: c for c in COLOR_ORDER}


class Rank(StrEnum):
    """The face of a card apart from its colour; the value is its notation suffix."""

    N0 = "0"
    N1 = "1"
    N2 = "2"
    N3 = "3"
    N4 = "4"
    N5 = "5"
    N6 = "6"
    N7 = "7"
    N8 = "8"
    N9 = "9"
    SKIP = "S"
    REVERSE = "R"
    DRAW_TWO = "+2"
    WILD = "W"
    WILD_DRAW_FOUR = "W+4"

    @property
    def is_number(self) -> bool:
        return self.value.isdigit()

    @property
    def is_wild(self) -> bool:
        return self in (Rank.WILD, Rank.WILD_DRAW_FOUR)

    @property
    def number(self) -> int | None:
        return int(self.value) if self.value.isdigit() else None


# Speed: on 3.11 ``Rank.SKIP`` goes through EnumType.__getattr__ (~0.1 µs); these plain aliases
# make engine self-play ~6% faster (paired timing, docs/BENCHMARKS.md "Speed tricks, measured").
class Ranks:
    """The :class:`Rank` members as plain class attributes."""

    SKIP: Final = Rank.SKIP
    REVERSE: Final = Rank.REVERSE
    DRAW_TWO: Final = Rank.DRAW_TWO
    WILD: Final = Rank.WILD
    WILD_DRAW_FOUR: Final = Rank.WILD_DRAW_FOUR


NUMBER_RANKS: tuple[Rank, ...] = tuple(Rank(str(n)) for n in range(10))
_COLOURED_RANK_BY_SUFFIX = {r.value: r for r in Rank if not r.is_wild}


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """A card face. ``color`` is None exactly for wilds.

    ``code`` and ``is_wild`` are computed once at construction: they are read on every rule
    check, and enum property look-ups are slow on the hot path. Two cards are equal when their
    faces are, which the code says in one string comparison.
    """

    color: Color | None
    rank: Rank
    code: str = field(init=False, compare=False, repr=False)
    is_wild: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        code = self.rank.value if self.color is None else self.color.letter + self.rank.value
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "is_wild", self.rank in (Rank.WILD, Rank.WILD_DRAW_FOUR))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Card):
            return self.code == other.code
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.code)

    def __str__(self) -> str:
        return self.code


def plays_on(card: Card, top_rank: Rank, color: Color | None) -> bool:
    """D5: a wild, a card of the active colour, or the same number or symbol as the top card."""
    return card.is_wild or card.color is color or card.rank is top_rank


def parse_color(text: object) -> Color:
    """Parse ``red``/``yellow``/``green``/``blue`` (or the letter), case-insensitively."""
    if not isinstance(text, str):
        raise CardParseError(f"a colour must be one of red, yellow, green, blue, not {shown(text)}")
    key = text.strip().lower()
    for color in COLOR_ORDER:
        if key in (color.value, color.letter.lower()):
            return color
    raise CardParseError(f"unknown colour {shown(text)}: use red, yellow, green or blue")


def parse_card(text: object) -> Card:
    """Parse a card code such as ``R5``, ``bs``, ``Y+2``, ``w`` or ``W+4``."""
    if not isinstance(text, str):
        raise CardParseError(f"a card is written as a code like R5 or W+4, not {shown(text)}")
    code = text.strip().upper()
    card = _CARD_BY_CODE.get(code)
    if card is None:
        raise CardParseError(
            f"unknown card {shown(text)}: write colour letter (R, Y, G, B) + rank (0-9, S, R, +2), or W / W+4"
        )
    return card


def format_card(card: Card) -> str:
    return card.code


def _all_faces() -> dict[str, Card]:
    faces: dict[str, Card] = {"W": Card(None, Rank.WILD), "W+4": Card(None, Rank.WILD_DRAW_FOUR)}
    for color in COLOR_ORDER:
        for suffix, rank in _COLOURED_RANK_BY_SUFFIX.items():
            faces[color.letter + suffix] = Card(color, rank)
    return faces


_CARD_BY_CODE = _all_faces()

_COLOUR_RUN: tuple[Rank, ...] = (
    Rank.N0,
    *tuple(r for n in NUMBER_RANKS[1:] for r in (n, n)),
    Rank.SKIP,
    Rank.SKIP,
    Rank.REVERSE,
    Rank.REVERSE,
    Rank.DRAW_TWO,
    Rank.DRAW_TWO,
)


@cache
def canonical_deck(wild_count: int) -> tuple[Card, ...]:
    """All cards in canonical order; the index of a card is its id (docs/FAIRNESS.md).

    Each colour runs 0, 1, 1, ... 9, 9, S, S, R, R, +2, +2 (25 cards); then the plain wilds,
    then four Wild Draw Fours.
    """
    face = _CARD_BY_CODE  # copies of a face are the same object, as parse_card returns it
    coloured = tuple(face[color.letter + rank.value] for color in COLOR_ORDER for rank in _COLOUR_RUN)
    wilds = (face["W"],) * wild_count
    wild_fours = (face["W+4"],) * 4
    return coloured + wilds + wild_fours
