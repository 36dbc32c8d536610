"""How long a club evening takes, per format and target: ``python -m bench.evening``.

Greedy house bots play whole matches at each setting (``engine.play.selfplay``, seeded: the same
command prints the same figures); a match's length is counted in decisions (every command a seat
sends, the draft's and UNO calls included), and turned into minutes at a human pace per decision.
That pace is calibrated, not guessed: at the club evening of issue 33 a UNO Duo match to 60 took
up to 8 minutes, so a decision takes 8 minutes over the 90th percentile of decisions per match at
target 60. A round of a tournament lasts as long as its slowest match: its minutes are the
matches' 90th percentile. docs/TOURNAMENTS.md "How long an evening takes" shows the output.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.game.rulesets import get_ruleset
from engine.play.selfplay import play_match

CLUB_MINUTES_AT_60 = 8.0  # the longest UNO Duo match to 60 at the club evening (issue 33)


@dataclass(frozen=True)
class Setting:
    label: str
    ruleset: str
    seats: int
    target: int
    round_limit: int = 0


SETTINGS = (
    Setting("UNO Duo to 60", "uno-duo", 2, 60),
    Setting("UNO Duo to 100", "uno-duo", 2, 100),
    Setting("UNO Duo to 200 (default)", "uno-duo", 2, 200),
    Setting("UNO Duo to 500", "uno-duo", 2, 500),
    Setting("classic, table of 4, to 500 (default)", "classic", 4, 500),
    Setting("classic, table of 4, round_limit=3", "classic", 4, 500, 3),
    Setting("classic, table of 4, round_limit=1", "classic", 4, 500, 1),
    Setting("classic, table of 3, round_limit=3", "classic", 3, 500, 3),
)


@dataclass(frozen=True)
class Lengths:
    setting: Setting
    hands: float  # median hands (rounds of the ruleset) per match
    median: float  # decisions per match
    p90: float
    longest: int


def percentile(values: Sequence[int], fraction: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))])


def measure(setting: Setting, matches: int, seed: int) -> Lengths:
    ruleset = replace(get_ruleset(setting.ruleset), target=setting.target, round_limit=setting.round_limit)
    played = [play_match(["greedy"] * setting.seats, ruleset, seed, i) for i in range(matches)]
    decisions = [m.actions for m in played]
    return Lengths(
        setting,
        statistics.median(m.rounds for m in played),
        statistics.median(decisions),
        percentile(decisions, 0.9),
        max(decisions),
    )


def report(matches: int, seed: int) -> str:
    rows = [measure(s, matches, seed) for s in SETTINGS]
    pace = CLUB_MINUTES_AT_60 * 60 / rows[0].p90  # seconds a decision, from the club's match to 60
    lines = [
        f"{matches} matches of greedy bots per line, seed {seed}; pace {pace:.1f} s a decision "
        f"({CLUB_MINUTES_AT_60:g} min over the {rows[0].p90:g} decisions of the 90th percentile at target 60)",
        "",
        "| setting | hands (median) | decisions: median | p90 | longest | minutes a match: median | a round (p90) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r.setting.label} | {r.hands:g} | {r.median:g} | {r.p90:g} | {r.longest} "
            f"| {r.median * pace / 60:.0f} | {r.p90 * pace / 60:.0f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(report(args.matches, args.seed))


if __name__ == "__main__":
    main()
