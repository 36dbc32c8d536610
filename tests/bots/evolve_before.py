"""The fold as it was before the hot-path work (``dataclasses.replace`` per event), kept verbatim
as the oracle that the optimized ``engine.evolve`` and ``engine.fastfold`` are checked against.
Do not "improve" this file: its worth is that it is the old code.
"""

# ruff: noqa
# mypy: ignore-errors
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from engine.cards import Color, Rank
from engine.errors import InvalidEventError
from engine.events import Event
from engine.rulesets import Deal, Ruleset
from engine.state import (
    INITIAL_STATE,
    NO_PENDING,
    MatchState,
    Pending,
    PendingKind,
    Phase,
    WildDrawFourContext,
)

Data = dict[str, Any]

# Commands with which a seat "begins a turn" and so closes the opponent's UNO window (D14).
TURN_OPENING_COMMANDS = frozenset({"play", "draw", "accept", "challenge", "dump"})


def _set_pair(pair: tuple[Any, Any], index: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if index == 0 else (pair[0], value)


def _color(value: str | None) -> Color | None:
    return None if value is None else Color(value)


def _match_created(s: MatchState, d: Data) -> MatchState:
    return replace(
        s, ruleset=Ruleset.from_dict(d["ruleset"]), commitment=d["commitment"], phase=Phase.WAITING
    )


def _seat_joined(s: MatchState, d: Data) -> MatchState:
    return replace(s, entropies=_set_pair(s.entropies, d["seat"], d["entropy"]))


def _command(s: MatchState, d: Data) -> MatchState:
    if d["command"]["type"] in TURN_OPENING_COMMANDS:
        other = 1 - d["seat"]
        if s.uno_open[other]:
            return replace(s, uno_open=_set_pair(s.uno_open, other, False))
    return s


def _cut(s: MatchState, d: Data) -> MatchState:
    return replace(s, cuts=d["k"] + 1)


def _round_started(s: MatchState, d: Data) -> MatchState:
    return replace(
        s,
        round=d["round"],
        player1=d["player1"],
        draw_pile=tuple(d["deck"]),
        draft_pile=(),
        discard=(),
        hands=((), ()),
        color=None,
        pending=NO_PENDING,
        uno_said=(False, False),
        uno_open=(False, False),
        wd4=None,
        recycles=0,
        draft_steps=0,
        phase=Phase.DRAFT if s.ruleset.deal is Deal.DRAFT else Phase.PLAY,
    )


def _cards_dealt(s: MatchState, d: Data) -> MatchState:
    h0, h1 = d["hands"]
    dealt = len(h0) + len(h1)
    return replace(s, hands=(tuple(sorted(h0)), tuple(sorted(h1))), draw_pile=s.draw_pile[dealt:])


def _drafted(s: MatchState, d: Data) -> MatchState:
    seat = d["seat"]
    hand = tuple(sorted(s.hands[seat] + (d["hand_card"],)))
    return replace(
        s,
        draw_pile=s.draw_pile[2:],
        hands=_set_pair(s.hands, seat, hand),
        draft_pile=s.draft_pile + (d["pile_card"],),
        draft_steps=s.draft_steps + 1,
    )


def _draft_completed(s: MatchState, d: Data) -> MatchState:
    return replace(s, draw_pile=s.draw_pile + s.draft_pile, draft_pile=(), phase=Phase.PLAY)


def _starter_turned(s: MatchState, d: Data) -> MatchState:
    card = s.ruleset.deck[d["card"]]
    return replace(s, draw_pile=s.draw_pile[1:], discard=s.discard + (d["card"],), color=card.color)


def _starter_returned(s: MatchState, d: Data) -> MatchState:
    return replace(s, discard=s.discard[:-1], draw_pile=s.draw_pile + (d["card"],), color=None)


def _awaiting(s: MatchState, d: Data) -> MatchState:
    pending = Pending(
        kind=PendingKind(d["kind"]),
        seat=d["seat"],
        total=d.get("total", 0),
        card=d.get("card"),
        starter=d.get("starter", False),
    )
    return replace(s, pending=pending)


def _card_played(s: MatchState, d: Data) -> MatchState:
    seat, card_id = d["seat"], d["card"]
    old_hand = s.hands[seat]
    index = old_hand.index(card_id)
    hand = old_hand[:index] + old_hand[index + 1 :]
    wd4 = s.wd4
    if s.ruleset.deck[card_id].rank is Rank.WILD_DRAW_FOUR:
        top_before = s.discard[-1]
        wd4 = WildDrawFourContext(seat, hand, top_before, s.color)
    one_left = len(hand) == 1
    said = one_left and bool(d.get("uno"))
    return replace(
        s,
        hands=_set_pair(s.hands, seat, hand),
        discard=s.discard + (card_id,),
        color=_color(d["color"]),
        pending=NO_PENDING,
        wd4=wd4,
        uno_said=_set_pair(s.uno_said, seat, said),
        uno_open=_set_pair(s.uno_open, seat, one_left and not said),
        phase=Phase.ROUND_OVER if not hand else s.phase,
    )


def _cards_drawn(s: MatchState, d: Data) -> MatchState:
    seat, cards = d["seat"], d["cards"]
    hand = tuple(sorted(s.hands[seat] + tuple(cards)))
    return replace(
        s,
        draw_pile=s.draw_pile[len(cards) :],
        hands=_set_pair(s.hands, seat, hand),
        uno_said=_set_pair(s.uno_said, seat, False),
        uno_open=_set_pair(s.uno_open, seat, False),
    )


def _unchanged(s: MatchState, d: Data) -> MatchState:
    return s


def _pile_recycled(s: MatchState, d: Data) -> MatchState:
    return replace(
        s, discard=(d["set_aside"],), draw_pile=s.draw_pile + tuple(d["cards"]), recycles=d["m"]
    )


def _color_chosen(s: MatchState, d: Data) -> MatchState:
    return replace(s, color=Color(d["color"]))


def _challenge_resolved(s: MatchState, d: Data) -> MatchState:
    return replace(s, last_challenge=d, wd4=None)


def _uno_said(s: MatchState, d: Data) -> MatchState:
    seat = d["seat"]
    return replace(
        s,
        uno_said=_set_pair(s.uno_said, seat, True),
        uno_open=_set_pair(s.uno_open, seat, False),
    )


def _uno_caught(s: MatchState, d: Data) -> MatchState:
    return replace(s, uno_open=_set_pair(s.uno_open, d["seat"], False))


def _round_ended(s: MatchState, d: Data) -> MatchState:
    return replace(
        s,
        scores=(d["scores"][0], d["scores"][1]),
        last_round=d,
        pending=NO_PENDING,
        wd4=None,
        phase=Phase.ROUND_OVER,
    )


def _match_ended(s: MatchState, d: Data) -> MatchState:
    return replace(s, phase=Phase.MATCH_OVER, winner=d["winner"], pending=NO_PENDING)


def _seed_revealed(s: MatchState, d: Data) -> MatchState:
    return replace(s, server_seed=d["server_seed"])


_HANDLERS: dict[str, Callable[[MatchState, Data], MatchState]] = {
    "match_created": _match_created,
    "seat_joined": _seat_joined,
    "command": _command,
    "cut": _cut,
    "round_started": _round_started,
    "cards_dealt": _cards_dealt,
    "drafted": _drafted,
    "draft_completed": _draft_completed,
    "starter_turned": _starter_turned,
    "starter_returned": _starter_returned,
    "awaiting": _awaiting,
    "card_played": _card_played,
    "cards_drawn": _cards_drawn,
    "draw_lapsed": _unchanged,
    "pile_recycled": _pile_recycled,
    "color_chosen": _color_chosen,
    "challenge_resolved": _challenge_resolved,
    "uno_said": _uno_said,
    "uno_caught": _uno_caught,
    "round_ended": _round_ended,
    "match_ended": _match_ended,
    "seed_revealed": _seed_revealed,
}


def evolve(state: MatchState, event: Event) -> MatchState:
    handler = _HANDLERS.get(event.type)
    if handler is None:
        raise InvalidEventError(f"unknown event type {event.type!r}")
    try:
        new_state = handler(state, event.data)
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise InvalidEventError(f"cannot apply {event.type} event: {exc!r}") from exc
    return replace(new_state, version=state.version + 1)


def fold(events: Iterable[Event], state: MatchState = INITIAL_STATE) -> MatchState:
    """Fold events, in order, onto a state (the empty match by default)."""
    for event in events:
        state = evolve(state, event)
    return state
