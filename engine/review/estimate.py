"""The estimator: each option's expected match points from the seat's knowledge, by flat Monte Carlo.

For sample ``i`` one state is dealt from the seat's knowledge (``engine.review.knowledge``) and
one rollout dealer is seeded; *every* option is then played from that same state with that same
dealer and the hand is played out (``engine.review.rollout``), and the end is valued
(``engine.review.value``). The options therefore share their luck sample by sample (common
random numbers), so the difference between two options is measured with far less noise than
either mean: :attr:`OptionEstimates.loss_stderr` is the standard error of the paired differences.

This is a flat search with a greedy policy after the first move, not the coach's tree search:
it answers "what does each option lead to if both sides then play simply", which can understate
an option whose worth shows only with better play later (docs/REVIEW.md).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from engine.game.commands import SeatAction
from engine.game.state import MatchState
from engine.review.decisions import option_key
from engine.review.knowledge import determinize, seat_facts
from engine.review.rollout import apply, play_hand_out, rollout_dealer
from engine.review.value import match_value


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


def _mean_stderr(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


# A state dealt at random from the seat's knowledge (never from the true hidden cards).
Deal = Callable[[random.Random], MatchState]


def knowledge_deal(state: MatchState, seat: int) -> Deal:
    """The seat's knowledge in ``state``, as a dealer of consistent full states."""
    facts = seat_facts(state, seat)
    return lambda rng: determinize(facts, rng)


def sample_values(
    deal: Deal, round_number: int, seat: int, options: tuple[SeatAction, ...], samples: int, rng: random.Random
) -> dict[str, list[float]]:
    """Per option, the value of each sample (one determinization and one dealer shared by all options)."""
    out: dict[str, list[float]] = {option_key(o): [] for o in options}
    for _ in range(samples):
        dealt = deal(rng)
        dealer_seed = rng.getrandbits(64)
        for option in options:
            dealer = rollout_dealer(random.Random(dealer_seed))
            after = apply(dealt, seat, option, dealer)
            end = play_hand_out(after, dealer, round_number)
            out[option_key(option)].append(match_value(end, seat))
    return out


def estimate_options(
    deal: Deal,
    round_number: int,
    seat: int,
    options: tuple[SeatAction, ...],
    chosen: SeatAction,
    samples: int,
    rng: random.Random,
) -> OptionEstimates:
    values = sample_values(deal, round_number, seat, options, samples, rng)
    by_option = {key: Estimate(*_mean_stderr(v), len(v)) for key, v in values.items()}
    best = max(by_option, key=lambda k: (by_option[k].mean, k == option_key(chosen)))
    chosen_key = option_key(chosen)
    diffs = [b - c for b, c in zip(values[best], values[chosen_key], strict=True)]
    loss, loss_stderr = _mean_stderr(diffs)
    return OptionEstimates(by_option, best, max(0.0, loss), loss_stderr)


def deal_value(deal: Deal, round_number: int, seat: int, samples: int, rng: random.Random) -> Estimate:
    """The expected match points at the end of the hand with every seat playing the rollout
    policy from a state dealt by ``deal``: a hand's luck, before the seat's own decisions count."""
    values: list[float] = []
    for _ in range(samples):
        dealt = deal(rng)
        end = play_hand_out(dealt, rollout_dealer(rng), round_number)
        values.append(match_value(end, seat))
    return Estimate(*_mean_stderr(values), samples)
