"""Game Review (issue 37): decisions, determinism, no hidden card read, finished matches only."""

from __future__ import annotations

import random
from dataclasses import replace
from functools import cache
from typing import Any

import pytest

from engine.game.events import SCHEMAS, Event
from engine.game.legal import legal_actions
from engine.game.rulesets import CLASSIC, UNO_DUO
from engine.game.state import MatchState
from engine.play.selfplay import play_match
from engine.record.sealing import may_open
from engine.review.decisions import bluff, decisions_of, option_key
from engine.review.review import ReviewSettings, ReviewUnavailable, band_of, review_seat
from engine.review.value import match_value
from engine.search.knowledge import determinize

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
        assert any(d.kind == "draft" and not d.forced for d in decisions)


def test_the_review_is_the_same_for_anyone_with_the_same_replay_and_settings() -> None:
    events = short_match()
    first, second = review_seat(events, 0, SMALL), review_seat(events, 0, SMALL)
    assert first == second
    assert first.reviewed > 0 and first.accuracy is not None and first.hands
    assert review_seat(events, 0, ReviewSettings(samples=4)) != first  # the settings seed the review too


def test_a_live_match_has_no_review() -> None:
    with pytest.raises(ReviewUnavailable):
        review_seat(short_match()[:-3], 0, SMALL)


def test_a_seat_not_at_the_table_has_no_review() -> None:
    with pytest.raises(ReviewUnavailable):
        review_seat(short_match(), 2, SMALL)


def _scrambled(value: Any) -> Any:
    if isinstance(value, list):
        return [_scrambled(v) for v in reversed(value)] if len(set(map(str, value))) > 1 else ["R0"] * len(value)
    if isinstance(value, int):
        return value + 1
    return "B9" if value != "B9" else "G1"


def hidden_from(events: tuple[Event, ...], seat: int) -> tuple[tuple[Event, ...], int]:
    """The events with every sealed field ``seat`` may not open changed (other hands, the deck,
    the card ids), and how many fields were changed."""
    out: list[Event] = []
    changed = 0
    for event in events:
        schema = SCHEMAS.get(event.type)
        data = dict(event.data)
        for name in schema.sealed if schema is not None else ():
            if name in data and not may_open(event.type, event.data, name, seat):
                data[name] = _scrambled(data[name])
                changed += data[name] != event.data[name]
        out.append(Event(event.type, data))
    return tuple(out), changed


@pytest.mark.parametrize(("ruleset", "seats"), [("uno-duo", 2), ("classic", 3)])
def test_the_review_of_a_seat_never_reads_what_that_seat_could_not_see(ruleset: str, seats: int) -> None:
    events = short_match(ruleset, seats)
    other_truth, changed = hidden_from(events, 0)
    assert changed > 20  # the other hands, every card id, the deck order
    assert review_seat(other_truth, 0, SMALL) == review_seat(events, 0, SMALL)


def test_equal_totals_are_worth_an_equal_share() -> None:
    assert match_value(MatchState(), 0) == pytest.approx(0.5)
    assert match_value(replace(MatchState(), scores=(190, 0)), 0) < 0.2  # uno-duo: the target loses
    table = replace(CLASSIC, target=500)
    four: dict[str, Any] = {"seats": 4, "ruleset": table, "scores": (0,) * 4, "hands": ((),) * 4}
    four |= {k: (v,) * 4 for k, v in (("entropies", None), ("uno_said", False), ("uno_open", False))}
    four |= {"departed": (False,) * 4, "timeouts": (0,) * 4}
    assert match_value(MatchState(**four), 2) == pytest.approx(0.25)


def test_a_loss_inside_the_noise_is_not_flagged() -> None:
    assert band_of(0.3, 0.2) is None
    assert band_of(0.3, 0.01) == "blunder"
    assert band_of(0.12, 0.01) == "mistake"
    assert band_of(0.06, 0.01) == "inaccuracy"
    assert band_of(0.04, 0.0) is None


def test_a_bluffed_wild_draw_four_is_never_offered_as_the_better_option() -> None:
    events = play_match(["random", "random"], UNO_DUO, 4, 0).events
    offered_elsewhere = 0
    for seat in (0, 1):
        for d in decisions_of(events, seat):
            probe = determinize(d.knowledge, random.Random(0))
            legal = {option_key(a): a for a in legal_actions(probe, seat)}
            listed = {option_key(o) for o in d.options}
            for key, action in legal.items():
                if bluff(probe, seat, action):
                    assert (key in listed) == (key == option_key(d.chosen))
                    offered_elsewhere += key != option_key(d.chosen)
    assert offered_elsewhere > 0  # the rules allowed bluffs the review did not offer


def test_accuracy_is_lichess_formula_on_the_loss_in_percentage_points() -> None:
    from engine.review.review import decision_accuracy

    assert decision_accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert [round(decision_accuracy(loss), 1) for loss in (0.05, 0.10, 0.20)] == [79.8, 63.6, 40.0]
    assert decision_accuracy(1.0) == 0.0
