"""Per-card lookup tables of a deck, built once per deck size.

Rule checks on the hot path (legal actions, the Decider, the fold) read a card's colour, rank or
code by its id; a tuple index is several times cheaper than reaching the :class:`Card` through
``state.ruleset.deck`` and its enum attributes each time.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engine.game.cards import COLOR_ORDER, Card, Color, Rank, canonical_deck, plays_on
from engine.game.commands import Play


@dataclass(frozen=True, slots=True)
class DeckFacts:
    cards: tuple[Card, ...]
    codes: tuple[str, ...]
    colors: tuple[Color | None, ...]
    ranks: tuple[Rank, ...]
    wild: tuple[bool, ...]
    wild_fours: frozenset[int]
    plays: tuple[tuple[Play, ...], ...]
    """Per card id, every fully specified play of it: one, or one per colour for a wild."""
    faces: tuple[int, ...]
    """Per card id, the lowest id with the same face (copies of a card share it)."""
    matching: dict[Color | None, dict[Rank, tuple[bool, ...]]]
    """``matching[active colour][top rank][card id]``: may the card be played on it (D5)?"""


@cache
def deck_facts(wild_count: int) -> DeckFacts:
    """The tables of ``canonical_deck(wild_count)`` (the deck of ``Ruleset.deck``)."""
    deck = canonical_deck(wild_count)
    plays = tuple(tuple(Play(card, color) for color in COLOR_ORDER) if card.is_wild else (Play(card),) for card in deck)
    return DeckFacts(
        cards=deck,
        codes=tuple(card.code for card in deck),
        colors=tuple(card.color for card in deck),
        ranks=tuple(card.rank for card in deck),
        wild=tuple(card.is_wild for card in deck),
        wild_fours=frozenset(i for i, card in enumerate(deck) if card.rank is Rank.WILD_DRAW_FOUR),
        plays=plays,
        faces=tuple(deck.index(card) for card in deck),
        matching={
            color: {rank: tuple(plays_on(card, rank, color) for card in deck) for rank in Rank}
            for color in (None, *COLOR_ORDER)
        },
    )
