"""A seat's knowledge and its determinizations (issue 37): built from the seat's own stream only.

For random self-play matches of every ruleset and table size, at every decision of every seat:
the determinized state shows that seat exactly its true view, and the determinization depends on
the seat's knowledge and the random stream only (the same for a world whose hidden cards differ).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.game.events import Event
from engine.game.rulesets import CLASSIC, CLASSIC_2P, UNO_DUO, DrawRule, Ruleset, WildDrawFourCheck
from engine.game.state import MatchState
from engine.play.selfplay import play_match
from engine.protocol.views import view
from engine.search.knowledge import SeatFold, determinize, is_token, knowledge_at, looking_at

TABLES = [
    (UNO_DUO, 2),
    (CLASSIC_2P, 2),
    (CLASSIC, 3),
    (CLASSIC, 5),
    (CLASSIC, 10),
    (replace(UNO_DUO, draw=DrawRule.UNTIL_PLAYABLE), 2),
    (replace(CLASSIC, wd4_check=WildDrawFourCheck.CHALLENGE), 4),
]


def _steps(ruleset: Ruleset, seats: int, index: int) -> tuple[list[Event], list[tuple[MatchState, list[Event]]]]:
    """One random self-play match: its opening events, then each state with the events that led to it."""
    steps: list[tuple[MatchState, list[Event]]] = []
    result = play_match(
        ["random"] * seats, replace(ruleset, target=60), "knowledge", index, on_step=lambda s, e: steps.append((s, e))
    )
    later = sum(len(events) for _, events in steps)
    return list(result.events[: len(result.events) - later]), steps


@pytest.mark.parametrize(("ruleset", "seats"), TABLES, ids=lambda x: getattr(x, "name", str(x)))
def test_a_determinization_shows_the_seat_its_true_view(ruleset: Ruleset, seats: int) -> None:
    opening, steps = _steps(ruleset, seats, 0)
    folds = [SeatFold(seat) for seat in range(seats)]
    for fold in folds:
        fold.see_all(opening)
    checked = 0
    for state, events in steps:
        for fold in folds:
            fold.see_all(events)
            true_view = view(state, fold.seat)
            world = determinize(fold.knowledge(looking_at(true_view)), random.Random(checked))
            assert view(world, fold.seat) == true_view
            assert not any(is_token(c) for c in (*world.draw_pile, *(c for hand in world.hands for c in hand)))
            assert sorted(
                (*world.draw_pile, *world.discard, *world.draft_pile, *(c for h in world.hands for c in h))
            ) == list(range(len(world.deck)))
            checked += 1
    assert checked > 50


def hidden_swapped(events: list[Event], seat: int) -> list[Event]:
    """The same events with every field this seat may not open changed (another hidden truth)."""
    from engine.record.sealing import seen_by

    out = []
    for event in events:
        visible = seen_by(event.type, event.data, seat)
        data = {k: (v if k in visible else ["something", "else"]) for k, v in event.data.items()}
        out.append(Event(event.type, data))
    return out


@pytest.mark.parametrize(("ruleset", "seats"), TABLES[:3], ids=lambda x: getattr(x, "name", str(x)))
def test_the_knowledge_never_depends_on_what_the_seat_did_not_receive(ruleset: Ruleset, seats: int) -> None:
    opening, steps = _steps(ruleset, seats, 1)
    log = list(opening)
    for number, (state, events) in enumerate(steps):
        log.extend(events)
        if number % max(1, len(steps) // 8):
            continue
        for seat in range(seats):
            pick = looking_at(view(state, seat))
            truth = knowledge_at(log, seat, looking_at=pick)
            other = knowledge_at(hidden_swapped(log, seat), seat, looking_at=pick)
            assert truth == other
            assert determinize(truth, random.Random(7)) == determinize(other, random.Random(7))
