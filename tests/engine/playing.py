"""Drive matches with random legal commands, for property tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from engine import LocalMatch, Phase, Ruleset, TimeOut, legal_commands
from engine.game.cards import COLOR_ORDER
from engine.record.chain import ZERO_HASH, chain_envelope
from engine.record.sealing import commitment, seal_salt

COLOURS = [c.value for c in COLOR_ORDER]


def random_command(state: Any, seat: int, rng: random.Random, play_bias: float = 0.0) -> dict[str, Any]:
    """A uniformly random legal command; with ``play_bias`` prefer playing/dumping over drawing."""
    legal = legal_commands(state, seat)
    assert legal, "a pending decision always has at least one legal command"
    if play_bias and rng.random() < play_bias:
        plays = [c for c in legal if c["type"] in ("play", "dump")]
        if plays:
            legal = plays
    command = dict(rng.choice(legal))
    if (command["type"] == "play" and command["card"] in ("W", "W+4")) or command["type"] == "color":
        command["color"] = rng.choice(COLOURS)
    if command["type"] == "play" and rng.random() < 0.5:
        command["uno"] = True
    return command


def next_actor(state: Any, rng: random.Random) -> int:
    """Whose command to send: usually the pending seat; sometimes the other seat's UNO call."""
    for seat in (0, 1):
        if any(c["type"] == "uno" for c in legal_commands(state, seat)) and rng.random() < 0.3:
            return seat
    seat = state.pending.seat
    assert seat is not None
    return seat


def play_match(
    seed: int,
    ruleset: Ruleset,
    play_bias: float = 0.5,
    max_actions: int = 200_000,
    on_step: Callable[[LocalMatch, int, dict[str, Any], list[Any]], None] | None = None,
    timeout_rate: float = 0.0,
) -> LocalMatch:
    """A whole match of random legal commands; with ``timeout_rate``, that share of the pending
    seat's decisions run out of time instead (``TimeOut``; ``command`` is then ``{"type": "timeout"}``)."""
    rng = random.Random(seed)
    match = LocalMatch.start(seed.to_bytes(32, "big"), ruleset, (str(seed), "entropy"))
    for _ in range(max_actions):
        if match.state.phase is Phase.MATCH_OVER:
            return match
        if timeout_rate and rng.random() < timeout_rate:  # no draw at rate 0: the same games as before
            seat = match.state.pending.seat
            assert seat is not None
            command: dict[str, Any] = {"type": "timeout"}
            events = match.apply(TimeOut(seat, expected_version=match.state.version))
        else:
            seat = next_actor(match.state, rng)
            command = random_command(match.state, seat, rng, play_bias)
            events = match.act(seat, command)
        if on_step is not None:
            on_step(match, seat, command, events)
    raise AssertionError("match did not finish")


def short(ruleset: Ruleset, target: int) -> Ruleset:
    return replace(ruleset, target=target)


def reseal(lines: list[dict[str, Any]], seed: bytes) -> list[dict[str, Any]]:
    """A dishonest server's rewrite of replay lines: every commitment recomputed from its opened
    value, then every hash, so that only the re-run can catch an edit."""
    out: list[dict[str, Any]] = []
    prev = ZERO_HASH
    for line in lines:
        sealed = {
            name: commitment(seal_salt(seed, line["stream"], line["seq"], name), value)
            for name, value in line["open"].items()
        }
        env = chain_envelope(line["stream"], line["seq"], line["type"], line["data"], sealed, line["at"], prev)
        out.append({**env, "open": line["open"]})
        prev = env["hash"]
    return out
