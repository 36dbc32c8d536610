"""``bot:coach-1`` ... ``bot:coach-5``: determinized Monte Carlo search from one seat's knowledge.

How it decides (issue 37): the seat's knowledge (``engine.search.knowledge``: its hand and
everything its own event stream showed it) is dealt out into full states that agree with all of
it (:func:`engine.search.knowledge.determinize`); in each such world every option of the seat is
played and the hand is played out to its end by a fast default policy on
``engine.search.playout.Playout``; the option with the best mean outcome is chosen. Every option
is tried in the same worlds (common random numbers), so the comparison between options is not
drowned by the luck of the deal. This is determinized flat Monte Carlo (perfect-information
Monte Carlo over information-set samples), the root level of Whitehouse et al.'s ISMCTS; with
the time a house bot has per move (<= 1 s) in pure Python, more worlds at the root buy more
strength than a deeper tree over fewer. The levels differ in how many worlds they sample and in
how loosely they pick among the estimates (:class:`Level`).

The outcome of a playout is the seat's point margin for the hand: what it gains (its score
rises where the winner scores; its opponents' rise where the loser scores, uno-duo) against the
mean of what each other seat gains. Saying UNO is never searched: it is free, so the coach
always says it (with a play that leaves it one card, and in any open window, D14/D22).

What it reads: a :class:`SeatKnowledge` (never a match state), the seat's view (for its legal
commands and the draft card it looks at) and the ``random.Random`` it is handed: on a server the
match's secret bot chance (docs/FAIRNESS.md "House bots' chance"), so ``unoduo audit --bots``
re-derives every move once the seed is revealed. Its answers are a function of those only.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.bots import CommandObject, View
from engine.game.commands import format_action, parse_action
from engine.game.rulesets import Scoring, WildDrawFourCheck
from engine.game.state import MatchState, PendingKind
from engine.search.knowledge import SeatKnowledge, determinize
from engine.search.playout import (
    ACCEPT,
    COLOR,
    DRAW,
    DUMP,
    GIVE,
    KEEP,
    PASS,
    PLAY,
    PLAY_UNO,
    UNO,
    WILD_FOUR,
    Playout,
    RandomChance,
)


@dataclass(frozen=True, slots=True)
class Level:
    """One level of the coach: how many worlds it samples a decision, and how loosely it picks.

    ``spread`` (points of hand margin): 0 picks the option with the best estimate; above 0 each
    option is picked with a weight ``exp((mean - best) / spread)``, so an option a spread worse
    than the best is picked e^-1 as often, as Stockfish's skill levels pick weaker moves on
    purpose. Fewer worlds alone do not grade the top levels: flat Monte Carlo's strength levels
    off beyond a few hundred worlds (docs/BOTS.md "Levels")."""

    worlds: int
    spread: float


LEVELS: dict[int, Level] = {
    1: Level(worlds=4, spread=24.0),
    2: Level(worlds=12, spread=12.0),
    3: Level(worlds=32, spread=6.0),
    4: Level(worlds=96, spread=3.0),
    5: Level(worlds=640, spread=0.0),
}
"""The levels (each world plays out every option once)."""

MAX_PLAYOUT_STEPS = 3_000  # a guard: a hand's playout that has not ended by then counts as it stands


@dataclass(frozen=True, slots=True)
class Estimate:
    """An option's expected point margin for the hand, from ``samples`` worlds (``stderr``: its standard error)."""

    mean: float
    stderr: float
    samples: int


# ---------------------------------------------------------------- the default policy


def _hand_colour(p: Playout, seat: int) -> int:
    """The colour index the seat holds most of (0 when it holds no coloured card)."""
    colours = p.t.color
    counts = [0, 0, 0, 0, 0]
    for card in p.hands[seat]:
        counts[colours[card]] += 1
    best = max(range(4), key=counts.__getitem__)
    return best


def _is_wild_code(code: int) -> bool:
    return (code - PLAY) % 5 != 4


def _with_colour(codes: Sequence[int], colour: int) -> list[int]:
    """Of the play codes, the coloured ones and each wild named ``colour``."""
    return [c for c in codes if not _is_wild_code(c) or (c - PLAY) % 5 == colour]


def policy(p: Playout, rng: random.Random) -> int:
    """The playouts' move for the pending seat: a cheap version of ``bot:greedy``'s habits.

    UNO whenever it may; on a turn the coloured card worth the most points that plays (a random one
    of equals: shedding points first, as greedy does, won 68 of 120 matches at 16 worlds against
    a random coloured card, docs/BOTS.md), else a wild in the colour it holds most, else draw; the card just drawn is played when it can be; a Draw Two answers a
    volley; a dump is taken; a Wild Draw Four accepted; draft keeps at random.
    """
    legal = p.legal()
    if UNO in legal:
        return UNO
    seat = p.pseat
    assert seat is not None
    plays = [c for c in legal if c >= PLAY]
    if plays:
        coloured = [c for c in plays if not _is_wild_code(c)]
        if len(coloured) > 1:
            points = p.t.points
            most = max(points[(c - PLAY) // 5] for c in coloured)
            heaviest = [c for c in coloured if points[(c - PLAY) // 5] == most]
            code = heaviest[rng.randrange(len(heaviest))] if len(heaviest) > 1 else heaviest[0]
        elif coloured:
            code = coloured[0]
        else:
            colour = _hand_colour(p, seat)
            code = next(c for c in plays if (c - PLAY) % 5 == colour)
        return code + PLAY_UNO if len(p.hands[seat]) == 2 else code
    first = legal[0]
    if first == DUMP:
        return DUMP + PLAY_UNO
    if first == KEEP:
        return KEEP if rng.random() < 0.5 else GIVE
    if first == COLOR:
        return COLOR + _hand_colour(p, seat)
    if first == ACCEPT:
        return ACCEPT
    return DRAW if DRAW in legal else (PASS if PASS in legal else first)


# ---------------------------------------------------------------- playouts and their value


def _gains(p: Playout, before: Sequence[int]) -> list[float]:
    """Each seat's gain since ``before``: points won where the winner scores, points avoided where the loser does."""
    sign = -1.0 if p.rules.scoring is Scoring.LOSER_SCORES and p.seats == 2 else 1.0
    return [sign * (after - start) for after, start in zip(p.scores, before, strict=True)]


def margin(p: Playout, seat: int, before: Sequence[int]) -> float:
    """The seat's gain against the mean gain of the other seats (the value a playout returns)."""
    gains = _gains(p, before)
    others = [g for s, g in enumerate(gains) if s != seat]
    return gains[seat] - sum(others) / len(others)


def play_out(p: Playout, seat: int, before: Sequence[int], rng: random.Random) -> float:
    """Play ``p`` to the end of its hand with :func:`policy`; the seat's margin."""
    ended = p.rounds_ended
    steps = 0
    while not p.over and p.rounds_ended == ended and steps < MAX_PLAYOUT_STEPS:
        p.play(policy(p, rng))
        steps += 1
    return margin(p, seat, before)


# ---------------------------------------------------------------- the search


def _bluff(p: Playout, seat: int, code: int) -> bool:
    """A Wild Draw Four the seat's hand makes illegal (D13), where it could be challenged."""
    if p.rules.wd4_check is not WildDrawFourCheck.CHALLENGE or not _is_wild_code(code):
        return False
    t = p.t
    face = (code - PLAY) // 5
    if t.rank[face] != WILD_FOUR:
        return False
    row = t.chp[p.color][t.rank[p.discard[-1]]]
    hand = list(p.hands[seat])
    hand.remove(next(c for c in hand if t.face[c] == face))
    return any(row[i] for i in hand)


def root_options(p: Playout, seat: int) -> list[int]:
    """The options the search compares: every legal code of the seat (UNO aside), a play that
    leaves one card with UNO said, and each wild once, named the colour the seat holds most of.
    Never a bluffed Wild Draw Four: the playouts' opponents never challenge, so the search would
    not see its cost."""
    legal = [c for c in p.legal() if c != UNO]
    colour = _hand_colour(p, seat)
    out: list[int] = []
    for code in legal:
        if code >= PLAY:
            if _is_wild_code(code) and (code - PLAY) % 5 != colour:
                continue
            if _bluff(p, seat, code) and any(c >= PLAY and not _bluff(p, seat, c) for c in legal):
                continue
            out.append(code + PLAY_UNO if len(p.hands[seat]) == 2 else code)
        elif code == DUMP:
            out.append(DUMP + PLAY_UNO)
        else:
            out.append(code)
    return out


BLUFF_PRIOR = (1, 4)
"""Before any verdict, a Wild Draw Four is taken to be a bluff one time in five (Beta(1, 4)):
the worlds of a challenge decision are drawn with the played hand legal or not in that proportion,
updated by the verdicts the seat has seen of that player's earlier Wild Draw Fours."""
MAX_TRIES = 64


Deal = Callable[[SeatKnowledge, random.Random], MatchState]
"""How a world is drawn from the knowledge: :func:`determinize` (the house bots and the review;
a study may pass another, bench/coach_tables.py)."""


def _world(knowledge: SeatKnowledge, rng: random.Random, chance: RandomChance, deal: Deal = determinize) -> Playout:
    """One sampled world; facing a Wild Draw Four, one whose played hand was a bluff as often as
    the player's record says (a uniform deal would make nearly every hand a bluff)."""
    root = Playout.from_state(deal(knowledge, rng), chance=chance)
    picture = knowledge.picture
    if picture.wd4 is None or picture.pending.kind is not PendingKind.WILD_DRAW_FOUR:
        return root
    illegal, legal = knowledge.verdicts[picture.wd4.player] if knowledge.verdicts else (0, 0)
    a, b = BLUFF_PRIOR
    bluffed = rng.random() < (illegal + a) / (illegal + legal + a + b)
    for _ in range(MAX_TRIES):
        if root.wd4_illegal == bluffed:
            return root
        root = Playout.from_state(deal(knowledge, rng), chance=chance)
    return root


def evaluate_codes(
    knowledge: SeatKnowledge,
    options: Sequence[int] | None,
    worlds: int,
    rng: random.Random,
    deal: Deal = determinize,
) -> tuple[list[int], list[list[float]]]:
    """(options, each option's playout margins over ``worlds`` sampled worlds, the same worlds for all)."""
    seat = knowledge.seat
    chance = RandomChance(rng)
    codes: list[int] | None = list(options) if options is not None else None
    samples: list[list[float]] = [[] for _ in codes] if codes is not None else []
    for _ in range(worlds):
        root = _world(knowledge, rng, chance, deal)
        if codes is None:
            codes = root_options(root, seat)
            samples = [[] for _ in codes]
        before = list(root.scores)
        seed = rng.getrandbits(64)
        for index, code in enumerate(codes):
            chance.rng = random.Random(seed)  # common random numbers: the same shuffles after every option
            p = root.clone()
            p.play(code)
            samples[index].append(play_out(p, seat, before, chance.rng))
        chance.rng = rng
    return codes or [], samples


def _estimate(values: Sequence[float]) -> Estimate:
    n = len(values)
    mean = sum(values) / n if n else 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return Estimate(mean, math.sqrt(var / n) if n else 0.0, n)


def option_key(command: CommandObject) -> str:
    """An option's key: its canonical command, without the UNO flag (the coach always says UNO)."""
    canonical = format_action(parse_action(command))
    canonical.pop("uno", None)
    if canonical.get("type") == "dump":
        canonical["cards"] = sorted(canonical["cards"])
    return ",".join(f"{k}={canonical[k]}" for k in sorted(canonical))


def option_code(probe: Playout, seat: int, command: CommandObject) -> int:
    """A command's code among the search's options: UNO said with a play or dump that leaves one card."""
    base = probe.code_of(parse_action(command)) & ~PLAY_UNO
    leaves_one = (base >= PLAY and len(probe.hands[seat]) == 2) or base == DUMP
    return base + PLAY_UNO if leaves_one else base


def evaluate(
    knowledge: SeatKnowledge, options: Sequence[CommandObject] | None, budget: int, rng: random.Random
) -> dict[str, Estimate]:
    """Each option's expected point margin for the hand (:func:`margin`), estimated over ``budget``
    worlds drawn from the seat's knowledge only. ``options``: command objects of the seat's legal
    commands (wilds with their colour); None: every legal option the coach itself compares, each
    wild in every colour. Keyed by :func:`option_key`."""
    seat = knowledge.seat
    probe = Playout.from_state(determinize(knowledge, random.Random(0)))
    if options is None:
        legal = [c for c in probe.legal() if c != UNO]
        commands = [format_action(probe.action_of(c)) for c in legal]
    else:
        commands = [dict(c) for c in options]
    codes = [option_code(probe, seat, command) for command in commands]
    _, samples = evaluate_codes(knowledge, codes, budget, rng)
    return {option_key(command): _estimate(values) for command, values in zip(commands, samples, strict=True)}


def pick(means: Sequence[float], spread: float, rng: random.Random) -> int:
    """The index of the option chosen: the best mean (the first of equals) when ``spread`` is 0,
    else one drawn with weight ``exp((mean - best) / spread)`` (:class:`Level`)."""
    best = max(range(len(means)), key=means.__getitem__)
    if spread <= 0 or len(means) == 1:
        return best
    top = means[best]
    weights = [math.exp((mean - top) / spread) for mean in means]
    return rng.choices(range(len(means)), weights)[0]


class CoachBot:
    """One level of the coach. Decides from its knowledge: see :meth:`choose_knowing`.

    ``worlds`` and ``deal`` (a study's variants, bench/coach_tables.py): the level's own world
    count, and :func:`determinize`, unless given."""

    reads_events = True

    def __init__(self, level: int, worlds: int | None = None, deal: Deal = determinize) -> None:
        self.level = level
        self.name = f"coach-{level}"
        self.worlds = LEVELS[level].worlds if worlds is None else worlds
        self.spread = LEVELS[level].spread
        self.deal = deal

    def choose(self, view: View, rng: random.Random) -> CommandObject:
        if not view["legal"]:
            raise ValueError(f"{self.name} was asked to act with no legal command")
        raise TypeError(
            f"{self.name} decides from the seat's event stream: call choose_knowing (engine.bots.bot_choice does)"
        )

    def choose_knowing(self, knowledge: SeatKnowledge, view: View, rng: random.Random) -> CommandObject:
        legal: list[dict[str, Any]] = view["legal"]
        if not legal:
            raise ValueError(f"{self.name} was asked to act with no legal command")
        if any(c["type"] == "uno" for c in legal):
            return {"type": "uno"}
        if len(legal) == 1 and legal[0]["type"] not in ("play", "color", "dump"):
            return dict(legal[0])
        codes, samples = evaluate_codes(knowledge, None, self.worlds, rng, self.deal)
        probe = Playout.from_state(determinize(knowledge, random.Random(0)))
        return format_action(probe.action_of(codes[self.choice(codes, samples, probe, view, rng)]))

    def choice(
        self, codes: Sequence[int], samples: Sequence[Sequence[float]], probe: Playout, view: View, rng: random.Random
    ) -> int:
        """Which of the searched ``codes`` to play (``samples``: each one's margins, world by world)."""
        return pick([sum(values) / len(values) for values in samples], self.spread, rng)


def _factory(level: int) -> Callable[[], CoachBot]:
    return lambda: CoachBot(level)


BOTS: dict[str, Callable[[], CoachBot]] = {f"coach-{level}": _factory(level) for level in LEVELS}
"""The registry's entries (``engine.bots``): ``coach-1`` ... ``coach-5``."""
