"""D1 and the notation: parse/format pairs, the canonical deck and stable card ids."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import CLASSIC_2P, UNO_DUO, CardParseError, canonical_deck, format_card, parse_card, parse_color
from engine.game.cards import Color, Rank

ALL_CODES = sorted({c.code for c in canonical_deck(8)})


def test_d1_uno_duo_deck_has_112_cards_with_blanks_as_plain_wilds() -> None:
    deck = UNO_DUO.deck
    assert len(deck) == 112
    assert sum(c.rank is Rank.WILD for c in deck) == 8
    assert sum(c.rank is Rank.WILD_DRAW_FOUR for c in deck) == 4


def test_d1_classic_deck_has_108_cards() -> None:
    deck = CLASSIC_2P.deck
    assert len(deck) == 108
    assert sum(c.rank is Rank.WILD for c in deck) == 4


def test_canonical_order_and_ids() -> None:
    deck = UNO_DUO.deck
    codes = [c.code for c in deck]
    assert codes[:6] == ["R0", "R1", "R1", "R2", "R2", "R3"]
    assert codes[19:25] == ["RS", "RS", "RR", "RR", "R+2", "R+2"]
    assert codes[25] == "Y0" and codes[50] == "G0" and codes[75] == "B0"
    assert codes[100:108] == ["W"] * 8 and codes[108:] == ["W+4"] * 4
    for color in Color:
        cards = [c for c in deck if c.color is color]
        assert len(cards) == 25


@pytest.mark.parametrize(
    "text,code", [("r5", "R5"), (" BS ", "BS"), ("yr", "YR"), ("r+2", "R+2"), ("w", "W"), ("w+4", "W+4"), ("G0", "G0")]
)
def test_parse_is_case_insensitive_and_formats_back(text: str, code: str) -> None:
    assert format_card(parse_card(text)) == code


@pytest.mark.parametrize("bad", ["", "R10", "X5", "RW", "W+2", "+2", "R", "5", None, 5, ["R5"]])
def test_unknown_cards_are_refused_with_a_clear_message(bad: object) -> None:
    with pytest.raises(CardParseError) as info:
        parse_card(bad)
    assert "card" in str(info.value)


@given(st.sampled_from(ALL_CODES))
def test_parse_format_round_trip(code: str) -> None:
    assert parse_card(code.lower()).code == code


def test_colours_parse_by_name_or_letter() -> None:
    assert parse_color("Red") is Color.RED and parse_color("b") is Color.BLUE
    with pytest.raises(CardParseError):
        parse_color("purple")


def test_points_per_ruleset() -> None:
    r5, skip, wild, wd4 = (parse_card(c) for c in ("R5", "GS", "W", "W+4"))
    assert [UNO_DUO.points(c) for c in (r5, skip, wild, wd4)] == [5, 10, 15, 20]
    assert [CLASSIC_2P.points(c) for c in (r5, skip, wild, wd4)] == [5, 20, 50, 50]


def test_cards_are_equal_by_face_and_copies_in_the_deck_are_one_object() -> None:
    from engine.game.cards import Card, Color, Rank, canonical_deck, parse_card

    built = Card(Color.RED, Rank.DRAW_TWO)
    assert built == parse_card("r+2") and hash(built) == hash(parse_card("R+2"))
    assert built != Card(Color.BLUE, Rank.DRAW_TWO) and built != "R+2"
    assert len({Card(None, Rank.WILD), parse_card("W")}) == 1
    deck = canonical_deck(8)
    assert deck[1] == deck[2] == parse_card("R1")  # the two red 1s
