"""The round-robin schedule against the published FIDE Berger tables (FIDE Handbook C.05, Annex 1).

The literal tables below were typed in from the copy of C.05 Annex 1 ("Berger Tables for
Round-Robin Tournaments") quoted in the docstring of ``src/gambitpairing/core/pairing_round_robin.py``
in the public repository nicvagn/Gambit-Pairing (commit 1da727d707d7a3acabf8abb81bbe4f53c4688b98),
and checked against two further copies: the "Crenshaw-Berger Tables" sheet (scribd document 381712253,
tables for 4 … 14) and the 10-player table in the Vega manual 2016, Appendix C. All three agree.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.tournaments.schedule import Pairing, ScheduledRound, berger_table, round_robin, rounds_per_cycle

# "Rd 1: 1-4, 2-3." is [(1, 4), (2, 3)]: white first, board 1 first.
FIDE_4 = [
    [(1, 4), (2, 3)],
    [(4, 3), (1, 2)],
    [(2, 4), (3, 1)],
]
FIDE_6 = [
    [(1, 6), (2, 5), (3, 4)],
    [(6, 4), (5, 3), (1, 2)],
    [(2, 6), (3, 1), (4, 5)],
    [(6, 5), (1, 4), (2, 3)],
    [(3, 6), (4, 2), (5, 1)],
]
FIDE_8 = [
    [(1, 8), (2, 7), (3, 6), (4, 5)],
    [(8, 5), (6, 4), (7, 3), (1, 2)],
    [(2, 8), (3, 1), (4, 7), (5, 6)],
    [(8, 6), (7, 5), (1, 4), (2, 3)],
    [(3, 8), (4, 2), (5, 1), (6, 7)],
    [(8, 7), (1, 6), (2, 5), (3, 4)],
    [(4, 8), (5, 3), (6, 2), (7, 1)],
]
FIDE_10 = [
    [(1, 10), (2, 9), (3, 8), (4, 7), (5, 6)],
    [(10, 6), (7, 5), (8, 4), (9, 3), (1, 2)],
    [(2, 10), (3, 1), (4, 9), (5, 8), (6, 7)],
    [(10, 7), (8, 6), (9, 5), (1, 4), (2, 3)],
    [(3, 10), (4, 2), (5, 1), (6, 9), (7, 8)],
    [(10, 8), (9, 7), (1, 6), (2, 5), (3, 4)],
    [(4, 10), (5, 3), (6, 2), (7, 1), (8, 9)],
    [(10, 9), (1, 8), (2, 7), (3, 6), (4, 5)],
    [(5, 10), (6, 4), (7, 3), (8, 2), (9, 1)],
]
FIDE = {4: FIDE_4, 6: FIDE_6, 8: FIDE_8, 10: FIDE_10}


def ids(n: int) -> list[str]:
    """Player ids whose letter is their pairing number: A is 1, B is 2, …"""
    return [chr(ord("A") + i) for i in range(n)]


def as_text(schedule: list[ScheduledRound]) -> list[tuple[list[str], str | None]]:
    return [([f"{p.white}-{p.black}" for p in r.pairings], r.bye) for r in schedule]


# --- the published tables ---------------------------------------------------------------------


@pytest.mark.parametrize("n", sorted(FIDE))
def test_berger_table_is_the_published_table(n: int) -> None:
    assert berger_table(n) == FIDE[n]


@pytest.mark.parametrize("n", sorted(FIDE))
def test_odd_count_uses_the_next_even_table_with_its_bye_pairs(n: int) -> None:
    assert berger_table(n - 1) == FIDE[n]


def test_two_players() -> None:
    assert berger_table(2) == [[(1, 2)]]
    assert round_robin(["x", "y"]) == [ScheduledRound(1, (Pairing("x", "y"),), None)]


def test_schedule_for_4_players() -> None:
    assert as_text(round_robin(ids(4))) == [
        (["A-D", "B-C"], None),
        (["D-C", "A-B"], None),
        (["B-D", "C-A"], None),
    ]


def test_schedule_for_6_players() -> None:
    assert as_text(round_robin(ids(6))) == [
        (["A-F", "B-E", "C-D"], None),
        (["F-D", "E-C", "A-B"], None),
        (["B-F", "C-A", "D-E"], None),
        (["F-E", "A-D", "B-C"], None),
        (["C-F", "D-B", "E-A"], None),
    ]


def test_schedule_for_10_players() -> None:
    assert as_text(round_robin(ids(10))) == [
        (["A-J", "B-I", "C-H", "D-G", "E-F"], None),
        (["J-F", "G-E", "H-D", "I-C", "A-B"], None),
        (["B-J", "C-A", "D-I", "E-H", "F-G"], None),
        (["J-G", "H-F", "I-E", "A-D", "B-C"], None),
        (["C-J", "D-B", "E-A", "F-I", "G-H"], None),
        (["J-H", "I-G", "A-F", "B-E", "C-D"], None),
        (["D-J", "E-C", "F-B", "G-A", "H-I"], None),
        (["J-I", "A-H", "B-G", "C-F", "D-E"], None),
        (["E-J", "F-D", "G-C", "H-B", "I-A"], None),
    ]


def test_schedule_for_5_players_is_the_6_table_with_number_6_as_the_bye() -> None:
    # FIDE_6 with the pair holding 6 taken out: its other player sits out.
    assert as_text(round_robin(ids(5))) == [
        (["B-E", "C-D"], "A"),
        (["E-C", "A-B"], "D"),
        (["C-A", "D-E"], "B"),
        (["A-D", "B-C"], "E"),
        (["D-B", "E-A"], "C"),
    ]


def test_schedule_for_7_players_is_the_8_table_with_number_8_as_the_bye() -> None:
    assert as_text(round_robin(ids(7))) == [
        (["B-G", "C-F", "D-E"], "A"),
        (["F-D", "G-C", "A-B"], "E"),
        (["C-A", "D-G", "E-F"], "B"),
        (["G-E", "A-D", "B-C"], "F"),
        (["D-B", "E-A", "F-G"], "C"),
        (["A-F", "B-E", "C-D"], "G"),
        (["E-C", "F-B", "G-A"], "D"),
    ]


def test_schedule_for_3_players() -> None:
    assert as_text(round_robin(ids(3))) == [(["B-C"], "A"), (["A-B"], "C"), (["C-A"], "B")]


def test_pairing_numbers_follow_the_order_of_players() -> None:
    players = ["zed", "amy", "kim", "bob"]
    table = berger_table(4)
    for scheduled, boards in zip(round_robin(players), table, strict=True):
        assert scheduled.pairings == tuple(Pairing(players[w - 1], players[b - 1]) for w, b in boards)


def test_round_numbers_and_lengths() -> None:
    for n in range(2, 13):
        single = round_robin(ids(n))
        double = round_robin(ids(n), double=True)
        assert rounds_per_cycle(n) == len(single) == (n - 1 if n % 2 == 0 else n)
        assert [r.number for r in single] == list(range(1, len(single) + 1))
        assert [r.number for r in double] == list(range(1, 2 * len(single) + 1))
        assert all(len(r.pairings) == n // 2 for r in double)


def test_player_n_alternates_colours_in_an_even_table() -> None:
    for n in range(2, 21, 2):
        table = berger_table(n)
        assert all(n in rnd[0] for rnd in table)  # always on board 1
        colours = ["white" if rnd[0][0] == n else "black" for rnd in table]
        assert colours == ["black" if r % 2 == 1 else "white" for r in range(1, n)]


# --- double round-robin -----------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 10])
def test_double_repeats_the_cycle_with_colours_reversed(n: int) -> None:
    single = round_robin(ids(n))
    double = round_robin(ids(n), double=True)
    k = len(single)
    assert double[:k] == single
    for first, second in zip(single, double[k:], strict=True):
        assert second.number == first.number + k
        assert second.bye == first.bye
        assert second.pairings == tuple(Pairing(p.black, p.white) for p in first.pairings)


def longest_colour_run(schedule: list[ScheduledRound], player: str) -> int:
    colours = [
        "white" if p.white == player else "black" for r in schedule for p in r.pairings if player in (p.white, p.black)
    ]
    best = run = 1
    for before, after in pairwise(colours):
        run = run + 1 if before == after else 1
        best = max(best, run)
    return best


@pytest.mark.parametrize("n", range(2, 21))
def test_double_colour_runs(n: int) -> None:
    """The cycle is repeated as it is (FIDE's advice to swap the last two rounds of the first cycle
    is not taken): with an even count, numbers 1 and n/2 + 1 get three games running with one
    colour across the change of cycle; nobody else, and nobody at all with an odd count."""
    players = ids(n)
    schedule = round_robin(players, double=True)
    long_runs = [i + 1 for i, p in enumerate(players) if longest_colour_run(schedule, p) >= 3]
    assert all(longest_colour_run(schedule, p) <= 3 for p in players)
    assert long_runs == ([] if n % 2 == 1 or n == 2 else [1, n // 2 + 1])


def test_double_for_4_players_literally() -> None:
    assert as_text(round_robin(ids(4), double=True))[3:] == [
        (["D-A", "C-B"], None),
        (["C-D", "B-A"], None),
        (["D-B", "A-C"], None),
    ]


# --- invariants -------------------------------------------------------------------------------


def check_invariants(n: int, double: bool) -> None:
    players = ids(n) if n <= 26 else [f"p{i}" for i in range(n)]
    schedule = round_robin(players, double=double)
    cycles = 2 if double else 1

    # Every unordered pair meets once per cycle; in a double, once with each colour.
    meetings = Counter(frozenset((p.white, p.black)) for r in schedule for p in r.pairings)
    assert meetings == {frozenset(pair): cycles for pair in combinations(players, 2)}
    if double:
        ordered = Counter((p.white, p.black) for r in schedule for p in r.pairings)
        assert all(ordered[(a, b)] == 1 and ordered[(b, a)] == 1 for a, b in combinations(players, 2))

    # Each round: every player exactly once, in a game or as the bye.
    for r in schedule:
        seated = [x for p in r.pairings for x in (p.white, p.black)]
        assert len(seated) == len(set(seated))
        assert (r.bye is None) == (n % 2 == 0)
        assert sorted(seated + ([r.bye] if r.bye is not None else [])) == sorted(players)

    # With an odd count every player sits out exactly once per cycle.
    if n % 2 == 1:
        assert Counter(r.bye for r in schedule) == {p: cycles for p in players}


@given(st.integers(min_value=2, max_value=20), st.booleans())
def test_everyone_meets_everyone(n: int, double: bool) -> None:
    check_invariants(n, double)


@pytest.mark.parametrize("n", [21, 32, 51])
def test_everyone_meets_everyone_in_larger_fields(n: int) -> None:
    check_invariants(n, double=False)
    check_invariants(n, double=True)


@pytest.mark.parametrize("n", range(2, 21))
def test_colour_balance(n: int) -> None:
    """What the tables give: with an even count every player has one colour once more than the
    other (half the field one white more, half one black more); with an odd count, and in every
    double round-robin, each player has as many whites as blacks."""
    players = ids(n)
    for double in (False, True):
        whites: Counter[str] = Counter()
        blacks: Counter[str] = Counter()
        for r in round_robin(players, double=double):
            for p in r.pairings:
                whites[p.white] += 1
                blacks[p.black] += 1
        balance = Counter(whites[p] - blacks[p] for p in players)
        if double or n % 2 == 1:
            assert balance == {0: n}
        else:
            assert balance == {1: n // 2, -1: n // 2}


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [[], ["solo"]])
def test_fewer_than_two_players(players: list[str]) -> None:
    with pytest.raises(ValueError, match="at least 2"):
        round_robin(players)
    with pytest.raises(ValueError, match="at least 2"):
        round_robin(players, double=True)


@pytest.mark.parametrize("n", [-1, 0, 1])
def test_berger_table_needs_two_entrants(n: int) -> None:
    with pytest.raises(ValueError, match="at least 2"):
        berger_table(n)


def test_duplicate_ids() -> None:
    with pytest.raises(ValueError, match="duplicate player ids: a, b"):
        round_robin(["b", "a", "c", "a", "b"])
    with pytest.raises(ValueError, match="duplicate"):
        round_robin(["x", "x"])


def test_input_is_not_changed_and_any_sequence_works() -> None:
    players = ["a", "b", "c"]
    assert round_robin(players) == round_robin(tuple(players))
    assert players == ["a", "b", "c"]
