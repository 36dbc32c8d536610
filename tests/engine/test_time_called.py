"""RULES.md D26, time called: a timed tournament round's limit ran out in the middle of a match.

The engine's ``CallTime`` records ``time_called`` with its moment; the hand in play is finished
as usual, no new hand starts once it ends with a single best total (the ruleset's own sense:
the lowest in uno-duo, the highest in classic), and while the best total is shared one more hand
is played at a time (the round limit's rule, ``engine.game.decide._round_limit_winner``). Matches
are played by house bots; the seeds below were picked for what they show and each test says what
it relies on.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.bots import get_bot
from engine.fairness.audit import rerun
from engine.fairness.verify import verify_replay
from engine.game.commands import CallTime, parse_seat_command
from engine.game.errors import CommandRefused, ErrorCode
from engine.game.events import EventType
from engine.game.rulesets import CLASSIC, CLASSIC_2P, UNO_DUO, Ruleset, Scoring
from engine.game.state import Phase
from engine.play.match import LocalMatch
from engine.protocol.views import AUDITOR, SPECTATOR, view
from engine.record.replay import replay_text
from engine.record.snapshot_codec import decode_state, encode_state
from tests.engine.playing import reseal
from tests.profiles import examples

MOMENT = "2026-12-07T12:00:00.000000Z"


@dataclass
class Played:
    match: LocalMatch
    called_at: int  # the index of the time_called event in the log (-1: never called)
    round_at_call: int
    seed: bytes

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e.data for e in self.match.events if e.type == kind]

    @property
    def ended(self) -> dict[str, Any]:
        return self.of(EventType.MATCH_ENDED)[0]


def play(ruleset: Ruleset, seed: int, call_after: int, seats: int = 2, max_actions: int = 20_000) -> Played:
    """A match of greedy bots; time is called after ``call_after`` of their actions (once the
    match has reached that far; never, if it ended first)."""
    server_seed = seed.to_bytes(32, "big")
    match = LocalMatch.start(
        server_seed, ruleset, tuple(f"e{s}" for s in range(seats)), seats=None if seats == 2 else seats
    )
    bot = get_bot("greedy")
    rng = random.Random(seed)
    called_at, round_at_call = -1, 0
    for action in range(max_actions):
        if match.state.phase is Phase.MATCH_OVER:
            return Played(match, called_at, round_at_call, server_seed)
        if action == call_after:
            round_at_call = match.state.round
            match.apply(CallTime(MOMENT))
            called_at = len(match.events) - 1
        seat = match.state.pending.seat
        assert seat is not None
        match.apply(parse_seat_command(seat, bot.choose(view(match.state, seat), rng)))
    raise AssertionError("the match did not finish")


def totals_by_round(played: Played) -> list[list[int]]:
    return [list(d["scores"]) for d in played.of(EventType.ROUND_ENDED)]


def single_best(scores: list[int], lowest_wins: bool) -> bool:
    best = min(scores) if lowest_wins else max(scores)
    return scores.count(best) == 1


def places_by_totals(scores: list[int]) -> list[int]:
    """D23 written out independently: 1 + the number of seats with a strictly higher total."""
    return [1 + sum(other > mine for other in scores) for mine in scores]


def test_time_called_mid_hand_finishes_the_hand_and_ends_the_match_on_totals() -> None:
    # Seed 1, time called after 5 actions: round 1 is being played (a hand in play, cards held).
    played = play(UNO_DUO, 1, 5)
    called = played.match.events[played.called_at]
    assert called.type == EventType.TIME_CALLED and called.data == {"moment": MOMENT}
    assert played.round_at_call == 1
    # Nothing else happened with the call: it is a batch of its own, and play went on.
    assert played.match.events[played.called_at + 1].type == EventType.COMMAND
    totals = totals_by_round(played)
    assert len(totals) == 1 and played.ended["rounds"] == 1  # the hand in play was finished, none more
    scores = played.ended["scores"]
    assert max(scores) < UNO_DUO.target  # the totals decided it, not the target
    assert played.ended["winner"] == scores.index(min(scores))  # uno-duo: the lower total wins
    assert played.ended["loser"] == 1 - played.ended["winner"]
    assert rerun(played.match.events, played.match.dealer) is None


def test_time_called_shows_in_every_view_and_survives_a_snapshot() -> None:
    match = LocalMatch.start(b"\x05" * 32, UNO_DUO, ("a", "b"))
    assert view(match.state, SPECTATOR)["time_called"] is None
    match.apply(CallTime(MOMENT))
    for viewer in (0, 1, SPECTATOR, AUDITOR):
        assert view(match.state, viewer)["time_called"] == MOMENT
    assert decode_state(encode_state(match.state)) == match.state


def test_equal_best_totals_play_one_more_hand() -> None:
    # Seed 54 (one-card hands), time called after 10 actions, in round 2: it ends 13-13, so
    # round 3 is played and gives a single lowest total.
    played = play(replace(UNO_DUO, hand_size=1), 54, 10)
    totals = totals_by_round(played)
    assert played.round_at_call == 2
    assert totals[1] == [13, 13] and len(totals) == 3 and single_best(totals[2], lowest_wins=True)
    assert played.ended["winner"] == totals[2].index(min(totals[2]))
    assert rerun(played.match.events, played.match.dealer) is None


def test_a_classic_table_places_follow_the_totals() -> None:
    # Seed 3, four seats, time called after 30 actions (round 1 in play): one seat went out and
    # scored, the three others share second place.
    played = play(CLASSIC, 3, 30, seats=4)
    assert played.round_at_call == 1
    scores = played.ended["scores"]
    assert max(scores) < CLASSIC.target and single_best(scores, lowest_wins=False)
    assert played.ended["winner"] == scores.index(max(scores))  # classic: the highest total wins
    assert played.ended["places"] == places_by_totals(scores) == [2, 2, 2, 1]
    assert rerun(played.match.events, played.match.dealer) is None


def test_time_called_before_the_seats_join_decides_after_the_first_hand() -> None:
    match = LocalMatch.start(b"\x06" * 32, CLASSIC_2P, ())  # created, nobody seated yet
    match.apply(CallTime(MOMENT))
    assert match.state.time_called == MOMENT and match.state.phase is Phase.WAITING


@pytest.mark.parametrize("when", ["twice", "after_the_end", "before_creation"])
def test_calling_time_again_after_the_end_or_before_creation_changes_nothing(when: str) -> None:
    played = play(UNO_DUO, 1, 5)
    match = played.match
    if when == "twice":
        match = LocalMatch.start(b"\x05" * 32, UNO_DUO, ("a", "b"))
        match.apply(CallTime(MOMENT))
    elif when == "before_creation":
        match = LocalMatch(dealer=match.dealer)
    state, events = match.state, list(match.events)
    with pytest.raises(CommandRefused) as refused:
        match.apply(CallTime("2026-12-07T12:05:00Z"))
    assert refused.value.code is ErrorCode.NOT_NOW
    assert match.state is state and match.events == events


@pytest.mark.parametrize("moment", ["", "x" * 65, 12, None])
def test_a_moment_that_is_no_short_string_is_refused(moment: Any) -> None:
    match = LocalMatch.start(b"\x05" * 32, UNO_DUO, ("a", "b"))
    with pytest.raises(CommandRefused) as refused:
        match.apply(CallTime(moment))
    assert refused.value.code is ErrorCode.MALFORMED and match.state.time_called is None


def _replay(played: Played) -> tuple[str, list[dict[str, Any]]]:
    text = replay_text("tc", played.match.state.ruleset.name, ["p0", "p1"], played.match.events)
    header, *rows = text.splitlines()
    return header, [json.loads(row) for row in rows]


def _forged(header: str, lines: list[dict[str, Any]], seed: bytes) -> str:
    """``lines`` renumbered, every seal and hash recomputed: only the re-run can catch the edit."""
    for seq, line in enumerate(lines, 1):
        line["seq"] = seq
    return "\n".join([header, *(json.dumps(x) for x in reseal(lines, seed))]) + "\n"


def test_a_timed_replay_verifies_and_one_without_its_call_fails() -> None:
    played = play(UNO_DUO, 1, 5)
    header, lines = _replay(played)
    report = verify_replay(_forged(header, [dict(x) for x in lines], played.seed))
    assert report.ok and f"time called at {MOMENT}" in report.checks[-1]
    # Removed: without the call, the end of the hand does not end the match.
    removed = [dict(x) for i, x in enumerate(lines) if i != played.called_at]
    report = verify_replay(_forged(header, removed, played.seed))
    assert not report.ok and "rules give round_started" in str(report.failure)


def test_a_replay_whose_call_was_moved_to_another_hand_fails() -> None:
    # The tie above: called in round 2 (13-13 at its end), decided by round 3. Moved into round 1,
    # which ended 13-0, the call would have ended the match there.
    played = play(replace(UNO_DUO, hand_size=1), 54, 10)
    header, lines = _replay(played)
    assert verify_replay(_forged(header, [dict(x) for x in lines], played.seed)).ok
    call = lines[played.called_at]
    first_command = next(i for i, x in enumerate(lines) if x["type"] == EventType.COMMAND)
    moved = [dict(x) for i, x in enumerate(lines) if i != played.called_at]
    moved.insert(first_command, dict(call))
    report = verify_replay(_forged(header, moved, played.seed))
    assert not report.ok and "rules give match_ended" in str(report.failure)


@st.composite
def timed_matches(draw: st.DrawFn) -> tuple[Ruleset, int]:
    seats = draw(st.integers(2, 5))
    base = draw(st.sampled_from([UNO_DUO, CLASSIC_2P])) if seats == 2 and draw(st.booleans()) else CLASSIC
    ruleset = replace(base, hand_size=draw(st.sampled_from([1, 2, 7])))  # short hands: more ties
    return ruleset, seats


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(timed_matches(), st.integers(0, 10_000), st.integers(0, 600))  # the call in any hand, or after the end
@example((replace(UNO_DUO, hand_size=1), 2), 54, 10)  # the tie above: one more hand
def test_any_match_with_time_called_ends_with_the_single_best_total_winning(
    table: tuple[Ruleset, int], seed: int, call_after: int
) -> None:
    ruleset, seats = table
    played = play(ruleset, seed, call_after, seats)
    assert rerun(played.match.events, played.match.dealer) is None
    if played.called_at < 0:
        return  # the match ended before the call
    lowest_wins = ruleset.scoring is Scoring.LOSER_SCORES
    totals = totals_by_round(played)
    final = totals[-1]
    reached = max(final) >= ruleset.target
    # Every hand that ended after the call without ending the match left the best total shared.
    rounds_after_call = totals[played.round_at_call - 1 : -1] if played.round_at_call else totals[:-1]
    for after in rounds_after_call:
        assert not single_best(after, lowest_wins)
    if not reached:
        assert single_best(final, lowest_wins)
        assert played.ended["winner"] == final.index(min(final) if lowest_wins else max(final))
        if "places" in played.ended:
            assert played.ended["places"] == places_by_totals(final)
