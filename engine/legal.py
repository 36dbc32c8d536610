"""The actions a seat may take now, as engine action objects (the source of ``view["legal"]``).

:func:`legal_actions` lists every fully specified action the Decider accepts from ``seat``: a
wild once per colour, the ``color`` command once per colour. ``engine.views.legal_commands``
formats the same list for clients (docs/PROTOCOL.md lists wilds and ``color`` without a colour).
Self-play drives the Decider with these objects directly, skipping JSON parsing.
"""

from __future__ import annotations

from engine.cards import COLOR_ORDER
from engine.commands import (
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
from engine.rules import allowed_commands, dump_cards, playable_ids
from engine.state import MatchState, Phases

_IDLE_PHASES = frozenset({Phases.NEW, Phases.WAITING, Phases.MATCH_OVER})
DRAFT_ACTIONS: tuple[SeatAction, ...] = (Draft(keep=True), Draft(keep=False))
CHALLENGE_ACTIONS: tuple[SeatAction, ...] = (Accept(), Challenge())
COLOR_ACTIONS: tuple[SeatAction, ...] = tuple(ChooseColor(color) for color in COLOR_ORDER)
DRAW: SeatAction = Draw()
PASS: SeatAction = Pass()
SAY_UNO: SeatAction = SayUno()


def legal_actions(state: MatchState, seat: int) -> list[SeatAction]:
    """Exactly the actions ``seat`` may send now; two copies of a card are listed once."""
    if seat not in (0, 1) or state.phase in _IDLE_PHASES:
        return []
    out: list[SeatAction] = []
    pending = state.pending
    if pending.seat == seat:
        allowed = allowed_commands(pending)
        if CommandType.DRAFT in allowed:
            out.extend(DRAFT_ACTIONS)
        if CommandType.ACCEPT in allowed:
            out.extend(CHALLENGE_ACTIONS)
        if CommandType.COLOR in allowed:
            out.extend(COLOR_ACTIONS)
        facts = state.facts
        if CommandType.DUMP in allowed:
            out.append(Dump(tuple(facts.cards[i] for i in dump_cards(state, seat))))
        if CommandType.PLAY in allowed:
            faces, plays = facts.faces, facts.plays
            seen: set[int] = set()
            for card_id in playable_ids(state, seat):
                face = faces[card_id]
                if face not in seen:
                    seen.add(face)
                    out.extend(plays[card_id])
        if CommandType.DRAW in allowed:
            out.append(DRAW)
        if CommandType.PASS in allowed:
            out.append(PASS)
    uno_open = state.uno_open
    if uno_open[0] or uno_open[1]:
        out.append(SAY_UNO)
    return out
