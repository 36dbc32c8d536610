"""Forbidden pairings (docs/TOURNAMENTS.md "Forbidden pairings"): the Swiss never pairs a
forbidden pair while a legal pairing avoids it, and says so when none does; a bracket's first
round swaps seeds apart (server/tournaments/forbidden.py); the Decider records and shows both."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.domain_errors import Malformed
from server.tournaments.decide import MAX_FORBIDDEN_PAIRS, Advance, MatchEnd, RecordResult, Start, decide
from server.tournaments.forbidden import avoid_forbidden
from server.tournaments.model import Format, RoundPaired, Tournament
from server.tournaments.swiss import SwissError, SwissGame, SwissRound, pair_round
from tests.profiles import examples
from tests.tournaments.test_check_in import create
from tests.tournaments.test_decide import NOW, SEED, apply, made
from tests.tournaments.test_swiss import can_complete_with_bye

PLAYERS = [f"p{n}" for n in range(1, 9)]


def test_round_one_swaps_a_forbidden_pair_apart() -> None:
    plain = pair_round(PLAYERS, [], 3)
    assert ("p1", "p5") in plain.boards  # the top half against the bottom half
    avoided = pair_round(PLAYERS, [], 3, forbidden={frozenset(("p1", "p5"))})
    assert all(frozenset(b) != {"p1", "p5"} for b in avoided.boards) and avoided.forced == ()
    assert pair_round(PLAYERS, [], 3, forbidden=()) == plain  # none forbidden: the pairing as before


def test_a_forbidden_pair_is_paired_only_when_nothing_else_is_legal_and_said() -> None:
    # Two players, one round: they must meet or nobody plays.
    pairings = pair_round(["a", "b"], [], 1, forbidden={frozenset(("a", "b"))})
    assert pairings.boards in ((("a", "b"),), (("b", "a"),)) and set(pairings.forced[0]) == {"a", "b"}
    # Four players: a met c and d in rounds before; a must meet b, forbidden or not.
    history = [
        SwissRound((SwissGame("a", "c", "a"), SwissGame("b", "d", "b"))),
        SwissRound((SwissGame("d", "a", "a"), SwissGame("c", "b", "b"))),
    ]
    pairings = pair_round(["a", "b", "c", "d"], history, 3, forbidden={frozenset(("a", "b"))})
    assert {frozenset(p) for p in pairings.forced} == {frozenset(("a", "b"))}


@st.composite
def fields(draw: st.DrawFn) -> tuple[list[str], int, int, set[frozenset[str]]]:
    size = draw(st.integers(4, 14))
    rounds = draw(st.integers(1, min(6, size - 1)))
    players = [f"x{n:02d}" for n in range(size)]
    chosen = draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), max_size=6))
    forbidden = {frozenset((players[a], players[b])) for a, b in chosen if a != b}
    return players, rounds, draw(st.integers(0, 2**32)), forbidden


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields())
def test_a_forbidden_pair_is_never_paired_while_a_legal_pairing_avoids_it(
    case: tuple[list[str], int, int, set[frozenset[str]]],
) -> None:
    players, rounds_total, seed, forbidden = case
    rng = random.Random(seed)
    history: list[SwissRound] = []
    met: set[frozenset[str]] = set()
    no_bye: set[str] = set()
    score = dict.fromkeys(players, 0)
    colours: dict[str, list[str]] = {p: [] for p in players}
    for number in range(1, rounds_total + 1):
        try:
            pairings = pair_round(players, history, rounds_total, forbidden=forbidden)
        except SwissError:
            return  # no legal pairing at all, forbidden pairs or not
        paired = {frozenset(b) for b in pairings.boards}
        assert {frozenset(p) for p in pairings.forced} == paired & forbidden  # said exactly
        if pairings.forced:
            last = number == rounds_total
            top = {p for p in players if last and score[p] * 2 > len(history)}
            byes = [p for p in players if p not in no_bye] if len(players) % 2 else [""]
            assert not any(can_complete_with_bye(players, b, met | forbidden, colours, top) for b in byes)
        games = []
        for white, black in pairings.boards:
            winner = white if rng.random() < 0.5 else black
            games.append(SwissGame(white, black, winner))
            met.add(frozenset((white, black)))
            colours[white].append("w")
            colours[black].append("b")
            score[winner] += 1
        if pairings.bye is not None:
            no_bye.add(pairings.bye)
            score[pairings.bye] += 1
        history.append(SwissRound(tuple(games), pairings.bye))


# ---------------------------------------------------------------- a bracket's first round


def test_a_bracket_swaps_the_lower_seed_with_the_nearest_pair() -> None:
    pairs = [("s1", "s8"), ("s4", "s5"), ("s2", "s7"), ("s3", "s6")]
    fixed, unavoidable = avoid_forbidden(pairs, {frozenset(("s4", "s5"))})
    assert fixed == [("s1", "s5"), ("s4", "s8"), ("s2", "s7"), ("s3", "s6")] and unavoidable == []
    alone, left = avoid_forbidden([("a", "b")], {frozenset(("a", "b"))})
    assert alone == [("a", "b")] and left == [("a", "b")]
    with_bye, none_left = avoid_forbidden([("a", None), ("b", "c")], {frozenset(("b", "c"))})
    assert with_bye == [("a", "c"), ("b", None)] and none_left == []


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(1, 16), st.lists(st.tuples(st.integers(0, 31), st.integers(0, 31)), max_size=12))
def test_a_bracket_keeps_everyone_once_and_leaves_only_what_it_says(
    pairs_count: int, chosen: list[tuple[int, int]]
) -> None:
    seats = [f"s{n}" for n in range(2 * pairs_count)]
    pairs = [(seats[i], seats[len(seats) - 1 - i]) for i in range(pairs_count)]
    forbidden = {
        frozenset((seats[a % len(seats)], seats[b % len(seats)])) for a, b in chosen if a % len(seats) != b % len(seats)
    }
    fixed, unavoidable = avoid_forbidden(pairs, forbidden)
    assert sorted(s for p in fixed for s in p if s is not None) == sorted(seats)
    assert [p[0] for p in fixed] == [p[0] for p in pairs]  # the top seeds stay put
    assert [p for p in fixed if frozenset(p) in forbidden] == unavoidable


# ---------------------------------------------------------------- the Decider


def test_the_decider_records_the_pairs_a_round_had_to_pair() -> None:
    t = made(("a", "b"), format=Format.SWISS, rounds=1, forbidden_pairs=(("a", "b"),))
    apply(t, Start())
    paired = apply(t, Advance(SEED)).events[0]
    assert isinstance(paired, RoundPaired) and set(paired.forbidden[0]) == {"a", "b"}
    assert t.forbidden_forced == {1: paired.forbidden}


def test_a_decider_with_a_legal_way_round_records_nothing_forced() -> None:
    t = made(tuple(PLAYERS), format=Format.SWISS, rounds=3, forbidden_pairs=(("p1", "p5"),))
    apply(t, Start())
    for number in (1, 2, 3):
        paired = apply(t, Advance(SEED)).events[0]
        assert isinstance(paired, RoundPaired) and paired.forbidden == ()
        assert all(set(slot.seats) != {"p1", "p5"} for slot in t.round_slots(number))
        for slot in t.round_slots(number):
            assert slot.match is not None
            apply(t, RecordResult(slot.match, MatchEnd(0, (0, 100), tuple(slot.seats))))


@pytest.mark.parametrize(
    ("pairs", "asked", "says"),
    [
        ((("a", "a"),), {}, "two players"),
        ((("a", "b"), ("b", "a")), {}, "forbidden twice"),
        ((("a", "b"),), {"format": Format.ROUND_ROBIN, "rounds": None}, "swiss"),
        (tuple((f"a{n}", f"b{n}") for n in range(MAX_FORBIDDEN_PAIRS + 1)), {}, "at most"),
    ],
)
def test_forbidden_pairs_that_make_no_sense_are_refused(
    pairs: tuple[tuple[str, str], ...], asked: dict[str, object], says: str
) -> None:
    with pytest.raises(Malformed, match=says):
        decide(Tournament("t_x"), create(forbidden_pairs=pairs, **asked), NOW)


# ---------------------------------------------------------------- a knockout's round 1, through the Decider


def knockout_round_one(players: tuple[str, ...], pairs: tuple[tuple[str, str], ...]) -> Tournament:
    t = made(players, format=Format.SINGLE_ELIMINATION, forbidden_pairs=pairs)
    apply(t, Start())
    apply(t, Advance(SEED))
    return t


def test_a_single_elimination_swaps_a_forbidden_first_round_pair_apart() -> None:
    field = tuple(f"s{n}" for n in range(1, 9))
    plain = knockout_round_one(field, ())
    assert {frozenset(s.seats) for s in plain.round_slots(1)} >= {frozenset(("s1", "s8"))}
    t = knockout_round_one(field, (("s1", "s8"),))
    met = {frozenset(s.seats) for s in t.round_slots(1)}
    assert frozenset(("s1", "s8")) not in met and len(met) == 4
    assert t.players[0] == "s1" and t.forbidden_forced == {}  # the top seed kept its place


def test_a_bracket_of_two_cannot_avoid_it_and_says_so() -> None:
    t = knockout_round_one(("a", "b"), (("a", "b"),))
    assert t.forbidden_forced == {1: (("a", "b"),)}


def test_a_top_seeds_bye_stays_a_bye() -> None:
    field = ("s1", "s2", "s3", "s4", "s5", "s6")  # 8 lines: s1 and s2 have byes
    t = knockout_round_one(field, (("s3", "s6"),))
    played = [frozenset(s.seats) for s in t.round_slots(1)]
    assert frozenset(("s3", "s6")) not in played and all("s1" not in p and "s2" not in p for p in played)
