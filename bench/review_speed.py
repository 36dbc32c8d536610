"""The speed of Game Review (issue 37: a 200-point UNO Duo match reviewed at the default setting in
at most 60 s on one core): ``python -m bench.review_speed [MATCHES]``.

Greedy plays greedy to 200 (matches 0.. of the fixed seed 2026); each match's both seats are
reviewed at the default setting and the process CPU time of the two reviews is printed, then
the slowest match. CPU time, not wall time: the figure is one core's work whatever else runs.
"""

from __future__ import annotations

import sys
import time

from engine.game.rulesets import UNO_DUO
from engine.play.selfplay import play_match
from engine.review.review import DEFAULT_SAMPLES, ReviewSettings, review_seat

SEED = 2026


def main(matches: int = 5) -> float:
    slowest = 0.0
    for index in range(matches):
        result = play_match(["greedy", "greedy"], UNO_DUO, SEED, index)
        started = time.process_time()
        reviews = [review_seat(result.events, seat, ReviewSettings()) for seat in (0, 1)]
        spent = time.process_time() - started
        slowest = max(slowest, spent)
        decisions = sum(r.reviewed for r in reviews)
        print(
            f"match {index}: {result.rounds} hands, {decisions} decisions with a choice (both seats),"
            f" reviewed in {spent:.1f} s CPU at {DEFAULT_SAMPLES} samples",
            flush=True,
        )
    print(f"slowest: {slowest:.1f} s CPU for both seats of a 200-point match (issue 37's bound: 60 s)")
    return slowest


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
