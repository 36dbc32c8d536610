"""``bot:coach-N`` (engine/bots/coach.py): it decides from its seat's knowledge and its chance only.

- Its decisions are a function of what its seat received and of its random stream: a match
  whose hidden fields (the other hands, the pile's order) are all changed, but whose events are
  the same as the seat receives them, gets the same decisions, from the same determinizations.
- Its input has no way to the match state: a :class:`SeatKnowledge`, the seat's view, a Random.
- ``unoduo audit --bots`` re-derives a coach's moves from the revealed seed.
"""

from __future__ import annotations

import inspect
import random
from dataclasses import replace
from typing import get_type_hints

import pytest

from engine.bots import SeatMemories, View, bot_choice, get_bot
from engine.bots.coach import CoachBot, evaluate, option_key
from engine.fairness.audit_report import audit
from engine.game.events import Event
from engine.game.evolve import fold
from engine.game.rulesets import CLASSIC, UNO_DUO, Ruleset
from engine.play.match import LocalMatch
from engine.play.selfplay import play_match
from engine.protocol.views import legal_commands, view
from engine.record.replay import replay_text
from engine.search.knowledge import SeatKnowledge, knowledge_at, looking_at
from tests.engine.search.test_knowledge import hidden_swapped

MATCH = "m-coach"


def coach_match(bot: str, ruleset: Ruleset, seed: int, seats: int = 2) -> LocalMatch:
    """A finished match with the coach ``bot`` in seat 1 played as the server plays a house bot
    (its chance ``Dealer.bot_chance``, its seat's events folded), against random seats."""
    server_seed = random.Random(seed).randbytes(32)
    match = LocalMatch.start(server_seed, ruleset, ("",) * seats, None, seats if seats != 2 else None)
    coach = get_bot(bot)
    memories = SeatMemories({1: coach})
    memories.see(match.events)
    others = get_bot("random")
    person = random.Random(seed)
    while match.state.phase.value != "match_over":
        state = match.state
        before = len(match.events)
        if legal_commands(state, 1) and (state.pending.seat == 1 or any(state.uno_open)):
            seen = view(state, 1)
            rng = match.dealer.bot_chance(MATCH, state.version, 1)
            match.act(1, bot_choice(coach, seen, rng, memories.knowledge(1, seen)))
        else:
            seat = state.pending.seat
            assert seat is not None
            match.act(seat, others.choose(view(state, seat), person))
        memories.see(match.events[before:])
    return match


def test_the_coach_reads_a_knowledge_a_view_and_a_random_stream_only() -> None:
    hints = get_type_hints(CoachBot.choose_knowing)
    assert list(inspect.signature(CoachBot.choose_knowing).parameters) == ["self", "knowledge", "view", "rng"]
    assert hints["knowledge"] is SeatKnowledge and hints["view"] == View and hints["rng"] is random.Random
    # the picture (cards it saw, tokens for the rest), the public challenge verdicts, and what
    # seats' moves showed of their unseen cards
    assert set(SeatKnowledge.__slots__) == {"seat", "picture", "verdicts", "excluded"}


@pytest.mark.parametrize(("ruleset", "seats"), [(UNO_DUO, 2), (CLASSIC, 3)], ids=["uno-duo", "classic-3"])
def test_the_coach_decides_the_same_whatever_the_hidden_cards(ruleset: Ruleset, seats: int) -> None:
    match = coach_match("coach-1", replace(ruleset, target=40), 11, seats)
    events = list(match.events)
    other = hidden_swapped(events, 1)
    coach = get_bot("coach-1")
    assert isinstance(coach, CoachBot)
    decisions = 0
    for upto, event in enumerate(events):
        if event.type != "command" or event.data["seat"] != 1 or decisions >= 25:
            continue
        seen = view(fold(events[:upto]), 1)
        if len(seen["legal"]) < 2:
            continue
        pick = looking_at(seen)
        truth, swapped = knowledge_at(events, 1, upto, pick), knowledge_at(other, 1, upto, pick)
        assert truth == swapped
        chosen = coach.choose_knowing(truth, seen, random.Random(upto))
        assert chosen == coach.choose_knowing(swapped, seen, random.Random(upto))
        decisions += 1
    assert decisions >= 5


def test_audit_re_derives_every_coach_move() -> None:
    match = coach_match("coach-1", replace(UNO_DUO, target=60), 3)
    text = replay_text(MATCH, "uno-duo", ["p_0123456789abcdef", "bot-coach-1-1"], _events(match))
    report = audit(text, bots=True)
    assert report.verification.ok and report.bots is not None and report.ok
    assert report.bots.seats == {1: "coach-1"} and report.bots.checked[1] > 20


def _events(match: LocalMatch) -> list[Event]:
    return list(match.events)


def test_evaluate_estimates_every_option_from_the_same_worlds() -> None:
    result = play_match(["coach-1", "random"], replace(UNO_DUO, target=30), "evaluate", 0)
    events = list(result.events)
    upto = next(
        i
        for i, e in enumerate(events)
        if e.type == "command" and e.data["seat"] == 0 and e.data["command"]["type"] == "play" and i > 40
    )
    seen = view(fold(events[:upto]), 0)
    knowledge = knowledge_at(events, 0, upto, looking_at(seen))
    estimates = evaluate(knowledge, None, 6, random.Random(1))
    assert estimates and all(e.samples == 6 for e in estimates.values())
    assert option_key(events[upto].data["command"]) in estimates
    assert estimates == evaluate(knowledge, None, 6, random.Random(1))  # deterministic given the stream
