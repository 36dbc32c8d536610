"""A fixed number of random actions, for instruction counts of the search playout against RLCard.

``python -m bench.fixed_actions playout|rlcard SEATS ACTIONS`` plays ``ACTIONS`` uniformly random
actions of whole matches (the playout: uno-duo at two seats, classic at more, each match started by
``Playout.new_match``; RLCard: ``UnoGame`` of ``SEATS`` players, each game started by ``init_game``),
with the same seeds every run. Under ``valgrind --tool=callgrind``, the count at ``ACTIONS`` less
the count at 0 (start-up and imports) over ``ACTIONS`` is the instructions per action, a figure the
machine's load does not move (docs/BENCHMARKS.md, "The search playout, in instructions").
"""

from __future__ import annotations

import random
import sys

from engine.game.rulesets import CLASSIC, UNO_DUO
from engine.search.playout import Playout


def playout(seats: int, actions: int) -> int:
    rng = random.Random(5)
    ruleset = UNO_DUO if seats == 2 else CLASSIC
    done = 0
    while done < actions:
        p = Playout.new_match(ruleset, seats, rng)
        while not p.over and done < actions:
            p.play(rng.choice(p.legal()))
            done += 1
    return done


def rlcard(seats: int, actions: int) -> int:
    import numpy as np
    from rlcard.games.uno.game import UnoGame  # type: ignore[import-untyped]

    game = UnoGame(num_players=seats)
    game.np_random = np.random.RandomState(0)
    rng = random.Random(5)
    done = 0
    while done < actions:
        game.init_game()
        while not game.is_over() and done < actions:
            game.step(rng.choice(game.get_legal_actions()))
            done += 1
    return done


if __name__ == "__main__":
    which, seats, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print((playout if which == "playout" else rlcard)(seats, count))
