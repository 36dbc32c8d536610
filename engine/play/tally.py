"""A self-play run's table: wins and hands won with their 95% intervals, rounds, actions, challenges, catches.

Adds up :class:`engine.play.selfplay.MatchResult` s one at a time, so a long run keeps no logs. A
run has one entrant per bot named (two for a two-seat run; as many as a table has seats, or
fewer when a bot sits more than once, at 3 to 10): each match's ``entrants`` says which
entrant sat in each seat, and every per-seat counter is added to that seat's entrant.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.bots import normalize_bot_name
from engine.play.selfplay import MatchResult


def wilson_interval(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (sound near 0 and 1, unlike the normal one)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class EntrantStats:
    bot: str
    wins: int
    challenges: int
    challenges_upheld: int
    catches: int
    hands_won: int = 0


@dataclass(frozen=True)
class RunSummary:
    """What ``unoduo simulate`` prints: a function of (bots, ruleset, seed, matches) only."""

    ruleset: str
    seed: str
    matches: int
    rounds: int
    actions: int
    entrants: tuple[EntrantStats, ...]

    @property
    def mean_rounds(self) -> float:
        return self.rounds / self.matches if self.matches else 0.0

    @property
    def mean_actions_per_round(self) -> float:
        return self.actions / self.rounds if self.rounds else 0.0

    def win_rate(self, entrant: int) -> float:
        return self.entrants[entrant].wins / self.matches if self.matches else 0.0

    def win_interval(self, entrant: int) -> tuple[float, float]:
        return wilson_interval(self.entrants[entrant].wins, self.matches)

    def hand_rate(self, entrant: int) -> float:
        """The share of all rounds played that this entrant won (went out, or a blocked round's
        lower hand); a blocked round of equal hands counts for nobody."""
        return self.entrants[entrant].hands_won / self.rounds if self.rounds else 0.0

    def hand_interval(self, entrant: int) -> tuple[float, float]:
        """95% Wilson interval of :meth:`hand_rate`, as if rounds were independent trials. They are
        nearly so (each is dealt afresh), but a match's rounds share its players' seats and scores,
        so read it as a little narrower than the truth."""
        return wilson_interval(self.entrants[entrant].hands_won, self.rounds)


class Tally:
    """Adds up match results one at a time (so a long run keeps no logs in memory)."""

    def __init__(self, bots: Sequence[str], ruleset: str, seed: int | str) -> None:
        self.bots = [normalize_bot_name(b) for b in bots]
        self.ruleset = ruleset
        self.seed = str(seed)
        self.matches = 0
        self.rounds = 0
        self.actions = 0
        count = len(self.bots)
        self.wins = [0] * count
        self.challenges = [0] * count
        self.upheld = [0] * count
        self.catches = [0] * count
        self.hands_won = [0] * count

    def add(self, result: MatchResult) -> None:
        self.matches += 1
        self.rounds += result.rounds
        self.actions += result.actions
        self.wins[result.winner_entrant] += 1
        for seat, entrant in enumerate(result.entrants):
            self.challenges[entrant] += result.challenges[seat]
            self.upheld[entrant] += result.challenges_upheld[seat]
            self.catches[entrant] += result.catches[seat]
        for winner in result.round_winners:
            if winner is not None:
                self.hands_won[result.entrants[winner]] += 1

    def summary(self) -> RunSummary:
        entrants = tuple(
            EntrantStats(
                self.bots[e], self.wins[e], self.challenges[e], self.upheld[e], self.catches[e], self.hands_won[e]
            )
            for e in range(len(self.bots))
        )
        return RunSummary(
            ruleset=self.ruleset,
            seed=self.seed,
            matches=self.matches,
            rounds=self.rounds,
            actions=self.actions,
            entrants=entrants,
        )


def summarize(results: Iterable[MatchResult], bots: Sequence[str], ruleset: str, seed: int | str) -> RunSummary:
    tally = Tally(bots, ruleset, seed)
    for result in results:
        tally.add(result)
    return tally.summary()
