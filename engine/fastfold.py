"""Fold a long run of trusted stored events in one pass, without a state per event.

:func:`engine.evolve.fold` builds an immutable :class:`MatchState` after every event, which is
what the Decider needs (it reads the state between the events it emits). Loading a stored match
needs only the last state, so :func:`fast_fold` keeps the piles and hands in plain lists while it
reads, remembers the last ``awaiting`` record instead of building a ``Pending`` for each, and
builds one ``MatchState`` at the end. Since a ``round_started`` resets every field a round
plays with, the events of earlier rounds are only scanned for the few fields that outlive a
round (scores, the last challenge, ...). The result is exactly ``fold(events, state)`` (a
property test checks it over many whole matches, from any starting point).

Trust: the events are assumed to be ones the Decider produced (a stored log, a replay already
verified). If anything in them cannot be applied, the reference :func:`engine.evolve.fold` is run
instead, so the caller gets its :class:`~engine.errors.InvalidEventError` naming the event; but a
malformed event inside an earlier round is skipped, not reported. To check an untrusted log,
use ``engine.evolve.fold`` or, better, ``engine.verify`` (which re-runs every decision).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.cards import COLOR_ORDER, Color
from engine.events import Event
from engine.deck_facts import deck_facts
from engine.evolve import _COLOR_BY_VALUE, TURN_OPENING_COMMANDS, _pending, fold
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

_COLOR: dict[Any, Color] = {**{c.value: c for c in COLOR_ORDER}, **{c: c for c in COLOR_ORDER}}
_COLOR_OR_NONE = _COLOR_BY_VALUE  # a Color member finds its value: it is a str equal to it
_KINDS: frozenset[Any] = frozenset(k.value for k in PendingKind) | frozenset(PendingKind)
# Event types whose effect outlives the round they are in (on fields ``round_started`` keeps).
_OUTLIVES_A_ROUND: dict[str, bool] = {
    **{t: False for t in (
        "command", "awaiting", "card_played", "cards_drawn", "drafted", "pile_recycled",
        "round_started", "draft_completed", "starter_turned", "starter_returned", "cards_dealt",
        "uno_said", "uno_caught", "color_chosen", "draw_lapsed",
    )},
    **{t: True for t in (
        "match_created", "seat_joined", "cut", "challenge_resolved", "round_ended", "match_ended",
        "seed_revealed",
    )},
}


def fast_fold(events: Iterable[Event], state: MatchState = INITIAL_STATE) -> MatchState:
    """``engine.evolve.fold(events, state)``, several times faster on long runs of events."""
    batch = events if isinstance(events, (list, tuple)) else list(events)
    try:
        return _fold(batch, state)
    except Exception:  # noqa: BLE001 - any failure: let the reference fold say what is wrong
        return fold(batch, state)


def _fold(events: Sequence[Event], s: MatchState) -> MatchState:  # noqa: C901 - one flat loop, on purpose
    ruleset = s.ruleset
    facts = deck_facts(ruleset.wild_count)
    colors, wild_fours = facts.colors, facts.wild_fours
    commitment = s.commitment
    entropies = list(s.entropies)
    phase = s.phase
    round_ = s.round
    player1 = s.player1
    scores = s.scores
    cuts = s.cuts
    pile = list(s.draw_pile)  # the draw pile is pile[top:]
    top = 0
    draft = list(s.draft_pile)
    discard = list(s.discard)
    hands = [list(s.hands[0]), list(s.hands[1])]
    color = s.color
    pending: Pending | dict[str, Any] = s.pending  # the last ``awaiting`` data, built at the end
    said = list(s.uno_said)
    open_ = list(s.uno_open)
    wd4 = s.wd4
    last_challenge = s.last_challenge
    recycles = s.recycles
    draft_steps = s.draft_steps
    winner = s.winner
    last_round = s.last_round
    server_seed = s.server_seed
    turn_opening = TURN_OPENING_COMMANDS
    kinds = _KINDS
    color_or_none = _COLOR_OR_NONE
    no_pending = NO_PENDING
    version = s.version + len(events)

    # A ``round_started`` resets every field a round plays with, so the events of earlier rounds
    # matter only through the fields it leaves alone: read just those, then play the last round.
    start = 0
    for index in range(len(events) - 1, 0, -1):
        if events[index].type == "round_started":
            start = index
            break
    for event in events[:start]:
        t = event.type
        if not _OUTLIVES_A_ROUND[t]:  # a KeyError for an unknown type: the reference fold reports it
            continue
        d = event.data
        if t == "round_ended":
            scores = (d["scores"][0], d["scores"][1])
            last_round = d
        elif t == "challenge_resolved":
            last_challenge = d
        elif t == "cut":
            cuts = d["k"] + 1
        elif t == "seat_joined":
            entropies[d["seat"]] = d["entropy"]
        elif t == "match_created":
            ruleset = Ruleset.from_dict(d["ruleset"])
            facts = deck_facts(ruleset.wild_count)
            colors, wild_fours = facts.colors, facts.wild_fours
            commitment = d["commitment"]
        elif t == "match_ended":
            winner = d["winner"]
        elif t == "seed_revealed":
            server_seed = d["server_seed"]

    for event in events[start:]:
        t = event.type
        d = event.data
        if t == "command":
            if d["command"]["type"] in turn_opening:
                open_[1 - d["seat"]] = False
        elif t == "awaiting":
            if d["kind"] not in kinds:
                raise ValueError(f"unknown pending kind {d['kind']!r}")
            pending = d
        elif t == "card_played":
            seat = d["seat"]
            card = d["card"]
            hand = hands[seat]
            hand.remove(card)
            if card in wild_fours:
                wd4 = WildDrawFourContext(seat, tuple(hand), discard[-1], color)
            one_left = len(hand) == 1
            uno = one_left and bool(d.get("uno"))
            said[seat] = uno
            open_[seat] = one_left and not uno
            discard.append(card)
            color = color_or_none[d["color"]]
            pending = no_pending
            if not hand:
                phase = Phase.ROUND_OVER
        elif t == "cards_drawn":
            seat = d["seat"]
            cards = d["cards"]
            top += len(cards)
            if top > len(pile):
                top = len(pile)
            hand = hands[seat]
            hand.extend(cards)
            hand.sort()
            said[seat] = False
            open_[seat] = False
        elif t == "drafted":
            seat = d["seat"]
            top = min(top + 2, len(pile))
            hand = hands[seat]
            hand.append(d["hand_card"])
            hand.sort()
            draft.append(d["pile_card"])
            draft_steps += 1
        elif t == "pile_recycled":
            discard = [d["set_aside"]]
            pile.extend(d["cards"])
            recycles = d["m"]
        elif t == "round_started":
            round_ = d["round"]
            player1 = d["player1"]
            pile = list(d["deck"])
            top = 0
            draft = []
            discard = []
            hands = [[], []]
            color = None
            pending = no_pending
            said = [False, False]
            open_ = [False, False]
            wd4 = None
            recycles = 0
            draft_steps = 0
            phase = Phase.DRAFT if ruleset.deal is Deal.DRAFT else Phase.PLAY
        elif t == "draft_completed":
            pile.extend(draft)
            draft = []
            phase = Phase.PLAY
        elif t == "starter_turned":
            card = d["card"]
            top = min(top + 1, len(pile))
            discard.append(card)
            color = colors[card]
        elif t == "cards_dealt":
            h0, h1 = d["hands"]
            top = min(top + len(h0) + len(h1), len(pile))
            hands = [sorted(h0), sorted(h1)]
        elif t == "uno_said":
            seat = d["seat"]
            said[seat] = True
            open_[seat] = False
        elif t == "uno_caught":
            open_[d["seat"]] = False
        elif t == "challenge_resolved":
            last_challenge = d
            wd4 = None
        elif t == "color_chosen":
            color = _COLOR[d["color"]]
        elif t == "starter_returned":
            del discard[-1:]
            pile.append(d["card"])
            color = None
        elif t == "round_ended":
            scores = (d["scores"][0], d["scores"][1])
            last_round = d
            pending = no_pending
            wd4 = None
            phase = Phase.ROUND_OVER
        elif t == "match_ended":
            phase = Phase.MATCH_OVER
            winner = d["winner"]
            pending = no_pending
        elif t == "seed_revealed":
            server_seed = d["server_seed"]
        elif t == "draw_lapsed":
            pass
        elif t == "cut":
            cuts = d["k"] + 1
        elif t == "seat_joined":
            entropies[d["seat"]] = d["entropy"]
        elif t == "match_created":
            ruleset = Ruleset.from_dict(d["ruleset"])
            facts = deck_facts(ruleset.wild_count)
            colors, wild_fours = facts.colors, facts.wild_fours
            commitment = d["commitment"]
            phase = Phase.WAITING
        else:
            raise ValueError(f"unknown event type {t!r}")

    if isinstance(pending, dict):
        raw = pending
        pending = _pending(
            raw["kind"], raw["seat"], raw.get("total", 0), raw.get("card"), raw.get("starter", False)
        )
    return MatchState(
        version=version,
        ruleset=ruleset,
        commitment=commitment,
        entropies=(entropies[0], entropies[1]),
        phase=phase,
        round=round_,
        player1=player1,
        scores=scores,
        cuts=cuts,
        draw_pile=tuple(pile[top:]),
        draft_pile=tuple(draft),
        discard=tuple(discard),
        hands=(tuple(hands[0]), tuple(hands[1])),
        color=color,
        pending=pending,
        uno_said=(said[0], said[1]),
        uno_open=(open_[0], open_[1]),
        wd4=wd4,
        last_challenge=last_challenge,
        recycles=recycles,
        draft_steps=draft_steps,
        winner=winner,
        last_round=last_round,
        server_seed=server_seed,
    )
