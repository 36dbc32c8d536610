"""The hot-path fold gives exactly the states of the reference fold.

``engine.fastfold.fast_fold`` (one pass, one state at the end) is checked against
``engine.evolve.fold`` (every event applied in turn; itself checked against the Decider's
step-by-step states in tests/engine/test_properties.py), over many whole matches of both
rulesets, from any starting point of the log.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CLASSIC_2P, UNO_DUO, InvalidEventError
from engine.events import Event
from engine.evolve import fold
from engine.fastfold import fast_fold
from engine.selfplay import play_match

RULESETS = {"uno-duo": UNO_DUO, "classic-2p": CLASSIC_2P}
# random-vs-random rounds run to ~900 actions: a lower target keeps those matches short
SHORT = {name: replace(r, target=30) for name, r in RULESETS.items()}
PAIRS = [("greedy", "random"), ("greedy", "greedy"), ("random", "random")]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@lru_cache(maxsize=64)
def log_of(pair: tuple[str, str], ruleset: str, seed: int) -> tuple[Event, ...]:
    rules = SHORT[ruleset] if pair == ("random", "random") else RULESETS[ruleset]
    return play_match(list(pair), rules, seed, 0).events


@SETTINGS
@given(
    pair=st.sampled_from(PAIRS),
    ruleset=st.sampled_from(sorted(RULESETS)),
    seed=st.integers(0, 10**9),
    cut=st.floats(0, 1),
    stop=st.floats(0, 1),
)
def test_fast_fold_gives_exactly_the_reference_state(
    pair: tuple[str, str], ruleset: str, seed: int, cut: float, stop: float
) -> None:
    events = list(log_of(pair, ruleset, seed))
    final = fold(events)
    assert fast_fold(events) == final
    # from any point of the log (a stored snapshot), to the end or to any later point
    k = int(cut * len(events))
    middle = fold(events[:k])
    assert fast_fold(events[k:], middle) == final
    j = k + int(stop * (len(events) - k))
    assert fast_fold(iter(events[k:j]), middle) == fold(events[:j])



BAD_LOGS = {
    "unknown type": [Event("no_such_event", {})],
    "missing field": [Event("cut", {})],
    "card not in hand": [Event("card_played", {"seat": 0, "card": 5, "color": "red"})],
    "bad colour": [Event("color_chosen", {"seat": 0, "color": "purple"})],
    "bad pending kind": [Event("awaiting", {"seat": 0, "kind": "nap"})],
}


@pytest.mark.parametrize("name", sorted(BAD_LOGS))
def test_an_event_that_cannot_be_applied_fails_as_in_the_reference_fold(name: str) -> None:
    good = list(log_of(("greedy", "random"), "uno-duo", 1))[:40]
    events = good + BAD_LOGS[name]
    with pytest.raises(InvalidEventError) as reference:
        fold(events)
    with pytest.raises(InvalidEventError) as fast:
        fast_fold(events)
    assert str(fast.value) == str(reference.value)


def test_an_unknown_event_in_an_earlier_round_is_still_reported() -> None:
    log = list(log_of(("greedy", "random"), "uno-duo", 2))
    later = max(i for i, e in enumerate(log) if e.type == "round_started")
    events = log[:20] + [Event("no_such_event", {})] + log[later:]
    with pytest.raises(InvalidEventError, match="unknown event type 'no_such_event'"):
        fast_fold(events)
