"""The tables schedule (server/tournaments/tables.py): sizes, the exact designs, the searched ones."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.tournaments.tables import (
    MAX_TABLE,
    MIN_TABLE,
    meetings,
    repeat_meetings,
    table_schedule,
    table_sizes,
)
from tests.profiles import examples


def field(n: int) -> list[str]:
    return [f"p{i:02d}" for i in range(1, n + 1)]


def test_sixteen_players_five_rounds_of_four_meet_everyone_exactly_once() -> None:
    players = field(16)
    schedule = table_schedule(players, 4, 5)
    assert [len(r) for r in schedule] == [4] * 5
    met = meetings(schedule)
    assert set(met) == {frozenset(p) for p in itertools.combinations(players, 2)}
    assert set(met.values()) == {1}
    assert repeat_meetings(schedule) == 0


@pytest.mark.parametrize("q", [3, 4, 5, 7])
def test_the_affine_planes_have_no_repeat_in_q_plus_one_rounds(q: int) -> None:
    schedule = table_schedule(field(q * q), q, q + 1)
    assert repeat_meetings(schedule) == 0
    assert len(meetings(schedule)) == q * q * (q * q - 1) // 2


def test_first_dealers_rotate_over_the_field() -> None:
    schedule = table_schedule(field(16), 4, 5)
    dealt = Counter(table[0] for tables in schedule for table in tables)
    assert sum(dealt.values()) == 20
    assert max(dealt.values()) - min(dealt[p] for p in field(16)) <= 1


@pytest.mark.parametrize(
    ("players", "preferred", "sizes"),
    [(16, 4, [4, 4, 4, 4]), (17, 4, [5, 4, 4, 4]), (7, 4, [4, 3]), (5, 4, [5]), (3, 4, [3]), (10, 10, [10])],
)
def test_table_sizes(players: int, preferred: int, sizes: list[int]) -> None:
    assert table_sizes(players, preferred) == sizes


def test_refusals() -> None:
    with pytest.raises(ValueError, match="at least 3"):
        table_sizes(2, 4)
    with pytest.raises(ValueError, match="3 to 10"):
        table_sizes(12, 11)
    with pytest.raises(ValueError, match="once"):
        table_schedule(["a", "a", "b"], 3, 1)
    with pytest.raises(ValueError, match="at least one round"):
        table_schedule(field(6), 3, 0)


def test_the_same_inputs_give_the_same_schedule() -> None:
    assert table_schedule(field(13), 4, 4) == table_schedule(field(13), 4, 4)


@settings(max_examples=examples(40), deadline=None)
@given(n=st.integers(MIN_TABLE, 40), preferred=st.integers(MIN_TABLE, MAX_TABLE), rounds=st.integers(1, 6))
def test_every_player_sits_once_a_round_at_a_table_of_three_to_ten(n: int, preferred: int, rounds: int) -> None:
    players = field(n)
    schedule = table_schedule(players, preferred, rounds)
    assert len(schedule) == rounds
    for tables in schedule:
        seated = [p for table in tables for p in table]
        assert sorted(seated) == players
        sizes = [len(t) for t in tables]
        assert all(MIN_TABLE <= s <= MAX_TABLE for s in sizes)
        assert max(sizes) - min(sizes) <= 1
    # the count agrees with the meetings it sums
    assert repeat_meetings(schedule) == sum(c - 1 for c in meetings(schedule).values())
