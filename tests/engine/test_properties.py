"""Property tests over thousands of random legal games (hypothesis).

Each example plays a whole match (cut, draft or deal, play, rounds, scoring, match end, seed
reveal) with random legal commands, and checks at every step:
- every physical card is in exactly one place (112 or 108);
- no seat's view changes when hidden cards are swapped (so it holds no hidden card);
- the state folded from the stored events equals the state reached step by step;
- the same seed and commands give the same events, and the audit re-run accepts the log;
- the match ends with scores that follow from the round results.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    AUDITOR,
    CLASSIC_2P,
    SPECTATOR,
    UNO_DUO,
    Dealer,
    LocalMatch,
    MatchState,
    Phase,
    Ruleset,
    fold,
    view,
)
from engine.fairness.audit import rerun
from engine.game.rulesets import Scoring
from engine.game.state import PendingKind
from engine.record.sealing import may_open, split
from tests.engine.playing import play_match, short
from tests.profiles import examples

RULESETS = st.sampled_from([UNO_DUO, CLASSIC_2P])
FAST = settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def all_places(state: MatchState) -> list[int]:
    return [
        *state.draw_pile,
        *state.draft_pile,
        *state.discard,
        *state.hands[0],
        *state.hands[1],
    ]


def check_cards_accounted(state: MatchState) -> None:
    places = all_places(state)
    assert sorted(places) == list(range(state.ruleset.deck_size)), "a card is missing or doubled"


def swap_hidden(state: MatchState, seat: int, rng: random.Random) -> MatchState | None:
    """Swap one card hidden from ``seat`` (opponent's hand) with one in the draw pile."""
    opponent_hand = list(state.hands[1 - seat])
    protected = 1 if state.pending.kind is PendingKind.DRAFT else 0  # the peeked card is the drafter's
    pile = list(state.draw_pile[protected:])
    if not opponent_hand or not pile:
        return None
    a = rng.choice(opponent_hand)
    b = rng.choice(pile)
    if state.deck[a] == state.deck[b]:
        return None
    if state.pending.card in (a, b) or (state.wd4 is not None and a in state.wd4.hand):
        return None
    hand = tuple(sorted(b if c == a else c for c in state.hands[1 - seat]))
    hands = (state.hands[0], hand) if seat == 0 else (hand, state.hands[1])
    draw_pile = tuple(a if c == b else c for c in state.draw_pile)
    return replace(state, hands=hands, draw_pile=draw_pile)


def check_views_hide(state: MatchState, rng: random.Random) -> None:
    for seat in (0, 1):
        own = view(state, seat)
        assert "hands" not in own and "draw_order" not in own
        assert own["hand"] == [state.deck[i].code for i in state.hands[seat]]
        swapped = swap_hidden(state, seat, rng)
        if swapped is not None:
            assert view(swapped, seat) == own, "a seat's view depends on a card it cannot see"
    spectator = view(state, SPECTATOR)
    assert spectator["hand"] is None and spectator["legal"] == []
    audit = view(state, AUDITOR)
    assert sorted(map(len, audit["hands"])) == sorted(map(len, state.hands))


ID_FIELDS = {"card", "cards", "deck", "set_aside", "hand_card", "pile_card"}  # physical card ids


def check_events_hide(events: list[Any], seat: int) -> None:
    """Split as the store splits: no hidden field and no physical id in the clear, and a seat is
    opened exactly its own hidden cards (the schema's ``Sealed`` marks)."""
    for event in events:
        public, hidden = split(event.type, event.data)
        assert not ID_FIELDS & set(public), f"{event.type} names a physical card in public data"
        opened = {name for name in hidden if may_open(event.type, public, name, seat)}
        owner = public.get("seat")
        expected: set[str] = set()
        if event.type == "cards_drawn" and owner == seat:
            expected = {"codes"}
        elif event.type in ("drafted", "seat_joined") and owner == seat:
            expected = {"hand_code"} if event.type == "drafted" else {"entropy"}
        elif event.type == "cards_dealt":
            expected = {f"hand{seat}"}
        elif event.type == "awaiting" and "code" in hidden and owner == seat:
            expected = {"code"}
        elif event.type == "challenge_resolved" and public["by"] == seat:
            expected = {"hand", "matching"}
        assert opened == expected, f"{event.type}: seat {seat} is opened {opened}, not {expected}"


def check_scores(match: LocalMatch) -> None:
    state = match.state
    ruleset = state.ruleset
    totals = [0, 0]
    rounds = 0
    for event in match.events:
        if event.type == "round_ended":
            rounds += 1
            if event.data["winner"] is not None:  # None: a blocked round of equal hands (D17)
                scorer = event.data["loser"] if ruleset.scoring is Scoring.LOSER_SCORES else event.data["winner"]
                totals[scorer] += event.data["points"]
            assert event.data["scores"] == totals
    assert list(state.scores) == totals
    assert state.round == rounds
    winner = state.winner
    assert winner is not None
    if ruleset.scoring is Scoring.LOSER_SCORES:
        assert totals[1 - winner] >= ruleset.target > totals[winner]
    else:
        assert totals[winner] >= ruleset.target > totals[1 - winner]
    last = match.events[-1]
    assert last.type == "seed_revealed"
    assert hashlib.sha256(bytes.fromhex(last.data["server_seed"])).hexdigest() == state.commitment


def run_checked(seed: int, ruleset: Ruleset, bias: float) -> LocalMatch:
    rng = random.Random(seed ^ 0x5EED)
    step = [0]

    def on_step(match: LocalMatch, seat: int, command: dict[str, Any], events: list[Any]) -> None:
        step[0] += 1
        state = match.state
        check_cards_accounted(state)
        check_events_hide(events, 0)
        check_events_hide(events, 1)
        if step[0] % 7 == 0 and state.phase is not Phase.MATCH_OVER:
            check_views_hide(state, rng)

    match = play_match(seed, ruleset, bias, on_step=on_step)
    assert fold(match.events) == match.state
    check_scores(match)
    return match


@pytest.mark.slow
@FAST
@given(seed=st.integers(0, 2**32), ruleset=RULESETS, bias=st.sampled_from([0.5, 0.8, 0.95]))
def test_whole_short_matches_keep_every_invariant(seed: int, ruleset: Ruleset, bias: float) -> None:
    """Thousands of whole matches (target lowered so most end in a round or two)."""
    run_checked(seed, short(ruleset, 25), bias)


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), ruleset=RULESETS)
def test_whole_matches_to_the_real_target(seed: int, ruleset: Ruleset) -> None:
    run_checked(seed, ruleset, 0.9)


# Shares of decisions that run out of time: none, a few (runs of timeouts that outlive rounds),
# and many (most such matches end by forfeit).
TIMEOUT_RATES = st.sampled_from([0.0, 0.1, 0.3])


@settings(max_examples=examples(150), deadline=None)
@given(seed=st.integers(0, 2**32), ruleset=RULESETS, timeout_rate=TIMEOUT_RATES)
def test_same_seed_and_commands_give_the_same_events_and_the_log_reruns(
    seed: int, ruleset: Ruleset, timeout_rate: float
) -> None:
    first = play_match(seed, short(ruleset, 30), 0.8, timeout_rate=timeout_rate)
    second = play_match(seed, short(ruleset, 30), 0.8, timeout_rate=timeout_rate)
    assert first.events == second.events
    assert rerun(first.events, Dealer(seed.to_bytes(32, "big"))) is None


@settings(max_examples=examples(150), deadline=None)
@given(seed=st.integers(0, 2**32), ruleset=RULESETS, cut=st.data(), timeout_rate=TIMEOUT_RATES)
def test_folding_any_prefix_equals_the_state_reached_step_by_step(
    seed: int, ruleset: Ruleset, cut: st.DataObject, timeout_rate: float
) -> None:
    """fold() skips the effects a later round start resets: it must still land on the same state,
    ``timeouts`` included (a round start does not reset them, so the fold carries them)."""
    states: list[MatchState] = []

    def on_step(match: LocalMatch, seat: int, command: dict[str, Any], events: list[Any]) -> None:
        states.append(match.state)

    target = 60 if ruleset is UNO_DUO else 150
    match = play_match(seed, short(ruleset, target), 0.8, on_step=on_step, timeout_rate=timeout_rate)
    heads = [i for i, e in enumerate(match.events) if e.type in ("command", "timed_out")]
    assert len(heads) == len(states)
    k = cut.draw(st.integers(0, len(heads) - 1))
    prefix = match.events[: heads[k + 1]] if k + 1 < len(heads) else match.events
    assert fold(prefix) == states[k]
    assert fold(prefix).timeouts == states[k].timeouts


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 2**32), ruleset=RULESETS)
def test_timeouts_outlive_a_round_in_the_fold(seed: int, ruleset: Ruleset) -> None:
    """Every state of a match with timeouts, folded from its prefix, equals the one reached step by
    step: so also the states where a run of timeouts was begun in an earlier round."""
    states: list[MatchState] = []

    def on_step(match: LocalMatch, seat: int, command: dict[str, Any], events: list[Any]) -> None:
        states.append(match.state)

    match = play_match(seed, short(ruleset, 40 if ruleset is UNO_DUO else 100), 0.8, on_step=on_step, timeout_rate=0.2)
    heads = [i for i, e in enumerate(match.events) if e.type in ("command", "timed_out")]
    ends = [*heads[1:], len(match.events)]
    for end, state in zip(ends, states, strict=True):
        if state.round > 1 and any(state.timeouts):
            assert fold(match.events[:end]) == state


def test_hand_points_follow_the_ruleset_tables() -> None:
    match = play_match(7, short(UNO_DUO, 1), 0.9)
    ended = next(e for e in match.events if e.type == "round_ended")
    deck = match.state.deck
    table = {"S": 10, "R": 10, "+2": 10, "W": 15, "W+4": 20}
    expected = 0
    for code in ended.data["loser_hand"]:
        rank = code if code.startswith("W") else code[1:]
        expected += table.get(rank, 0) if not rank.isdigit() else int(rank)
    assert ended.data["points"] == expected
    assert len(deck) == 112
