"""Self-play: bots play a whole match through the Decider, seeing only their own views.

A match has one bot per seat: two, or 2 to 10 at a ``classic`` table (RULES.md D18). Pure and
deterministic: the deck seed, every seat's random stream and the referee's coin come from
``(master seed, match index)``, so a match can be replayed from those two numbers alone.

The loop is the referee. The pending seat is asked for its decision; while a UNO window is open
(D14, D22) every other seat may also speak (its only legal command is then ``uno``), and
"whoever the server records first" is settled by a seeded coin: the pending seat or, half of
the time, another seat (at a larger table, one of them drawn by the same referee). A bot gets
nothing but ``engine.protocol.views.view(state, seat)`` (an event-reading bot, the coach, also
its seat's own event stream, folded by ``engine.bots.SeatMemories``).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.bots import Bot, SeatMemories, bot_choice, get_bot, normalize_bot_name
from engine.game.commands import parse_seat_command
from engine.game.decide import decide_step
from engine.game.errors import CommandRefused, UnoDuoError
from engine.game.events import Event
from engine.game.rulesets import Ruleset, seats_allowed
from engine.game.seating import active_seats
from engine.game.shuffle import Dealer
from engine.game.state import MatchState, Phase
from engine.play.match import LocalMatch
from engine.protocol.views import view

MAX_ACTIONS = 1_000_000  # a guard against bots that never end a match; far above any real match

# Called after every action with the new state and the events that action recorded.
StepObserver = Callable[[MatchState, list[Event]], None]


class BotMisbehaved(UnoDuoError):
    """A bot sent a command the engine refused: a bug in that bot."""


class MatchStuck(UnoDuoError):
    """The match did not end within ``max_actions`` actions.

    A round in which nobody plays cannot go on for ever: once every card is held, two empty
    draws in a row end it (D17). But two bots could still keep a round alive by playing and
    drawing in a loop, so self-play keeps an overall bound and says so when it is reached.
    """


def match_seed(master_seed: int | str, index: int) -> bytes:
    """The 32-byte server seed of match ``index`` of a run with ``master_seed``."""
    return hashlib.sha256(f"unoduo-selfplay|{master_seed}|{index}".encode()).digest()


def seat_order(index: int, seats: int = 2) -> tuple[int, ...]:
    """Which entrant sits in each seat: the entrants move one seat on every match (at two seats
    they swap), so over ``seats`` matches each entrant has sat in every seat once."""
    return tuple((seat + index) % seats for seat in range(seats))


@dataclass(frozen=True)
class MatchResult:
    """One finished match, with per-seat counters (one entry per seat). ``entrants[s]`` is the
    entrant in seat ``s``."""

    seed: str  # the run's master seed
    index: int
    ruleset: str
    bots: tuple[str, ...]  # bot name by seat
    entrants: tuple[int, ...]  # entrant number (position in the bot list) by seat
    server_seed: bytes
    winner: int  # seat
    scores: tuple[int, ...]
    rounds: int
    actions: int
    challenges: tuple[int, ...]
    challenges_upheld: tuple[int, ...]  # the challenger was right: the Wild Draw Four was illegal
    catches: tuple[int, ...]
    events: tuple[Event, ...] = field(repr=False, compare=True)
    # The seat that won each round (went out, or the blocked round's lower hand, D17/D24); None for
    # a blocked round of equal hands, which nobody wins. Strength per hand (docs/BENCHMARKS.md).
    round_winners: tuple[int | None, ...] = ()

    @property
    def seats(self) -> int:
        return len(self.bots)

    @property
    def winner_entrant(self) -> int:
        return self.entrants[self.winner]

    def without_events(self) -> MatchResult:
        """The counters only: what a run keeps of each match (a match's log is ~1,000 events)."""
        return replace(self, events=())

    @property
    def match_id(self) -> str:
        return f"sim-{self.seed}-{self.ruleset}-{self.index}"

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(f"bot:{bot}" for bot in self.bots)


def play_match(
    bots: Sequence[str],
    ruleset: Ruleset,
    master_seed: int | str,
    index: int,
    max_actions: int = MAX_ACTIONS,
    on_step: StepObserver | None = None,
    make_bot: Callable[[str], Bot] | None = None,
) -> MatchResult:
    """Play match ``index`` of a run, one seat for each of ``bots`` (the entrants move seats
    every match, :func:`seat_order`): two bots, or 2 to 10 where the ruleset seats them.
    ``on_step`` (tests) sees every state the match passes through; ``make_bot`` (a study's own
    players, bench/coach_tables.py) makes each seat's bot from its name in place of the registry."""
    seats = len(bots)
    if seats not in seats_allowed(ruleset):
        allowed = seats_allowed(ruleset)
        raise ValueError(f"{ruleset.name} seats {allowed.start} to {allowed.stop - 1} bots, not {seats}")
    names = [normalize_bot_name(b) for b in bots] if make_bot is None else list(bots)
    order = seat_order(index, seats)
    seat_names = tuple(names[entrant] for entrant in order)
    players: tuple[Bot, ...] = tuple((make_bot or get_bot)(name) for name in seat_names)
    rngs = tuple(random.Random(f"{master_seed}:{index}:seat{seat}") for seat in range(seats))
    referee = random.Random(f"{master_seed}:{index}:referee")
    server_seed = match_seed(master_seed, index)
    # Two seats are not recorded (match_created without ``seats``), as before larger tables existed.
    match = LocalMatch.start(server_seed, ruleset, ("",) * seats, Dealer(server_seed), seats if seats != 2 else None)
    state, dealer = match.state, match.dealer
    events: list[Event] = list(match.events)
    memories = SeatMemories(dict(enumerate(players)))  # an event-reading bot's seat stream, folded
    memories.see(events)
    actions = 0
    while state.phase is not Phase.MATCH_OVER:
        if actions >= max_actions:
            raise MatchStuck(f"match {index} did not finish within {max_actions} actions (round {state.round})")
        seat = _next_speaker(state, referee)
        seen = view(state, seat)
        command = bot_choice(players[seat], seen, rngs[seat], memories.knowledge(seat, seen))
        recorded = len(events)
        state = _apply(state, seat, command, dealer, events, seat_names[seat])
        memories.see(events[recorded:])
        actions += 1
        if on_step is not None:
            on_step(state, events[recorded:])
    return _result(str(master_seed), index, ruleset, seat_names, order, server_seed, state, events, actions)


def _next_speaker(state: MatchState, referee: random.Random) -> int:
    """The pending seat; while a UNO window is open, a coin decides who speaks first (D14, D22):
    the pending seat, or another seat at the table (drawn by the referee when there are several)."""
    seat = state.pending.seat
    assert seat is not None
    if not any(state.uno_open) or referee.random() < 0.5:
        return seat
    others = [other for other in active_seats(state) if other != seat]
    return others[0] if len(others) == 1 else referee.choice(others)


def _apply(
    state: MatchState, seat: int, command: dict[str, Any], dealer: Dealer, log: list[Event], bot: str
) -> MatchState:
    try:
        batch, state = decide_step(state, parse_seat_command(seat, command), dealer)
    except CommandRefused as refusal:
        raise BotMisbehaved(f"bot {bot!r} in seat {seat} sent {command!r}: {refusal.message}") from refusal
    log.extend(batch)
    return state


def _result(
    seed: str,
    index: int,
    ruleset: Ruleset,
    seat_names: tuple[str, ...],
    order: tuple[int, ...],
    server_seed: bytes,
    state: MatchState,
    events: list[Event],
    actions: int,
) -> MatchResult:
    challenges = [0] * len(seat_names)
    upheld = [0] * len(seat_names)
    catches = [0] * len(seat_names)
    round_winners: list[int | None] = []
    for event in events:
        kind, data = event.type, event.data
        if kind == "round_ended":
            round_winners.append(data["winner"])
        elif kind == "challenge_resolved":
            challenges[data["by"]] += 1
            if data["verdict"] == "illegal":
                upheld[data["by"]] += 1
        elif kind == "uno_caught":
            catches[data["by"]] += 1
    assert state.winner is not None
    return MatchResult(
        seed=seed,
        index=index,
        ruleset=ruleset.name,
        bots=seat_names,
        entrants=order,
        server_seed=server_seed,
        winner=state.winner,
        scores=state.scores,
        rounds=state.round,
        actions=actions,
        challenges=tuple(challenges),
        challenges_upheld=tuple(upheld),
        catches=tuple(catches),
        events=tuple(events),
        round_winners=tuple(round_winners),
    )
