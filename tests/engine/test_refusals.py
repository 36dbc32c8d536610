"""Bad input: every refusal carries its docs/PROTOCOL.md code, a message and a ruling; nothing changes.

Also the contract of ``legal``: a command is accepted exactly when ``legal`` lists it.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    CLASSIC_2P,
    UNO_DUO,
    CommandRefused,
    Dealer,
    ErrorCode,
    LocalMatch,
    MatchState,
    decide,
    legal_commands,
    parse_seat_command,
)
from engine.game.cards import canonical_deck
from engine.game.rulesets import Ruleset
from engine.play.scenario import DEFAULT_SEED, build_dealer, parse_spec
from tests.engine.playing import COLOURS, play_match, short
from tests.profiles import examples

CODES = sorted({c.code for c in canonical_deck(8)})
TYPES = ["draft", "play", "draw", "pass", "dump", "accept", "challenge", "color", "uno"]


def refusal(state: MatchState, seat: Any, command: Any, dealer: Dealer | None = None) -> CommandRefused:
    with pytest.raises(CommandRefused) as info:
        decide(state, parse_seat_command(seat, command), dealer or Dealer(DEFAULT_SEED))
    return info.value


def stacked(top: list[str], first: int = 0) -> LocalMatch:
    dealer = build_dealer(parse_spec({"decks": [top], "first_drafter": first}), UNO_DUO)
    return LocalMatch.start(DEFAULT_SEED, UNO_DUO, dealer=dealer)


def drafted(top: list[str]) -> LocalMatch:
    """A uno-duo match after 14 keep-steps: seat 0 holds top[0,4,8..], seat 1 top[2,6,..]."""
    match = stacked(top)
    for step in range(14):
        match.act(step % 2, {"type": "draft", "keep": True})
    return match


# Hands: seat 0 keeps cards 0,4,8,...; seat 1 keeps 2,6,10,...; odd positions go to the draft pile.
SEAT0 = ["R5", "W", "W+4", "B3", "R+2", "G7", "YS"]
SEAT1 = ["R7", "B+2", "GR", "Y9", "Y1", "RS", "B1"]
FILLER = ["G1", "G2", "G3", "G4", "G5", "G6", "G8", "G9", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]


def standard_top(starter: str = "R9") -> list[str]:
    top: list[str] = []
    for i in range(7):
        top += [SEAT0[i], FILLER[2 * i], SEAT1[i], FILLER[2 * i + 1]]
    return [*top, starter]


@pytest.fixture
def in_play() -> LocalMatch:
    match = drafted(standard_top())
    assert match.state.pending.seat == 1  # Player 2 moves first (D4)
    return match


def test_malformed_and_unknown_commands(in_play: LocalMatch) -> None:
    state = in_play.state
    assert refusal(state, 1, "play R5").code is ErrorCode.MALFORMED
    assert refusal(state, 1, {"card": "R5"}).code is ErrorCode.MALFORMED
    assert refusal(state, 1, {"type": "play"}).code is ErrorCode.MALFORMED
    assert refusal(state, 1, {"type": "play", "card": "R11"}).code is ErrorCode.MALFORMED
    assert refusal(state, 1, {"type": "play", "card": "R7", "uno": "yes"}).code is ErrorCode.MALFORMED
    assert refusal(state, 1, {"type": "dump", "cards": "R7"}).code is ErrorCode.MALFORMED
    assert refusal(state, 1, {"type": "play", "card": "R7", "expected_version": -1}).code is ErrorCode.MALFORMED
    assert refusal(state, 1, {"type": "shuffle"}).code is ErrorCode.UNKNOWN_COMMAND


def test_d5_turn_refusals(in_play: LocalMatch) -> None:
    state = in_play.state
    assert refusal(state, 0, {"type": "draw"}).code is ErrorCode.NOT_YOUR_TURN
    assert refusal(state, 1, {"type": "accept"}).code is ErrorCode.NOT_NOW
    assert refusal(state, 1, {"type": "play", "card": "G0"}).code is ErrorCode.CARD_NOT_IN_HAND
    wrong = refusal(state, 1, {"type": "play", "card": "Y1"})
    assert (wrong.code, wrong.rule) == (ErrorCode.CARD_NOT_PLAYABLE, "D5")
    assert "Y1" in wrong.message and "R9" in wrong.message
    assert refusal(state, 1, {"type": "play", "card": "R7", "color": "blue"}).code is ErrorCode.MALFORMED
    assert refusal(state, 2, {"type": "draw"}).code is ErrorCode.NOT_A_PLAYER
    assert refusal(state, "spectator", {"type": "draw"}).code is ErrorCode.NOT_A_PLAYER
    stale = refusal(state, 1, {"type": "draw", "expected_version": state.version - 1})
    assert stale.code is ErrorCode.STALE_VERSION
    assert refusal(state, 1, {"type": "uno"}).code is ErrorCode.UNO_NOT_OPEN


def test_d11_wild_needs_a_valid_colour() -> None:
    match = drafted(standard_top())
    match.act(1, {"type": "play", "card": "R7"})
    state = match.state
    missing = refusal(state, 0, {"type": "play", "card": "W"})
    assert (missing.code, missing.rule) == (ErrorCode.COLOR_REQUIRED, "D11")
    assert refusal(state, 0, {"type": "play", "card": "W+4"}).rule == "D12"
    assert refusal(state, 0, {"type": "play", "card": "W", "color": "purple"}).code is ErrorCode.BAD_COLOR


def test_d10_dump_refusals() -> None:
    top = standard_top()
    top[0], top[4] = "RR", "R1"  # seat 0: RR, W, W+4, B3, R1, G7, YS
    match = drafted(top)
    match.act(1, {"type": "play", "card": "R7"})
    match.act(0, {"type": "play", "card": "RR"})
    state = match.state
    assert state.pending.kind.value == "dump"
    assert refusal(state, 0, {"type": "dump", "cards": ["B3"]}).code is ErrorCode.DUMP_WRONG_COLOR
    assert refusal(state, 0, {"type": "dump", "cards": ["R2"]}).code is ErrorCode.CARD_NOT_IN_HAND
    assert refusal(state, 0, {"type": "play", "card": "R1"}).code is ErrorCode.NOT_NOW
    incomplete = drafted([*top[:8], "R2", *top[9:]])  # seat 0 now also holds R2 in place of W+4
    incomplete.act(1, {"type": "play", "card": "R7"})
    incomplete.act(0, {"type": "play", "card": "RR"})
    partial = refusal(incomplete.state, 0, {"type": "dump", "cards": ["R1"]})
    assert (partial.code, partial.rule) == (ErrorCode.DUMP_INCOMPLETE, "D10")


def test_match_over_refuses_everything() -> None:
    match = play_match(11, short(CLASSIC_2P, 1), 0.9)
    assert refusal(match.state, 0, {"type": "draw"}).code is ErrorCode.MATCH_OVER
    assert refusal(match.state, 1, {"type": "uno"}).code is ErrorCode.MATCH_OVER


def test_refusals_carry_code_message_and_rule_as_json(in_play: LocalMatch) -> None:
    out = refusal(in_play.state, 1, {"type": "play", "card": "Y1"}).to_dict()
    assert set(out) == {"code", "message", "rule"} and out["code"] == "card_not_playable"


# ---------------------------------------------------------------- fuzz and the legal contract

junk = st.one_of(st.none(), st.booleans(), st.integers(-3, 200), st.text(max_size=5), st.sampled_from(CODES + COLOURS))
commands = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from(TYPES), st.text(max_size=6))},
    optional={
        "card": st.one_of(st.sampled_from(CODES), junk),
        "color": st.one_of(st.sampled_from(COLOURS), junk),
        "keep": st.one_of(st.booleans(), junk),
        "uno": st.one_of(st.booleans(), junk),
        "cards": st.one_of(st.lists(st.sampled_from(CODES), max_size=4), junk),
    },
)


def sample_states(seed: int, ruleset: Any) -> list[MatchState]:
    states: list[MatchState] = []
    play_match(seed, short(ruleset, 15), 0.8, on_step=lambda m, s, c, e: states.append(m.state))
    return states


STATES = sample_states(5, UNO_DUO)[::9] + sample_states(6, CLASSIC_2P)[::9]


def normalise(command: dict[str, Any]) -> dict[str, Any]:
    """The ``legal`` form of an accepted command: wilds and ``color`` without colour, no ``uno``."""
    out = {k: v for k, v in command.items() if k != "uno"}
    if out["type"] in ("play", "color") and (out["type"] == "color" or out["card"].startswith("W")):
        out.pop("color", None)
    return out


@pytest.mark.slow
@settings(max_examples=examples(2000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(STATES) - 1), seat=st.sampled_from([0, 1, 0, 1, 2, -1]), command=commands)
def test_any_input_is_either_legal_or_refused_with_a_code(index: int, seat: int, command: dict[str, Any]) -> None:
    state = STATES[index]
    try:
        parsed = parse_seat_command(seat, command)
        events = decide(state, parsed, Dealer(b"f" * 32))
    except CommandRefused as refusal_:
        assert refusal_.code in ErrorCode and refusal_.message
        return
    assert events and events[0].type == "command"
    formatted = events[0].data["command"]
    assert normalise(formatted) in legal_commands(state, seat)


@pytest.mark.parametrize("index", range(0, len(STATES), 3))
def test_every_listed_legal_command_is_accepted(index: int) -> None:
    state = STATES[index]
    rng = random.Random(index)
    for seat in (0, 1):
        for command in legal_commands(state, seat):
            command = dict(command)
            if command["type"] == "color" or (command["type"] == "play" and command["card"].startswith("W")):
                command["color"] = rng.choice(COLOURS)
            assert decide(state, parse_seat_command(seat, command), Dealer(b"f" * 32))


def test_d4_bad_colour_for_a_wild_starter_cites_d4() -> None:
    match = drafted(standard_top("W"))
    assert match.state.pending.kind.value == "color"
    refused = refusal(match.state, 0, {"type": "color", "color": "pink"})
    assert (refused.code, refused.rule) == (ErrorCode.BAD_COLOR, "D4")
    assert refusal(match.state, 0, {"type": "color"}).code is ErrorCode.COLOR_REQUIRED


@pytest.mark.parametrize(
    "overrides",
    [
        {"hand_size": 60},
        {"hand_size": 0},
        {"target": 0},
        {"deck_size": 100},
        {"uno_penalty": 500},
        {"wd4_rule": "maybe"},
        {"draw_two_stacking": "yes"},
        {"colour": "red"},
    ],
)
def test_impossible_ruleset_overrides_are_refused(overrides: dict[str, Any]) -> None:
    from engine.game.errors import ScenarioError
    from engine.play.scenario import run_scenario

    with pytest.raises(ScenarioError):
        run_scenario({"ruleset": "uno-duo", "rules": overrides, "commands": []})


# ---------------------------------------------------------------- D13c: the classic Wild Draw Four


def classic(
    seat1: list[str], seat0: list[str], starter: str, rules: dict[str, Any] | None = None, rest: tuple[str, ...] = ()
) -> LocalMatch:
    """A classic-2p match (seat 0 is Player 1): the hands dealt alternately, first to seat 1."""
    ruleset = CLASSIC_2P if rules is None else Ruleset.from_dict({**CLASSIC_2P.to_dict(), **rules})
    top = [code for pair in zip(seat1, seat0, strict=False) for code in pair] + [starter, *rest]
    dealer = build_dealer(parse_spec({"decks": [top], "first_drafter": 0}), ruleset)
    return LocalMatch.start(DEFAULT_SEED, ruleset, dealer=dealer)


SEAT0_CLASSIC = ["B2", "Y4", "G8", "R9", "Y1", "G2", "B3"]


@pytest.mark.parametrize(
    ("other", "starter"),
    [("R1", "R5"), ("G5", "R5"), ("GS", "RS"), ("G+2", "R+2")],
    ids=["colour", "number", "skip", "draw_two"],
)
def test_d13c_a_wild_draw_four_with_a_matching_card_is_refused(other: str, starter: str) -> None:
    # after a Draw Two starter seat 1 draws B9 and Y9, which match nothing on R+2
    match = classic(["W+4", other, "B1", "Y2", "G3", "B7", "Y8"], SEAT0_CLASSIC, starter, rest=("B9", "Y9"))
    if match.state.pending.seat == 0:  # a Skip or Draw Two starter: Player 1 moves first; it draws and keeps
        match.act(0, {"type": "draw"})
        match.act(0, {"type": "pass"})
    state = match.state
    assert state.pending.seat == 1
    refused = refusal(state, 1, {"type": "play", "card": "W+4", "color": "blue"})
    assert (refused.code, refused.rule) == (ErrorCode.CARD_NOT_PLAYABLE, "D13c")
    assert {"type": "play", "card": "W+4"} not in legal_commands(state, 1)
    assert {"type": "play", "card": other} in legal_commands(state, 1)


def test_d13c_wilds_never_match_and_the_four_are_drawn_at_once() -> None:
    match = classic(["W+4", "W", "W+4", "Y2", "G3", "B7", "Y8"], SEAT0_CLASSIC, "R5")
    assert {"type": "play", "card": "W+4"} in legal_commands(match.state, 1)
    events = match.act(1, {"type": "play", "card": "W+4", "color": "blue"})
    drawn = [e.data for e in events if e.type == "cards_drawn"]
    assert [(d["seat"], d["count"], d["reason"]) for d in drawn] == [(0, 4, "wild_draw_four")]
    state = match.state
    assert (state.pending.kind.value, state.pending.seat) == ("turn", 1)
    assert refusal(state, 0, {"type": "challenge"}).code is ErrorCode.NOT_YOUR_TURN
    # B7 now matches the named colour, so the second W+4 is refused
    refused = refusal(state, 1, {"type": "play", "card": "W+4", "color": "green"})
    assert (refused.code, refused.rule) == (ErrorCode.CARD_NOT_PLAYABLE, "D13c")


def test_d13c_a_drawn_wild_draw_four_is_judged_on_the_hand() -> None:
    match = classic(["Y9", "G5", "B1", "Y2", "G3", "B7", "Y8"], SEAT0_CLASSIC, "R5", rest=("W+4",))
    match.act(1, {"type": "draw"})
    state = match.state
    assert state.pending.kind.value == "drawn" and state.pending.card is not None
    assert state.card(state.pending.card).code == "W+4"
    assert legal_commands(state, 1) == [{"type": "pass"}]  # G5 still matches the 5 (D6, D13c)
    refused = refusal(state, 1, {"type": "play", "card": "W+4", "color": "red"})
    assert (refused.code, refused.rule) == (ErrorCode.CARD_NOT_PLAYABLE, "D13c")


def test_d13c_override_gives_the_official_challenge() -> None:
    rules = {"wd4_check": "challenge", "wd4_rule": "no_colour_match"}
    match = classic(["W+4", "G5", "B1", "Y2", "G3", "B7", "Y8"], SEAT0_CLASSIC, "R5", rules)
    assert {"type": "play", "card": "W+4"} in legal_commands(match.state, 1)  # G5 counts only under no_match
    match.act(1, {"type": "play", "card": "W+4", "color": "blue"})
    assert (match.state.pending.kind.value, match.state.pending.seat) == ("wild_draw_four", 0)
    events = match.act(0, {"type": "challenge"})
    verdict = next(e.data for e in events if e.type == "challenge_resolved")
    assert (verdict["verdict"], verdict["matching"], verdict["evidence"]["rule"]) == ("legal", [], "no_colour_match")
