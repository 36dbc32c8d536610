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

import hashlib
import random
from dataclasses import dataclass, field, replace
from typing import Any

from engine.game.commands import (
    CallTime,
    Command,
    CreateMatch,
    Dump,
    Forfeit,
    JoinSeat,
    Play,
    SayUno,
    SeatAction,
    SeatCommand,
)
from engine.game.decide import decide_step
from engine.game.events import Event
from engine.game.legal import legal_actions
from engine.game.rulesets import (
    CLASSIC,
    CLASSIC_2P,
    UNO_DUO,
    DrawRule,
    Recycle,
    Ruleset,
    StarterWild,
    WildDrawFourCheck,
    WildDrawFourRule,
    seats_allowed,
)
from engine.game.shuffle import Dealer, commitment_of
from engine.game.state import INITIAL_STATE, MatchState, Phase
from engine.search.knowledge import determinize, knowledge_at
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


TABLES: tuple[tuple[Ruleset, int], ...] = ((UNO_DUO, 2), (CLASSIC_2P, 2), *((CLASSIC, n) for n in range(2, 11)))
"""Every standard ruleset at every table size it plays."""


def random_rules(rng: random.Random, table: tuple[Ruleset, int] | None = None) -> tuple[Ruleset, int]:
    """A ruleset with random switches (often a low target and small hands, so that matches end and
    rounds start often) and a table size it plays; ``table``: the base ruleset and the size to
    keep where the switches allow it (a hand too large for the table is made smaller)."""
    base = rng.choice([UNO_DUO, CLASSIC_2P, CLASSIC]) if table is None else table[0]
    ruleset = replace(
        base,
        target=rng.choice([base.target, 30, 80]),
        hand_size=rng.choice([base.hand_size, 2, 4]),
        draw_two_stacking=rng.random() < 0.5,
        draw_two_at_once=rng.random() < 0.5,
        wd4_rule=rng.choice(list(WildDrawFourRule)),
        wd4_check=rng.choice(list(WildDrawFourCheck)),
        starter_wild=rng.choice(list(StarterWild)),
        recycle=rng.choice(list(Recycle)),
        draw=rng.choice(list(DrawRule)),
        deck_size=rng.choice([108, 112]),
        round_limit=rng.choice([0, 0, 1, 3]),
        uno_penalty=rng.choice([base.uno_penalty, 0, 4]),
    )
    allowed = seats_allowed(ruleset)
    if table is not None and table[1] not in allowed:
        ruleset = replace(ruleset, hand_size=rng.choice([2, 4]))  # fits a table of ten (D18)
    if table is not None:
        return ruleset, table[1]
    return ruleset, rng.randrange(allowed.start, allowed.stop)


UNO_WITH_PLAY = 0.3  # how often a random play or dump says UNO with it


@dataclass
class _Match:
    """A match driven through the Decider, with its log (engine.play.match.LocalMatch's job; the
    engine's folders below ``play`` may not import it)."""

    dealer: Dealer
    state: MatchState = INITIAL_STATE
    events: list[Event] = field(default_factory=list)

    @classmethod
    def start(cls, ruleset: Ruleset, seats: int, seed: int) -> _Match:
        server_seed = hashlib.sha256(f"playout-agreement|{seed}".encode()).digest()
        match = cls(Dealer(server_seed))
        match.apply(CreateMatch(ruleset, commitment_of(server_seed), seats=seats if seats != 2 else None))
        for seat in range(seats):
            match.apply(JoinSeat(seat, f"e{seat}"))
        return match

    def apply(self, command: Command) -> None:
        events, self.state = decide_step(self.state, command, self.dealer)
        self.events.extend(events)


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
    determinized: bool = False,
) -> AgreementRun:
    """Compare the playout with the Decider over ``actions`` random actions from a match state.

    ``lead_in`` actions are played by the Decider alone first (random when None); then ``leave``
    seats forfeit (at a table of 3+, never the last two) and, with ``call_time``, time is called;
    with ``determinized`` the state is then replaced by a determinization of a random seat's
    knowledge of it (engine.search.knowledge: what search rolls out from); then the playout takes
    the state and both play on. Raises :class:`Disagreement`.
    """
    rng = random.Random(f"agreement:{ruleset.name}:{seats}:{seed}")
    match = _Match.start(ruleset, seats, seed)
    dealer = match.dealer
    for _ in range(rng.randrange(0, 400) if lead_in is None else lead_in):
        if _over(match.state):
            break
        _decider_step(match, rng, catch_rate)
    if seats > 2:
        for _ in range(min(leave, seats - 2)):
            if _over(match.state):
                break
            staying = [s for s in range(seats) if not match.state.departed[s]]
            match.apply(Forfeit(rng.choice(staying), "withdrawal"))
    if call_time and not _over(match.state):
        match.apply(CallTime("2026-12-07T12:00:00Z"))
    state = match.state
    if determinized and not _over(state):
        seat = rng.choice([s for s in range(seats) if not state.departed[s]])
        state = determinize(knowledge_at(match.events, seat), rng)
        match = _Match(dealer, state)  # the Decider goes on from the determinized state
    run = AgreementRun()
    if state.phase is Phase.MATCH_OVER:
        return run
    playout = Playout.from_state(state, chance=DealerChance(dealer, state.entropies))
    trail: list[str] = []
    check_agrees(state, playout, trail)
    while run.actions < actions and not _over(match.state):
        rounds = playout.rounds_ended
        seat, action = _decider_step(match, rng, catch_rate)
        state = match.state
        code = playout.code_of(action)
        trail.append(f"seat {seat}: {action}")
        playout.play(code, seat)
        run.actions += 1
        run.rounds_ended += playout.rounds_ended - rounds
        check_agrees(state, playout, trail)
    run.matches_ended += _over(state)
    return run


def _over(state: MatchState) -> bool:
    return state.phase is Phase.MATCH_OVER


def _decider_step(match: _Match, rng: random.Random, catch_rate: float) -> tuple[int, SeatAction]:
    """One random action through the Decider: the pending seat's (a play or a dump now and then
    with UNO said, D14: the playout's ``PLAY_UNO`` codes, which search uses and ``legal_actions``
    does not list), or (now and then, when a UNO window is open) another seat's ``uno``."""
    state = match.state
    seat = state.pending.seat
    assert seat is not None
    if True in state.uno_open and rng.random() < catch_rate:
        others = [s for s in range(state.seats) if s != seat and not state.departed[s]]
        seat = rng.choice(others)
        action: SeatAction = SayUno()
    else:
        action = rng.choice(legal_actions(state, seat))
        if isinstance(action, Play | Dump) and rng.random() < UNO_WITH_PLAY:
            action = replace(action, uno=True)
    match.apply(SeatCommand(seat, action))
    return seat, action


def check_agrees(state: MatchState, playout: Playout, trail: list[str] | None = None) -> None:
    """Raise :class:`Disagreement` unless ``playout`` is at ``state`` (``trail``: the actions that led there)."""
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


def _explain(key: str, decider: object, playout: object, trail: list[str] | None) -> str:
    trail = trail or []
    recent = "; ".join(trail[-8:])
    return f"{key}: the Decider has {decider!r}, the playout {playout!r} (after {len(trail)} actions: … {recent})"
