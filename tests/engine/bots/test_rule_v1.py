"""``bot:rule-v1`` follows RLCard's ``uno-rule-v1`` (rlcard/models/uno_rule_models.py) decision by
decision, and takes this engine's extra decisions as its docstring says."""

from __future__ import annotations

import random
from collections import Counter

from engine.bots.rule_v1 import RuleV1Bot, most_common_colour
from tests.engine.bots.helpers import craft_view


def plays(*cards: str) -> list[dict[str, object]]:
    return [{"type": "play", "card": c} for c in cards] + [{"type": "draw"}]


def choose(**fields: object) -> dict[str, object]:
    return RuleV1Bot().choose(craft_view(**fields), random.Random(7))


def test_it_plays_whenever_it_can_and_draws_only_when_it_cannot() -> None:
    assert choose(hand=["R5", "G2"], legal=plays("R5"))["card"] == "R5"
    assert choose(hand=["G2", "B7"], legal=[{"type": "draw"}]) == {"type": "draw"}


def test_wilds_are_kept_while_a_coloured_card_can_be_played() -> None:
    for seed in range(30):
        view = craft_view(hand=["R5", "W", "W+4", "Y3"], legal=plays("R5", "W", "W+4"))
        assert RuleV1Bot().choose(view, random.Random(seed))["card"] == "R5"


def test_a_plain_wild_before_the_wild_draw_four_and_that_one_last() -> None:
    wild = choose(hand=["W", "W+4", "G2"], legal=plays("W", "W+4"))
    assert wild["card"] == "W" and wild["color"] in ("red", "yellow", "green", "blue")
    four = choose(hand=["W+4", "G2", "G4", "B1"], legal=plays("W+4"))
    assert four == {"type": "play", "card": "W+4", "color": "green"}


def test_the_random_play_counts_copies_as_rlcard_lists_them() -> None:
    """RLCard lists a playable card once per copy held: two R5 against one R7 is 2 to 1."""
    view = craft_view(hand=["R5", "R5", "R7"], legal=plays("R5", "R7"))
    picks = Counter(RuleV1Bot().choose(view, random.Random(seed))["card"] for seed in range(3000))
    assert 0.62 < picks["R5"] / 3000 < 0.71


def test_the_wild_draw_four_colour_is_the_most_common_ties_first_and_wilds_only_blue() -> None:
    assert most_common_colour(["R1", "Y2", "Y3", "W+4"]) == "yellow"
    assert most_common_colour(["R1", "G2", "W+4"]) == "red"  # a tie: the first in hand order
    assert most_common_colour(["W", "W+4"]) == "blue"  # RLCard counts its wilds as 'b'lack


def test_the_extra_decisions_of_this_engine() -> None:
    assert choose(
        pending={"kind": "draft", "seat": 0, "card": "G4"},
        legal=[{"type": "draft", "keep": True}, {"type": "draft", "keep": False}],
    ) == {"type": "draft", "keep": True}
    assert choose(pending={"kind": "wild_draw_four", "seat": 0}, legal=[{"type": "accept"}, {"type": "challenge"}]) == {
        "type": "accept"
    }
    volley = choose(pending={"kind": "volley", "seat": 0, "total": 2}, hand=["G+2", "R1"], legal=plays("G+2"))
    assert volley["card"] == "G+2"
    drawn = choose(
        pending={"kind": "drawn", "seat": 0, "card": "R9"},
        hand=["R9", "B1"],
        legal=[{"type": "play", "card": "R9"}, {"type": "pass"}],
    )
    assert drawn["card"] == "R9"
    dump = choose(
        pending={"kind": "dump", "seat": 0},
        hand=["G1", "G+2", "R3"],
        legal=[{"type": "dump", "cards": ["G1", "G+2"]}, {"type": "pass"}],
    )
    assert dump["type"] == "dump" and sorted(dump["cards"]) == ["G+2", "G1"] and "uno" in dump
    assert choose(hand=["R5"], legal=[{"type": "uno"}, *plays("R5")]) == {"type": "uno"}
    assert choose(hand=["R5", "B2"], legal=plays("R5"))["uno"] is True
