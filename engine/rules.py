"""Small rule predicates shared by the Decider, the legal-move list and the bots."""

from __future__ import annotations

from engine.cards import Card, Color, Ranks, plays_on
from engine.rulesets import ReverseRule, WildDrawFourRule
from engine.state import MatchState, PendingKinds


def matches_top(card: Card, top: Card, color: Color | None) -> bool:
    """D5: same colour as the active colour, same number or symbol as the top, or any wild."""
    return plays_on(card, top.rank, color)


def could_have_played(card: Card, top: Card, color: Color | None, rule: WildDrawFourRule) -> bool:
    """D13: does this card, left in the hand, make a Wild Draw Four play illegal?"""
    if rule is WildDrawFourRule.NO_COLOUR_MATCH:
        return card.color is not None and card.color is color
    if card.rank is Ranks.WILD_DRAW_FOUR:
        return False
    if card.rank is Ranks.WILD:
        return True
    return card.color is color or card.rank is top.rank


def dump_cards(state: MatchState, seat: int) -> tuple[int, ...]:
    """D10: the cards a Reverse dump must play: every card of the active colour in the hand."""
    color = state.color
    colors = state.facts.colors
    return tuple([i for i in state.hands[seat] if colors[i] is color])


def dump_offered(state: MatchState, seat: int) -> bool:
    return state.ruleset.reverse is ReverseRule.DUMP and bool(dump_cards(state, seat))


def playable_ids(state: MatchState, seat: int) -> tuple[int, ...]:
    """Card ids ``seat`` may play now under the pending decision (empty if none or not theirs)."""
    pending = state.pending
    if pending.seat != seat or not state.discard:
        return ()
    facts = state.facts
    ranks = facts.ranks
    kind = pending.kind
    if kind is PendingKinds.VOLLEY:
        if not state.ruleset.draw_two_stacking:
            return ()
        return tuple([i for i in state.hands[seat] if ranks[i] is Ranks.DRAW_TWO])
    ok = facts.matching[state.color][ranks[state.discard[-1]]]
    if kind is PendingKinds.DRAWN:
        card = pending.card
        assert card is not None
        return (card,) if ok[card] else ()
    if kind is PendingKinds.TURN or (kind is PendingKinds.DUMP and pending.starter):
        return tuple([i for i in state.hands[seat] if ok[i]])
    return ()


def hand_points(state: MatchState, seat: int) -> int:
    ruleset = state.ruleset
    return sum(ruleset.points(ruleset.deck[i]) for i in state.hands[seat])
