"""A seat's Game Review: every decision's loss in expected match points, banded; accuracy; luck.

Bands (chess.com's, which carry over because the unit is the same: expected match points, the
chance of winning the match): a loss of 0.05 to 0.10 is an *inaccuracy*, 0.10 to 0.20 a
*mistake*, 0.20 or more a *blunder*. A loss is banded only when it is also more than twice its
standard error: a loss inside the estimator's noise is not flagged.

Deterministic: each decision's random stream is seeded from the match's public commitment (its
first event), the seat, the decision's place in the log and the settings; never from the
hidden seed. Anyone reviewing the same replay with the same settings gets the same review.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.game.events import Event, EventType
from engine.game.evolve import evolve
from engine.game.state import INITIAL_STATE
from engine.review.decisions import Decision, decisions_of, option_key
from engine.review.estimate import deal_value, estimate_options
from engine.review.value import value_of

BANDS: tuple[tuple[str, float], ...] = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))
NOISE_SIGMAS = 2.0
DEFAULT_SAMPLES = 64
MAX_SAMPLES = 400
REVIEW_VERSION = 2  # part of the seed and the cache key: a new estimator gives a new review


class ReviewUnavailable(ValueError):
    """The match is not over (no review of a live match), or the seat is not at the table."""


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    samples: int = DEFAULT_SAMPLES  # determinizations per decision; every option is played from each

    def __post_init__(self) -> None:
        if not 1 <= self.samples <= MAX_SAMPLES:
            raise ValueError(f"samples must be between 1 and {MAX_SAMPLES}")

    def words(self) -> str:
        return f"v{REVIEW_VERSION}:samples={self.samples}"


@dataclass(frozen=True, slots=True)
class OptionLine:
    option: dict[str, Any]
    mean: float
    stderr: float


@dataclass(frozen=True, slots=True)
class DecisionReview:
    seq: int
    round: int
    kind: str
    chosen: dict[str, Any]
    best: dict[str, Any]
    loss: float
    loss_stderr: float
    band: str | None
    options: tuple[OptionLine, ...]
    coach: dict[str, Any]  # the coach's choice in the same playouts (its criterion: the hand's point margin)

    @property
    def agrees(self) -> bool:
        """The choice is the coach's: the top level's criterion, over the review's worlds."""
        return self.chosen == self.coach


@dataclass(frozen=True, slots=True)
class HandReview:
    """One hand for the seat: what the deal was worth before its decisions, and what it got."""

    round: int
    before: float  # expected match points when the hand began (the scores so far)
    deal: float  # expected match points at the hand's end from the deal, with simple play by all
    deal_stderr: float
    after: float  # expected match points once the hand was scored
    points: int  # the seat's score change in the hand

    @property
    def luck(self) -> float:
        """The deal's worth to the seat: ``deal - before`` (positive: a good deal)."""
        return self.deal - self.before


@dataclass(frozen=True)
class SeatReview:
    seat: int
    settings: ReviewSettings
    decisions: tuple[DecisionReview, ...]
    forced: int  # decisions with one option only (not reviewed)
    hands: tuple[HandReview, ...] = field(default=())

    @property
    def reviewed(self) -> int:
        return len(self.decisions)

    def count(self, band: str) -> int:
        return sum(1 for d in self.decisions if d.band == band)

    @property
    def accuracy(self) -> float | None:
        """The mean of :func:`decision_accuracy` over the reviewed decisions; None with none reviewed."""
        if not self.decisions:
            return None
        return sum(decision_accuracy(d.loss) for d in self.decisions) / len(self.decisions)

    @property
    def average_loss(self) -> float | None:
        if not self.decisions:
            return None
        return sum(d.loss for d in self.decisions) / len(self.decisions)

    @property
    def agreement(self) -> float | None:
        """Share of reviewed decisions where the choice was the coach's (:attr:`DecisionReview.agrees`)."""
        if not self.decisions:
            return None
        return sum(1 for d in self.decisions if d.agrees) / len(self.decisions)


def decision_accuracy(loss: float) -> float:
    """Lichess's accuracy of a move (0 to 100) from the drop in winning chances it caused, in
    percentage points: ``103.1668 * exp(-0.04354 * drop) - 3.1669``. Chess's formula carries over
    because the unit is the same; 0 loss is 100, a 0.05 loss (an inaccuracy's floor) 79.8, 0.10
    (a mistake) 63.6, 0.20 (a blunder) 40.0."""
    return max(0.0, min(100.0, 103.1668100711649 * math.exp(-0.04354415386753951 * 100 * loss) - 3.166924740191411))


def band_of(loss: float, loss_stderr: float) -> str | None:
    if loss <= NOISE_SIGMAS * loss_stderr:
        return None
    return next((name for name, floor in BANDS if loss >= floor), None)


def decision_rng(
    commitment: str, seat: int, seq: int, settings: ReviewSettings, purpose: str = "decision"
) -> random.Random:
    text = f"unoduo-review|{commitment}|{settings.words()}|seat{seat}|{purpose}|{seq}"
    return random.Random(hashlib.sha256(text.encode()).digest())


def finished(events: Sequence[Event]) -> bool:
    return bool(events) and events[-1].type == EventType.SEED_REVEALED


def review_decision(decision: Decision, settings: ReviewSettings) -> DecisionReview:
    rng = decision_rng(decision.commitment, decision.seat, decision.seq, settings)
    est = estimate_options(decision.knowledge, decision.options, decision.chosen, settings.samples, rng)
    options = tuple(
        OptionLine(_json(key), e.mean, e.stderr)
        for key, e in sorted(est.by_option.items(), key=lambda item: -item[1].mean)
    )
    return DecisionReview(
        seq=decision.seq,
        round=decision.round,
        kind=decision.kind,
        chosen=_json(option_key(decision.chosen)),
        best=_json(est.best),
        loss=est.loss,
        loss_stderr=est.loss_stderr,
        band=band_of(est.loss, est.loss_stderr),
        options=options,
        coach=_json(est.coach),
    )


def _json(key: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(key)
    return value


def review_seat(events: Sequence[Event], seat: int, settings: ReviewSettings | None = None) -> SeatReview:
    """The review of ``seat`` in a finished match (``events`` whole, as the replay opens them)."""
    settings = settings or ReviewSettings()
    if not finished(events):
        raise ReviewUnavailable("a review is made only of a finished match")
    seats = _seats(events)
    if not 0 <= seat < seats:
        raise ReviewUnavailable(f"seat {seat} is not at this table (seats 0 to {seats - 1})")
    decisions = decisions_of(events, seat)
    reviewed = tuple(review_decision(d, settings) for d in decisions if not d.forced)
    forced = sum(1 for d in decisions if d.forced)
    return SeatReview(seat, settings, reviewed, forced, _hands(events, seat, decisions, settings))


def _seats(events: Sequence[Event]) -> int:
    state = evolve(INITIAL_STATE, events[0])
    return state.seats


def _hands(
    events: Sequence[Event], seat: int, decisions: Sequence[Decision], settings: ReviewSettings
) -> tuple[HandReview, ...]:
    """Per hand the seat made a decision in: the value before it, the deal's worth, and the result.
    The totals come from the public ``round_ended`` and ``match_ended`` events."""
    first: dict[int, Decision] = {}
    for d in decisions:
        first.setdefault(d.round, d)
    totals = _hand_totals(events)
    out: list[HandReview] = []
    for number, decision in sorted(first.items()):
        if number not in totals:
            continue
        start, end, winner = totals[number]
        picture = decision.knowledge.picture
        rng = decision_rng(decision.commitment, seat, number, settings, "deal")
        deal = deal_value(decision.knowledge, settings.samples, rng)
        out.append(
            HandReview(
                round=number,
                before=value_of(start, picture.departed, picture.ruleset, seat),
                deal=deal.mean,
                deal_stderr=deal.stderr,
                after=value_of(end, picture.departed, picture.ruleset, seat, winner),
                points=end[seat] - start[seat],
            )
        )
    return tuple(out)


def _hand_totals(events: Sequence[Event]) -> dict[int, tuple[list[int], list[int], int | None]]:
    """Per scored hand: the totals before it, after it, and the match's winner if it ended the match."""
    out: dict[int, tuple[list[int], list[int], int | None]] = {}
    totals: list[int] | None = None
    last: int | None = None
    for event in events:
        data = event.data
        if event.type == EventType.ROUND_ENDED:
            after = [int(x) for x in data["scores"]]
            out[int(data["round"])] = (totals or [0] * len(after), after, None)
            totals, last = after, int(data["round"])
        elif event.type == EventType.MATCH_ENDED and last is not None:
            start, end, _ = out[last]
            out[last] = (start, end, data.get("winner"))
    return out
