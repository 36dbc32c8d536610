"""A seat's knowledge and its determinizations (issue 37): built from the seat's own stream only.

For random self-play matches of every ruleset and table size, at every decision of every seat:
the determinized state shows that seat exactly its true view, and the determinization depends on
the seat's knowledge and the random stream only (the same for a world whose hidden cards differ).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
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


def _every_seat_at_every_step(ruleset: Ruleset, seats: int, index: int) -> Iterator[tuple[MatchState, SeatFold]]:
    """Each state of a random match, with each seat's fold of its stream up to that state."""
    opening, steps = _steps(ruleset, seats, index)
    folds = [SeatFold(seat) for seat in range(seats)]
    for fold in folds:
        fold.see_all(opening)
    for state, events in steps:
        for fold in folds:
            fold.see_all(events)
            yield state, fold


@pytest.mark.parametrize(("ruleset", "seats"), TABLES, ids=lambda x: getattr(x, "name", str(x)))
def test_a_determinization_shows_the_seat_its_true_view(ruleset: Ruleset, seats: int) -> None:
    checked = 0
    for state, fold in _every_seat_at_every_step(ruleset, seats, 0):
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


def _matching_exists(tokens: list[frozenset[str]], codes: list[str]) -> bool:
    """Can each token (the faces it cannot be) be given one of ``codes``, each code once?"""
    owner: dict[int, int] = {}

    def place(t: int, seen: set[int]) -> bool:
        for c, code in enumerate(codes):
            if code in tokens[t] or c in seen:
                continue
            seen.add(c)
            if c not in owner or place(owner[c], seen):
                owner[c] = t
                return True
        return False

    return all(place(t, set()) for t in range(len(tokens)))


@pytest.mark.parametrize(("ruleset", "seats"), [(UNO_DUO, 2), (CLASSIC, 4)], ids=str)
def test_what_a_seats_moves_showed_of_its_unseen_cards_is_true(ruleset: Ruleset, seats: int) -> None:
    """Every exclusion (a dump's colour, D10; an enforced Wild Draw Four's legality, D13c) holds of
    the true hidden cards: the tokens of each hand can be given the hand's true unseen faces."""
    excluded_somewhere = 0
    for state, fold in _every_seat_at_every_step(ruleset, seats, 2):
        knowledge = fold.knowledge(looking_at(view(state, fold.seat)))
        excluded = dict(knowledge.excluded)
        codes = state.facts.codes
        for other in range(seats):
            picture_hand = knowledge.picture.hands[other]
            tokens = [t for t in picture_hand if is_token(t)]
            if not any(t in excluded for t in tokens):
                continue
            excluded_somewhere += 1
            true_codes = [codes[i] for i in state.hands[other]]
            for card in picture_hand:
                if not is_token(card):
                    true_codes.remove(codes[card])
            faces = [frozenset(codes[i] for i in excluded.get(t, frozenset())) for t in tokens]
            assert _matching_exists(faces, true_codes), (fold.seat, other, state.version)
    assert excluded_somewhere > 0
