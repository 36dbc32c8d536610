"""Pools into a bracket (server/tournaments/pools.py): the pools, their rounds, the bracket's
seeding across pools, and the final places."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from server.tournaments.bracket_plan import Plan, PoolPlace
from server.tournaments.brackets import bracket_size, double_elimination, resolve, seed_positions, single_elimination
from server.tournaments.pools import (
    PoolGame,
    PoolsError,
    bracket_seeds,
    check_pools,
    plan,
    pooled_seeds,
    round_of_pools,
)
from tests.profiles import examples


def bracket(entrants: int) -> Plan:
    return single_elimination(entrants)


def meets_in(entrants: int, a: int, b: int) -> int:
    """The round in which seeds ``a`` and ``b`` could first meet in the standard bracket."""
    position = {seed: at for at, seed in enumerate(seed_positions(bracket_size(entrants)))}
    return (position[a] ^ position[b]).bit_length()


def test_sixteen_in_pools_of_four_snake() -> None:
    assert pooled_seeds(16, 4) == ((0, 7, 8, 15), (1, 6, 9, 14), (2, 5, 10, 13), (3, 4, 11, 12))
    assert pooled_seeds(10, 4) == ((0, 5, 6, 9), (1, 4, 7), (2, 3, 8))


def test_four_pools_top_two_winners_meet_other_pools_runners_up_in_other_halves() -> None:
    seeds = bracket_seeds(4, 2, bracket(8))
    assert seeds[:4] == [PoolPlace(0, 1), PoolPlace(1, 1), PoolPlace(2, 1), PoolPlace(3, 1)]
    for winner in range(4):  # seed w meets seed 7 - w first
        assert seeds[7 - winner].place == 2 and seeds[7 - winner].pool != winner


@settings(max_examples=examples(200))
@given(st.integers(2, 16), st.integers(1, 4))
def test_players_of_one_pool_meet_as_late_as_the_bracket_allows(pools: int, advance: int) -> None:
    seeds = bracket_seeds(pools, advance, bracket(pools * advance))
    assert sorted((s.pool, s.place) for s in seeds) == [(p, k) for p in range(pools) for k in range(1, advance + 1)]
    assert [s.place for s in seeds] == sorted(s.place for s in seeds)  # winners first, then runners-up, ...
    size = bracket_size(len(seeds))
    rounds = size.bit_length() - 1
    for a, b in combinations(range(len(seeds)), 2):
        if seeds[a].pool != seeds[b].pool:
            continue
        meeting = meets_in(len(seeds), a, b)
        if advance <= 2:
            assert meeting == rounds  # different halves: they can meet only in the final
        else:  # never in the first round while other pools' players are there to meet
            assert meeting > 1


def test_round_robin_pools_play_their_berger_rounds_side_by_side() -> None:
    pools = [["a", "b", "c", "d"], ["e", "f", "g"]]
    seen: set[frozenset[str]] = set()
    for number in range(1, 4):
        boards = round_of_pools(pools, number, "round_robin", [[], []], 3)
        assert [pool for pool, _ in boards] == sorted(pool for pool, _ in boards)  # pool A's boards first
        for pool, pairing in boards:
            assert set(pairing.seats) <= set(pools[pool])
            seen.add(frozenset(pairing.seats))
    assert len(seen) == 6 + 3  # every pair of each pool once


def test_swiss_pools_pair_each_pool_from_its_own_results() -> None:
    pools = [["a", "b", "c", "d"], ["e", "f", "g", "h"]]
    first = round_of_pools(pools, 1, "swiss", [[], []], 2)
    games = [[], []]  # type: list[list[PoolGame]]
    for pool, pairing in first:
        games[pool].append(PoolGame(pairing.white, pairing.black, pairing.white))
    second = round_of_pools(pools, 2, "swiss", [[games[0]], [games[1]]], 2)
    firsts = {frozenset(p.seats) for _, p in first}
    assert all(frozenset(p.seats) not in firsts for _, p in second)
    assert len(second) == 4


@pytest.mark.parametrize(
    ("entrants", "pool_size", "advance", "pool_format", "rounds", "says"),
    [
        (4, 4, 2, "round_robin", None, "at least two pools"),
        (8, 8, 2, "round_robin", None, "one pool"),
        (16, 4, 4, "round_robin", None, "advance: 1 to 3"),
        (16, 4, 2, "round_robin", 3, "rounds is for Swiss pools"),
        (16, 4, 2, "swiss", None, "rounds: 1 to 3"),
        (16, 4, 2, "swiss", 4, "rounds: 1 to 3"),
        (16, 4, 2, "knockout", None, "pool_format"),
        (16, 2, 1, "round_robin", None, "pool_size: 3 to 16"),
    ],
)
def test_refusals_say_why(
    entrants: int, pool_size: int, advance: int, pool_format: str, rounds: int | None, says: str
) -> None:
    with pytest.raises(PoolsError, match=says):
        check_pools(entrants, pool_size, advance, pool_format, rounds)


def test_pool_rounds() -> None:
    assert check_pools(16, 4, 2, "round_robin", None) == 3
    assert check_pools(18, 4, 2, "round_robin", None) == 3  # 5 pools: 4, 4, 4, 3, 3
    assert check_pools(20, 5, 2, "round_robin", None) == 5  # a round robin of 5: a bye each round
    assert check_pools(16, 4, 2, "swiss", 2) == 2


@settings(max_examples=examples(100))
@given(
    st.integers(5, 64),
    st.integers(3, 8),
    st.integers(1, 3),
    st.sampled_from(["single_elimination", "double_elimination"]),
    st.data(),
)
def test_played_through_every_entrant_is_placed_bracket_first_then_pool_places(
    entrants: int, pool_size: int, advance: int, kind: str, data: st.DataObject
) -> None:
    builder = single_elimination if kind == "single_elimination" else double_elimination
    try:
        p = plan(entrants, pool_size, advance, "round_robin", None, builder)
    except PoolsError:
        assume(False)
        raise
    players = [f"p{i:02d}" for i in range(entrants)]
    assert sorted(i for pool in p.pools for i in pool) == list(range(entrants))
    assert all(node.round > p.pool_rounds for node in p.nodes)
    standings = {q: data.draw(st.permutations([players[i] for i in pool])) for q, pool in enumerate(p.pools)}
    results: dict[str, tuple[str, ...]] = {}
    out: set[str] = set()
    for _ in range(len(p.nodes) + 1):
        state = resolve(p, players, results, standings)
        if state.finished:
            break
        for ready in state.ready():
            assert not set(ready.entrants) & out  # nobody plays after going out
            results[ready.node.id] = tuple(data.draw(st.permutations(ready.entrants)))
    assert state.places is not None
    places = state.places
    assert sorted(places) == sorted(players)
    qualifiers = {pool[k] for pool in standings.values() for k in range(advance)}
    assert (
        max(places[q] for q in qualifiers)
        <= len(qualifiers)
        < min((places[p] for p in players if p not in qualifiers), default=len(players) + 1)
    )
    for k in range(advance, max(len(pool) for pool in standings.values())):
        kth = {places[pool[k]] for pool in standings.values() if k < len(pool)}
        assert len(kth) == 1  # every pool's k-th shares one place
