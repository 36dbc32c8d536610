"""A round's hands and its starter must fit in the deck, at every table size a ruleset allows
(issue 32, point 4): ``classic`` at ten seats with ``hand_size`` 11 dealt 110 of 108 cards and
crashed turning the starter (``IndexError`` in ``_turn_starter``). ``seats_allowed`` now stops
where the deck runs out, so every path that takes rules and a table size refuses it (the
Decider's ``create``, ``unoduo scenario``, ``unoduo simulate``, tournaments), and what it allows
always deals and turns a starter."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.game.errors import CommandRefused, ScenarioError
from engine.game.rulesets import (
    CLASSIC,
    CLASSIC_2P,
    MAX_HAND_SIZE,
    MAX_SEATS,
    UNO_DUO,
    Ruleset,
    RulesetError,
    cards_before_play,
    check_seats,
    deal_problem,
    seats_allowed,
)
from engine.play.match import LocalMatch
from engine.play.scenario import run_scenario

SEED = b"s" * 32


@pytest.mark.parametrize("hand_size", range(1, MAX_HAND_SIZE + 1))
@pytest.mark.parametrize("base", [UNO_DUO, CLASSIC_2P, CLASSIC, replace(UNO_DUO, deck_size=108)], ids=lambda r: r.name)
def test_every_table_a_ruleset_allows_deals_and_turns_a_starter_and_the_next_would_not_fit(
    base: Ruleset, hand_size: int
) -> None:
    ruleset = replace(base, hand_size=hand_size)
    allowed = seats_allowed(ruleset)
    for seats in allowed:
        assert cards_before_play(ruleset, seats) <= ruleset.deck_size and deal_problem(ruleset, seats) is None
        check_seats(ruleset, seats)
    if len(allowed) > 1:  # a dealt table: the next size up is the first the deck cannot hold, or past 10
        bigger = allowed.stop
        assert bigger > MAX_SEATS or cards_before_play(ruleset, bigger) > ruleset.deck_size
        with pytest.raises(RulesetError):
            check_seats(ruleset, bigger)


@pytest.mark.parametrize(("hand_size", "most"), [(7, 10), (10, 10), (11, 9), (12, 8), (15, 7), (20, 5)])
def test_classic_tables_shrink_as_hands_grow(hand_size: int, most: int) -> None:
    ruleset = replace(CLASSIC, hand_size=hand_size)
    assert seats_allowed(ruleset) == range(2, most + 1)
    LocalMatch.start(SEED, ruleset, ("",) * most, seats=most)  # the largest table deals whole


def test_ten_hands_of_eleven_are_refused_with_the_reason_not_dealt() -> None:
    ruleset = replace(CLASSIC, hand_size=11)
    with pytest.raises(RulesetError, match="hand_size 11 at 10 seats deals 110 cards") as refused:
        check_seats(ruleset, 10)
    assert "at 10 seats hand_size is at most 10" in str(refused.value) and "at most 9 seats" in str(refused.value)
    with pytest.raises(CommandRefused, match="2 to 9 seats, not 10"):  # the Decider's create, before any deal
        LocalMatch.start(SEED, ruleset, ("",) * 10, seats=10)
    with pytest.raises(ScenarioError, match="rules: hand_size 11 at 10 seats"):
        run_scenario({"ruleset": "classic", "seats": 10, "rules": {"hand_size": 11}})
    run_scenario({"ruleset": "classic", "seats": 9, "rules": {"hand_size": 11}})


def test_a_two_seat_ruleset_is_still_refused_other_tables_by_its_own_words() -> None:
    with pytest.raises(RulesetError, match="uno-duo is played by 2 to 2 seats, not 3"):
        check_seats(UNO_DUO, 3)
