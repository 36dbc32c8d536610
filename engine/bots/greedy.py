"""``bot:greedy``: a one-move-lookahead heuristic player that reads only its own view.

What it does, decision by decision:
- UNO: whenever a window is open it says UNO first (its own one-card hand, or a catch of any
  other seat's, D14 and D22), and it says UNO with every play or dump that leaves it one card.
- Turn: it plays the non-wild card with the best score (sheds points, keeps a colour it holds,
  Skips and Draw Twos for their effect, more so when the next seat is close to going out; a
  Reverse by the size of the dump it opens (D10), as a Skip at two seats, and at a larger table
  when it turns the play away from a next seat holding fewer cards than the seat before). It keeps its
  wilds for later: a plain Wild only when no other card is playable and the round is getting
  short, a Wild Draw Four only when it is a legal play (D13; in classic the D13c test, which
  the engine enforces unless the table lets it be challenged), never as a bluff. Otherwise it
  draws, and plays the drawn card when it may (after one card, or the playable card that ends a
  ``draw = until_playable`` draw, D21).
- Volley: answers a Draw Two with a Draw Two when it holds one.
- Reverse dump: dumps when the dump sheds cards, ordering it so the last card is a Draw Two or a
  Skip (the only card whose action counts, D10).
- Wild Draw Four against it (only where the ruleset has a challenge, ``wd4_check = challenge``;
  otherwise it is drawn at once, D13c): challenges when the estimated chance that the play was
  illegal beats the break-even point of the payoff (the challenge wins 8 cards of swing, loses
  2). The chance comes from the hand count of the seat that played it and from how its own
  earlier challenges turned out (the ``last_challenge`` verdicts in its views).
- Draft: keeps wilds, action cards and numbers of a colour it already holds; passes the rest.
- Wild colours: the colour it holds most of.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine.bots import CommandObject, View
from engine.bots._common import COLOURS, WILDS, next_seat, opponents
from engine.game.cards import Card, Color, Rank, parse_card
from engine.game.rules import could_have_played
from engine.game.rulesets import ReverseRule, Ruleset

NAME = "greedy"

# A challenge that wins costs the opponent 4 and saves us 4; one that fails costs us 2 more than
# accepting (6 instead of 4). Challenge when P(illegal) * 8 > (1 - P(illegal)) * 2.
CHALLENGE_GAIN = 8.0
CHALLENGE_COST = 2.0
# Chance that one unseen card would have been playable before the Wild Draw Four: about a
# quarter of the coloured cards share the active colour; add same-rank cards and (in uno-duo,
# where a plain Wild counts) the eight Wilds.
CARD_COULD_PLAY = {"no_playable": 0.36, "no_colour_match": 0.23, "no_match": 0.30}


@lru_cache(maxsize=64)
def _card(code: str) -> Card:
    return parse_card(code)


def colour_of(code: str) -> str | None:
    colour = _card(code).color
    return None if colour is None else colour.value


def rank_of(code: str) -> Rank:
    return _card(code).rank


@lru_cache(maxsize=16)
def _ruleset(items: tuple[tuple[str, Any], ...]) -> Ruleset:
    return Ruleset.from_record(dict(items))  # a view's rules are the match's record (to_dict)


def rules_of(view: View) -> Ruleset:
    """The ruleset in force, from the view's ``rules`` (points and rules under any override)."""
    return _ruleset(tuple(view["rules"].items()))


def _without(hand: list[str], code: str) -> list[str]:
    rest = list(hand)
    rest.remove(code)
    return rest


def _played_by(view: View, me: int) -> int:
    """The seat whose Wild Draw Four we face: the view names it; else the seat before us."""
    seat = view["pending"].get("played_by")
    return seat if isinstance(seat, int) else next_seat(view, me, -view.get("direction", 1))


@dataclass(frozen=True, slots=True)
class _Table:
    """What a turn's scores read of the other seats: the next and the previous seat's hand sizes."""

    two: bool  # two seats at the table: every action card hits the one other seat
    next_cards: int
    previous_cards: int

    @classmethod
    def of(cls, view: View, me: int) -> _Table:
        counts = view["hand_counts"]
        direction = view.get("direction", 1)
        return cls(
            two=len(opponents(view)) == 1,
            next_cards=counts[next_seat(view, me)],
            previous_cards=counts[next_seat(view, me, -direction)],
        )


class GreedyBot:
    name = NAME

    def __init__(self) -> None:
        self._awaiting_verdict = False
        self._upheld = 0  # our challenges that found the Wild Draw Four illegal
        self._failed = 0

    # ------------------------------------------------------------ entry point

    def choose(self, view: View, rng: random.Random) -> CommandObject:
        legal: list[dict[str, Any]] = view["legal"]
        if not legal:
            raise ValueError("the greedy bot was asked to act with no legal command")
        me: int = view["viewer"]
        self._learn(view, me)
        if any(c["type"] == "uno" for c in legal):
            return {"type": "uno"}
        kind = view["pending"]["kind"]
        hand: list[str] = list(view["hand"] or [])
        if kind == "draft":
            return {"type": "draft", "keep": self._keep_in_draft(view["pending"].get("card"), hand)}
        if kind == "color":
            return {"type": "color", "color": self._best_colour(hand, rng)}
        if kind == "wild_draw_four":
            return self._face_wild_draw_four(view, me)
        plays = [c["card"] for c in legal if c["type"] == "play"]
        if kind == "volley":
            if plays:
                return self._play(plays[0], hand, rng)
            return {"type": "draw"}
        if kind == "dump":
            dump = next((c for c in legal if c["type"] == "dump"), None)
            if dump is not None:
                return self._dump(dump["cards"], hand)
            return {"type": "pass"}
        if kind == "drawn":
            if plays and (plays[0] not in WILDS or self._wild_now(plays[0], view, hand)):
                return self._play(plays[0], hand, rng)
            return {"type": "pass"}
        return self._turn(view, me, hand, plays, rng)

    # ------------------------------------------------------------ decisions

    def _turn(self, view: View, me: int, hand: list[str], plays: list[str], rng: random.Random) -> CommandObject:
        rules = rules_of(view)
        table = _Table.of(view, me)
        coloured = [p for p in plays if p not in WILDS]
        if coloured:
            best = max(coloured, key=lambda code: self._score(code, hand, rules, table))
            return self._play(best, hand, rng)
        for wild in ("W+4", "W"):
            if wild in plays and self._wild_now(wild, view, hand):
                return self._play(wild, hand, rng)
        if any(c["type"] == "draw" for c in view["legal"]):
            return {"type": "draw"}
        return self._play(plays[0], hand, rng) if plays else dict(view["legal"][0])

    def _score(self, code: str, hand: list[str], rules: Ruleset, table: _Table) -> float:
        rest = _without(hand, code)
        rank, colour = rank_of(code), colour_of(code)
        if not rest:
            return 1000.0 + (10.0 if rank is Rank.DRAW_TWO else 0.0)
        same_colour = sum(1 for c in rest if colour_of(c) == colour)
        score = rules.points(_card(code)) / max(rules.action_points, 1) + 0.6 * same_colour
        skips = rules.reverse is ReverseRule.GO_AGAIN or (rules.reverse is ReverseRule.DIRECTION and table.two)
        if rank is Rank.SKIP or (rank is Rank.REVERSE and skips):
            if table.two:
                score += 3.0  # another turn at once (D9; a two-seat classic Reverse, D20)
            else:
                score += 1.5 + (2.0 if table.next_cards <= 2 else 0.0)  # the next seat loses its turn
        elif rank is Rank.REVERSE and rules.reverse is ReverseRule.DUMP:
            score += 1.0 + 1.5 * same_colour if same_colour else 0.0  # opens a dump (D10)
        elif rank is Rank.REVERSE:
            score += 2.5 if table.next_cards < table.previous_cards else 0.0  # away from the shorter hand
        elif rank is Rank.DRAW_TWO:
            score += 3.0 + (2.0 if table.next_cards <= 2 else 0.0)
        return score

    def _wild_now(self, wild: str, view: View, hand: list[str]) -> bool:
        """Keep wilds for later: a Wild Draw Four only when legal (D13), a Wild when the round is short.

        "Later" has come when any hand at the table is small, when our hand is long (wilds are then the way
        out of it), or when the draw pile is empty (a draw would only recycle or lapse, D7).
        """
        if wild == "W+4":
            return self._wild_draw_four_is_legal(view, hand)
        fewest = min(view["hand_counts"][seat] for seat in opponents(view))
        return len(hand) <= 4 or len(hand) >= 9 or fewest <= 3 or not view.get("draw_pile")

    def _wild_draw_four_is_legal(self, view: View, hand: list[str]) -> bool:
        """The ruleset's own test (``wd4_rule``: D13 or D13c), with the engine's predicate: no
        other card in hand would have made the play illegal. So the bot never bluffs."""
        rest = _without(hand, "W+4") if "W+4" in hand else hand
        top = view["top"]
        if top is None:
            return True
        colour = Color(view["color"]) if view["color"] else None
        rule = rules_of(view).wd4_rule
        return not any(could_have_played(_card(c), _card(top), colour, rule) for c in rest)

    def _dump(self, cards: list[str], hand: list[str]) -> CommandObject:
        """Dump every card of the colour, with a Draw Two (else a Skip) last: its action counts."""
        order = sorted(
            cards, key=lambda c: (rank_of(c) is Rank.DRAW_TWO, rank_of(c) is Rank.SKIP, rank_of(c).is_number)
        )
        emptied = len(hand) == len(cards)
        if emptied:
            order = sorted(cards, key=lambda c: rank_of(c) is Rank.DRAW_TWO)
        command: CommandObject = {"type": "dump", "cards": order}
        if len(hand) - len(cards) == 1:
            command["uno"] = True
        return command

    def _face_wild_draw_four(self, view: View, me: int) -> CommandObject:
        held = view["hand_counts"][_played_by(view, me)]  # the challenged hand as the Wild Draw Four left it
        if held == 0:
            return {"type": "accept"}  # nothing else was held: a challenge must fail (D15)
        rule = rules_of(view).wd4_rule.value
        could_play = 1.0 - (1.0 - CARD_COULD_PLAY[rule]) ** held
        bluff_rate = (self._upheld + 1) / (self._upheld + self._failed + 2)  # Beta(1, 1) prior
        p_illegal = bluff_rate * could_play
        if p_illegal * CHALLENGE_GAIN > (1.0 - p_illegal) * CHALLENGE_COST:
            self._awaiting_verdict = True
            return {"type": "challenge"}
        return {"type": "accept"}

    def _keep_in_draft(self, card: str | None, hand: list[str]) -> bool:
        if card is None or card in WILDS or not rank_of(card).is_number:
            return True
        return any(colour_of(c) == colour_of(card) for c in hand)

    # ------------------------------------------------------------ helpers

    def _play(self, code: str, hand: list[str], rng: random.Random) -> CommandObject:
        command: CommandObject = {"type": "play", "card": code}
        rest = _without(hand, code) if code in hand else hand
        if code in WILDS:
            command["color"] = self._best_colour(rest, rng)
        if len(rest) == 1:
            command["uno"] = True
        return command

    @staticmethod
    def _best_colour(hand: list[str], rng: random.Random) -> str:
        counts = Counter(colour_of(c) for c in hand if c not in WILDS)
        if not counts:
            return rng.choice(COLOURS)
        top = max(counts.values())
        return next(c for c in COLOURS if counts.get(c) == top)

    def _learn(self, view: View, me: int) -> None:
        """After our own challenge, its verdict is in our next view's ``last_challenge``."""
        if not self._awaiting_verdict:
            return
        record = view.get("last_challenge")
        if record is not None and record.get("by") == me:
            if record.get("verdict") == "illegal":
                self._upheld += 1
            else:
                self._failed += 1
        self._awaiting_verdict = False


def create() -> GreedyBot:
    return GreedyBot()
