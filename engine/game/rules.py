"""Small rule predicates shared by the Decider, the legal-move list and the bots."""

from __future__ import annotations

from engine.game.cards import Card, Color, Ranks
from engine.game.commands import CommandType
from engine.game.rulesets import ReverseRule, WildDrawFourCheck, WildDrawFourRule
from engine.game.state import MatchState, Pending, PendingKind, PendingKinds

# What each pending decision lets its seat send (``uno`` is open to both seats whenever a UNO
# window is, D14, and is not listed). The Decider refuses anything else; ``legal_actions``
# lists only these.
ALLOWED_COMMANDS: dict[PendingKind, frozenset[CommandType]] = {
    PendingKinds.DRAFT: frozenset({CommandType.DRAFT}),  # D3
    PendingKinds.TURN: frozenset({CommandType.PLAY, CommandType.DRAW}),  # D5, D6
    PendingKinds.DRAWN: frozenset({CommandType.PLAY, CommandType.PASS}),  # D6
    PendingKinds.VOLLEY: frozenset({CommandType.PLAY, CommandType.DRAW}),  # D8
    PendingKinds.WILD_DRAW_FOUR: frozenset({CommandType.ACCEPT, CommandType.CHALLENGE}),  # D12, D13
    PendingKinds.DUMP: frozenset({CommandType.DUMP, CommandType.PASS}),  # D10
    PendingKinds.COLOR: frozenset({CommandType.COLOR}),  # D4
    PendingKinds.NONE: frozenset(),
}
# Move clocks (docs/RULES.md "Move clocks and timeouts"): a seat whose time runs out gets its
# decision's default action; the TIMEOUTS_TO_FORFEIT-th timeout in a row, with no command of
# its own in between, forfeits the match instead (the opponent wins).
TIMEOUTS_TO_FORFEIT = 3

# D4: a Reverse starter's dump leaves Player 2 a normal turn as well.
_STARTER_DUMP = ALLOWED_COMMANDS[PendingKinds.DUMP] | ALLOWED_COMMANDS[PendingKinds.TURN]


def allowed_commands(pending: Pending) -> frozenset[CommandType]:
    """The command types the pending decision allows its seat (one table, for decide and legal)."""
    if pending.starter and pending.kind is PendingKinds.DUMP:
        return _STARTER_DUMP
    return ALLOWED_COMMANDS[pending.kind]


def could_have_played(card: Card, top: Card, color: Color | None, rule: WildDrawFourRule) -> bool:
    """D13: does this card, left in the hand, make a Wild Draw Four play illegal?"""
    if rule is WildDrawFourRule.NO_COLOUR_MATCH:
        return card.color is not None and card.color is color
    if rule is WildDrawFourRule.NO_MATCH:  # D13c: colour, number or symbol; a wild matches nothing
        return not card.is_wild and (card.color is color or card.rank is top.rank)
    if card.rank is Ranks.WILD_DRAW_FOUR:
        return False
    if card.rank is Ranks.WILD:
        return True
    return card.color is color or card.rank is top.rank


def wild_draw_four_breaks_rule(state: MatchState, seat: int, card_id: int) -> bool:
    """D13/D13c: would playing Wild Draw Four ``card_id`` now break the ruleset's ``wd4_rule``?"""
    deck = state.deck
    top = deck[state.discard[-1]]
    rule = state.ruleset.wd4_rule
    return any(could_have_played(deck[i], top, state.color, rule) for i in state.hands[seat] if i != card_id)


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
        found: tuple[int, ...] = (card,) if ok[card] else ()
    elif CommandType.PLAY in allowed_commands(pending):  # a turn, or a Reverse starter's dump (D4)
        found = tuple([i for i in state.hands[seat] if ok[i]])
    else:
        return ()
    if state.ruleset.wd4_check is WildDrawFourCheck.ENFORCED:  # D13c: refused at play time
        fours = facts.wild_fours
        return tuple([i for i in found if i not in fours or not wild_draw_four_breaks_rule(state, seat, i)])
    return found


def hand_points(state: MatchState, seat: int) -> int:
    ruleset = state.ruleset
    return sum(ruleset.points(ruleset.deck[i]) for i in state.hands[seat])
