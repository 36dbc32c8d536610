"""What one seat knows at a decision, and full states dealt at random consistent with it.

:func:`seat_facts` keeps of a state only what the seat can see: its own hand, the discard pile,
the draft pile, the card it looks at in the draft, every count and every public field. Cards
are kept as *faces* (the lowest id of a face, ``DeckFacts.faces``), never as the physical ids
the seat cannot see. :func:`determinize` then deals the unseen faces at random (from the deck
less what the seat sees) into the other hands and the draw pile, with fresh ids handed out in a
fixed order; the same facts and the same ``rng`` give the same state, whatever the truth was.

Known limits (docs/REVIEW.md): cards the seat saw go to another hand (a draft card it passed,
a hand shown to it by a challenge) are dealt at random like any unseen card: the determinization
uses less than the seat knows, never more. Issue 37's shared ``engine.search.knowledge`` replaces
this module once it lands.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.game.state import MatchState, Pending, PendingKind, WildDrawFourContext

# Where the pending decision's card lies, when the seat can see it: in its hand or on the discard.
CardSpot = tuple[str, int] | None


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """A state with its hidden parts removed: a function of the seat's knowledge alone."""

    seat: int
    public: MatchState  # hands, draw pile, discard, draft pile, wd4, seed and entropies emptied
    hand: tuple[int, ...]  # faces, in hand order
    discard: tuple[int, ...]  # faces, bottom first
    draft_pile: tuple[int, ...]  # faces
    hand_counts: tuple[int, ...]
    draw_count: int
    seen_top: int | None  # the face the seat looks at in the draft (the draw pile's top)
    pending_card: CardSpot
    wd4: tuple[int, int | None, object] | None  # (player, discard index of top_before, colour before)


def seat_facts(state: MatchState, seat: int) -> SeatFacts:
    faces = state.facts.faces
    pending = state.pending
    seen_top = None
    if pending.kind is PendingKind.DRAFT and pending.seat == seat and state.draw_pile:
        seen_top = faces[state.draw_pile[0]]
    spot: CardSpot = None
    if pending.card is not None:
        if pending.card in state.hands[seat] and pending.seat == seat:
            spot = ("hand", state.hands[seat].index(pending.card))
        elif pending.card in state.discard:
            spot = ("discard", state.discard.index(pending.card))
    wd4 = None
    if state.wd4 is not None:
        below = state.wd4.top_before
        wd4 = (state.wd4.player, state.discard.index(below) if below in state.discard else None, state.wd4.color_before)
    seats = state.seats
    public = _emptied(state)
    return SeatFacts(
        seat=seat,
        public=public,
        hand=tuple(faces[i] for i in state.hands[seat]),
        discard=tuple(faces[i] for i in state.discard),
        draft_pile=tuple(faces[i] for i in state.draft_pile),
        hand_counts=tuple(len(state.hands[s]) for s in range(seats)),
        draw_count=len(state.draw_pile),
        seen_top=seen_top,
        pending_card=spot,
        wd4=wd4,
    )


def _emptied(state: MatchState) -> MatchState:
    new: MatchState = object.__new__(MatchState)
    fields = new.__dict__
    fields.update(state.__dict__)
    fields.update(
        hands=((),) * state.seats,
        draw_pile=(),
        discard=(),
        draft_pile=(),
        wd4=None,
        last_challenge=None,  # it holds a hand shown to the challenger only
        server_seed=None,
        entropies=("",) * state.seats,
        pending=Pending(state.pending.kind, state.pending.seat, state.pending.total, None, state.pending.starter),
    )
    return new


def determinize(facts: SeatFacts, rng: random.Random) -> MatchState:
    """A full state the seat cannot tell from the truth: its cards where they are, the rest dealt at random."""
    public = facts.public
    deck_faces = public.facts.faces
    free: dict[int, list[int]] = {}
    for card_id in range(len(deck_faces)):
        free.setdefault(deck_faces[card_id], []).append(card_id)

    def take(face: int) -> int:
        return free[face].pop(0)

    hand = tuple(take(f) for f in facts.hand)
    discard = tuple(take(f) for f in facts.discard)
    draft_pile = tuple(take(f) for f in facts.draft_pile)
    top = take(facts.seen_top) if facts.seen_top is not None else None
    pool = sorted(i for ids in free.values() for i in ids)
    rng.shuffle(pool)
    hands: list[tuple[int, ...]] = []
    at = 0
    for seat, count in enumerate(facts.hand_counts):
        if seat == facts.seat:
            hands.append(hand)
        else:
            hands.append(tuple(pool[at : at + count]))
            at += count
    draw_pile = tuple(pool[at:])
    if top is not None:
        draw_pile = (top, *draw_pile)
    pending = public.pending
    card = None
    if facts.pending_card is not None:
        where, index = facts.pending_card
        card = hand[index] if where == "hand" else discard[index]
    elif pending.card is not None or pending.kind is PendingKind.DRAWN:
        held = hands[pending.seat] if pending.seat is not None else ()
        card = held[-1] if held else None
    wd4 = None
    if facts.wd4 is not None:
        player, below, color_before = facts.wd4
        top_before = discard[below] if below is not None else discard[0]
        wd4 = WildDrawFourContext(player, hands[player], top_before, color_before)  # type: ignore[arg-type]
    new: MatchState = object.__new__(MatchState)
    fields = new.__dict__
    fields.update(public.__dict__)
    fields.update(
        hands=tuple(hands),
        draw_pile=draw_pile,
        discard=discard,
        draft_pile=draft_pile,
        wd4=wd4,
        pending=Pending(pending.kind, pending.seat, pending.total, card, pending.starter),
    )
    return new
