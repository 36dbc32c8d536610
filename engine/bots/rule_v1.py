"""``bot:rule-v1``: RLCard's published rule agent ``uno-rule-v1``, in this engine's commands.

The reference point of docs/BENCHMARKS.md "Strength": the one non-learning UNO agent a published
toolkit ships, so "beats rule-v1" means something outside this project. Source: RLCard 1.2.0,
``rlcard/models/uno_rule_models.py`` (``UNORuleAgentV1.step``), read with the game it was written
for (``rlcard/games/uno/round.py``). Its whole policy:

1. If ``draw`` is legal, draw. RLCard lists ``draw`` only when no card can be played, so this
   reads "play whenever you can".
2. Else, if a Wild Draw Four is legal, play it, naming the colour most common among the hand's
   non-wild cards (``count_colors(filter_wild(hand))``). RLCard's game lists a Wild Draw Four
   only when nothing else, not even a plain Wild, can be played, so it is the last resort.
3. Else a uniformly random legal play, wilds left out unless only wilds are playable. RLCard
   lists a play once per card held (two ``R5`` give two chances) and a plain Wild once per
   colour, so the draw is over the playable non-wild cards in hand, copies counted, and a plain
   Wild gets a random colour.

This engine lists ``draw`` and every playable card together, and a Wild Draw Four beside other
plays (a bluff under D13's challenge; D13c's test leaves plain Wilds beside it). The bot applies
rule 1 as RLCard's legality means it: it draws only when it has no play, and plays a Wild Draw
Four only when it is its one playable kind of card. Where RLCard's game has no decision, the
simplest faithful extension, each the reading of "play whenever you can, at random":

- after a draw (D6, D21): plays the drawn card whenever it may (RLCard's game plays a drawn card
  that fits at once; a drawn wild names its colour as rule 2 or 3 would: RLCard's game gives a
  drawn wild a random colour, which this keeps for the plain Wild only);
- UNO (D14, D22): says it whenever a window is open and with every play that leaves one card
  (RLCard's game has no UNO call, so nobody is ever caught there: this bot is never caught);
- draft (D3): keeps every card (RLCard deals 7 at random; keeping gives the same kind of hand);
- Draw Two volley (D8): plays a Draw Two when it holds one (a play is possible, so it plays);
- Reverse dump (D10): dumps whenever it may, in a random order (every dump is a play);
- Wild Draw Four against it (D13, D20 with ``wd4_check = challenge``): accepts (RLCard's player
  just draws four: its game has no challenge);
- naming a colour for the starter (D4): a random colour, as it names a plain Wild's.

RLCard's hand is in the order dealt; a view's hand is sorted (red, yellow, green, blue), so a
tie for the most common colour goes to the first in that order (RLCard: the first in its hand).
A hand of wilds only names blue: RLCard counts its wilds' colour ``black`` by its initial ``b``,
which is blue (a wild RLCard recycled keeps the colour it was last named, which it names then: a
trace of the card's past that a view does not carry, so blue stays). Its randomness is the ``rng`` it is handed (RLCard uses NumPy's global one).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine.bots import CommandObject, View
from engine.bots._common import COLOURS, WILDS

NAME = "rule-v1"
BLUE_FOR_ALL_WILDS = "blue"  # RLCard's count of a wilds-only hand: 'black'[0] == 'b', blue's initial


def _colour(code: str) -> str | None:
    """The colour of a card code (``R5`` -> red), None for a wild."""
    if code in WILDS:
        return None
    return {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}[code[0]]


def most_common_colour(hand: list[str]) -> str:
    """The colour most common among the non-wild cards, ties to the first in hand order."""
    counts = Counter(c for c in (_colour(code) for code in hand) if c is not None)
    if not counts:
        return BLUE_FOR_ALL_WILDS
    top = max(counts.values())
    return next(c for c in (_colour(code) for code in hand) if c is not None and counts[c] == top)


class RuleV1Bot:
    name = NAME

    def choose(self, view: View, rng: random.Random) -> CommandObject:
        legal: list[dict[str, Any]] = view["legal"]
        if not legal:
            raise ValueError("the rule-v1 bot was asked to act with no legal command")
        if any(c["type"] == "uno" for c in legal):
            return {"type": "uno"}
        kind = view["pending"]["kind"]
        hand: list[str] = list(view["hand"] or [])
        plays = [c["card"] for c in legal if c["type"] == "play"]
        if kind == "draft":
            return {"type": "draft", "keep": True}
        if kind == "color":
            return {"type": "color", "color": rng.choice(COLOURS)}
        if kind == "wild_draw_four":
            return {"type": "accept"}
        if kind == "dump":
            dump = next((c for c in legal if c["type"] == "dump"), None)
            if dump is None:
                return {"type": "pass"}
            return self._dump(dump["cards"], hand, rng)
        if kind == "drawn":
            return self._play(plays[0], hand, rng) if plays else {"type": "pass"}
        if not plays:
            return {"type": "draw"} if any(c["type"] == "draw" for c in legal) else dict(legal[0])
        return self._play(self._pick(plays, hand, rng), hand, rng)

    @staticmethod
    def _pick(plays: list[str], hand: list[str], rng: random.Random) -> str:
        """Rules 2 and 3: a random playable non-wild card (copies counted), else a plain Wild,
        else the Wild Draw Four."""
        coloured = [code for code in hand if code in plays and code not in WILDS]
        if coloured:
            return rng.choice(coloured)
        return "W" if "W" in plays else plays[0]

    @staticmethod
    def _play(code: str, hand: list[str], rng: random.Random) -> CommandObject:
        command: CommandObject = {"type": "play", "card": code}
        rest = list(hand)
        if code in rest:
            rest.remove(code)
        if code == "W+4":
            command["color"] = most_common_colour(hand)
        elif code in WILDS:
            command["color"] = rng.choice(COLOURS)
        if len(rest) == 1:
            command["uno"] = True
        return command

    @staticmethod
    def _dump(cards: list[str], hand: list[str], rng: random.Random) -> CommandObject:
        order = list(cards)
        rng.shuffle(order)
        command: CommandObject = {"type": "dump", "cards": order}
        if len(hand) - len(cards) == 1:
            command["uno"] = True
        return command


def create() -> RuleV1Bot:
    return RuleV1Bot()
