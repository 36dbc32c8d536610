"""What one seat knows, and full states consistent with it (issue 37: the coach and the review).

A seat's knowledge is built only from what that seat received: every event of its match as
that seat gets it (public fields, and the sealed fields opened to it: its own hand, its draws,
the evidence of a challenge it made; docs/FAIRNESS.md "Sealed fields"), plus the one card its
view shows that no event carries (the card it looks at in a draft step, D3). Every event is
filtered here again with :func:`engine.record.sealing.seen_by`, so a caller that hands over the
whole events still gives the seat nothing more than its own stream.

The knowledge is a *picture*: a :class:`MatchState` folded by the real ``evolve`` in which every
card the seat has seen is a real card id at the place it is, and every card it has not seen is
a placeholder (a *token*, an int >= :data:`TOKEN_BASE`): the opponents' unseen cards, the draw
pile's unseen order. A card whose face is revealed later (played, drawn by the seat, shown in
a challenge) turns its token into a real id of that face. The unseen cards are then exactly
the deck's ids not in the picture; :func:`determinize` deals them at random onto the tokens,
which respects every positional fact the seat knows (its hand, the cards known to lie at the
bottom of the draw pile after a draft, cards it saw an opponent take from there).

What a seat's own moves showed about cards it still holds unseen is kept per token
(``SeatKnowledge.excluded``): a Reverse dump takes every card of its colour (D10), a Wild Draw
Four where D13c is enforced says no card left could have been played. :func:`determinize` deals
those tokens first, each a card it may be. Not modelled: the cards a D21 ``until_playable`` draw
passed over, and any habit of a player (only what the rules force).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.game.cards import Color
from engine.game.events import Event, EventType
from engine.game.evolve import evolve
from engine.game.rules import could_have_played
from engine.game.rulesets import Recycle, WildDrawFourCheck
from engine.game.state import INITIAL_STATE, MatchState, PendingKind
from engine.record.sealing import seen_by

TOKEN_BASE = 1 << 20
"""Ids at or above this stand for a card the seat has not seen (never a deck id: decks hold < 200)."""


def is_token(card: int) -> bool:
    return card >= TOKEN_BASE


@dataclass(frozen=True, slots=True)
class SeatKnowledge:
    """Everything ``seat`` knows at one moment: the picture (see the module docstring)."""

    seat: int
    picture: MatchState
    verdicts: tuple[tuple[int, int], ...] = ()
    """Per seat, the challenges of its Wild Draw Fours seen so far: (found illegal, found legal)
    (public verdicts, D13): how often that seat has bluffed."""
    excluded: tuple[tuple[int, frozenset[int]], ...] = ()
    """(token, the card ids it cannot be), by token: what a seat's own moves showed about cards it
    still holds unseen. A Reverse dump takes every card of its colour (D10), so the cards left
    are of other colours; a Wild Draw Four where the rule is enforced (D13c) says no card left
    could have been played instead."""

    @property
    def version(self) -> int:
        return self.picture.version

    def tokens(self) -> list[int]:
        """The unseen cards' placeholders, in a fixed order (each once)."""
        return sorted(_tokens(self.picture))

    def unseen(self) -> list[int]:
        """The deck ids the seat has not located: the cards the tokens stand for, in id order."""
        placed = set(_ids(self.picture))
        return [i for i in range(len(self.picture.deck)) if i not in placed]


def _state_cards(state: MatchState) -> Iterable[int]:
    yield from state.draw_pile
    yield from state.draft_pile
    yield from state.discard
    for hand in state.hands:
        yield from hand


def _tokens(state: MatchState) -> set[int]:
    return {c for c in _state_cards(state) if c >= TOKEN_BASE}


def _ids(state: MatchState) -> list[int]:
    return [c for c in _state_cards(state) if c < TOKEN_BASE]


def _mapped(state: MatchState, mapping: Mapping[int, int]) -> MatchState:
    """``state`` with every card (token or id) in ``mapping`` replaced; hands stay sorted."""
    if not mapping:
        return state

    def m(cards: Iterable[int]) -> tuple[int, ...]:
        return tuple(mapping.get(c, c) for c in cards)

    changes: dict[str, Any] = {
        "draw_pile": m(state.draw_pile),
        "draft_pile": m(state.draft_pile),
        "discard": m(state.discard),
        "hands": tuple(tuple(sorted(m(hand))) for hand in state.hands),
    }
    card = state.pending.card
    if card is not None and card in mapping:
        changes["pending"] = replace(state.pending, card=mapping[card])
    if state.wd4 is not None:
        wd4 = state.wd4
        changes["wd4"] = replace(
            wd4, hand=tuple(sorted(m(wd4.hand))), top_before=mapping.get(wd4.top_before, wd4.top_before)
        )
    return replace(state, **changes)


class SeatFold:
    """A seat's knowledge, kept up to date one received event at a time (the house bot's memory)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.picture = INITIAL_STATE
        self._next_token = TOKEN_BASE
        self._last_drawn: dict[int, int] = {}
        self._verdicts: dict[int, tuple[int, int]] = {}
        self._excluded: dict[int, frozenset[int]] = {}
        self._dumped: tuple[int, str] | None = None  # (seat, colour) of a dump whose cards are being played

    def copy(self) -> SeatFold:
        """An independent fold at the same point (to look ahead over events not stored yet)."""
        twin = SeatFold(self.seat)
        twin.picture, twin._next_token, twin._last_drawn = self.picture, self._next_token, dict(self._last_drawn)
        twin._verdicts = dict(self._verdicts)
        twin._excluded, twin._dumped = dict(self._excluded), self._dumped
        return twin

    # ------------------------------------------------------------ reading

    def knowledge(self, looking_at: str | None = None) -> SeatKnowledge:
        """What the seat knows now; ``looking_at``: the card code its view shows in a draft step."""
        picture = self.picture
        pending = picture.pending
        if looking_at is not None and pending.kind is PendingKind.DRAFT and pending.seat == self.seat:
            picture = self._resolved(picture, {0: looking_at})
        verdicts = tuple(self._verdicts.get(seat, (0, 0)) for seat in range(picture.seats))
        held = _tokens(picture)
        excluded = tuple(sorted((t, ids) for t, ids in self._excluded.items() if t in held))
        return SeatKnowledge(self.seat, picture, verdicts, excluded)

    # ------------------------------------------------------------ folding

    def see(self, event: Event) -> None:
        """Fold one event of the match, as this seat receives it (anything else is dropped first)."""
        data = seen_by(event.type, event.data, self.seat)
        if self._dumped is not None and event.type not in (EventType.CARD_PLAYED, EventType.PILE_RECYCLED):
            self._exclude_colour(*self._dumped)  # the dump is over: its colour is gone from the hand
            self._dumped = None
        if event.type == EventType.COMMAND and data["command"].get("type") == "dump":
            cards = data["command"].get("cards") or []
            colour = self.picture.facts.colors[self.picture.facts.codes.index(cards[0])] if cards else None
            if colour is not None:
                self._dumped = (data["seat"], colour.value)
        full = self._filled(event.type, data)
        self.picture = evolve(self.picture, Event(event.type, full))
        wd4 = self.picture.wd4
        if event.type == EventType.CARD_PLAYED and wd4 is not None and full["card"] in self.picture.facts.wild_fours:
            if self.picture.ruleset.wd4_check is WildDrawFourCheck.ENFORCED:  # D13c: the play was legal
                self._exclude(wd4.hand, _could_have_played_ids(self.picture, wd4.top_before, wd4.color_before))
        if event.type == EventType.SEED_REVEALED:  # every entropy is public from here (docs/FAIRNESS.md)
            self.picture = replace(self.picture, entropies=tuple(full["entropies"]))

    def see_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.see(event)

    def _exclude(self, cards: Iterable[int], ids: frozenset[int]) -> None:
        for card in cards:
            if is_token(card):
                self._excluded[card] = self._excluded.get(card, frozenset()) | ids

    def _exclude_colour(self, seat: int, colour: str) -> None:
        colours = self.picture.facts.colors
        ids = frozenset(i for i, c in enumerate(colours) if c is not None and c.value == colour)
        self._exclude(self.picture.hands[seat], ids)

    def _fresh(self, n: int) -> list[int]:
        start = self._next_token
        self._next_token += n
        return list(range(start, start + n))

    def _free_id(self, state: MatchState, code: str, taken: set[int]) -> int:
        codes = state.facts.codes
        placed = set(_ids(state)) | taken
        for card_id, face in enumerate(codes):
            if face == code and card_id not in placed:
                return card_id
        raise ValueError(f"seat {self.seat}'s knowledge has no unseen {code} left: its events disagree")

    def _resolved(self, state: MatchState, where: Mapping[int, str], pile: bool = True) -> MatchState:
        """``state`` with draw-pile positions (``pile``) revealed as the given faces."""
        codes = state.facts.codes
        mapping: dict[int, int] = {}
        for index, code in where.items():
            card = state.draw_pile[index]
            if is_token(card):
                mapping[card] = self._free_id(state, code, set(mapping.values()))
            elif codes[card] != code:
                raise ValueError(f"seat {self.seat} saw {code} where its knowledge holds {codes[card]}")
        return _mapped(state, mapping)

    def _from_hand(self, state: MatchState, seat: int, codes_shown: Sequence[str]) -> tuple[MatchState, list[int]]:
        """Cards of ``seat``'s hand with the given faces: a known card of that face, else a token revealed."""
        codes = state.facts.codes
        hand = list(state.hands[seat])
        mapping: dict[int, int] = {}
        chosen: list[int] = []
        for code in codes_shown:
            known = next((c for c in hand if not is_token(c) and codes[c] == code), None)
            if known is None:
                token = next((c for c in hand if is_token(c)), None)
                if token is None:
                    raise ValueError(
                        f"seat {seat} showed {code} but holds no such card in seat {self.seat}'s knowledge"
                    )
                known = self._free_id(state, code, set(mapping.values()))
                mapping[token] = known
                hand.remove(token)
            else:
                hand.remove(known)
            chosen.append(known)
        return _mapped(state, mapping), chosen

    def _filled(self, type_: str, data: dict[str, Any]) -> dict[str, Any]:
        """The event's data with its hidden fields filled from the picture (and the picture revealed
        where the seat learns a face), so that the real fold applies it."""
        s = self.picture
        d = dict(data)
        if type_ == EventType.SEAT_JOINED:
            d.setdefault("entropy", None)  # another seat's entropy stays its own (docs/FAIRNESS.md)
        elif type_ == EventType.CUT:
            d.setdefault("cards", [])
        elif type_ == EventType.ROUND_STARTED:
            d["deck"] = self._fresh(len(s.deck))
        elif type_ == EventType.CARDS_DEALT:
            pile = list(s.draw_pile)
            hands: list[list[int]] = []
            for count in d["counts"]:
                hands.append(pile[:count])
                pile = pile[count:]
            own = d.get(f"hand{self.seat}")
            if own is not None:
                start = sum(d["counts"][: self.seat])
                self.picture = s = self._resolved(s, {start + i: code for i, code in enumerate(own)})
                hands[self.seat] = list(s.draw_pile[start : start + len(own)])
            d["cards"] = hands
        elif type_ == EventType.DRAFTED:
            keep = d["keep"]
            hand_at, pile_at = (0, 1) if keep else (1, 0)
            where = {pile_at: d["pile_code"]}
            if "hand_code" in d:
                where[hand_at] = d["hand_code"]
            self.picture = s = self._resolved(s, where)
            d["hand_card"], d["pile_card"] = s.draw_pile[hand_at], s.draw_pile[pile_at]
        elif type_ == EventType.DRAFT_COMPLETED:
            d["cards"] = list(s.draft_pile)
        elif type_ == EventType.STARTER_TURNED:
            self.picture = s = self._resolved(s, {0: d["code"]})
            d["card"] = s.draw_pile[0]
        elif type_ == EventType.AWAITING:
            kind = d["kind"]
            if kind == PendingKind.DRAWN:
                d["card"] = self._last_drawn[d["seat"]]
            elif kind == PendingKind.COLOR:
                d["card"] = s.discard[-1]
        elif type_ == EventType.CARD_PLAYED:
            seat = d["seat"]
            pending = s.pending
            if pending.kind is PendingKind.DRAWN and pending.seat == seat and pending.card is not None:
                card = pending.card  # D6: only the card just drawn may be played
                if is_token(card):
                    mapping = {card: self._free_id(s, d["code"], set())}
                    self.picture = s = _mapped(s, mapping)
                    card = mapping[card]
            else:
                self.picture, (card,) = self._from_hand(s, seat, [d["code"]])
            d["card"] = card
        elif type_ == EventType.CARDS_DRAWN:
            count = d["count"]
            if "codes" in d:
                self.picture = s = self._resolved(s, dict(enumerate(d["codes"])))
            d["cards"] = list(s.draw_pile[:count])
            if count:
                self._last_drawn[d["seat"]] = d["cards"][-1]
        elif type_ == EventType.PILE_RECYCLED:
            rest = s.discard[:-1]
            d["set_aside"] = s.discard[-1]
            d["cards"] = list(rest) if s.ruleset.recycle is Recycle.FLIP else self._fresh(d["count"])
        elif type_ == EventType.CHALLENGE_RESOLVED:
            illegal, legal = self._verdicts.get(d["player"], (0, 0))
            found_illegal = d["verdict"] == "illegal"
            self._verdicts[d["player"]] = (illegal + found_illegal, legal + (not found_illegal))
            if "hand" in d and s.wd4 is not None:  # the challenger sees the hand the Wild Draw Four left
                self.picture, _ = self._from_hand(s, d["player"], d["hand"])
        return d


def knowledge_at(
    events: Sequence[Event], seat: int, upto: int | None = None, looking_at: str | None = None
) -> SeatKnowledge:
    """What ``seat`` knows after the first ``upto`` events (all by default), each filtered to what it
    receives; ``looking_at``: the draft card its view shows, when it is drafting (D3)."""
    fold = SeatFold(seat)
    fold.see_all(events if upto is None else events[:upto])
    return fold.knowledge(looking_at)


def _could_have_played_ids(state: MatchState, top: int, colour: Color | None) -> frozenset[int]:
    """The card ids whose presence in a hand would have made a Wild Draw Four on ``top`` illegal (D13)."""
    deck, rule = state.deck, state.ruleset.wd4_rule
    return frozenset(i for i, card in enumerate(deck) if could_have_played(card, deck[top], colour, rule))


def looking_at(view: Mapping[str, Any]) -> str | None:
    """The draft card a seat's view shows it (the one card no event tells it)."""
    pending = view.get("pending") or {}
    card = pending.get("card")
    return card if pending.get("kind") == PendingKind.DRAFT and isinstance(card, str) else None


def determinize(knowledge: SeatKnowledge, rng: random.Random) -> MatchState:
    """A full state consistent with ``knowledge``: its unseen cards dealt at random onto its tokens.

    Reads nothing but ``knowledge`` and ``rng``: the same knowledge and the same stream give the
    same state, whatever the hidden truth was.
    """
    tokens = knowledge.tokens()
    unseen = knowledge.unseen()
    if len(tokens) != len(unseen):
        raise ValueError(f"{len(tokens)} unseen places for {len(unseen)} unseen cards: the knowledge is inconsistent")
    rng.shuffle(unseen)
    mapping: dict[int, int] = {}
    if knowledge.excluded:
        # The constrained tokens first, each dealt the first card of the shuffled rest it may be
        # (if none is left, the first of the rest: a constraint is knowledge, not a certainty of the fold).
        free = set(unseen)
        for token, ids in knowledge.excluded:
            card = next((c for c in unseen if c in free and c not in ids), None)
            if card is None:
                card = next(c for c in unseen if c in free)
            mapping[token] = card
            free.discard(card)
        unseen = [c for c in unseen if c in free]
        tokens = [t for t in tokens if t not in mapping]
    mapping.update(zip(tokens, unseen, strict=True))
    return _mapped(knowledge.picture, mapping)
