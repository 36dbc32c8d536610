"""``bot:rule-v1`` decides as RLCard's own ``UNORuleAgentV1`` does, checked in RLCard's own game.

RLCard's agents play whole games of ``rlcard.make("uno")``; at every decision the same hand and
the same playable cards are put to our bot as this engine would list them (every playable card
once, any Wild or Wild Draw Four held, and ``draw``). Its answer must be one RLCard's agent could
give: the same ``draw``, the same Wild Draw Four with the same colour, or a card of RLCard's
random choice (wilds left out while a coloured card can be played). Skipped where RLCard is not
installed (it comes with the ``bench`` extra).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.engine.bots.helpers import craft_view

numpy = pytest.importorskip("numpy")
rlcard = pytest.importorskip("rlcard")
rule_models = pytest.importorskip("rlcard.models.uno_rule_models")

from engine.bots.rule_v1 import RuleV1Bot  # noqa: E402

COLOUR = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}
TRAIT = {"skip": "S", "reverse": "R", "draw_2": "+2"}


def code(rlcard_card: str) -> str:
    """RLCard's ``r-draw_2`` -> our ``R+2``; ``r-wild`` -> ``W``, ``r-wild_draw_4`` -> ``W+4``."""
    colour, trait = rlcard_card.split("-")
    if trait == "wild":
        return "W"
    if trait == "wild_draw_4":
        return "W+4"
    return colour.upper() + TRAIT.get(trait, trait)


def rlcard_choices(hand: list[str], legal: list[str]) -> set[tuple[str, str | None]]:
    """What UNORuleAgentV1.step may answer, as (our command type or card, colour for a W+4)."""
    agent = rule_models.UNORuleAgentV1
    if "draw" in legal:
        return {("draw", None)}
    if any(a.split("-")[1] == "wild_draw_4" for a in legal):
        if all("wild" in card for card in hand) and any(card[0] != "b" for card in hand):
            # A wild that was played before a reshuffle keeps the colour it was given in RLCard,
            # and a hand of wilds only names that: a trace of the card's past our view does not carry.
            return {("W+4", colour) for colour in COLOUR.values()}
        counts = agent.count_colors(agent.filter_wild(hand))
        return {("W+4", COLOUR[max(counts, key=counts.get)])}
    return {(code(a), None) for a in agent.filter_wild(legal)}


def our_view(hand: list[str], legal: list[str]) -> dict[str, Any]:
    ours = [code(c) for c in hand]
    playable = {code(a) for a in legal if a != "draw"} | ({"W", "W+4"} & set(ours))
    commands = [{"type": "play", "card": c} for c in sorted(playable)] + [{"type": "draw"}]
    return craft_view(hand=ours, legal=commands)


def test_every_decision_is_one_rlcards_agent_could_make() -> None:
    agent, ours = rule_models.UNORuleAgentV1(), RuleV1Bot()
    numpy.random.seed(37)  # RLCard's agent draws from NumPy's global stream
    rng = random.Random(37)
    decisions = 0
    seen: set[str] = set()
    for seed in range(60):
        env = rlcard.make("uno", config={"seed": seed})
        state, _ = env.reset()
        while not env.is_over():
            hand, legal = state["raw_obs"]["hand"], state["raw_legal_actions"]
            mine = ours.choose(our_view(hand, legal), rng)
            answer = (mine["type"], None) if mine["type"] == "draw" else (mine["card"], None)
            if mine.get("card") == "W+4":
                answer = ("W+4", mine["color"])
            assert answer in rlcard_choices(hand, legal), (hand, legal, mine)
            seen.add(answer[0] if answer[0] in ("draw", "W", "W+4") else "coloured")
            decisions += 1
            state, _ = env.step(agent.step(state), True)
    assert decisions > 1000 and len(seen) == 4  # draws, coloured cards, Wilds and Wild Draw Fours all met
