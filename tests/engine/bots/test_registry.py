"""Bots are chosen by name; adding one is one module; an unknown name is a clear error."""

from __future__ import annotations

import random

import pytest

from engine.bots import Bot, UnknownBotError, bot_names, get_bot, normalize_bot_name
from engine.bots.coach import CoachBot
from engine.bots.greedy import GreedyBot
from engine.bots.random_bot import RandomBot
from engine.bots.rule_v1 import RuleV1Bot


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("random", RandomBot),
        ("bot:random", RandomBot),
        ("greedy", GreedyBot),
        ("bot:greedy", GreedyBot),
        (" BOT:Greedy ", GreedyBot),
        ("bot:rule-v1", RuleV1Bot),
        ("bot:coach-3", CoachBot),
    ],
)
def test_bots_are_chosen_by_name(name: str, kind: type) -> None:
    bot = get_bot(name)
    assert isinstance(bot, kind)
    assert isinstance(bot, Bot)  # the Protocol: a name and choose(view, rng)


def test_the_registry_lists_every_bot_module() -> None:
    assert bot_names() == ["coach-1", "coach-2", "coach-3", "coach-4", "coach-5", "greedy", "random", "rule-v1"]
    assert normalize_bot_name("bot:random") == "random"


@pytest.mark.parametrize("name", ["minimax", "bot:", "", "bot:bot:greedy", "greedy,random"])
def test_an_unknown_bot_is_a_clear_error(name: str) -> None:
    with pytest.raises(UnknownBotError) as info:
        get_bot(name)
    message = str(info.value)
    assert "unknown bot" in message and "greedy, random" in message


def test_a_bot_with_nothing_legal_says_so() -> None:
    for name in bot_names():
        with pytest.raises(ValueError, match="no legal command"):
            get_bot(name).choose({"viewer": 0, "legal": [], "pending": {"kind": "none"}, "hand": []}, random.Random(0))
