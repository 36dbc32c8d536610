"""``evolve(state, event) -> state``: apply one recorded fact. No rules are checked here.

The Decider (engine.game.decide) is the only place rules live; it emits events whose effects are
spelled out, so folding trusted stored events is a cheap, mechanical step.

Hot path: the Decider applies the effect of every event it emits (``EFFECTS``), several per
command. Each effect returns only the fields that change, and they are written into a private
copy of the state (one dict copy per command or fold, not one ``dataclasses.replace`` per
event), which is handed out once complete and never changes again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine.game.cards import Color
from engine.game.errors import InvalidEventError
from engine.game.events import Event, EventType
from engine.game.rulesets import MAX_SEATS, MIN_SEATS, Deal, Ruleset
from engine.game.state import (
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


def _set_at(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """A per-seat tuple with one seat's entry replaced."""
    if len(values) == 2:  # Speed: the two-seat case, built directly (most of self-play's folds)
        return (value, values[1]) if index == 0 else (values[0], value)
    return (*values[:index], value, *values[index + 1 :])


def _close_others(uno_open: tuple[bool, ...], seat: int) -> tuple[bool, ...] | None:
    """D14/D22: ``seat`` begins a turn, so every other seat's UNO window closes (None: none was open)."""
    # Speed: almost every command finds no window open; one ``in`` test settles it (the generator
    # below on every turn-opening command cost ~5% of two-seat self-play, docs/BENCHMARKS.md).
    if True not in uno_open or not any(open_ and i != seat for i, open_ in enumerate(uno_open)):
        return None
    return tuple(open_ and i == seat for i, open_ in enumerate(uno_open))


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
    n = d.get("seats", 2)
    if n.__class__ is not int or not MIN_SEATS <= n <= MAX_SEATS:
        raise ValueError(f"seats must be {MIN_SEATS} to {MAX_SEATS}, not {n!r}")
    return {
        "ruleset": Ruleset.from_record(d["ruleset"]),  # as the match was played (D25)
        "commitment": d["commitment"],
        "phase": Phases.WAITING,
        "scheduled_first_drafter": d.get("first_drafter"),
        "seats": n,
        "entropies": (None,) * n,
        "scores": (0,) * n,
        "hands": ((),) * n,
        "uno_said": (False,) * n,
        "uno_open": (False,) * n,
        "departed": (False,) * n,
        "timeouts": (0,) * n,
    }


def _seat_joined(s: MatchState, d: Data) -> Changes:
    return {"entropies": _set_at(s.entropies, d["seat"], d["entropy"])}


def _command(s: MatchState, d: Data) -> Changes:
    seat = d["seat"]
    changes: Changes = {}
    if d["command"]["type"] in TURN_OPENING_COMMANDS:
        closed = _close_others(s.uno_open, seat)
        if closed is not None:
            changes["uno_open"] = closed
    if s.timeouts[seat]:  # a seat's own command, any (``uno`` too), ends its run of timeouts
        changes["timeouts"] = _set_at(s.timeouts, seat, 0)
    return changes


def _timed_out(s: MatchState, d: Data) -> Changes:
    """The head of a timeout's batch: the count, and (like ``command``) a turn's start closes the
    opponent's UNO window (D14) when the default action is a turn-opening one."""
    seat = d["seat"]
    count = d["count"]
    if count.__class__ is not int:
        raise TypeError(f"count must be an integer, not {count!r}")
    changes: Changes = {"timeouts": _set_at(s.timeouts, seat, count)}
    action = d["action"]
    if action is not None and action["type"] in TURN_OPENING_COMMANDS:
        closed = _close_others(s.uno_open, seat)
        if closed is not None:
            changes["uno_open"] = closed
    return changes


def _match_forfeited(s: MatchState, d: Data) -> Changes:
    """The seat leaves the table: at two seats the match_ended that follows ends the match; at
    more, play goes on without it (its hand stays, set aside, to be scored for the round)."""
    seat = d["seat"]
    return {
        "departed": _set_at(s.departed, seat, True),
        "departures": (*s.departures, seat),
        "uno_open": _set_at(s.uno_open, seat, False),
    }


def _forfeit_declared(s: MatchState, d: Data) -> Changes:
    return {}  # the head of a Forfeit's batch; its match_forfeited and match_ended follow


def _time_called(s: MatchState, d: Data) -> Changes:
    """D26: time is called; the hand in play goes on, and its end decides on the totals."""
    moment = d["moment"]
    if moment.__class__ is not str:
        raise TypeError(f"moment must be a string, not {moment!r}")
    return {"time_called": moment}


def _cut(s: MatchState, d: Data) -> Changes:
    return {"cuts": d["cut"] + 1}


def _round_started(s: MatchState, d: Data) -> Changes:
    return {
        "round": d["round"],
        "player1": d["player1"],
        "draw_pile": tuple(d["deck"]),
        "draft_pile": (),
        "discard": (),
        "hands": ((),) * s.seats,
        "color": None,
        "pending": NO_PENDING,
        "uno_said": (False,) * s.seats,
        "uno_open": (False,) * s.seats,
        "direction": 1,
        "wd4": None,
        "recycles": 0,
        "restarts": d["restart"],
        "empty_draws": 0,
        "draft_steps": 0,
        "phase": Phases.DRAFT if s.ruleset.deal is Deal.DRAFT else Phases.PLAY,
    }


def _cards_dealt(s: MatchState, d: Data) -> Changes:
    cards = d["cards"]
    if len(cards) != s.seats:
        raise ValueError(f"a deal to {len(cards)} seats at a table of {s.seats}")
    dealt = sum(len(hand) for hand in cards)
    return {"hands": tuple(tuple(sorted(hand)) for hand in cards), "draw_pile": s.draw_pile[dealt:]}


def _drafted(s: MatchState, d: Data) -> Changes:
    seat = d["seat"]
    hand = tuple(sorted(s.hands[seat] + (d["hand_card"],)))
    return {
        "draw_pile": s.draw_pile[2:],
        "hands": _set_at(s.hands, seat, hand),
        "draft_pile": (*s.draft_pile, d["pile_card"]),
        "draft_steps": s.draft_steps + 1,
    }


def _draft_completed(s: MatchState, d: Data) -> Changes:
    return {"draw_pile": s.draw_pile + s.draft_pile, "draft_pile": (), "phase": Phases.PLAY}


def _starter_turned(s: MatchState, d: Data) -> Changes:
    card = d["card"]
    changes: Changes = {"draw_pile": s.draw_pile[1:], "discard": (*s.discard, card), "color": s.facts.colors[card]}
    if "direction" in d:  # a Reverse starter at a table of 3+ (D19)
        changes["direction"] = _direction(d["direction"])
    return changes


def _direction(value: Any) -> int:
    if value.__class__ is not int or value not in (1, -1):
        raise ValueError(f"direction must be 1 or -1, not {value!r}")
    return int(value)


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
    changes: Changes = {
        "hands": _set_at(hands, seat, hand),
        "discard": (*s.discard, card_id),
        "color": _COLOR_BY_VALUE[d["color"]],
        "pending": NO_PENDING,
        "uno_said": _set_at(s.uno_said, seat, said),
        "uno_open": _set_at(s.uno_open, seat, opened),
        "empty_draws": 0,
    }
    if "direction" in d:  # a Reverse at a table of 3+ turned the direction (D20)
        changes["direction"] = _direction(d["direction"])
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
        "hands": _set_at(s.hands, seat, hand),
        "uno_said": _set_at(s.uno_said, seat, False),
        "uno_open": _set_at(s.uno_open, seat, False),
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
        "uno_said": _set_at(s.uno_said, seat, True),
        "uno_open": _set_at(s.uno_open, seat, False),
    }


def _uno_caught(s: MatchState, d: Data) -> Changes:
    return {"uno_open": _set_at(s.uno_open, d["seat"], False)}


def _round_ended(s: MatchState, d: Data) -> Changes:
    return {
        "scores": _per_seat(s, d["scores"]),
        "last_round": d,
        "pending": NO_PENDING,
        "wd4": None,
        "phase": Phases.ROUND_OVER,
    }


def _per_seat(s: MatchState, values: list[Any]) -> tuple[Any, ...]:
    if len(values) != s.seats:
        raise ValueError(f"{len(values)} values for a table of {s.seats}")
    return tuple(values)


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
    EventType.TIME_CALLED: _time_called,
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
        EventType.TIME_CALLED,  # time_called
    }
)

# The skipped events that change ``timeouts`` (which no round start resets); every other field
# they change is reset by the round start. Their effect on ``timeouts`` alone is carried.
_CARRY_TIMEOUTS = frozenset({EventType.COMMAND, EventType.TIMED_OUT})


def _carried_timeouts(timeouts: dict[int, int], event: Event) -> None:
    """``timeouts`` after a skipped ``command`` or ``timed_out``, as their effects would leave it."""
    data = event.data
    try:
        seat = data["seat"]
        if seat.__class__ is not int or seat < 0:
            raise TypeError(f"seat must be a seat number, not {seat!r}")
        timeouts[seat] = 0 if event.type == EventType.COMMAND else data["count"]
    except (KeyError, IndexError, TypeError) as exc:
        raise InvalidEventError(f"cannot apply {event.type} event: {exc!r}") from exc


def fold(events: Iterable[Event], state: MatchState = INITIAL_STATE) -> MatchState:
    """Fold trusted (stored) events, in order, onto a state (the empty match by default).

    Events before the last ``round_started`` whose every effect that round start resets are
    counted, not applied (but for their effect on ``timeouts``, which outlives a round and is
    carried): the result is the same state, whole matches fold several times
    faster (docs/BENCHMARKS.md), and the store and snapshots fold only what they stored. An
    auditor re-runs every event with ``evolve`` (``engine.fairness.audit``), which checks them all.
    """
    log = events if isinstance(events, list) else list(events)
    draft = _derive(state, {})
    last_start = next((i for i in range(len(log) - 1, -1, -1) if log[i].type == EventType.ROUND_STARTED), 0)
    skipped = 0
    timeouts: dict[int, int] = {}  # the carried timeouts, by seat (the table's size is known only after match_created)
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
        carried = list(draft.timeouts)
        try:
            for seat, count in timeouts.items():
                carried[seat] = count
        except IndexError as exc:
            raise InvalidEventError(f"cannot apply a timeout of seat {seat}: {exc!r}") from exc
        fields["timeouts"] = tuple(carried)
    for event in log[last_start:]:
        _apply_in_place(draft, event)
    return draft
