"""A fast, mutable copy of a match for search rollouts, proven to play exactly as the Decider.

Why it exists: search (the coach bots, the Game Review) plays out many thousands of random
continuations per decision, and the Decider (``engine.game.decide``) builds a JSON-ready event and
a new immutable state for every step of every action. A rollout needs neither events nor seals,
only the same legal moves and the same outcomes, so this core keeps one mutable state (lists and
small ints) and changes it in place. Speed: it is a second statement of the rules of
``engine.game.decide``, kept honest by engine.search.agreement (tests/engine/test_playout_agrees.py
and ``unoduo bench playout-agreement``), which drives both from the same states, determinized ones
too, with the same random actions and compares everything after every action.

Interface (docs of issue 37, "engine/search/playout.py"):

- ``Playout.from_state(state, rng=None, chance=None)``: a playout of a started match (draft, play,
  or a last Wild Draw Four to settle). Chance beyond the state (a recycle's shuffle, a new round's
  deck) comes from ``chance``: :class:`RandomChance` over ``rng`` (the default; ``rng`` defaults to
  ``random.Random(state.version)``), or :class:`DealerChance`, the match's own dealer, which makes
  the playout follow the Decider card for card (the agreement tests use it).
- ``Playout.new_match(ruleset, seats, rng, player1=None, chance=None)``: a match from its first
  round (a simulation needing no record; Player 1 drawn from ``rng`` in place of the cut).
- ``to_move()``: the seat whose decision is pending (None once the match is over).
- ``legal()``: the pending seat's actions as small ints, in the order and number of
  ``engine.game.legal.legal_actions`` (a wild once per colour, copies of a card once, ``uno``
  last when a window is open). ``action_of(code)`` gives the Decider's command object and
  ``code_of(action)`` the code back. ``PLAY_UNO`` added to a play's or a dump's code says UNO
  with it (``Play(uno=True)``), which ``legal()`` does not list (neither does ``legal_actions``).
- ``play(code, seat=None)``: apply one action of the pending seat (or ``UNO`` from ``seat``, any
  seat at the table, as D14/D22 allow). Trusts its caller: only codes from ``legal()`` (plus the
  UNO flag) are valid; anything else may corrupt the playout. A dump plays its cards in hand
  order, the one order ``legal_actions`` lists.
- ``clone()``: an independent copy, sharing the chance source (so successive rollouts from one
  clone's origin see different shuffles yet the run stays reproducible).
- ``over``, ``winner``, ``scores``, ``points_for(seat)`` (a seat's match total),
  ``hand_points(seat)``, ``round`` and ``rounds_ended`` (to stop a rollout at the end of a hand).
  ``stop_after_hand = True`` makes a hand's end, when it does not end the match, leave the playout
  there (phase ``round_over``, nobody to move, ``legal()`` empty) instead of dealing the next
  round: a rollout scored per hand pays for no shuffle it does not use.
- Read-only, for policies: ``hands[seat]`` (sorted card ids), ``discard`` (top last), ``color``
  (an index of ``COLOR_ORDER``, ``NO_COLOR`` before a Wild starter is named), ``pseat`` and
  ``pending_kind``, ``rules``, ``seats``, and ``t``, the ruleset's :class:`CardTables` (per card id:
  ``color``, ``rank`` (0-9, ``SKIP``, ``REVERSE``, ``DRAW_TWO``, ``WILD``, ``WILD_FOUR``), ``points``,
  ``face``, ``play_codes``). A play's code is ``PLAY + 5 * face + slot`` (slot: the named colour's
  index for a wild, 4 for a coloured card).

Not modelled: move clocks (``TimeOut``), forfeits mid-playout (a state whose seats have already
left is played correctly), calling time mid-playout (a state where time was called is).
"""

from __future__ import annotations

import random
from bisect import bisect_left, insort
from collections.abc import Sequence
from typing import Final, Protocol

from engine.game.cards import COLOR_ORDER, Color, Rank
from engine.game.commands import (
    Accept,
    Challenge,
    ChooseColor,
    Draft,
    Draw,
    Dump,
    Pass,
    Play,
    SayUno,
    SeatAction,
)
from engine.game.rulesets import (
    Deal,
    DrawRule,
    Recycle,
    ReverseRule,
    Ruleset,
    Scoring,
    StarterWild,
    WildDrawFourCheck,
    WildDrawFourRule,
)
from engine.game.shuffle import Dealer
from engine.game.state import MatchState, PendingKind, Phase

# ---------------------------------------------------------------- action codes

DRAW: Final = 0
PASS: Final = 1
ACCEPT: Final = 2
CHALLENGE: Final = 3
KEEP: Final = 4  # a draft step's ``Draft(keep=True)``
GIVE: Final = 5  # ``Draft(keep=False)``
DUMP: Final = 6
UNO: Final = 7
COLOR: Final = 8  # COLOR + i names COLOR_ORDER[i] (a Wild starter, D4)
PLAY: Final = 16  # PLAY + 5 * face + slot: slot i < 4 a wild named COLOR_ORDER[i], 4 a coloured card
PLAY_UNO: Final = 1024  # added to a play's or a dump's code: say UNO with it

# Pending decisions and phases, as small ints.
_NONE, _DRAFT, _TURN, _DRAWN, _VOLLEY, _WD4, _DUMP, _COLOR = range(8)
_KIND_OF: dict[PendingKind, int] = {
    PendingKind.NONE: _NONE,
    PendingKind.DRAFT: _DRAFT,
    PendingKind.TURN: _TURN,
    PendingKind.DRAWN: _DRAWN,
    PendingKind.VOLLEY: _VOLLEY,
    PendingKind.WILD_DRAW_FOUR: _WD4,
    PendingKind.DUMP: _DUMP,
    PendingKind.COLOR: _COLOR,
}
PENDING_KINDS: tuple[PendingKind, ...] = tuple(_KIND_OF)  # by int
_IN_DRAFT, _IN_PLAY, _ROUND_OVER, _MATCH_OVER = range(4)
_PHASE_OF = {Phase.DRAFT: _IN_DRAFT, Phase.PLAY: _IN_PLAY, Phase.ROUND_OVER: _ROUND_OVER, Phase.MATCH_OVER: _MATCH_OVER}
PHASES: tuple[Phase, ...] = (Phase.DRAFT, Phase.PLAY, Phase.ROUND_OVER, Phase.MATCH_OVER)

# Ranks as ints: 0-9 the numbers, then these. Colours: COLOR_ORDER's index, NO_COLOR for none.
SKIP, REVERSE, DRAW_TWO, WILD, WILD_FOUR = 10, 11, 12, 13, 14
NO_COLOR: Final = 4
_RANK_INDEX = {**{Rank(str(n)): n for n in range(10)}, Rank.SKIP: SKIP, Rank.REVERSE: REVERSE}
_RANK_INDEX |= {Rank.DRAW_TWO: DRAW_TWO, Rank.WILD: WILD, Rank.WILD_DRAW_FOUR: WILD_FOUR}
_COLOR_INDEX: dict[Color | None, int] = {None: NO_COLOR, **{c: i for i, c in enumerate(COLOR_ORDER)}}


class Chance(Protocol):
    """What the playout cannot know from its state: decks of later rounds, recycled piles' order."""

    def round_deck(self, round_number: int, restart: int, deck_size: int) -> Sequence[int]:
        """Round ``round_number``'s deck (its ``restart``-th fresh start), index 0 the top."""
        ...

    def recycle(self, round_number: int, m: int, cards: list[int]) -> Sequence[int]:
        """The ``m``-th recycle's new draw pile made of ``cards``, index 0 the top (D7)."""
        ...


class RandomChance:
    """Uniform shuffles from a ``random.Random``: what a rollout from a determinized state needs."""

    __slots__ = ("rng",)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def round_deck(self, round_number: int, restart: int, deck_size: int) -> list[int]:
        deck = list(range(deck_size))
        self.rng.shuffle(deck)
        return deck

    def recycle(self, round_number: int, m: int, cards: list[int]) -> list[int]:
        order = list(cards)
        self.rng.shuffle(order)
        return order


class DealerChance:
    """The match's own dealer (docs/FAIRNESS.md shuffles): the playout deals exactly as the Decider."""

    __slots__ = ("dealer", "entropies")

    def __init__(self, dealer: Dealer, entropies: Sequence[str | None]) -> None:
        self.dealer = dealer
        self.entropies = tuple(e or "" for e in entropies)

    def round_deck(self, round_number: int, restart: int, deck_size: int) -> Sequence[int]:
        return self.dealer.round_deck(self.entropies, round_number, deck_size, restart)

    def recycle(self, round_number: int, m: int, cards: list[int]) -> Sequence[int]:
        return self.dealer.recycle(self.entropies, round_number, m, cards)


# ---------------------------------------------------------------- per-ruleset tables


class CardTables:
    """Everything the playout reads per card id, built once per ruleset (tuples of ints and bools)."""

    __slots__ = (
        "by_code",
        "chp",
        "color",
        "deck_size",
        "enforced",
        "face",
        "hits_at_once",
        "matching",
        "play_codes",
        "points",
        "rank",
        "turning_reverse",
        "until_playable",
    )

    def __init__(self, ruleset: Ruleset) -> None:
        deck = ruleset.deck
        # Speed: the ruleset's switches read on every action, as plain booleans (an enum member's look-up is not free).
        self.enforced = ruleset.wd4_check is WildDrawFourCheck.ENFORCED
        self.turning_reverse = ruleset.reverse is ReverseRule.DIRECTION
        self.until_playable = ruleset.draw is DrawRule.UNTIL_PLAYABLE
        self.hits_at_once = ruleset.draw_two_hits_at_once
        self.deck_size = len(deck)
        self.color = tuple(_COLOR_INDEX[card.color] for card in deck)
        self.rank = tuple(_RANK_INDEX[card.rank] for card in deck)
        self.face = tuple(deck.index(card) for card in deck)
        self.points = tuple(ruleset.points(card) for card in deck)
        self.play_codes = tuple(
            tuple(PLAY + 5 * self.face[i] + slot for slot in range(4))
            if card.is_wild
            else (PLAY + 5 * self.face[i] + 4,)
            for i, card in enumerate(deck)
        )
        # matching[colour][top rank][card]: D5, as engine.game.cards.plays_on.
        self.matching = tuple(
            tuple(tuple(r >= WILD or c == color or r == top for c, r in zip(self.color, self.rank, strict=True))
                  for top in range(15))
            for color in range(5)
        )  # fmt: skip
        # chp[colour][top rank][card]: D13/D13c, as engine.game.rules.could_have_played.
        rule = ruleset.wd4_rule
        self.chp = tuple(
            tuple(tuple(_could_have_played(c, r, top, color, rule) for c, r in zip(self.color, self.rank, strict=True))
                  for top in range(15))
            for color in range(5)
        )  # fmt: skip
        self.by_code = _actions_by_code(deck)


def _could_have_played(card_color: int, card_rank: int, top_rank: int, color: int, rule: WildDrawFourRule) -> bool:
    if rule is WildDrawFourRule.NO_COLOUR_MATCH:
        return card_color != NO_COLOR and card_color == color
    if rule is WildDrawFourRule.NO_MATCH:
        return card_rank < WILD and (card_color == color or card_rank == top_rank)
    if card_rank == WILD_FOUR:
        return False
    if card_rank == WILD:
        return True
    return card_color == color or card_rank == top_rank


def _actions_by_code(deck: tuple[object, ...]) -> dict[int, SeatAction]:
    from engine.game.cards import Card

    out: dict[int, SeatAction] = {
        DRAW: Draw(),
        PASS: Pass(),
        ACCEPT: Accept(),
        CHALLENGE: Challenge(),
        KEEP: Draft(keep=True),
        GIVE: Draft(keep=False),
        UNO: SayUno(),
    }
    for i, color in enumerate(COLOR_ORDER):
        out[COLOR + i] = ChooseColor(color)
    for card in deck:
        assert isinstance(card, Card)
        face = deck.index(card)
        if card.is_wild:
            for slot, color in enumerate(COLOR_ORDER):
                out[PLAY + 5 * face + slot] = Play(card, color)
                out[PLAY + 5 * face + slot + PLAY_UNO] = Play(card, color, uno=True)
        else:
            out[PLAY + 5 * face + 4] = Play(card)
            out[PLAY + 5 * face + 4 + PLAY_UNO] = Play(card, uno=True)
    return out


_TABLES: dict[Ruleset, CardTables] = {}


def card_tables(ruleset: Ruleset) -> CardTables:
    tables = _TABLES.get(ruleset)
    if tables is None:
        tables = _TABLES[ruleset] = CardTables(ruleset)
    return tables


# ---------------------------------------------------------------- the playout


class Playout:
    """One match, mutable, played by action codes (see the module docstring)."""

    __slots__ = (
        "chance",
        "color",
        "departed",
        "departures",
        "direction",
        "discard",
        "draft_pile",
        "draft_steps",
        "empty_draws",
        "hands",
        "kind",
        "pcard",
        "phase",
        "pile",
        "player1",
        "pseat",
        "pstarter",
        "ptotal",
        "recycles",
        "restarts",
        "round",
        "rounds_ended",
        "rules",
        "scores",
        "seats",
        "stop_after_hand",
        "t",
        "time_called",
        "uno_open",
        "uno_said",
        "wd4_illegal",
        "wd4_player",
        "winner",
    )

    rules: Ruleset
    t: CardTables
    chance: Chance
    seats: int
    hands: list[list[int]]
    pile: list[int]  # the draw pile, reversed: its top is the last element (a pop takes it)
    discard: list[int]  # the top is the last element
    draft_pile: list[int]
    color: int
    kind: int
    pseat: int | None
    ptotal: int
    pcard: int | None
    pstarter: bool
    phase: int
    scores: list[int]
    uno_said: list[bool]
    uno_open: list[bool]
    direction: int
    departed: list[bool]
    departures: list[int]
    wd4_player: int
    wd4_illegal: bool  # D13: the pending Wild Draw Four's hand held a card that could have been played
    recycles: int
    restarts: int
    empty_draws: int
    draft_steps: int
    round: int
    player1: int
    winner: int | None
    time_called: bool
    rounds_ended: int
    stop_after_hand: bool

    # ------------------------------------------------------------ building

    @classmethod
    def from_state(cls, state: MatchState, rng: random.Random | None = None, chance: Chance | None = None) -> Playout:
        """A playout of ``state`` (a started match). See the module docstring for ``rng``/``chance``."""
        if state.phase in (Phase.NEW, Phase.WAITING) or state.player1 is None:
            raise ValueError("a playout starts from a match in play (its first round dealt or drafting)")
        p = cls.__new__(cls)
        p.rules = state.ruleset
        p.t = card_tables(state.ruleset)
        p.chance = chance if chance is not None else RandomChance(rng or random.Random(state.version))
        p.seats = state.seats
        p.hands = [list(hand) for hand in state.hands]
        p.pile = list(reversed(state.draw_pile))
        p.discard = list(state.discard)
        p.draft_pile = list(state.draft_pile)
        p.color = _COLOR_INDEX[state.color]
        pending = state.pending
        p.kind = _KIND_OF[pending.kind]
        p.pseat = pending.seat
        p.ptotal = pending.total
        p.pcard = pending.card
        p.pstarter = pending.starter
        p.phase = _PHASE_OF[state.phase]
        p.scores = list(state.scores)
        p.uno_said = list(state.uno_said)
        p.uno_open = list(state.uno_open)
        p.direction = state.direction
        p.departed = list(state.departed)
        p.departures = list(state.departures)
        p.wd4_player = -1
        p.wd4_illegal = False
        if state.wd4 is not None:
            ctx = state.wd4
            t = p.t
            row = t.chp[_COLOR_INDEX[ctx.color_before]][t.rank[ctx.top_before]]
            p.wd4_player = ctx.player
            p.wd4_illegal = any(row[i] for i in ctx.hand)
        p.recycles = state.recycles
        p.restarts = state.restarts
        p.empty_draws = state.empty_draws
        p.draft_steps = state.draft_steps
        p.round = state.round
        p.player1 = state.player1
        p.winner = state.winner
        p.time_called = state.time_called is not None
        p.rounds_ended = 0
        p.stop_after_hand = False
        return p

    @classmethod
    def new_match(
        cls, ruleset: Ruleset, seats: int, rng: random.Random, player1: int | None = None, chance: Chance | None = None
    ) -> Playout:
        """A match of ``seats`` from its first round, dealt (or drafting) from ``chance`` (default:
        :class:`RandomChance` over ``rng``); ``player1`` (default: a uniform choice of ``rng``, in
        place of the cut, D2) drafts first or deals. For simulations that need no record."""
        state = MatchState(
            ruleset=ruleset,
            seats=seats,
            entropies=("",) * seats,
            phase=Phase.PLAY,
            round=0,
            player1=0,
            scores=(0,) * seats,
            hands=((),) * seats,
            uno_said=(False,) * seats,
            uno_open=(False,) * seats,
            departed=(False,) * seats,
            timeouts=(0,) * seats,
        )
        p = cls.from_state(state, rng, chance)
        p._start_round(1, rng.randrange(seats) if player1 is None else player1)
        return p

    def clone(self) -> Playout:
        """An independent copy (the chance source is shared)."""
        c = Playout.__new__(Playout)
        c.rules, c.t, c.chance, c.seats = self.rules, self.t, self.chance, self.seats
        c.hands = [hand[:] for hand in self.hands]
        c.pile, c.discard, c.draft_pile = self.pile[:], self.discard[:], self.draft_pile[:]
        c.color, c.kind, c.pseat, c.ptotal, c.pcard = self.color, self.kind, self.pseat, self.ptotal, self.pcard
        c.pstarter, c.phase, c.scores = self.pstarter, self.phase, self.scores[:]
        c.uno_said, c.uno_open, c.direction = self.uno_said[:], self.uno_open[:], self.direction
        c.departed, c.departures = self.departed[:], self.departures[:]
        c.wd4_player, c.wd4_illegal, c.recycles, c.restarts = (
            self.wd4_player,
            self.wd4_illegal,
            self.recycles,
            self.restarts,
        )
        c.empty_draws, c.draft_steps, c.round, c.player1 = self.empty_draws, self.draft_steps, self.round, self.player1
        c.winner, c.time_called, c.rounds_ended = self.winner, self.time_called, self.rounds_ended
        c.stop_after_hand = self.stop_after_hand
        return c

    # ------------------------------------------------------------ reading

    @property
    def over(self) -> bool:
        return self.phase == _MATCH_OVER

    def to_move(self) -> int | None:
        return None if self.phase == _MATCH_OVER else self.pseat

    def points_for(self, seat: int) -> int:
        """The seat's match total."""
        return self.scores[seat]

    def hand_points(self, seat: int) -> int:
        points = self.t.points
        return sum([points[i] for i in self.hands[seat]])

    @property
    def pending_kind(self) -> PendingKind:
        return PENDING_KINDS[self.kind]

    @property
    def top(self) -> int:
        return self.discard[-1]

    @property
    def draw_pile(self) -> list[int]:
        """The draw pile, index 0 the top (as ``MatchState.draw_pile``); a copy."""
        return self.pile[::-1]

    def action_of(self, code: int) -> SeatAction:
        """The Decider's command object for ``code`` (a dump's cards: the pending seat's, in hand order)."""
        if code & ~PLAY_UNO == DUMP:
            cards = self.rules.deck
            ids = self._dump_cards(self.pseat if self.pseat is not None else 0)
            return Dump(tuple(cards[i] for i in ids), uno=bool(code & PLAY_UNO))
        return self.t.by_code[code]

    def code_of(self, action: SeatAction) -> int:
        """The code of a Decider command object (a dump: any order, played in hand order)."""
        if isinstance(action, Dump):
            return DUMP + (PLAY_UNO if action.uno else 0)
        if isinstance(action, Play):
            face = self.t.face[self.rules.deck.index(action.card)]
            slot = 4 if action.color is None else COLOR_ORDER.index(action.color)
            return PLAY + 5 * face + slot + (PLAY_UNO if action.uno else 0)
        return _SIMPLE_CODES[type(action), getattr(action, "keep", None), getattr(action, "color", None)]

    # ------------------------------------------------------------ legal moves

    def legal(self) -> list[int]:
        """The pending seat's actions, as ``legal_actions(state, seat)`` lists them (see the docstring)."""
        if self.phase == _MATCH_OVER:
            return []
        seat = self.pseat
        if seat is None or self.departed[seat]:
            return []
        kind = self.kind
        out: list[int]
        if kind == _TURN:
            out = self._plays(seat, self.hands[seat])
            out.append(DRAW)
        elif kind == _DRAWN:
            card = self.pcard
            assert card is not None
            out = self._plays(seat, (card,))
            out.append(PASS)
        elif kind == _VOLLEY:
            out = []
            if self.rules.draw_two_stacking:
                rank = self.t.rank
                seen: set[int] = set()
                face, codes = self.t.face, self.t.play_codes
                for i in self.hands[seat]:
                    if rank[i] == DRAW_TWO and face[i] not in seen:
                        seen.add(face[i])
                        out.extend(codes[i])
            out.append(DRAW)
        elif kind == _DRAFT:
            out = [KEEP, GIVE]
        elif kind == _WD4:
            out = [ACCEPT, CHALLENGE]
        elif kind == _DUMP:
            out = [DUMP]
            if self.pstarter:
                out.extend(self._plays(seat, self.hands[seat]))
                out.append(DRAW)
            out.append(PASS)
        elif kind == _COLOR:
            out = [COLOR, COLOR + 1, COLOR + 2, COLOR + 3]
        else:
            out = []
        if True in self.uno_open:
            out.append(UNO)
        return out

    def _plays(self, seat: int, candidates: Sequence[int]) -> list[int]:
        """Plays of ``candidates`` (in id order) on the top card (D5; D13c where enforced), each face once.

        Speed: copies of a face have neighbouring ids (the canonical deck, docs/FAIRNESS.md), so in a
        hand, which is kept sorted, they stand side by side: a face is listed when it differs from the last.
        """
        t = self.t
        ok = t.matching[self.color][t.rank[self.discard[-1]]]
        face, codes = t.face, t.play_codes
        out: list[int] = []
        last = -1
        for i in candidates:
            if ok[i] and face[i] != last:
                if t.enforced and t.rank[i] == WILD_FOUR and self._breaks_rule(seat, i):
                    continue  # (every copy of a Wild Draw Four breaks the rule alike)
                last = face[i]
                out.extend(codes[i])
        return out

    def _breaks_rule(self, seat: int, card: int) -> bool:
        """D13/D13c: would ``seat`` playing Wild Draw Four ``card`` now break ``wd4_rule``?"""
        t = self.t
        row = t.chp[self.color][t.rank[self.discard[-1]]]
        return any([row[i] for i in self.hands[seat] if i != card])

    def _dump_cards(self, seat: int) -> list[int]:
        color, colors = self.color, self.t.color
        return [i for i in self.hands[seat] if colors[i] == color]

    # ------------------------------------------------------------ seats and rounds

    def _next(self, seat: int, steps: int = 1) -> int:
        """engine.game.seating.next_seat."""
        n = self.seats
        if n == 2:
            return seat if steps % 2 == 0 else 1 - seat
        departed, step = self.departed, self.direction
        for _ in range(steps):
            seat = (seat + step) % n
            while departed[seat]:
                seat = (seat + step) % n
        return seat

    def _next_clockwise(self, seat: int) -> int:
        n = self.seats
        seat = (seat + 1) % n
        while self.departed[seat]:
            seat = (seat + 1) % n
        return seat

    def _active(self) -> list[int]:
        departed = self.departed
        return [i for i in range(self.seats) if not departed[i]]

    def _await(self, seat: int, kind: int, total: int = 0, card: int | None = None, starter: bool = False) -> None:
        self.pseat, self.kind, self.ptotal, self.pcard, self.pstarter = seat, kind, total, card, starter

    def _start_round(self, number: int, player1: int, restart: int = 0) -> None:
        deck = self.chance.round_deck(number, restart, self.t.deck_size)
        n = self.seats
        self.round, self.player1, self.restarts = number, player1, restart
        self.draft_pile, self.discard = [], []
        self.hands = [[] for _ in range(n)]
        self.color = NO_COLOR
        self._await_none()
        self.uno_said, self.uno_open = [False] * n, [False] * n
        self.direction, self.wd4_player, self.wd4_illegal = 1, -1, False
        self.recycles = self.empty_draws = self.draft_steps = 0
        rules = self.rules
        if rules.deal is Deal.DRAFT:
            self.phase = _IN_DRAFT
            self.pile = list(reversed(deck))
            self._await(player1, _DRAFT)
            return
        self.phase = _IN_PLAY
        order = [self._next_clockwise(player1)]
        active = len(self._active())
        while len(order) < active:
            order.append(self._next_clockwise(order[-1]))
        dealt = len(order) * rules.hand_size
        hands = self.hands
        for i, card in enumerate(deck[:dealt]):
            hands[order[i % len(order)]].append(card)
        for hand in hands:
            hand.sort()
        self.pile = list(reversed(deck[dealt:]))
        self._turn_starter()

    def _await_none(self) -> None:
        self.pseat, self.kind, self.ptotal, self.pcard, self.pstarter = None, _NONE, 0, None, False

    def _turn_starter(self) -> None:
        """D4, D19: turn the starter and let it act on the first player."""
        card = self.pile.pop()
        self.discard.append(card)
        t = self.t
        self.color = t.color[card]
        rank = t.rank[card]
        rules = self.rules
        turns = rank == REVERSE and rules.reverse is ReverseRule.DIRECTION and len(self._active()) > 2
        if turns:
            self.direction = -self.direction
        if rank >= WILD and rules.starter_wild is StarterWild.RESTART:
            self._start_round(self.round, self.player1, self.restarts + 1)
            return
        p1 = self.player1
        p2 = self._next_clockwise(p1)
        if rank >= WILD:
            self._await(p1, _COLOR, card=card)
        elif rank == DRAW_TWO:
            self._draw(p2, 2, False)
            self._await(self._next(p2), _TURN)
        elif turns:
            self._await(p1, _TURN)
        elif rank == SKIP or (rank == REVERSE and rules.reverse is not ReverseRule.DUMP):
            self._await(self._next(p2), _TURN)
        elif rank == REVERSE and self._dump_cards(p2):
            self._await(p2, _DUMP, starter=True)
        else:
            self._await(p2, _TURN)

    def _draw(self, seat: int, count: int, counts_empty: bool) -> list[int]:
        """Take ``count`` cards; what the pile cannot give lapses (D7). ``counts_empty``: a seat's own
        draw (a turn's or a volley's), which D17/D24 count when it receives nothing."""
        drawn: list[int] = []
        pile = self.pile
        while len(drawn) < count:
            if not pile:
                if counts_empty and not drawn:
                    self.empty_draws += 1
                break
            hand = self.hands[seat]
            for _ in range(min(count - len(drawn), len(pile))):
                card = pile.pop()
                drawn.append(card)
                insort(hand, card)
            self.uno_said[seat] = False
            self.uno_open[seat] = False
            self.empty_draws = 0
            if not pile:
                self._recycle_if_empty()
                pile = self.pile
        return drawn

    def _recycle_if_empty(self) -> None:
        """D7: an empty draw pile takes every discard but the top, the moment it empties."""
        if self.pile or len(self.discard) <= 1:
            return
        rest = self.discard[:-1]
        self.recycles += 1
        if self.rules.recycle is Recycle.SHUFFLE:
            order = self.chance.recycle(self.round, self.recycles, rest)
        else:
            order = rest
        self.discard = [self.discard[-1]]
        self.pile = list(reversed(order))

    def _blocked(self) -> bool:
        return self.empty_draws >= (2 if self.seats == 2 else len(self._active()))

    def _end_blocked_round(self) -> None:
        points = {seat: self.hand_points(seat) for seat in self._active()}
        lowest = min(points.values())
        lowest_seats = [seat for seat, value in points.items() if value == lowest]
        self._score_round(lowest_seats[0] if len(lowest_seats) == 1 else None)

    def _score_round(self, winner: int | None) -> None:
        """D15/D16/D17 (two seats), D23/D24 (a table): score, then end the match or deal the next round."""
        self.rounds_ended += 1
        self.phase = _ROUND_OVER
        self._await_none()
        self.wd4_player, self.wd4_illegal = -1, False
        scores = self.scores
        lowest_wins = self.rules.scoring is Scoring.LOSER_SCORES
        match_winner: int | None = None
        if self.seats > 2:
            lowest_wins = False
            if winner is not None:
                scores[winner] += sum([self.hand_points(s) for s in range(self.seats) if s != winner])
                if scores[winner] >= self.rules.target:
                    match_winner = winner
        elif winner is not None:
            loser = 1 - winner
            scorer = loser if lowest_wins else winner
            scores[scorer] += self.hand_points(loser)
            if scores[scorer] >= self.rules.target:
                match_winner = (1 - scorer) if lowest_wins else scorer
        if match_winner is None:
            match_winner = self._round_limit_winner(lowest_wins)
        if match_winner is None:
            if not self.stop_after_hand:
                self._start_round(self.round + 1, self._next_clockwise(self.player1))
        else:
            self.phase, self.winner = _MATCH_OVER, match_winner

    def _round_limit_winner(self, lowest_wins: bool) -> int | None:
        limit = self.rules.round_limit
        if not self.time_called and (not limit or self.round < limit):
            return None
        staying = self._active()
        scores = self.scores
        best = (min if lowest_wins else max)(scores[seat] for seat in staying)
        leaders = [seat for seat in staying if scores[seat] == best]
        return leaders[0] if len(leaders) == 1 else None

    # ------------------------------------------------------------ actions

    def play(self, code: int, seat: int | None = None) -> None:
        """Apply one action: ``code`` from ``legal()`` (plus ``PLAY_UNO``), by the pending seat, or
        ``UNO`` by ``seat``."""
        me = self.pseat
        if code == UNO:
            caller = me if seat is None else seat
            assert caller is not None
            self._say_uno(caller)
            return
        assert me is not None
        base = code & ~PLAY_UNO
        if base >= PLAY:
            if True in self.uno_open:  # (a window is rarely open: the call is skipped)
                self._open_turn(me)
            self._play(me, code)
        elif code == DRAW:
            if True in self.uno_open:
                self._open_turn(me)
            self._draw_command(me)
        elif code == PASS:
            if self.kind == _DUMP and self.pstarter:
                self._await(me, _TURN)
            else:
                self._await(self._next(me), _TURN)
        elif code == KEEP or code == GIVE:
            self._draft(me, code == KEEP)
        elif base == DUMP:
            self._open_turn(me)
            self._dump(me, bool(code & PLAY_UNO))
        elif code == ACCEPT:
            self._open_turn(me)
            player = self.wd4_player
            self._draw(me, 4, False)
            self._after_wild_draw_four(player, self._next(me))
        elif code == CHALLENGE:
            self._open_turn(me)
            self._challenge(me)
        else:
            self._choose_color(me, code - COLOR)

    def _open_turn(self, seat: int) -> None:
        """D14/D22: a seat that begins a turn closes every other seat's UNO window."""
        uno_open = self.uno_open
        if True in uno_open:
            for i in range(self.seats):
                if i != seat:
                    uno_open[i] = False

    def _play(self, seat: int, code: int) -> None:
        t = self.t
        base = code & ~PLAY_UNO
        face, slot = divmod(base - PLAY, 5)
        kind = self.kind
        hand = self.hands[seat]
        if kind == _DRAWN:
            card = self.pcard
            assert card is not None
        else:
            # Speed: a face's copies have the ids from ``face`` on (the canonical deck), so in the
            # sorted hand the first id at or after ``face`` is its first copy held (8% of an action).
            card = hand[bisect_left(hand, face)]
        volley_total = self.ptotal if kind == _VOLLEY else 0
        rank = t.rank[card]
        turns = rank == REVERSE and t.turning_reverse and len(self._active()) > 2
        # card_played
        top_before, color_before = self.discard[-1], self.color
        hand.remove(card)
        self.discard.append(card)
        self.color = slot if slot < 4 else t.color[card]
        self._await_none()
        self._after_card_left(seat, code != base)
        self.empty_draws = 0
        if turns:
            self.direction = -self.direction
        if rank == WILD_FOUR:
            row = t.chp[color_before][t.rank[top_before]]
            self.wd4_player, self.wd4_illegal = seat, any([row[i] for i in hand])
        if not hand:
            self.phase = _ROUND_OVER
        if not self.pile:
            self._recycle_if_empty()
        self._resolve_play(seat, rank, volley_total)

    def _after_card_left(self, seat: int, uno: bool) -> None:
        """A card left ``seat``'s hand: one card left opens a UNO window unless UNO was said (D14)."""
        one_left = len(self.hands[seat]) == 1
        said = one_left and uno
        self.uno_said[seat] = said
        self.uno_open[seat] = one_left and not said

    def _resolve_play(self, seat: int, rank: int, volley_total: int) -> None:
        """What a single played card does next (D8-D12, D15), as engine.game.decide._resolve_play."""
        opponent = self._next(seat)
        hand_empty = not self.hands[seat]
        rules = self.rules
        if rank == DRAW_TWO:
            total = volley_total + 2
            if hand_empty:
                self._draw(opponent, total, True)
                self._score_round(seat)
            else:
                self._draw_two_hits(opponent, total)
        elif rank == WILD_FOUR:
            if self.t.enforced:
                self._draw(opponent, 4, False)
                self._after_wild_draw_four(seat, self._next(opponent))
            else:
                self._await(opponent, _WD4)
        elif hand_empty:
            self._score_round(seat)
        elif rank == SKIP:
            self._await(self._next(seat, 2), _TURN)
        elif rank == REVERSE:
            reverse = rules.reverse
            if reverse is ReverseRule.DUMP:
                if self._dump_cards(seat):
                    self._await(seat, _DUMP)  # D10
                else:
                    self._await(opponent, _TURN)
            elif reverse is ReverseRule.GO_AGAIN or len(self._active()) == 2:
                self._await(seat, _TURN)
            else:
                self._await(opponent, _TURN)
        else:
            self._await(opponent, _TURN)

    def _draw_two_hits(self, victim: int, total: int) -> None:
        if self.t.hits_at_once:
            self._volley_drawn(victim, total)
        else:
            self._await(victim, _VOLLEY, total=total)

    def _volley_drawn(self, seat: int, total: int) -> None:
        self._draw(seat, total, True)
        if self._blocked():
            self._end_blocked_round()
        else:
            self._await(self._next(seat), _TURN)

    def _draw_command(self, seat: int) -> None:
        if self.kind == _VOLLEY:
            self._volley_drawn(seat, self.ptotal)
            return
        drawn = self._draw(seat, 1, True)
        if drawn and self.t.until_playable:
            while len(drawn) < MAX_DRAWN_UNTIL_PLAYABLE and not self._playable_now(seat, drawn[-1]):
                more = self._draw(seat, 1, True)
                if not more:
                    break
                drawn.extend(more)
        if drawn:
            self._await(seat, _DRAWN, card=drawn[-1])
        elif self._blocked():
            self._end_blocked_round()
        else:
            self._await(self._next(seat), _TURN)

    def _playable_now(self, seat: int, card: int) -> bool:
        t = self.t
        if not t.matching[self.color][t.rank[self.discard[-1]]][card]:
            return False
        if t.rank[card] == WILD_FOUR and t.enforced:
            return not self._breaks_rule(seat, card)
        return True

    def _dump(self, seat: int, uno: bool) -> None:
        """D10: every card of the active colour, in hand order."""
        chosen = self._dump_cards(seat)
        hand = self.hands[seat]
        for index, card in enumerate(chosen):
            hand.remove(card)
            self.discard.append(card)
            self._after_card_left(seat, uno and index == len(chosen) - 1)
            self.empty_draws = 0
            if not hand:
                self.phase = _ROUND_OVER
            if not self.pile:
                self._recycle_if_empty()
        self._await_none()
        last = self.t.rank[chosen[-1]]
        opponent = self._next(seat)
        if not hand:
            if last == DRAW_TWO:
                self._draw(opponent, 2, True)
            self._score_round(seat)
        elif last == SKIP:
            self._await(seat, _TURN)
        elif last == DRAW_TWO:
            self._draw_two_hits(opponent, 2)
        else:
            self._await(opponent, _TURN)

    def _after_wild_draw_four(self, player: int, next_turn: int) -> None:
        if self.phase == _ROUND_OVER:
            self._score_round(player)
        else:
            self._await(next_turn, _TURN)

    def _challenge(self, seat: int) -> None:
        """D13: the hand as the Wild Draw Four left it decides; the loser of the challenge draws."""
        player, illegal = self.wd4_player, self.wd4_illegal
        self.wd4_player, self.wd4_illegal = -1, False
        if illegal:
            self._draw(player, 4, False)
            self._await(seat, _TURN)
        else:
            self._draw(seat, self.rules.failed_challenge_draw, False)
            self._after_wild_draw_four(player, self._next(seat))

    def _choose_color(self, seat: int, color: int) -> None:
        """D4: Player 1 names a Wild starter's colour; a Wild Draw Four starter then hits Player 2."""
        starter = self.pcard
        assert starter is not None
        self.color = color
        if self.t.rank[starter] == WILD_FOUR:
            self._draw(self._next(seat), 4, False)
            self._await(seat, _TURN)
        else:
            self._await(self._next(seat), _TURN)

    def _draft(self, seat: int, keep: bool) -> None:
        """D3: keep the looked-at card (the next goes to the draft pile) or pass it (and keep the next)."""
        pile = self.pile
        top = pile.pop()
        second = pile.pop()
        hand_card, pile_card = (top, second) if keep else (second, top)
        insort(self.hands[seat], hand_card)
        self.draft_pile.append(pile_card)
        self.draft_steps += 1
        if self.draft_steps < 2 * self.rules.hand_size:
            self._await(self._next(seat), _DRAFT)
            return
        self.pile = self.draft_pile[::-1] + pile
        self.draft_pile = []
        self.phase = _IN_PLAY
        self._turn_starter()

    def _say_uno(self, seat: int) -> None:
        """D14/D22: declare your own one-card hand, catch every other open one, or both."""
        uno_open = self.uno_open
        if uno_open[seat]:
            self.uno_said[seat] = True
            uno_open[seat] = False
        for other in range(self.seats):
            if uno_open[other] and other != seat:
                uno_open[other] = False
                self._draw(other, self.rules.uno_penalty, False)


MAX_DRAWN_UNTIL_PLAYABLE = 10  # D21, as engine.game.decide

_SIMPLE_CODES: dict[tuple[type, bool | None, Color | None], int] = {
    (Draw, None, None): DRAW,
    (Pass, None, None): PASS,
    (Accept, None, None): ACCEPT,
    (Challenge, None, None): CHALLENGE,
    (Draft, True, None): KEEP,
    (Draft, False, None): GIVE,
    (SayUno, None, None): UNO,
    **{(ChooseColor, None, color): COLOR + i for i, color in enumerate(COLOR_ORDER)},
}
