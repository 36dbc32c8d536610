"""The search playout (engine/search/playout.py) plays exactly as the Decider (issue 37, point 5).

Each example starts a match through the Decider under a random ruleset (uno-duo, classic-2p,
classic at 2-10 seats, each with random switches), plays a random way into it, lets seats leave
or time be called, then drives the Decider and a ``Playout`` of the same state with the same random
actions (the match's own dealer as the playout's chance), comparing legal moves, hands, piles,
scores and winners after every action (engine.search.agreement). The fast tier runs a few
thousand actions; the slow tier about a million, in two shards; ``unoduo bench playout-agreement``
runs millions (its figure is in docs/BENCHMARKS.md).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game.cards import Color, parse_card
from engine.game.commands import Play
from engine.game.rulesets import (
    CLASSIC,
    CLASSIC_2P,
    UNO_DUO,
    Ruleset,
    seats_allowed,
)
from engine.play.match import LocalMatch
from engine.play.selfplay import match_seed
from engine.search import playout as po
from engine.search.agreement import Disagreement, check_agrees, random_rules, run_agreement
from engine.search.playout import DealerChance, Playout, RandomChance
from tests.profiles import examples


def rules_of(seed: int) -> tuple[Ruleset, int]:
    """A ruleset with random switches and a table size it plays (engine.search.agreement.random_rules)."""
    return random_rules(random.Random(seed))


def _check(rules_seed: int, seed: int, actions: int, leave: int, call_time: bool) -> None:
    ruleset, seats = rules_of(rules_seed)
    run_agreement(ruleset, seats, seed, actions, leave=leave, call_time=call_time)


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32), st.integers(0, 8), st.booleans())
def test_the_playout_agrees_with_the_decider(rules_seed: int, seed: int, leave: int, call: bool) -> None:
    _check(rules_seed, seed, 400, leave, call and seed % 4 == 0)


LONG_RUN_SHARDS = 2  # the slow tier's sweep, in shards the two CI workers take one each


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(LONG_RUN_SHARDS))
@settings(max_examples=examples(200), deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32), st.integers(0, 8), st.booleans())
def test_the_playout_agrees_over_long_runs(shard: int, rules_seed: int, seed: int, leave: int, call: bool) -> None:
    """400 runs of up to 5,000 actions in all (about a million actions compared: a run ends with its
    match, about 2,400 actions on average); each shard draws its seeds from its own range, so no two shards
    compare the same run. The millions are ``unoduo bench playout-agreement``'s (docs/BENCHMARKS.md)."""
    offset = shard << 33
    _check(rules_seed + offset, seed + offset, 5000, leave, call and seed % 4 == 0)


@settings(max_examples=examples(50), deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32), st.integers(0, 8))
def test_the_playout_agrees_from_a_determinized_state(rules_seed: int, seed: int, leave: int) -> None:
    """From what search rolls out from: a determinization of one seat's knowledge (engine.search.knowledge)."""
    ruleset, seats = rules_of(rules_seed)
    run_agreement(ruleset, seats, seed, 400, leave=leave, determinized=True)


@pytest.mark.parametrize("seats", range(2, 11))
def test_every_table_size_of_the_standard_rulesets(seats: int) -> None:
    for ruleset in (UNO_DUO, CLASSIC_2P, CLASSIC):
        if seats in seats_allowed(ruleset):
            for seed in range(2):
                run_agreement(ruleset, seats, seed, 1500, leave=seed)


def test_a_difference_is_caught() -> None:
    """The comparison is no tautology: a playout one rule off is named at the first difference."""
    original = Playout._say_uno

    def lenient(self: Playout, seat: int) -> None:  # a caught seat draws one card fewer
        self.rules = replace(self.rules, uno_penalty=self.rules.uno_penalty - 1)
        original(self, seat)
        self.rules = replace(self.rules, uno_penalty=self.rules.uno_penalty + 1)

    Playout._say_uno = lenient  # type: ignore[method-assign]
    try:
        with pytest.raises(Disagreement, match="hands"):
            for seed in range(50):
                run_agreement(UNO_DUO, 2, seed, 3000, catch_rate=0.5)
    finally:
        Playout._say_uno = original  # type: ignore[method-assign]


def test_codes_and_actions_map_both_ways() -> None:
    state = LocalMatch.start(match_seed("codes", 0), UNO_DUO).state
    p = Playout.from_state(state)
    for code, action in po.card_tables(UNO_DUO).by_code.items():
        assert p.code_of(action) == code
        assert p.action_of(code) == action
    wild = parse_card("W")
    assert p.code_of(Play(wild, Color.GREEN, uno=True)) == p.code_of(Play(wild, Color.GREEN)) + po.PLAY_UNO


def test_a_clone_is_independent_and_a_playout_ends() -> None:
    state = LocalMatch.start(match_seed("clone", 0), CLASSIC, tuple("abcd"), seats=4).state
    rng = random.Random(0)
    first = Playout.from_state(state, rng)
    second = first.clone()
    while not first.over:
        first.play(rng.choice(first.legal()))
    assert second.round == state.round and not second.over and second.hands == [list(h) for h in state.hands]
    assert first.winner is not None and first.to_move() is None and first.legal() == []
    assert first.points_for(first.winner) >= CLASSIC.target


@settings(max_examples=examples(50), deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_new_match_deals_as_the_decider(rules_seed: int, seed: int) -> None:
    """``Playout.new_match`` with the match's dealer starts round 1 as the Decider does after the cut."""
    ruleset, seats = rules_of(rules_seed)
    entropies = tuple(f"e{i}" for i in range(seats))
    match = LocalMatch.start(match_seed("new", seed), ruleset, entropies, seats=seats if seats != 2 else None)
    assert match.state.player1 is not None
    chance = DealerChance(match.dealer, entropies)
    playout = Playout.new_match(ruleset, seats, random.Random(0), match.state.player1, chance)
    check_agrees(match.state, playout)


def test_stop_after_hand_leaves_the_hand_scored_and_deals_nothing() -> None:
    state = LocalMatch.start(match_seed("hand", 3), UNO_DUO).state
    rng = random.Random(3)
    stopping = Playout.from_state(state, chance=RandomChance(random.Random(9)))
    stopping.stop_after_hand = True
    going = stopping.clone()
    going.stop_after_hand = False
    going.chance = RandomChance(random.Random(9))  # a clone shares its origin's chance: the same shuffles here
    while stopping.to_move() is not None:
        code = rng.choice(stopping.legal())
        stopping.play(code)
        going.play(code)
    assert stopping.rounds_ended == going.rounds_ended == 1 and stopping.legal() == []
    assert stopping.scores == going.scores
    assert stopping.round == 1 and not stopping.over
    assert going.round == 2 and going.to_move() is not None
