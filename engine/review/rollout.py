"""Rollouts: a determinized state played to the end of its hand by a simple greedy policy.

Every seat plays :func:`greedy_action`: say UNO when a window is open, dump when offered, else
the playable card worth the most points (a wild last, in the colour the hand holds most), else
draw, else pass; keep an action or wild card in the draft; accept a Wild Draw Four. It reads the
determinized state it is given, which holds no true hidden card. The hand is run on the Decider
itself (``engine.game.decide``), so every rule is the rules'.
"""

from __future__ import annotations

import random
from dataclasses import replace

from engine.game.cards import COLOR_ORDER, Color
from engine.game.commands import (
    Accept,
    ChooseColor,
    Draft,
    Draw,
    Dump,
    Pass,
    Play,
    SayUno,
    SeatAction,
    SeatCommand,
)
from engine.game.decide import decide_step
from engine.game.legal import legal_actions
from engine.game.shuffle import Dealer
from engine.game.state import MatchState, PendingKind, Phase

MAX_ROLLOUT_ACTIONS = 2_000  # a guard: a hand under this policy ends long before


def rollout_dealer(rng: random.Random) -> Dealer:
    """A dealer for one rollout's recycles and deals, seeded from the review's own stream (never the match's seed)."""
    return Dealer(rng.getrandbits(256).to_bytes(32, "big"))


def declared(state: MatchState, seat: int, action: SeatAction) -> SeatAction:
    """The action with UNO said when it leaves one card (a reviewed play is not punished by a catch
    the player would not have allowed: saying UNO is reviewed as a decision of its own)."""
    if isinstance(action, Play) and len(state.hands[seat]) == 2:
        return replace(action, uno=True)
    if isinstance(action, Dump) and len(state.hands[seat]) - len(action.cards) == 1:
        return replace(action, uno=True)
    return action


def apply(state: MatchState, seat: int, action: SeatAction, dealer: Dealer) -> MatchState:
    return decide_step(state, SeatCommand(seat, declared(state, seat, action)), dealer)[1]


def hand_over(state: MatchState, round_number: int) -> bool:
    return state.phase is Phase.MATCH_OVER or state.round != round_number or state.pending.seat is None


def play_hand_out(state: MatchState, dealer: Dealer, round_number: int) -> MatchState:
    """The state at the end of hand ``round_number`` (the next hand dealt, or the match over)."""
    for _ in range(MAX_ROLLOUT_ACTIONS):
        if hand_over(state, round_number):
            return state
        seat = state.pending.seat
        assert seat is not None
        state = apply(state, seat, greedy_action(state, seat), dealer)
    return state


def _best_colour(state: MatchState, seat: int) -> Color:
    colors = state.facts.colors
    counts = {c: 0 for c in COLOR_ORDER}
    for card_id in state.hands[seat]:
        color = colors[card_id]
        if color is not None:
            counts[color] += 1
    return max(COLOR_ORDER, key=lambda c: counts[c])


def greedy_action(state: MatchState, seat: int) -> SeatAction:
    legal = legal_actions(state, seat)
    kind = state.pending.kind
    if any(isinstance(a, SayUno) for a in legal):
        return SayUno()
    if kind is PendingKind.DRAFT:
        card = state.deck[state.draw_pile[0]]
        return Draft(keep=card.is_wild or not card.rank.is_number)
    if kind is PendingKind.WILD_DRAW_FOUR:
        return Accept()
    if kind is PendingKind.COLOR:
        return ChooseColor(_best_colour(state, seat))
    dumps = [a for a in legal if isinstance(a, Dump)]
    if dumps:
        return dumps[0]
    plays = [a for a in legal if isinstance(a, Play)]
    if plays:
        points = state.ruleset.points
        colour = _best_colour(state, seat)
        plain = [a for a in plays if not a.card.is_wild]
        if plain:
            return max(plain, key=lambda a: points(a.card))
        return next((a for a in plays if a.color is colour), plays[0])
    for action in legal:
        if isinstance(action, Draw | Pass):
            return action
    return legal[0]
