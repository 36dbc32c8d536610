"""Bots decide from a seat's view only: whole matches, both rulesets, each bot handed nothing but
its view as plain JSON, and every command it sends is one the engine accepts."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import engine.play.selfplay as selfplay
from engine import CLASSIC_2P, UNO_DUO, Phase, Ruleset
from engine.bots import get_bot
from engine.protocol.views import view
from tests.engine.bots.helpers import play_through_views

PAIRS = [("greedy", "random"), ("random", "greedy"), ("greedy", "greedy"), ("rule-v1", "greedy")]


@pytest.mark.parametrize("ruleset", [UNO_DUO, CLASSIC_2P], ids=lambda r: r.name)
@pytest.mark.parametrize("bots", PAIRS, ids="-".join)
def test_bots_play_whole_matches_from_json_views(bots: tuple[str, str], ruleset: Ruleset) -> None:
    for seed in range(3):
        match = play_through_views(bots, ruleset, seed=1000 * seed + 7)
        assert match.state.phase is Phase.MATCH_OVER
        assert match.events[-1].type == "seed_revealed"


def test_random_bots_finish_a_match_too() -> None:
    match = play_through_views(("random", "random"), UNO_DUO, seed=3)
    assert match.state.phase is Phase.MATCH_OVER


class Spy:
    """Wraps a bot; checks that what self-play hands it is exactly that seat's view, as plain data."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls = 0

    def choose(self, seen: Any, rng: random.Random) -> dict[str, Any]:
        assert type(seen) is dict
        assert json.loads(json.dumps(seen)) == seen  # plain JSON data, no engine object inside
        assert seen["hand"] is not None and "hands" not in seen and "draw_order" not in seen
        assert seen["legal"], "a bot is only asked when it has something to do"
        self.calls += 1
        return self.inner.choose(seen, rng)  # type: ignore[no-any-return]


def test_selfplay_hands_each_bot_only_its_seat_view(monkeypatch: pytest.MonkeyPatch) -> None:
    spies: list[Spy] = []
    seen_views: list[tuple[int, dict[str, Any]]] = []
    real_view = view

    def recording_view(state: Any, seat: Any) -> dict[str, Any]:
        out = real_view(state, seat)
        seen_views.append((seat, out))
        return out

    def spy_bot(name: str) -> Spy:
        spies.append(Spy(get_bot(name)))
        return spies[-1]

    monkeypatch.setattr(selfplay, "get_bot", spy_bot)
    monkeypatch.setattr(selfplay, "view", recording_view)
    result = selfplay.play_match(["greedy", "random"], UNO_DUO, 11, 0)
    assert sum(s.calls for s in spies) == result.actions == len(seen_views)
    assert all(v["viewer"] == seat for seat, v in seen_views)  # a seat's view, never the auditor's
