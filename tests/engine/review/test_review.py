"""Game Review (issue 37): decisions, determinism, no hidden card read, finished matches only."""

from __future__ import annotations

import random
from dataclasses import replace
from functools import cache

import pytest

from engine.game.events import Event
from engine.game.rulesets import CLASSIC, UNO_DUO
from engine.game.state import MatchState, PendingKind, WildDrawFourContext
from engine.play.selfplay import play_match
from engine.review.decisions import decisions_of, option_key
from engine.review.knowledge import determinize, seat_facts
from engine.review.review import ReviewSettings, ReviewUnavailable, band_of, review_decision, review_seat
from engine.review.value import match_value

SMALL = ReviewSettings(samples=3)


@cache
def short_match(ruleset_name: str = "uno-duo", seats: int = 2) -> tuple[Event, ...]:
    ruleset = UNO_DUO if ruleset_name == "uno-duo" else CLASSIC
    return play_match(["greedy", "random", "greedy", "random"][:seats], replace(ruleset, target=40), 7, 0).events


def test_every_command_of_the_seat_is_a_decision_with_its_choice_among_its_options() -> None:
    events = short_match()
    for seat in (0, 1):
        decisions = decisions_of(events, seat)
        commands = [e for e in events if e.type == "command" and e.data["seat"] == seat]
        assert len(decisions) == len(commands)
        for d in decisions:
            assert option_key(d.chosen) in {option_key(o) for o in d.options}


def test_the_review_is_the_same_for_anyone_with_the_same_replay_and_settings() -> None:
    events = short_match()
    first, second = review_seat(events, 0, SMALL), review_seat(events, 0, SMALL)
    assert first == second
    assert first.reviewed > 0 and first.accuracy is not None
    assert [h.round for h in first.hands] == sorted({d.round for d in first.decisions} | {h.round for h in first.hands})


def test_a_live_match_has_no_review() -> None:
    events = short_match()
    with pytest.raises(ReviewUnavailable):
        review_seat(events[:-3], 0, SMALL)


def test_a_seat_not_at_the_table_has_no_review() -> None:
    with pytest.raises(ReviewUnavailable):
        review_seat(short_match(), 2, SMALL)


def _other_cards_redealt(state: MatchState, seat: int, rng: random.Random) -> MatchState:
    """The same moment with every card the seat cannot see dealt again (hands and draw pile)."""
    keep_top = state.pending.kind is PendingKind.DRAFT and state.pending.seat == seat
    pile = list(state.draw_pile[1:] if keep_top else state.draw_pile)
    pool = pile + [c for s, hand in enumerate(state.hands) if s != seat for c in hand]
    rng.shuffle(pool)
    hands = []
    for s, hand in enumerate(state.hands):
        if s == seat:
            hands.append(hand)
        else:
            hands.append(tuple(pool[: len(hand)]))
            pool = pool[len(hand) :]
    draw_pile = (state.draw_pile[0], *pool) if keep_top else tuple(pool)
    wd4 = state.wd4
    if wd4 is not None:
        wd4 = WildDrawFourContext(wd4.player, hands[wd4.player], wd4.top_before, wd4.color_before)
    return replace(state, hands=tuple(hands), draw_pile=draw_pile, wd4=wd4)


@pytest.mark.parametrize(("ruleset", "seats"), [("uno-duo", 2), ("classic", 3)])
def test_the_review_of_a_seat_never_reads_the_other_hidden_cards(ruleset: str, seats: int) -> None:
    events = short_match(ruleset, seats)
    rng = random.Random(1)
    checked = 0
    for d in decisions_of(events, 0):
        if d.forced or d.state.pending.kind is PendingKind.DRAWN:
            continue
        twin = replace(d, state=_other_cards_redealt(d.state, 0, rng))
        assert twin.state.hands[1] != d.state.hands[1] or not d.state.hands[1]
        assert seat_facts(twin.state, 0) == seat_facts(d.state, 0)
        assert review_decision(twin, SMALL) == review_decision(d, SMALL)
        checked += 1
        if checked == 12:
            break
    assert checked > 0


def test_a_determinization_keeps_what_the_seat_sees_and_every_count() -> None:
    for d in decisions_of(short_match(), 1)[::7]:
        dealt = determinize(seat_facts(d.state, 1), random.Random(3))
        faces = d.state.facts.faces
        assert [faces[c] for c in dealt.hands[1]] == [faces[c] for c in d.state.hands[1]]
        assert [faces[c] for c in dealt.discard] == [faces[c] for c in d.state.discard]
        assert [len(h) for h in dealt.hands] == [len(h) for h in d.state.hands]
        assert len(dealt.draw_pile) == len(d.state.draw_pile)
        assert (
            sorted(c for h in dealt.hands for c in h) + sorted(dealt.draw_pile + dealt.discard + dealt.draft_pile) != []
        )
        assert (
            len(set(dealt.draw_pile) | {c for h in dealt.hands for c in h} | set(dealt.discard) | set(dealt.draft_pile))
            == dealt.ruleset.deck_size
        )


def test_equal_totals_are_worth_an_equal_share() -> None:
    assert match_value(MatchState(), 0) == pytest.approx(0.5)
    assert match_value(replace(MatchState(), scores=(190, 0)), 0) < 0.2  # uno-duo: the target loses


def test_a_loss_inside_the_noise_is_not_flagged() -> None:
    assert band_of(0.3, 0.2) is None
    assert band_of(0.3, 0.01) == "blunder"
    assert band_of(0.12, 0.01) == "mistake"
    assert band_of(0.06, 0.01) == "inaccuracy"
    assert band_of(0.04, 0.0) is None
