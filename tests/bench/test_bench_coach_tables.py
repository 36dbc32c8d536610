"""``unoduo bench coach-tables`` (bench/coach_tables.py): the same tables for every variant, the
sighted variant dealt the true hands and nothing else, the guard's test, and the command's refusals."""

from __future__ import annotations

import random
from collections import Counter

from typer.testing import CliRunner

from bench.coach_tables import GUARD_Z, Task, Truth, paired_z, play, run
from cli.main import app
from engine.game.rulesets import get_ruleset
from engine.game.state import MatchState
from engine.play.selfplay import play_match
from engine.search.knowledge import determinize, knowledge_at


def test_the_figures_do_not_depend_on_the_worker_processes() -> None:
    one = run(("greedy", "coach"), 2, 2, 5, 1)
    two = run(("greedy", "coach"), 2, 2, 5, 2)
    assert one == two
    assert [r.tables for r in one] == [2, 2] and all(r.hands >= 2 for r in one)


def test_greedy_in_the_measured_seat_plays_the_tables_of_four_greedy_bots() -> None:
    """The calibration row is greedy against greedy: the very matches ``unoduo simulate`` plays."""
    outcome = play(Task("greedy", 1, 9, 0))
    same = play_match(("greedy",) * 4, get_ruleset("classic"), "coach-tables:9", 0)
    assert outcome.hands == len(same.round_winners)
    assert outcome.first == (same.winner == same.entrants.index(0))


def test_the_sighted_deal_is_the_true_hands_with_the_draw_pile_shuffled() -> None:
    states: list[MatchState] = []
    result = play_match(("greedy",) * 4, get_ruleset("classic"), "sighted", 0, on_step=lambda s, _e: states.append(s))
    truth = Truth()
    state = states[40]
    truth.see(state, ())
    knowledge = knowledge_at(list(result.events), 0, upto=state.version)
    assert knowledge.picture.version == state.version
    dealt = truth.deal(knowledge, random.Random(1))
    assert dealt.hands == state.hands and dealt.discard == state.discard
    assert Counter(dealt.draw_pile) == Counter(state.draw_pile)
    assert dealt.draw_pile != state.draw_pile  # the order stays unknown to it
    stale = Truth()  # a truth of another moment is never used: the seat's own determinization instead
    stale.see(states[10], ())
    assert stale.deal(knowledge, random.Random(1)) == determinize(knowledge, random.Random(1))


def test_the_guard_leaves_greedy_only_on_strong_evidence() -> None:
    assert paired_z([1.0] * 10) == 0.0  # no spread: no evidence beyond the mean
    assert paired_z([5.0, 6.0, 4.0, 5.5, 4.5] * 8) > GUARD_Z
    assert abs(paired_z([10.0, -10.0] * 20)) < GUARD_Z


def test_the_command_refuses_an_unknown_variant() -> None:
    done = CliRunner().invoke(app, ["bench", "coach-tables", "--variants", "coach,oracle"])
    assert done.exit_code == 2 and "choose from greedy, coach, guarded, sighted" in done.output
