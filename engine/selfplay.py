"""Self-play: two bots play a whole match through the Decider, seeing only their own views.

Pure and deterministic: the deck seed, both bots' random streams and the referee's coin come
from ``(master seed, match index)``, so a match can be replayed from those two numbers alone.

The loop is the referee. The pending seat is asked for its decision; while a UNO window is open
(D14) the other seat may also speak (its only legal command is then ``uno``), and "whoever the
server records first" is settled by a seeded coin. A bot gets nothing but
``engine.views.view(state, seat)``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.bots import Bot, get_bot, normalize_bot_name
from engine.commands import parse_seat_command
from engine.decide import decide_step
from engine.errors import CommandRefused, UnoDuoError
from engine.events import Event
from engine.match import LocalMatch
from engine.rulesets import Ruleset
from engine.shuffle import Dealer
from engine.state import MatchState, Phase
from engine.views import view

MAX_ACTIONS = 1_000_000  # a guard against bots that never end a match; far above any real match


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


def seat_order(index: int) -> tuple[int, int]:
    """Which entrant sits in seat 0 and seat 1: the entrants swap seats every match."""
    return (0, 1) if index % 2 == 0 else (1, 0)


@dataclass(frozen=True)
class MatchResult:
    """One finished match, with per-seat counters. ``entrants[s]`` is the entrant in seat ``s``."""

    seed: str  # the run's master seed
    index: int
    ruleset: str
    bots: tuple[str, str]  # bot name by seat
    entrants: tuple[int, int]  # entrant number (position in the bot list) by seat
    server_seed: bytes
    winner: int  # seat
    scores: tuple[int, int]
    rounds: int
    actions: int
    challenges: tuple[int, int]
    challenges_upheld: tuple[int, int]  # the challenger was right: the Wild Draw Four was illegal
    catches: tuple[int, int]
    events: tuple[Event, ...] = field(repr=False, compare=True)

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
    def players(self) -> tuple[str, str]:
        return (f"bot:{self.bots[0]}", f"bot:{self.bots[1]}")


def play_match(
    bots: Sequence[str],
    ruleset: Ruleset,
    master_seed: int | str,
    index: int,
    max_actions: int = MAX_ACTIONS,
) -> MatchResult:
    """Play match ``index`` of a run between ``bots[0]`` and ``bots[1]`` (entrants swap seats)."""
    if len(bots) != 2:
        raise ValueError("a match needs exactly two bots")
    names = [normalize_bot_name(b) for b in bots]
    order = seat_order(index)
    seat_names = (names[order[0]], names[order[1]])
    players: tuple[Bot, Bot] = (get_bot(seat_names[0]), get_bot(seat_names[1]))
    rngs = (
        random.Random(f"{master_seed}:{index}:seat0"),
        random.Random(f"{master_seed}:{index}:seat1"),
    )
    referee = random.Random(f"{master_seed}:{index}:referee")
    server_seed = match_seed(master_seed, index)
    match = LocalMatch.start(server_seed, ruleset, dealer=Dealer(server_seed))
    state, dealer = match.state, match.dealer
    events: list[Event] = list(match.events)
    actions = 0
    while state.phase is not Phase.MATCH_OVER:
        if actions >= max_actions:
            raise MatchStuck(f"match {index} did not finish within {max_actions} actions (round {state.round})")
        seat = _next_speaker(state, referee)
        command = players[seat].choose(view(state, seat), rngs[seat])
        state = _apply(state, seat, command, dealer, events, seat_names[seat])
        actions += 1
    return _result(str(master_seed), index, ruleset, seat_names, order, server_seed, state, events, actions)


def _next_speaker(state: MatchState, referee: random.Random) -> int:
    """The pending seat; while a UNO window is open, a coin decides who speaks first (D14)."""
    seat = state.pending.seat
    assert seat is not None
    if state.uno_open[0] or state.uno_open[1]:
        return seat if referee.random() < 0.5 else 1 - seat
    return seat


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
    seat_names: tuple[str, str],
    order: tuple[int, int],
    server_seed: bytes,
    state: MatchState,
    events: list[Event],
    actions: int,
) -> MatchResult:
    challenges = [0, 0]
    upheld = [0, 0]
    catches = [0, 0]
    for event in events:
        kind, data = event.type, event.data
        if kind == "challenge_resolved":
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
        challenges=(challenges[0], challenges[1]),
        challenges_upheld=(upheld[0], upheld[1]),
        catches=(catches[0], catches[1]),
        events=tuple(events),
    )
