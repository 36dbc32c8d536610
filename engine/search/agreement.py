"""The proof that :mod:`engine.search.playout` plays as the Decider: both driven from the same state.

``run_agreement`` starts a match through the Decider, plays it some random way into the round
(seats leaving at a table, time called, as asked), takes a :class:`Playout` of that state with the
match's own dealer as its chance (so later shuffles are the same cards), then drives both with the
same random actions, the pending seat's from ``legal_actions`` and now and then another seat's
``uno`` catch, and compares after every action: the legal moves (as command objects, in order),
every hand, the draw pile, the discard pile, the draft pile, the active colour, the pending
decision, UNO windows, direction, scores, the round and the winner. Any difference raises
:class:`Disagreement` naming the first field and the actions that led there.

Used by tests/engine/test_playout_agrees.py (hypothesis over seeds, rulesets and table sizes) and
by ``unoduo bench playout-agreement`` (millions of actions).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.game.commands import CallTime, Forfeit, SayUno, SeatAction, SeatCommand
from engine.game.decide import decide_step
from engine.game.legal import legal_actions
from engine.game.rulesets import Ruleset
from engine.game.state import MatchState, Phase
from engine.play.match import LocalMatch
from engine.play.selfplay import match_seed
from engine.search.playout import NO_COLOR, PENDING_KINDS, PHASES, DealerChance, Playout

_COLORS = ("red", "yellow", "green", "blue", None)


class Disagreement(AssertionError):
    """The playout and the Decider differ (the message says where)."""


def state_facts(state: MatchState) -> dict[str, Any]:
    """What a playout must agree on, read from a Decider state."""
    pending = state.pending
    verdict = None
    if pending.kind.value == "wild_draw_four" and state.wd4 is not None:
        verdict = (state.wd4.player, _wd4_illegal(state))
    return {
        "phase": state.phase,
        "round": state.round,
        "player1": state.player1,
        "scores": list(state.scores),
        "winner": state.winner,
        "hands": [list(h) for h in state.hands],
        "draw_pile": list(state.draw_pile),
        "discard": list(state.discard),
        "draft_pile": list(state.draft_pile),
        "color": state.color.value if state.color is not None else None,
        "pending": (pending.kind, pending.seat, pending.total, pending.card, pending.starter),
        "wd4": verdict,
        "uno_said": list(state.uno_said),
        "uno_open": list(state.uno_open),
        "direction": state.direction,
        "departed": list(state.departed),
        "recycles": state.recycles,
        "restarts": state.restarts,
        "empty_draws": state.empty_draws,
        "draft_steps": state.draft_steps,
    }


def _wd4_illegal(state: MatchState) -> bool:
    from engine.game.rules import could_have_played

    ctx = state.wd4
    assert ctx is not None
    deck = state.deck
    top = deck[ctx.top_before]
    return any(could_have_played(deck[i], top, ctx.color_before, state.ruleset.wd4_rule) for i in ctx.hand)


def playout_facts(p: Playout) -> dict[str, Any]:
    """The same facts, read from a playout."""
    over = p.over
    return {
        "phase": PHASES[p.phase],
        "round": p.round,
        "player1": p.player1,
        "scores": list(p.scores),
        "winner": p.winner,
        "hands": [list(h) for h in p.hands],
        "draw_pile": p.draw_pile,
        "discard": list(p.discard),
        "draft_pile": list(p.draft_pile),
        "color": _COLORS[p.color] if p.color != NO_COLOR else None,
        "pending": (PENDING_KINDS[p.kind], None if over else p.pseat, p.ptotal, p.pcard, p.pstarter),
        "wd4": (p.wd4_player, p.wd4_illegal) if PENDING_KINDS[p.kind].value == "wild_draw_four" else None,
        "uno_said": list(p.uno_said),
        "uno_open": list(p.uno_open),
        "direction": p.direction,
        "departed": list(p.departed),
        "recycles": p.recycles,
        "restarts": p.restarts,
        "empty_draws": p.empty_draws,
        "draft_steps": p.draft_steps,
    }


@dataclass
class AgreementRun:
    """What one run compared."""

    actions: int = 0  # actions applied to both and compared after
    matches_ended: int = 0
    rounds_ended: int = 0


def run_agreement(
    ruleset: Ruleset,
    seats: int,
    seed: int,
    actions: int,
    lead_in: int | None = None,
    leave: int = 0,
    call_time: bool = False,
    catch_rate: float = 0.05,
) -> AgreementRun:
    """Compare the playout with the Decider over ``actions`` random actions from a match state.

    ``lead_in`` actions are played by the Decider alone first (random when None); then ``leave``
    seats forfeit (at a table of 3+, never the last two) and, with ``call_time``, time is called;
    then the playout takes the state and both play on. Raises :class:`Disagreement`.
    """
    rng = random.Random(f"agreement:{ruleset.name}:{seats}:{seed}")
    match = LocalMatch.start(
        match_seed("agreement", seed),
        ruleset,
        tuple(f"e{i}" for i in range(seats)),
        seats=seats if seats != 2 else None,
    )
    state, dealer = match.state, match.dealer
    for _ in range(rng.randrange(0, 400) if lead_in is None else lead_in):
        if state.phase is Phase.MATCH_OVER:
            break
        state = _decider_step(state, dealer, rng, catch_rate)[0]
    if seats > 2:
        for _ in range(min(leave, seats - 2)):
            if state.phase is Phase.MATCH_OVER:
                break
            staying = [s for s in range(seats) if not state.departed[s]]
            state = decide_step(state, Forfeit(rng.choice(staying), "withdrawal"), dealer)[1]
    if call_time and state.phase is not Phase.MATCH_OVER:
        state = decide_step(state, CallTime("2026-12-07T12:00:00Z"), dealer)[1]
    run = AgreementRun()
    if state.phase is Phase.MATCH_OVER:
        return run
    playout = Playout.from_state(state, chance=DealerChance(dealer, state.entropies))
    trail: list[str] = []
    _compare(state, playout, trail)
    while run.actions < actions and not _over(state):
        rounds = playout.rounds_ended
        state, (seat, action) = _decider_step(state, dealer, rng, catch_rate)
        code = playout.code_of(action)
        trail.append(f"seat {seat}: {action}")
        playout.play(code, seat)
        run.actions += 1
        run.rounds_ended += playout.rounds_ended - rounds
        _compare(state, playout, trail)
    run.matches_ended += _over(state)
    return run


def _over(state: MatchState) -> bool:
    return state.phase is Phase.MATCH_OVER


def _decider_step(
    state: MatchState, dealer: Any, rng: random.Random, catch_rate: float
) -> tuple[MatchState, tuple[int, SeatAction]]:
    """One random action through the Decider: the pending seat's, or (now and then, when a UNO
    window is open) another seat's ``uno``."""
    seat = state.pending.seat
    assert seat is not None
    if True in state.uno_open and rng.random() < catch_rate:
        others = [s for s in range(state.seats) if s != seat and not state.departed[s]]
        seat = rng.choice(others)
        action: SeatAction = SayUno()
    else:
        action = rng.choice(legal_actions(state, seat))
    return decide_step(state, SeatCommand(seat, action), dealer)[1], (seat, action)


def _compare(state: MatchState, playout: Playout, trail: list[str]) -> None:
    ours, theirs = playout_facts(playout), state_facts(state)
    for key, value in theirs.items():
        if ours[key] != value:
            raise Disagreement(_explain(key, value, ours[key], trail))
    if state.phase is not Phase.MATCH_OVER:
        seat = state.pending.seat
        expected = legal_actions(state, seat) if seat is not None else []
        got = [playout.action_of(code) for code in playout.legal()]
        if got != expected:
            raise Disagreement(_explain("legal", expected, got, trail))


def _explain(key: str, decider: object, playout: object, trail: list[str]) -> str:
    recent = "; ".join(trail[-8:])
    return f"{key}: the Decider has {decider!r}, the playout {playout!r} (after {len(trail)} actions: … {recent})"
