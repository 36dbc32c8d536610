"""The actions a seat may take now, as engine action objects (the source of ``view["legal"]``).

:func:`legal_actions` lists every fully specified action the Decider accepts from ``seat``: a
wild once per colour, the ``color`` command once per colour. ``engine.protocol.views.legal_commands``
formats the same list for clients (docs/PROTOCOL.md lists wilds and ``color`` without a colour).
Self-play drives the Decider with these objects directly, skipping JSON parsing.
"""

from __future__ import annotations

from engine.game.cards import COLOR_ORDER
from engine.game.commands import (
    Accept,
    Challenge,
    ChooseColor,
    CommandType,
    Draft,
    Draw,
    Dump,
    Pass,
    SayUno,
    SeatAction,
)
from engine.game.rules import allowed_commands, dump_cards, playable_ids
from engine.game.state import MatchState, Pending, PendingKind, Phases

_IDLE_PHASES = frozenset({Phases.NEW, Phases.WAITING, Phases.MATCH_OVER})
DRAFT_ACTIONS: tuple[SeatAction, ...] = (Draft(keep=True), Draft(keep=False))
CHALLENGE_ACTIONS: tuple[SeatAction, ...] = (Accept(), Challenge())
COLOR_ACTIONS: tuple[SeatAction, ...] = tuple(ChooseColor(color) for color in COLOR_ORDER)
DRAW: SeatAction = Draw()
PASS: SeatAction = Pass()
SAY_UNO: SeatAction = SayUno()


def _offers(kind: PendingKind, starter: bool) -> tuple[bool, ...]:
    allowed = allowed_commands(Pending(kind, starter=starter))
    kinds = (CommandType.DRAFT, CommandType.ACCEPT, CommandType.COLOR, CommandType.DUMP, CommandType.PLAY,
             CommandType.DRAW, CommandType.PASS)  # fmt: skip
    return tuple(k in allowed for k in kinds)


# Speed: rules.allowed_commands read once per decision kind, as flags (legal_actions runs every
# action of self-play; the table stays the one source).
_OFFERS = {(kind, starter): _offers(kind, starter) for kind in PendingKind for starter in (False, True)}


def legal_actions(state: MatchState, seat: int) -> list[SeatAction]:
    """Exactly the actions ``seat`` may send now; two copies of a card are listed once."""
    if seat.__class__ is not int or not 0 <= seat < state.seats or state.phase in _IDLE_PHASES:
        return []
    if state.departed[seat]:
        return []
    out: list[SeatAction] = []
    pending = state.pending
    if pending.seat == seat:
        draft, challenge, color, dump, play, draw, pass_ = _OFFERS[pending.kind, pending.starter]
        if draft:
            out.extend(DRAFT_ACTIONS)
        if challenge:
            out.extend(CHALLENGE_ACTIONS)
        if color:
            out.extend(COLOR_ACTIONS)
        facts = state.facts
        if dump:
            out.append(Dump(tuple(facts.cards[i] for i in dump_cards(state, seat))))
        if play:
            faces, plays = facts.faces, facts.plays
            seen: set[int] = set()
            for card_id in playable_ids(state, seat):
                face = faces[card_id]
                if face not in seen:
                    seen.add(face)
                    out.extend(plays[card_id])
        if draw:
            out.append(DRAW)
        if pass_:
            out.append(PASS)
    if True in state.uno_open:  # D14, D22: open to every seat at the table
        out.append(SAY_UNO)
    return out
