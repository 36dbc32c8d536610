"""Single and double elimination through the tournament's Decider, on folds alone
(server/tournaments/decide.py, server/tournaments/knockouts.py): rounds paired from the bracket
when they open, byes, forfeits, withdrawals, rulings, the reset and the finish with final places."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game.rulesets import RULESETS
from engine.record.event_codec import CODEC
from server.domain_errors import Malformed, NotNow
from server.tournaments.decide import (
    Advance,
    Create,
    Enter,
    MatchEnd,
    NoShow,
    OpenDispute,
    RecordResult,
    Rule,
    Start,
    Withdraw,
    decide,
)
from server.tournaments.knockouts import current_places, state
from server.tournaments.model import FINISHED, Format, RoundPaired, Slot, Tournament
from tests.tournaments.test_decide import NOW, SEED, apply, made, started, won

SE = Format.SINGLE_ELIMINATION
DE = Format.DOUBLE_ELIMINATION


def names(n: int) -> tuple[str, ...]:
    return tuple(f"p{i:02d}" for i in range(n))


def advance(t: Tournament) -> None:
    apply(t, Advance(SEED))


def live(t: Tournament) -> list[Slot]:
    return [s for s in t.round_slots(t.opened) if not t.done(s)]


def run_to_end(t: Tournament, rng: random.Random, *, withdraw_rate: float = 0.0, no_show_rate: float = 0.0) -> None:
    """Play ``t`` as the service does: advance, end every live match, until it finishes."""
    for _ in range(400):
        advance(t)
        if t.status == FINISHED:
            return
        for slot in live(t):
            if slot.result is not None:
                continue
            roll = rng.random()
            if roll < no_show_rate:
                assert slot.match is not None
                apply(t, NoShow(slot.key, slot.match))
            elif roll < 2 * no_show_rate:  # the move clock ran out three times: a forfeit
                assert slot.match is not None
                seat = rng.randrange(2)
                apply(t, RecordResult(slot.match, MatchEnd(seat, (0, 0), tuple(slot.seats), forfeit="timeouts")))
            else:
                won(t, slot, seat=rng.randrange(2))
            if rng.random() < withdraw_rate:
                stay = [p for p in t.players if p not in t.withdrawn]
                if stay:
                    apply(t, Withdraw(rng.choice(stay), "left early"))
    raise AssertionError("the knockout never finished")


def test_a_single_elimination_of_five_plays_byes_as_walkovers() -> None:
    t = started(names(5), format=SE)
    assert t.rounds_planned == 3
    advance(t)
    # round 1: only 4 v 5 plays (seeds 1, 2, 3 have byes)
    assert [(s.seats, s.node) for s in t.round_slots(1)] == [(("p03", "p04"), "W1-2")]
    won(t, t.slots["1.1"], seat=1)
    advance(t)
    assert [(s.seats, s.node) for s in t.round_slots(2)] == [(("p00", "p04"), "W2-1"), (("p01", "p02"), "W2-2")]
    won(t, t.slots["2.1"])
    won(t, t.slots["2.2"])
    advance(t)
    assert [(s.seats, s.node) for s in t.round_slots(3)] == [(("p00", "p01"), "F")]
    won(t, t.slots["3.1"], seat=1)
    advance(t)
    assert t.status == FINISHED
    assert state(t).places == {"p01": 1, "p00": 2, "p02": 3, "p04": 3, "p03": 5}


def test_standings_before_the_end_put_the_players_still_in_first() -> None:
    t = started(names(4), format=DE)
    advance(t)
    won(t, t.slots["1.1"])  # p00 beats p03
    won(t, t.slots["1.2"])  # p01 beats p02
    assert current_places(t) == dict.fromkeys(names(4), 1)  # a first loss puts nobody out
    advance(t)
    won(t, t.slots["2.1"])  # W2-1: p00 beats p01
    won(t, t.slots["2.2"], seat=1)  # L1-1: p02 beats p03, who is out
    assert current_places(t) == {"p00": 1, "p01": 1, "p02": 1, "p03": 4}


def test_a_round_paired_records_its_nodes() -> None:
    t = started(names(4), format=DE)
    decision = decide(t, Advance(SEED), NOW)
    paired = next(e for e in decision.events if isinstance(e, RoundPaired))
    assert paired.nodes == ("W1-1", "W1-2")
    data = CODEC.encode_data(paired)
    assert data["nodes"] == ["W1-1", "W1-2"] and CODEC.decode("round_paired", data) == paired
    assert "nodes" not in CODEC.encode_data(RoundPaired(paired.round))  # a Swiss round keeps its shape


def test_double_elimination_plays_the_reset_when_the_losers_side_wins() -> None:
    t = started(names(2), format=DE)
    advance(t)
    won(t, t.slots["1.1"])  # p00 beats p01: p01 drops to the grand final's losers' side
    advance(t)
    assert t.slots["2.1"].node == "GF" and t.slots["2.1"].seats == ("p00", "p01")
    won(t, t.slots["2.1"], seat=1)
    advance(t)
    assert t.slots["3.1"].node == "GF2"
    won(t, t.slots["3.1"], seat=0)  # the reset's seat 0: the grand final's winner, p01
    advance(t)
    assert t.status == FINISHED and state(t).places == {"p01": 1, "p00": 2}


def test_the_grand_final_won_by_the_winners_side_finishes_without_a_reset() -> None:
    t = started(names(2), format=DE)
    advance(t)
    won(t, t.slots["1.1"])
    advance(t)
    won(t, t.slots["2.1"])
    advance(t)
    assert t.status == FINISHED and len(t.slots) == 2


def test_a_withdrawn_players_next_match_is_a_walkover_for_the_other_side() -> None:
    t = started(names(4), format=SE)
    advance(t)
    apply(t, Withdraw("p00", "ill"))
    assert t.withdrawn == {"p00": False}  # a knockout keeps results
    won(t, t.slots["1.1"])  # p00 had won before the withdrawal took effect in the service
    won(t, t.slots["1.2"])
    advance(t)
    final = t.slots["2.1"]
    assert final.result is not None and final.result.forfeit and final.result.winner == "p01"
    assert final.match is None
    advance(t)
    assert t.status == FINISHED and state(t).places == {"p01": 1, "p00": 2, "p02": 3, "p03": 3}


def test_a_no_show_of_both_puts_both_out() -> None:
    t = started(names(4), format=SE)
    advance(t)
    slot = t.slots["1.1"]
    assert slot.match is not None
    apply(t, NoShow(slot.key, slot.match))
    won(t, t.slots["1.2"])
    advance(t)
    assert t.status == FINISHED  # the final is a walkover: nothing left to play
    assert state(t).places == {"p01": 1, "p02": 2, "p00": 3, "p03": 3}


def test_a_round_emptied_by_no_shows_opens_with_nothing_to_play() -> None:
    t = started(names(8), format=SE)
    advance(t)
    for key, node in (("1.1", "W1-1"), ("1.2", "W1-2"), ("1.3", "W1-3"), ("1.4", "W1-4")):
        slot = t.slots[key]
        assert slot.node == node and slot.match is not None
        if key in ("1.2", "1.4"):
            apply(t, NoShow(key, slot.match))
        else:
            won(t, slot)
    advance(t)
    assert t.opened == 2 and t.round_slots(2) == []  # W2-1 and W2-2 are walkovers
    advance(t)
    assert [(s.node, s.seats) for s in t.round_slots(3)] == [("F", ("p00", "p01"))]


def test_a_replay_ruling_replays_and_the_bracket_waits_for_rulings() -> None:
    t = started(names(4), format=SE)
    advance(t)
    slot = t.slots["1.1"]
    match = slot.match
    assert match is not None
    won(t, slot)
    apply(t, OpenDispute(match, 3, 1, "p03", "misdeal", most_open=3))
    won(t, t.slots["1.2"])
    advance(t)
    assert t.opened == 1  # a dispute waits: the bracket does not go on
    apply(t, Rule(f"{t.id}-d1", "replay", "a misdeal"))
    assert slot.result is None and slot.match != match
    advance(t)
    assert t.opened == 1
    won(t, slot, seat=1)
    advance(t)
    assert t.slots["2.1"].seats == ("p03", "p01")


def test_an_award_advances_the_seat_and_later_rulings_only_stand() -> None:
    t = started(names(4), format=SE)
    advance(t)
    slot = t.slots["1.1"]
    assert slot.match is not None
    apply(t, OpenDispute(slot.match, 3, 1, "p03", "he peeked", most_open=3))
    apply(t, Rule(f"{t.id}-d1", "award", "peeked", seat=1))
    assert slot.result is not None and slot.result.winner == "p03"
    won(t, t.slots["1.2"])
    advance(t)
    assert t.slots["2.1"].seats == ("p03", "p01")
    apply(t, OpenDispute(t.slots["1.2"].match or "", 3, 1, "p02", "late", most_open=3))
    with pytest.raises(NotNow, match="moved on"):
        decide(t, Rule(f"{t.id}-d2", "replay", "no"), NOW)
    apply(t, Rule(f"{t.id}-d2", "stands", "it stands"))


@pytest.mark.parametrize(
    ("switches", "message"),
    [
        ({"table_size": 4}, "table_size"),
        ({"rounds": 3}, "rounds"),
        ({"ruleset": "classic"}, "two-seat"),
        ({"double": True}, "double"),
        ({"duplicate": True}, "duplicate"),
        ({"players": ("solo",)}, "2"),
    ],
)
def test_what_a_two_seat_knockout_cannot_use_is_refused(switches: dict[str, object], message: str) -> None:
    players = switches.pop("players", names(8))
    ruleset = RULESETS[str(switches.pop("ruleset", "uno-duo"))]
    for fmt in (SE, DE):
        command = Create("ko", tuple(players), ruleset, fmt, "c" * 64, **switches)  # type: ignore[arg-type]
        with pytest.raises(Malformed, match=message):
            decide(Tournament("t_x"), command, NOW)


def test_an_open_knockout_counts_its_rounds_at_the_start() -> None:
    t = made((), format=DE, open=True)
    for player in names(3):
        apply(t, Enter(player, player, "player"))
    apply(t, Start())
    assert t.rounds_planned == 5  # a bracket of 4: W1; W2 beside L1; L2; GF; GF2
    lone = made((), format=SE, open=True)
    apply(lone, Enter("p00", "p00", "player"))
    with pytest.raises(NotNow, match="at least 2"):
        decide(lone, Start(), NOW)
    early = made(names(2), format=SE, round_starts=tuple(f"2026-12-0{d}T19:00:00+00:00" for d in (7, 8)))
    with pytest.raises(NotNow, match="2 start times for a bracket of at most 1 round "):
        decide(early, Start(), NOW)


def test_more_than_64_players_are_refused() -> None:
    command = Create("ko", names(65), RULESETS["uno-duo"], DE, "c" * 64)
    with pytest.raises(Malformed, match="64"):
        decide(Tournament("t_x"), command, NOW)


def test_rating_seeding_orders_the_bracket() -> None:
    t = made(names(4), format=SE, seeding="rating")
    apply(t, Start({"p00": 1500, "p01": 1600, "p02": 1700, "p03": 1800}))
    advance(t)
    assert [s.seats for s in t.round_slots(1)] == [("p03", "p00"), ("p02", "p01")]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 64), st.sampled_from([SE, DE]), st.randoms(use_true_random=False))
def test_every_knockout_finishes_with_everyone_placed(n: int, fmt: Format, rng: random.Random) -> None:
    t = started(names(n), format=fmt)
    run_to_end(t, rng, withdraw_rate=0.03, no_show_rate=0.03)
    places = state(t).places
    assert places is not None and sorted(places) == sorted(t.players)
    per_round = Counter((s.round, p) for s in t.slots.values() for p in s.seats)
    assert max(per_round.values()) == 1  # nobody plays twice in a round
    assert all(t.done(s) for s in t.slots.values())
    # nobody plays after elimination: one loss (two in a double elimination), or a double no-show
    out_after = 1 if fmt is SE else 2
    losses: Counter[str] = Counter()
    for slot in sorted(t.slots.values(), key=lambda s: (s.round, s.board)):
        assert all(losses[p] < out_after for p in slot.seats), f"{slot.node}: {slot.seats} played after elimination"
        assert slot.result is not None
        if slot.result.winner is None:
            losses.update(dict.fromkeys(slot.seats, out_after))
        else:
            losses.update(p for p in slot.seats if p != slot.result.winner)
            if slot.node == "GF" and slot.result.winner == slot.seats[0]:
                losses[slot.seats[1]] = out_after  # the winners' champion won: no reset


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 64), st.randoms(use_true_random=False))
def test_a_double_elimination_played_out_has_2n_minus_2_or_2n_minus_1_matches(n: int, rng: random.Random) -> None:
    t = started(names(n), format=DE)
    run_to_end(t, rng)
    reset = any(s.node == "GF2" for s in t.slots.values())
    assert len(t.slots) == 2 * n - (1 if reset else 2)
    assert all(s.result is not None and not s.result.forfeit for s in t.slots.values())
