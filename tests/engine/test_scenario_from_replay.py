"""What-if from a replay (docs/PROTOCOL.md "unoduo scenario --from REPLAY --at SEQ"): the position
a verified replay reached at one event, other commands played there with the replay's own dealer,
and hand edits that keep the deck one deck."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from typing import Any

import pytest

from engine import CLASSIC_2P, UNO_DUO, Ruleset
from engine.game.errors import ScenarioError
from engine.game.events import HEAD_TYPES, Event, EventType
from engine.game.evolve import evolve, fold
from engine.game.state import INITIAL_STATE, MatchState, PendingKind, Phase
from engine.play.scenario import (
    HandEdit,
    check_deck,
    check_start,
    edit_hand,
    load_replay,
    parse_commands,
    run_from_replay,
    run_scenario,
)
from engine.play.selfplay import play_match
from engine.record.replay import parse_replay, replay_text
from engine.record.sealing import join

# The sample replays of replays/ these tests start from, made again here the way ``unoduo simulate
# --seed 2026`` made them (byte for byte the committed sim-2026-*.jsonl files), so the tests do not
# hang on which files the kit keeps: (bots, ruleset, match index) under master seed 2026.
SAMPLES: dict[str, tuple[tuple[str, str], Ruleset, int]] = {
    # Seat 1's Wild Draw Four at seq 93 is challenged at seq 96 and found legal (her hand: W+4, W+4).
    "sim-2026-uno-duo-11-greedy-vs-greedy": (("greedy", "greedy"), UNO_DUO, 11),
    # Seat 1's Wild Draw Four is challenged at seq 79 and found illegal (she held YS on GS).
    "sim-2026-uno-duo-16-greedy-vs-random": (("greedy", "random"), UNO_DUO, 16),
    "sim-2026-classic-2p-7-random-vs-greedy": (("greedy", "random"), CLASSIC_2P, 7),
}
LEGAL_WD4 = "sim-2026-uno-duo-11-greedy-vs-greedy"
ILLEGAL_WD4 = "sim-2026-uno-duo-16-greedy-vs-random"
ALL_REPLAYS = sorted(SAMPLES)


@cache
def text_of(name: str) -> str:
    bots, ruleset, index = SAMPLES[name]
    result = play_match(list(bots), ruleset, 2026, index)
    return replay_text(result.match_id, result.ruleset, result.players, result.events)


def whole_events(text: str) -> list[Event]:
    _header, lines = parse_replay(text)
    return [Event(line["type"], join(line["data"], line["open"])) for line in lines]


def first_challenge(events: list[Event]) -> int:
    """The seq of the first recorded ``challenge`` command (its head event)."""
    return next(
        i + 1 for i, e in enumerate(events) if e.type == EventType.COMMAND and e.data["command"]["type"] == "challenge"
    )


def boundaries(events: list[Event]) -> list[int]:
    """Every seq a what-if may start at: the last event of a command's events."""
    return [i + 1 for i in range(len(events)) if i + 1 == len(events) or events[i + 1].type in HEAD_TYPES]


def types_in(result: dict[str, Any]) -> list[str]:
    return [e["type"] for e in result["events"]]


def of_type(result: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in result["events"] if e["type"] == kind]


# ---------------------------------------------------------------- the start position and the dealer


@pytest.mark.parametrize("path", ALL_REPLAYS, ids=str)
def test_playing_the_recorded_commands_gives_back_the_recorded_log(path: str) -> None:
    """From the middle of a real match, its own remaining commands give back every recorded event:
    the start position is the real one and every later shuffle and recycle is the real dealer's."""
    text = text_of(path)
    events = whole_events(text)
    starts = boundaries(events)
    seq = starts[len(starts) // 2]
    rest = events[seq:]
    heads = [e for e in rest if e.type in HEAD_TYPES]
    assert {e.type for e in heads} == {EventType.COMMAND}
    commands = [[e.data["seat"], e.data["command"]] for e in heads]
    answer = run_from_replay(text, seq, commands)
    assert all(r["ok"] for r in answer["results"])
    assert [e for r in answer["results"] for e in r["events"]] == [e.to_dict() for e in rest]
    assert answer["audit"]["phase"] == "match_over"
    assert answer["setup"] == [e.to_dict() for e in events[:seq]]


def test_accept_instead_of_the_challenge_draws_four_and_resolves_nothing() -> None:
    text = text_of(LEGAL_WD4)
    events = whole_events(text)
    head = first_challenge(events)
    challenger = events[head - 1].data["seat"]
    recorded_draw = events[head + 1].data  # the failed challenge drew 6 off the same pile
    assert recorded_draw["reason"] == "challenge_failed" and recorded_draw["count"] == 6

    answer = run_from_replay(text, head - 1, [[challenger, {"type": "accept"}]], source="r.jsonl")

    assert answer["from"] == {
        "file": "r.jsonl",
        "match": "sim-2026-uno-duo-11",
        "seq": head - 1,
        "event": "awaiting",
        "hands": [],
    }
    (result,) = answer["results"]
    assert result["ok"] is True
    assert EventType.CHALLENGE_RESOLVED not in types_in(result)
    (drawn,) = of_type(result, EventType.CARDS_DRAWN)
    assert drawn["seat"] == challenger and drawn["count"] == 4 and drawn["reason"] == "wild_draw_four"
    assert drawn["cards"] == recorded_draw["cards"][:4]
    assert answer["audit"]["pending"] == {"kind": "turn", "seat": 1 - challenger}


def test_the_recorded_challenge_from_the_same_start_keeps_its_verdict() -> None:
    text = text_of(LEGAL_WD4)
    events = whole_events(text)
    head = first_challenge(events)
    answer = run_from_replay(text, head - 1, [{"seat": 0, "type": "challenge"}])
    (verdict,) = of_type(answer["results"][0], EventType.CHALLENGE_RESOLVED)
    assert verdict == events[head].data and verdict["verdict"] == "legal"


# ---------------------------------------------------------------- hand edits


def test_a_hand_edit_that_makes_the_wild_draw_four_illegal_changes_the_verdict() -> None:
    text = text_of(LEGAL_WD4)
    head = first_challenge(whole_events(text))
    answer = run_from_replay(text, head - 1, [[0, {"type": "challenge"}]], [HandEdit.parse("1=W+4,y5")])
    assert answer["from"]["hands"] == [{"seat": 1, "cards": ["Y5", "W+4"], "was": ["W+4", "W+4"]}]
    (result,) = answer["results"]
    (verdict,) = of_type(result, EventType.CHALLENGE_RESOLVED)
    assert verdict["verdict"] == "illegal" and verdict["matching"] == ["Y5"]
    (drawn,) = of_type(result, EventType.CARDS_DRAWN)
    assert drawn["seat"] == 1 and drawn["count"] == 4 and drawn["reason"] == "challenge_upheld"
    assert answer["audit"]["pending"] == {"kind": "turn", "seat": 0}


def test_what_if_she_had_held_the_green_seven_when_she_played_it() -> None:
    """Edit before the Wild Draw Four is played, then play it and challenge: G7 matches the Y7."""
    text = text_of(LEGAL_WD4)
    events = whole_events(text)
    head = first_challenge(events)
    played = head - 3  # command play W+4, card_played, awaiting, then the challenge
    assert events[played - 1].data["command"]["card"] == "W+4"
    wd4 = events[played - 1].data["command"]
    commands = [[1, wd4], [0, {"type": "challenge"}]]
    answer = run_from_replay(text, played - 1, commands, [HandEdit.parse("1=W+4,W+4,W+4,G7")])
    assert [r["ok"] for r in answer["results"]] == [True, True]
    (verdict,) = of_type(answer["results"][1], EventType.CHALLENGE_RESOLVED)
    assert verdict["verdict"] == "illegal" and verdict["matching"] == ["G7"]
    assert verdict["hand"] == ["G7", "W+4", "W+4"]


def test_a_hand_edit_that_drops_the_matching_card_makes_the_challenge_fail() -> None:
    text = text_of(ILLEGAL_WD4)
    events = whole_events(text)
    head = first_challenge(events)
    recorded = events[head].data
    assert recorded["verdict"] == "illegal" and recorded["matching"] == ["YS"]
    kept = [code for code in recorded["hand"] if code != "YS"]
    edit = HandEdit.parse("1=" + ",".join(kept))
    answer = run_from_replay(text, head - 1, [[0, {"type": "challenge"}]], [edit])
    (verdict,) = of_type(answer["results"][0], EventType.CHALLENGE_RESOLVED)
    assert verdict["verdict"] == "legal" and verdict["matching"] == []
    (drawn,) = of_type(answer["results"][0], EventType.CARDS_DRAWN)
    assert drawn["seat"] == 0 and drawn["reason"] == "challenge_failed"
    assert "YS" in answer["audit"]["draw_order"]  # the card given up went back into the pile


def start_state(path: str, seq: int) -> MatchState:
    return fold(whole_events(text_of(path))[:seq])


def test_an_edit_swaps_with_the_deepest_copy_in_the_draw_pile() -> None:
    events = whole_events(text_of(LEGAL_WD4))
    seq = first_challenge(events) - 1
    state = fold(events[:seq])
    edited, record = edit_hand(state, HandEdit.parse("1=W+4,Y5"))
    deck = state.deck
    depth = max(p for p, i in enumerate(state.draw_pile) if deck[i].code == "Y5")
    taken = state.draw_pile[depth]
    given_up = next(i for i in state.hands[1] if i not in edited.hands[1])
    assert taken in edited.hands[1] and deck[given_up].code == "W+4"
    assert edited.draw_pile == (*state.draw_pile[:depth], given_up, *state.draw_pile[depth + 1 :])
    assert edited.hands[0] == state.hands[0] and edited.discard == state.discard
    assert edited.wd4 is not None and edited.wd4.hand == edited.hands[1]
    assert record == {"seat": 1, "cards": ["Y5", "W+4"], "was": ["W+4", "W+4"]}


def test_a_longer_hand_shortens_the_pile_and_a_shorter_one_goes_to_its_bottom() -> None:
    events = whole_events(text_of(LEGAL_WD4))
    state = fold(events[: first_challenge(events) - 1])
    longer, _ = edit_hand(state, HandEdit.parse("1=W+4,W+4,R1,R2"))
    assert len(longer.hands[1]) == 4 and len(longer.draw_pile) == len(state.draw_pile) - 2
    assert longer.draw_pile[:5] == state.draw_pile[:5]  # the next draws are untouched
    shorter, _ = edit_hand(state, HandEdit.parse("1=W+4"))
    assert len(shorter.hands[1]) == 1
    assert shorter.draw_pile == state.draw_pile + tuple(i for i in state.hands[1] if i not in shorter.hands[1])
    assert shorter.uno_said[1] is False and shorter.uno_open[1] is False


def deck_counts(state: MatchState) -> Counter[int]:
    return Counter(state.hands[0] + state.hands[1] + state.draw_pile + state.draft_pile + state.discard)


@pytest.mark.parametrize("path", ALL_REPLAYS, ids=str)
def test_every_edit_keeps_one_deck_and_holding_the_same_hand_changes_nothing(path: str) -> None:
    events = whole_events(text_of(path))
    starts = set(boundaries(events))
    state = INITIAL_STATE
    edited = 0
    for index, event in enumerate(events):
        state = evolve(state, event)
        if index + 1 not in starts or state.phase not in (Phase.DRAFT, Phase.PLAY):
            continue
        check_deck(state)
        for seat in (0, 1):
            if state.hands[seat]:
                same = HandEdit(seat, tuple(state.card(i) for i in state.hands[seat]))
                assert edit_hand(state, same)[0] == state
        if state.hands[1] and state.draw_pile and state.pending.kind is not PendingKind.DRAWN and index % 7 == 0:
            cards = (state.card(state.draw_pile[-1]), state.card(state.hands[1][0]))
            other, _ = edit_hand(state, HandEdit(1, cards))
            assert Counter(state.card(i).code for i in other.hands[1]) == Counter(c.code for c in cards)
            assert deck_counts(other) == Counter(range(state.ruleset.deck_size))
            edited += 1
    assert edited > 0


def test_a_card_with_no_free_copy_is_refused_and_its_copies_are_located() -> None:
    state = start_state(LEGAL_WD4, first_challenge(whole_events(text_of(LEGAL_WD4))) - 1)
    with pytest.raises(ScenarioError, match=r"asks for 5 W\+4 but only 3 of the deck's 4 .*1 in the discard pile"):
        edit_hand(state, HandEdit.parse("1=W+4,W+4,W+4,W+4,W+4"))


def test_a_hand_is_edited_only_in_a_round() -> None:
    with pytest.raises(ScenarioError, match="no round is in play here"):
        run_from_replay(text_of(LEGAL_WD4), 2, None, [HandEdit.parse("0=R5")])


def test_a_seat_deciding_on_its_drawn_card_must_keep_it() -> None:
    events = whole_events(text_of(ILLEGAL_WD4))
    seq = next(
        i + 1
        for i, e in enumerate(events)
        if e.type == EventType.AWAITING and e.data["kind"] == "drawn" and i + 1 in set(boundaries(events))
    )
    state = fold(events[:seq])
    seat, drawn = state.pending.seat, state.pending.card
    assert seat is not None and drawn is not None
    code = state.card(drawn).code
    other = "R5" if code != "R5" else "G5"
    with pytest.raises(ScenarioError, match=f"deciding on the card it drew \\({code}\\)"):
        edit_hand(state, HandEdit.parse(f"{seat}={other}"))
    kept, _ = edit_hand(state, HandEdit.parse(f"{seat}={other},{code}"))
    assert drawn in kept.hands[seat]


def test_two_edits_of_one_seat_are_refused() -> None:
    with pytest.raises(ScenarioError, match="one edit per seat"):
        run_from_replay(text_of(LEGAL_WD4), 95, None, [HandEdit.parse("1=R5"), HandEdit.parse("1=R6")])


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("R5", "write SEAT=CODES"),
        ("2=R5", "write SEAT=CODES"),
        ("x=R5", "write SEAT=CODES"),
        ("1=", "needs at least one card"),
        ("1=R5,,G7", "card 2: unknown card ''"),
        ("1=R10", "card 1: unknown card 'R10'"),
    ],
)
def test_bad_hand_edits_are_refused(text: str, reason: str) -> None:
    with pytest.raises(ScenarioError, match=reason):
        HandEdit.parse(text)


def test_check_deck_names_a_card_held_twice() -> None:
    state = start_state(LEGAL_WD4, 95)
    broken = MatchState(**{**state.__dict__, "hands": (state.hands[0] + state.hands[1][:1], state.hands[1])})
    with pytest.raises(ScenarioError, match="not one deck: card ids held twice"):
        check_deck(broken)


# ---------------------------------------------------------------- where to start


@pytest.mark.parametrize("seq", [0, -1, 282, 10_000])
def test_a_seq_out_of_range_is_refused(seq: int) -> None:
    with pytest.raises(ScenarioError, match=f"--at {seq}: out of range; this replay's events are seq 1 to 281"):
        run_from_replay(text_of(LEGAL_WD4), seq)


def test_a_seq_inside_one_commands_events_names_the_nearest_starts() -> None:
    events = whole_events(text_of(LEGAL_WD4))
    head = first_challenge(events)
    last = head + 3  # command, challenge_resolved, cards_drawn, awaiting
    for seq in range(head, last):
        with pytest.raises(ScenarioError, match=f"seq {head} to {last}.*--at {head - 1}.*--at {last}"):
            check_start(events, seq)
    check_start(events, head - 1)
    check_start(events, last)
    check_start(events, len(events))


def test_from_the_last_event_every_command_is_refused_as_match_over() -> None:
    text = text_of(LEGAL_WD4)
    answer = run_from_replay(text, 281, [[0, {"type": "draw"}]])
    assert answer["results"] == [answer["results"][0]] and answer["results"][0]["ok"] is False
    assert answer["results"][0]["error"]["code"] == "match_over"


# ---------------------------------------------------------------- replays that are refused


def test_a_tampered_replay_is_refused_with_the_failed_check() -> None:
    text = text_of(LEGAL_WD4).replace('"card":"Y7"}', '"card":"Y8"}', 1)
    with pytest.raises(ScenarioError, match=r"r\.jsonl does not verify \(line 91: the hash chain breaks at seq 90"):
        run_from_replay(text, 95, source="r.jsonl")


def test_a_resealed_forgery_is_refused_by_the_rerun() -> None:
    """A chain rebuilt over an altered log holds, but the rules do not give its events."""
    text = text_of(LEGAL_WD4)
    header, _ = parse_replay(text)
    events = whole_events(text)
    head = first_challenge(events)
    forged = list(events)
    forged[head] = Event(forged[head].type, {**forged[head].data, "verdict": "illegal"})
    fake = replay_text(header["match"], header["ruleset"], header["players"], forged)
    with pytest.raises(ScenarioError, match=f"does not verify \\(line {head + 2}: recorded challenge_resolved"):
        run_from_replay(fake, head - 1)


def test_a_file_that_is_no_replay_is_refused() -> None:
    with pytest.raises(ScenarioError, match=re.escape("x.jsonl: line 1 is not a 'unoduo-replay' header")):
        run_from_replay('{"format": "other"}\n', 1, source="x.jsonl")


def test_a_generated_match_can_be_started_from_too() -> None:
    """A self-play match, written as a replay in the test: its first Wild Draw Four, answered the
    other way (classic-2p refuses an illegal one outright, so only uno-duo has challenges)."""
    result = play_match(["greedy", "random"], UNO_DUO, 0, 1)
    text = replay_text(result.match_id, result.ruleset, result.players, result.events)
    events = whole_events(text)
    assert load_replay(text, "gen")[1] == events
    waits = [i + 1 for i, e in enumerate(events) if e.type == EventType.AWAITING and e.data["kind"] == "wild_draw_four"]
    assert waits
    seq = waits[0]
    seat = events[seq - 1].data["seat"]
    answered = events[seq].data["command"]["type"]
    other = "accept" if answered == "challenge" else "challenge"
    answer = run_from_replay(text, seq, [[seat, {"type": other}]])
    assert answer["results"][0]["ok"] is True
    assert (EventType.CHALLENGE_RESOLVED in types_in(answer["results"][0])) == (other == "challenge")


# ---------------------------------------------------------------- the answer's shape


def test_the_answer_has_a_normal_scenarios_shape_plus_from() -> None:
    normal = run_scenario(
        {"first_drafter": 0, "commands": [[0, {"type": "draft", "keep": True}], [1, {"type": "draw"}]]}
    )
    text = text_of(LEGAL_WD4)
    what_if = run_from_replay(text, 95, [[0, {"type": "accept"}], [0, {"type": "accept"}]])
    assert list(what_if) == ["from", *normal]
    assert [set(r) for r in what_if["results"]] == [set(r) for r in normal["results"]]
    assert what_if["results"][0]["ok"] is True
    assert what_if["results"][1]["error"]["code"] == "not_your_turn"  # answered, and the script goes on
    assert [v["viewer"] for v in what_if["views"]] == [0, 1]
    assert set(what_if["views"][0]) == set(normal["views"][0])
    assert set(what_if["audit"]) == set(normal["audit"])
    assert set(what_if["from"]) == {"file", "match", "seq", "event", "hands"}


def test_pairs_and_objects_are_the_same_commands() -> None:
    text = text_of(LEGAL_WD4)
    pairs = run_from_replay(text, 95, [[0, {"type": "accept"}], [1, {"type": "draw"}]])
    objects = run_from_replay(text, 95, [{"seat": 0, "type": "accept"}, {"type": "draw", "seat": 1}])
    assert pairs == objects
    assert run_from_replay(text, 95)["results"] == []


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ({"seat": 0, "type": "accept"}, "commands: a JSON list"),
        ("accept", "commands: a JSON list"),
        ([[0, {"type": "accept"}], [0]], "commands\\[1\\]: a command is a \\[seat, command\\] pair"),
        ([{"type": "accept"}], 'commands\\[0\\]: .* an object with "seat"'),
        ([7], "commands\\[0\\]"),
    ],
)
def test_commands_of_the_wrong_shape_are_refused(raw: object, reason: str) -> None:
    with pytest.raises(ScenarioError, match=reason):
        parse_commands(raw)
