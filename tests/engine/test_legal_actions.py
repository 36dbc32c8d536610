"""``legal_actions``: the engine-object list behind ``view["legal"]`` and engine-core self-play.

Checked on states sampled from whole random matches (both rulesets): every listed action is
accepted, the JSON ``legal`` list is exactly its formatted form, and an action the list leaves
out is refused. The per-card tables it reads agree with the rule predicates of ``engine.game.rules``.
"""

from __future__ import annotations

import random

import pytest

from engine import CLASSIC_2P, UNO_DUO, CommandRefused, Dealer, decide, legal_commands
from engine.game.cards import COLOR_ORDER, Rank, canonical_deck, plays_on
from engine.game.commands import Draw, Pass, Play, SayUno, SeatAction, SeatCommand, format_action
from engine.game.deck_facts import deck_facts
from engine.game.legal import legal_actions
from tests.engine.test_refusals import SEAT0_CLASSIC, STATES, classic

DEALER = Dealer(b"f" * 32)


@pytest.mark.parametrize("index", range(0, len(STATES), 2))
def test_every_listed_action_is_accepted_and_json_legal_is_its_form(index: int) -> None:
    state = STATES[index]
    for seat in (0, 1):
        actions = legal_actions(state, seat)
        assert len(set(actions)) == len(actions), "an action is listed twice"
        for action in actions:
            events = decide(state, SeatCommand(seat, action), DEALER)
            assert events[0].type == "command" and events[0].data["command"] == format_action(action)
        colourless = []
        for action in actions:
            shown = format_action(action)
            if shown["type"] == "color" or (shown["type"] == "play" and shown["card"] in ("W", "W+4")):
                shown.pop("color")
            if shown not in colourless:
                colourless.append(shown)
        assert legal_commands(state, seat) == colourless


@pytest.mark.parametrize("index", range(1, len(STATES), 2))
def test_a_play_or_draw_the_list_leaves_out_is_refused(index: int) -> None:
    state = STATES[index]
    rng = random.Random(index)
    faces = sorted({card.code for card in state.deck})
    for seat in (0, 1):
        listed = set(legal_actions(state, seat))
        candidates: list[SeatAction] = [Draw(), Pass(), SayUno()]
        candidates += [
            Play(card, rng.choice(COLOR_ORDER) if card.is_wild else None)
            for card in (state.deck[[c.code for c in state.deck].index(code)] for code in faces)
        ]
        for action in candidates:
            if action in listed:
                continue
            with pytest.raises(CommandRefused):
                decide(state, SeatCommand(seat, action), DEALER)


def test_no_actions_for_a_bad_seat_or_a_finished_match() -> None:
    state = STATES[0]
    assert legal_actions(state, 2) == [] and legal_actions(state, -1) == []


@pytest.mark.parametrize("wild_count", [UNO_DUO.wild_count, CLASSIC_2P.wild_count])
def test_deck_tables_agree_with_the_cards_and_the_d5_predicate(wild_count: int) -> None:
    deck = canonical_deck(wild_count)
    facts = deck_facts(wild_count)
    assert facts.cards == deck
    for i, card in enumerate(deck):
        assert facts.codes[i] == card.code and facts.colors[i] is card.color and facts.ranks[i] is card.rank
        assert facts.wild[i] is card.is_wild
        assert (i in facts.wild_fours) == (card.rank is Rank.WILD_DRAW_FOUR)
        assert deck[facts.faces[i]] == card and facts.faces[i] <= i
        assert {play.card for play in facts.plays[i]} == {card}
        assert len(facts.plays[i]) == (4 if card.is_wild else 1)
    for color in (None, *COLOR_ORDER):
        for top in {c.rank: c for c in deck}.values():
            row = facts.matching[color][top.rank]
            assert row == tuple(plays_on(card, top.rank, color) for card in deck)


def test_an_enforced_wild_draw_four_is_listed_only_when_it_may_be_played() -> None:
    """D13c: classic-2p leaves out a W+4 that the hand's G5 (same number as R5) forbids; with the
    challenge switched back on (no_colour_match) the same W+4 is listed, in every colour."""
    hand = ["W+4", "G5", "B1", "Y2", "G3", "B7", "Y8"]
    enforced = classic(hand, SEAT0_CLASSIC, "R5").state
    fours = [a for a in legal_actions(enforced, 1) if isinstance(a, Play) and a.card.rank is Rank.WILD_DRAW_FOUR]
    assert fours == []
    challenge = classic(hand, SEAT0_CLASSIC, "R5", {"wd4_check": "challenge", "wd4_rule": "no_colour_match"}).state
    fours = [a for a in legal_actions(challenge, 1) if isinstance(a, Play) and a.card.rank is Rank.WILD_DRAW_FOUR]
    assert [a.color for a in fours] == list(COLOR_ORDER)
    allowed = classic(["W+4", "W", "B1", "Y2", "G3", "B7", "Y8"], SEAT0_CLASSIC, "R5").state
    assert any(isinstance(a, Play) and a.card.rank is Rank.WILD_DRAW_FOUR for a in legal_actions(allowed, 1))
