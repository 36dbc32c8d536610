"""The estimator: each option's expected match points from the seat's knowledge, by flat Monte Carlo.

For sample ``i`` one world is dealt from the seat's knowledge by the coach's sampler
(``engine.bots.coach``: a determinization of ``engine.search.knowledge``; facing a Wild Draw
Four, one whose played hand was a bluff as often as that player's record says) and one stream of
chance is seeded; *every* option is then played in that same world with that same chance, and
the hand is played out on the fast playout core (``engine.search.playout``) by the coach's
playout policy (``engine.bots.coach.policy``); the end is valued in expected match points
(``engine.review.value``). The options share their luck sample by sample (common random
numbers), so the difference between two options is measured with far less noise than either
mean: :attr:`OptionEstimates.loss_stderr` is the standard error of the paired differences.

This is the coach's own root search (determinized flat Monte Carlo, what ``bot:coach-N`` does
with more or fewer worlds) valued by match points instead of the hand's point margin (the margin is kept too: the option
it picks is the coach's choice, for the agreement figure). It answers
"what does each option lead to if every seat then plays simply", which can understate an option
whose worth shows only with better play later (docs/REVIEW.md).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from engine.bots.coach import MAX_PLAYOUT_STEPS, margin, policy
from engine.bots.coach import _world as sample_world
from engine.game.commands import SeatAction
from engine.review.decisions import option_key
from engine.review.value import value_of
from engine.search.knowledge import SeatKnowledge
from engine.search.playout import DUMP, PLAY, PLAY_UNO, Playout, RandomChance


@dataclass(frozen=True, slots=True)
class Estimate:
    mean: float
    stderr: float
    samples: int


@dataclass(frozen=True, slots=True)
class OptionEstimates:
    """Every option's estimate, the best option, and the chosen option's loss against it."""

    by_option: dict[str, Estimate]
    best: str
    loss: float  # best mean minus the chosen option's mean (0 when the choice is the best)
    loss_stderr: float  # the standard error of that difference, from the paired samples
    coach: str  # the option the coach's own criterion picks in the same playouts (the hand's point margin)


def _mean_stderr(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def _code(root: Playout, seat: int, action: SeatAction) -> int:
    """The playout code of an option, with UNO said when it leaves one card (the seat would say it)."""
    code = root.code_of(action) & ~PLAY_UNO
    leaves_one = (code >= PLAY and len(root.hands[seat]) == 2) or code == DUMP
    return code + PLAY_UNO if leaves_one else code


def _play_hand_out(p: Playout, rng: random.Random) -> Playout:
    """``p`` played to the end of its hand by the playout policy."""
    ended = p.rounds_ended
    steps = 0
    while not p.over and p.rounds_ended == ended and steps < MAX_PLAYOUT_STEPS:
        p.play(policy(p, rng))
        steps += 1
    return p


def _value(p: Playout, seat: int) -> float:
    return value_of(p.scores, p.departed, p.rules, seat, p.winner if p.over else None)


def sample_values(
    knowledge: SeatKnowledge, options: tuple[SeatAction, ...], samples: int, rng: random.Random
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Per option, each sample's expected match points and the coach's value of it (the seat's
    point margin for the hand): one world and one chance stream shared by all options."""
    seat = knowledge.seat
    chance = RandomChance(rng)
    values: dict[str, list[float]] = {option_key(o): [] for o in options}
    margins: dict[str, list[float]] = {option_key(o): [] for o in options}
    for _ in range(samples):
        root = sample_world(knowledge, rng, chance)
        before = list(root.scores)
        seed = rng.getrandbits(64)
        for option in options:
            chance.rng = random.Random(seed)
            p = root.clone()
            p.play(_code(root, seat, option))
            _play_hand_out(p, chance.rng)
            values[option_key(option)].append(_value(p, seat))
            margins[option_key(option)].append(margin(p, seat, before))
        chance.rng = rng
    return values, margins


def estimate_options(
    knowledge: SeatKnowledge, options: tuple[SeatAction, ...], chosen: SeatAction, samples: int, rng: random.Random
) -> OptionEstimates:
    values, margins = sample_values(knowledge, options, samples, rng)
    by_option = {key: Estimate(*_mean_stderr(v), len(v)) for key, v in values.items()}
    chosen_key = option_key(chosen)
    best = max(by_option, key=lambda k: (by_option[k].mean, k == chosen_key))
    coach = max(margins, key=lambda k: (sum(margins[k]), k == chosen_key))
    diffs = [b - c for b, c in zip(values[best], values[chosen_key], strict=True)]
    loss, loss_stderr = _mean_stderr(diffs)
    return OptionEstimates(by_option, best, max(0.0, loss), loss_stderr, coach)


def deal_value(knowledge: SeatKnowledge, samples: int, rng: random.Random) -> Estimate:
    """The expected match points at the end of the hand with every seat playing the playout policy
    from the seat's knowledge: a hand's luck, before the seat's own decisions count."""
    chance = RandomChance(rng)
    values = [_value(_play_hand_out(sample_world(knowledge, rng, chance), rng), knowledge.seat) for _ in range(samples)]
    return Estimate(*_mean_stderr(values), samples)
