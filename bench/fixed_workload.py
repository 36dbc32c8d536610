"""A fixed engine-core workload for paired before/after timings of two trees.

Random legal self-play of MATCHES two-seat matches (``uno-duo`` unless a ruleset is named),
driven through ``decide_step`` and ``legal_actions`` with the same seeds every run, so two trees
that decide alike do exactly the same work; the CPU time (``time.process_time``) is printed.
Run it against each tree in turn (``PYTHONPATH=<tree> python -m bench.fixed_workload 40``):
``unoduo bench engine``'s ratio to RLCard is too noisy on a shared machine to see 10%.
"""

from __future__ import annotations

import random
import sys
import time

from engine.game.commands import SeatCommand
from engine.game.decide import decide_step
from engine.game.legal import legal_actions
from engine.game.rulesets import get_ruleset
from engine.game.state import Phase
from engine.play.match import LocalMatch
from engine.play.selfplay import match_seed


def run(matches: int, ruleset_name: str = "uno-duo") -> tuple[int, float]:
    """(actions decided, CPU seconds) for ``matches`` random matches of the ruleset."""
    ruleset = get_ruleset(ruleset_name)
    rng = random.Random("fixed")
    actions = 0
    started = time.process_time()
    for number in range(matches):
        match = LocalMatch.start(match_seed("fixed", number), ruleset)
        state, dealer = match.state, match.dealer
        while state.phase is not Phase.MATCH_OVER:
            seat = state.pending.seat
            assert seat is not None
            _, state = decide_step(state, SeatCommand(seat, rng.choice(legal_actions(state, seat))), dealer)
            actions += 1
    return actions, time.process_time() - started


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    done, took = run(count, sys.argv[2] if len(sys.argv) > 2 else "uno-duo")
    print(f"{done} actions {took:.3f} s cpu {done / took:,.0f}/s")
