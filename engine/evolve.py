"""``evolve(state, event) -> state``: apply one recorded fact. No rules are checked here.

The Decider (engine.decide) is the only place rules live; it emits events whose effects are
spelled out, so folding trusted stored events is a cheap, mechanical step.

Hot path: the Decider applies the effect of every event it emits (``EFFECTS``), several per
command. Each effect returns only the fields that change, and they are written into a private
copy of the state (one dict copy per command or fold, not one ``dataclasses.replace`` per
event), which is handed out once complete and never changes again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine.cards import Color
from engine.errors import InvalidEventError
from engine.events import Event, EventType
from engine.rulesets import Deal, Ruleset
from engine.state import (
    INITIAL_STATE,
    NO_PENDING,
    MatchState,
    Pending,
    PendingKind,
    Phases,
    WildDrawFourContext,
)

Data = dict[str, Any]
Changes = dict[str, Any]

# Commands with which a seat "begins a turn" and so closes the opponent's UNO window (D14).
TURN_OPENING_COMMANDS = frozenset({"play", "draw", "accept", "challenge", "dump"})

_new = object.__new__


def _derive(state: MatchState, changes: Changes) -> MatchState:
    """``dataclasses.replace(state, **changes)`` without re-running ``__init__``.

    MatchState is a frozen dataclass without slots, so its fields live in the instance dict;
    copying that dict is exact (same field values, no conversion happens in ``__init__``).
    """
    new: MatchState = _new(MatchState)
    fields = new.__dict__
    fields.update(state.__dict__)
    fields.update(changes)
    return new


def _set_pair(pair: tuple[Any, Any], index: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if index == 0 else (pair[0], value)


# A colour by its value (or None), by a dict probe: ``Color(value)`` is slow. KeyError if unknown.
_COLOR_BY_VALUE: dict[str | None, Color | None] = {None: None, **{c.value: c for c in Color}}


# Speed: equal Pending records are shared, not rebuilt: ~8% of engine self-play (paired timing,
# docs/BENCHMARKS.md). Only exact int/bool/str keys, so True is never shared as seat 1.
_PENDING_CACHE: dict[tuple[Any, ...], Pending] = {}


def _pending(kind: Any, seat: Any, total: Any, card: Any, starter: Any) -> Pending:
    """The Pending record of an ``awaiting`` event (bounded cache: kinds x seats x cards)."""
    if (
        seat.__class__ is int
        and total.__class__ is int
        and starter.__class__ is bool
        and (card is None or card.__class__ is int)
        and kind.__class__ is str
    ):
        key = (kind, seat, total, card, starter)
        pending = _PENDING_CACHE.get(key)
        if pending is None:
            pending = Pending(kind=PendingKind(kind), seat=seat, total=total, card=card, starter=starter)
            if len(_PENDING_CACHE) < 100_000:
                _PENDING_CACHE[key] = pending
        return pending
    return Pending(kind=PendingKind(kind), seat=seat, total=total, card=card, starter=starter)


def _match_created(s: MatchState, d: Data) -> Changes:
    return {
        "ruleset": Ruleset.from_dict(d["ruleset"]),
        "commitment": d["commitment"],
        "phase": Phases.WAITING,
        "scheduled_first_drafter": d.get("first_drafter"),
    }


def _seat_joined(s: MatchState, d: Data) -> Changes:
    return {"entropies": _set_pair(s.entropies, d["seat"], d["entropy"])}


def _command(s: MatchState, d: Data) -> Changes:
    seat = d["seat"]
    changes: Changes = {}
    if d["command"]["type"] in TURN_OPENING_COMMANDS:
        other = 1 - seat
        if s.uno_open[other]:
            changes["uno_open"] = _set_pair(s.uno_open, other, False)
    if s.timeouts[seat]:  # a seat's own command, any (``uno`` too), ends its run of timeouts
        changes["timeouts"] = _set_pair(s.timeouts, seat, 0)
    return changes


def _timed_out(s: MatchState, d: Data) -> Changes:
    """The head of a timeout's batch: the count, and (like ``command``) a turn's start closes the
    opponent's UNO window (D14) when the default action is a turn-opening one."""
    seat = d["seat"]
    count = d["count"]
    if count.__class__ is not int:
        raise TypeError(f"count must be an integer, not {count!r}")
    changes: Changes = {"timeouts": _set_pair(s.timeouts, seat, count)}
    action = d["action"]
    if action is not None and action["type"] in TURN_OPENING_COMMANDS:
        other = 1 - seat
        if s.uno_open[other]:
            changes["uno_open"] = _set_pair(s.uno_open, other, False)
    return changes


def _match_forfeited(s: MatchState, d: Data) -> Changes:
    return {}  # the match_ended that follows ends the match


def _forfeit_declared(s: MatchState, d: Data) -> Changes:
    return {}  # the head of a Forfeit's batch; its match_forfeited and match_ended follow


def _cut(s: MatchState, d: Data) -> Changes:
    return {"cuts": d["cut"] + 1}


def _round_started(s: MatchState, d: Data) -> Changes:
    return {
        "round": d["round"],
        "player1": d["player1"],
        "draw_pile": tuple(d["deck"]),
        "draft_pile": (),
        "discard": (),
        "hands": ((), ()),
        "color": None,
        "pending": NO_PENDING,
        "uno_said": (False, False),
        "uno_open": (False, False),
        "wd4": None,
        "recycles": 0,
        "restarts": d["restart"],
        "empty_draws": 0,
        "draft_steps": 0,
        "phase": Phases.DRAFT if s.ruleset.deal is Deal.DRAFT else Phases.PLAY,
    }


def _cards_dealt(s: MatchState, d: Data) -> Changes:
    h0, h1 = d["cards"]
    dealt = len(h0) + len(h1)
    return {"hands": (tuple(sorted(h0)), tuple(sorted(h1))), "draw_pile": s.draw_pile[dealt:]}


def _drafted(s: MatchState, d: Data) -> Changes:
    seat = d["seat"]
    hand = tuple(sorted(s.hands[seat] + (d["hand_card"],)))
    return {
        "draw_pile": s.draw_pile[2:],
        "hands": _set_pair(s.hands, seat, hand),
        "draft_pile": (*s.draft_pile, d["pile_card"]),
        "draft_steps": s.draft_steps + 1,
    }


def _draft_completed(s: MatchState, d: Data) -> Changes:
    return {"draw_pile": s.draw_pile + s.draft_pile, "draft_pile": (), "phase": Phases.PLAY}


def _starter_turned(s: MatchState, d: Data) -> Changes:
    card = d["card"]
    return {"draw_pile": s.draw_pile[1:], "discard": (*s.discard, card), "color": s.facts.colors[card]}


def _awaiting(s: MatchState, d: Data) -> Changes:
    pending = _pending(d["kind"], d["seat"], d.get("total", 0), d.get("card"), d.get("starter", False))
    return {"pending": pending}


def _card_played(s: MatchState, d: Data) -> Changes:
    seat, card_id = d["seat"], d["card"]
    hands = s.hands
    old_hand = hands[seat]
    index = old_hand.index(card_id)
    hand = old_hand[:index] + old_hand[index + 1 :]
    facts = s.facts
    one_left = len(hand) == 1
    said = one_left and bool(d.get("uno"))
    opened = one_left and not said
    first = seat == 0
    changes: Changes = {
        "hands": (hand, hands[1]) if first else (hands[0], hand),
        "discard": (*s.discard, card_id),
        "color": _COLOR_BY_VALUE[d["color"]],
        "pending": NO_PENDING,
        "uno_said": (said, s.uno_said[1]) if first else (s.uno_said[0], said),
        "uno_open": (opened, s.uno_open[1]) if first else (s.uno_open[0], opened),
        "empty_draws": 0,
    }
    if card_id in facts.wild_fours:
        changes["wd4"] = WildDrawFourContext(seat, hand, s.discard[-1], s.color)
    if not hand:
        changes["phase"] = Phases.ROUND_OVER
    return changes


def _cards_drawn(s: MatchState, d: Data) -> Changes:
    seat, cards = d["seat"], d["cards"]
    hand = tuple(sorted(s.hands[seat] + tuple(cards)))
    return {
        "draw_pile": s.draw_pile[len(cards) :],
        "hands": _set_pair(s.hands, seat, hand),
        "uno_said": _set_pair(s.uno_said, seat, False),
        "uno_open": _set_pair(s.uno_open, seat, False),
        "empty_draws": 0,
    }


def _draw_lapsed(s: MatchState, d: Data) -> Changes:
    """D17 counts a seat's own draw (a turn's, or a volley's) that received nothing at all."""
    if d["received"] == 0 and d["reason"] in _SEAT_DRAW_REASONS:
        return {"empty_draws": s.empty_draws + 1}
    return {}


_SEAT_DRAW_REASONS = frozenset({"draw", "volley"})


def _pile_recycled(s: MatchState, d: Data) -> Changes:
    return {
        "discard": (d["set_aside"],),
        "draw_pile": s.draw_pile + tuple(d["cards"]),
        "recycles": d["recycle"],
    }


def _color_chosen(s: MatchState, d: Data) -> Changes:
    return {"color": Color(d["color"])}


def _challenge_resolved(s: MatchState, d: Data) -> Changes:
    return {"last_challenge": d, "wd4": None}


def _uno_said(s: MatchState, d: Data) -> Changes:
    seat = d["seat"]
    return {
        "uno_said": _set_pair(s.uno_said, seat, True),
        "uno_open": _set_pair(s.uno_open, seat, False),
    }


def _uno_caught(s: MatchState, d: Data) -> Changes:
    return {"uno_open": _set_pair(s.uno_open, d["seat"], False)}


def _round_ended(s: MatchState, d: Data) -> Changes:
    return {
        "scores": (d["scores"][0], d["scores"][1]),
        "last_round": d,
        "pending": NO_PENDING,
        "wd4": None,
        "phase": Phases.ROUND_OVER,
    }


def _match_ended(s: MatchState, d: Data) -> Changes:
    return {"phase": Phases.MATCH_OVER, "winner": d["winner"], "pending": NO_PENDING}


def _seed_revealed(s: MatchState, d: Data) -> Changes:
    return {"server_seed": d["server_seed"]}


EFFECTS: dict[str, Callable[[MatchState, Data], Changes]] = {
    # event type -> the fields it changes (version aside)
    EventType.MATCH_CREATED: _match_created,
    EventType.SEAT_JOINED: _seat_joined,
    EventType.COMMAND: _command,
    EventType.CUT: _cut,
    EventType.ROUND_STARTED: _round_started,
    EventType.CARDS_DEALT: _cards_dealt,
    EventType.DRAFTED: _drafted,
    EventType.DRAFT_COMPLETED: _draft_completed,
    EventType.STARTER_TURNED: _starter_turned,
    EventType.AWAITING: _awaiting,
    EventType.CARD_PLAYED: _card_played,
    EventType.CARDS_DRAWN: _cards_drawn,
    EventType.DRAW_LAPSED: _draw_lapsed,
    EventType.PILE_RECYCLED: _pile_recycled,
    EventType.COLOR_CHOSEN: _color_chosen,
    EventType.CHALLENGE_RESOLVED: _challenge_resolved,
    EventType.UNO_SAID: _uno_said,
    EventType.UNO_CAUGHT: _uno_caught,
    EventType.ROUND_ENDED: _round_ended,
    EventType.MATCH_ENDED: _match_ended,
    EventType.SEED_REVEALED: _seed_revealed,
    EventType.TIMED_OUT: _timed_out,
    EventType.MATCH_FORFEITED: _match_forfeited,
    EventType.FORFEIT_DECLARED: _forfeit_declared,
}


def evolve(state: MatchState, event: Event) -> MatchState:
    draft = _derive(state, {})
    _apply_in_place(draft, event)
    return draft


def _apply_in_place(draft: MatchState, event: Event) -> None:
    """Apply ``event`` to ``draft``, a copy of a state that nobody else holds yet.

    A state, once handed out, never changes. On an error ``draft`` is left as it was.
    """
    handler = EFFECTS.get(event.type)
    if handler is None:
        raise InvalidEventError(f"unknown event type {event.type!r}")
    try:
        changes = handler(draft, event.data)
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise InvalidEventError(f"cannot apply {event.type} event: {exc!r}") from exc
    fields = draft.__dict__
    fields.update(changes)
    fields["version"] += 1


# What outlives a round: a round_started resets every other field of the state, but for
# ``timeouts``, which the fold carries past the events it skips (``_CARRY_TIMEOUTS``).
_OUTLIVE_A_ROUND = frozenset(
    {
        EventType.MATCH_CREATED,
        EventType.SEAT_JOINED,
        EventType.CUT,
        EventType.CHALLENGE_RESOLVED,  # last_challenge
        EventType.ROUND_ENDED,  # scores, last_round
        EventType.MATCH_ENDED,
        EventType.SEED_REVEALED,
        EventType.MATCH_FORFEITED,  # (no effect of its own)
        EventType.FORFEIT_DECLARED,  # (no effect of its own)
    }
)

# The skipped events that change ``timeouts`` (which no round start resets); every other field
# they change is reset by the round start. Their effect on ``timeouts`` alone is carried.
_CARRY_TIMEOUTS = frozenset({EventType.COMMAND, EventType.TIMED_OUT})


def _carried_timeouts(timeouts: list[int], event: Event) -> None:
    """``timeouts`` after a skipped ``command`` or ``timed_out``, as their effects would leave it."""
    data = event.data
    try:
        seat = data["seat"]
        timeouts[seat] = 0 if event.type == EventType.COMMAND else data["count"]
    except (KeyError, IndexError, TypeError) as exc:
        raise InvalidEventError(f"cannot apply {event.type} event: {exc!r}") from exc


def fold(events: Iterable[Event], state: MatchState = INITIAL_STATE) -> MatchState:
    """Fold trusted (stored) events, in order, onto a state (the empty match by default).

    Events before the last ``round_started`` whose every effect that round start resets are
    counted, not applied (but for their effect on ``timeouts``, which outlives a round and is
    carried): the result is the same state, whole matches fold several times
    faster (docs/BENCHMARKS.md), and the store and snapshots fold only what they stored. An
    auditor re-runs every event with ``evolve`` (``engine.audit``), which checks them all.
    """
    log = events if isinstance(events, list) else list(events)
    draft = _derive(state, {})
    last_start = next((i for i in range(len(log) - 1, -1, -1) if log[i].type == EventType.ROUND_STARTED), 0)
    skipped = 0
    timeouts = list(draft.timeouts)
    for event in log[:last_start]:
        if event.type in _OUTLIVE_A_ROUND:
            _apply_in_place(draft, event)
        else:
            skipped += 1
            if event.type in _CARRY_TIMEOUTS:
                _carried_timeouts(timeouts, event)
    fields = draft.__dict__
    fields["version"] += skipped
    if last_start:
        fields["timeouts"] = (timeouts[0], timeouts[1])
    for event in log[last_start:]:
        _apply_in_place(draft, event)
    return draft
