"""The table knockout's plan (server/tournaments/table_knockout.py): sizes, seeding, the mixing of
qualifiers, and, played through with any results, every entrant placed and nobody playing on
after going out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from server.tournaments.bracket_plan import PlaceOf, Plan, Seed
from server.tournaments.brackets import resolve
from server.tournaments.table_knockout import FINAL, TableKnockoutError, plan
from server.tournaments.tables import MAX_TABLE, MIN_TABLE
from tests.profiles import examples


def play_through(p: Plan, entrants: int, draw: st.DrawFn) -> tuple[dict[str, tuple[int, ...]], dict[str, list[int]]]:
    """Every node's seats (seeds) and its places, any order the draw picks; the plan's sources
    followed literally (a stand-in for brackets.resolve that assumes nothing about it)."""
    seats: dict[str, tuple[int, ...]] = {}
    finish: dict[str, list[int]] = {}  # node -> its players in place order
    for node in sorted(p.nodes, key=lambda n: n.round):
        seated: list[int] = []
        for source in node.sources:
            if isinstance(source, Seed):
                seated.append(source.index)
            else:
                assert isinstance(source, PlaceOf)
                assert p.node(source.node).round < node.round
                seated.append(finish[source.node][source.place - 1])
        seats[node.id] = tuple(seated)
        finish[node.id] = draw(st.permutations(seated))
    return seats, finish


def final_places(p: Plan, finish: Mapping[str, list[int]]) -> dict[int, int]:
    """The published rule: the stage one went out at (higher is better), then the place there; ties shared."""
    out_at: dict[int, tuple[int, int]] = {}
    for node in p.nodes:
        for place, player in enumerate(finish[node.id], start=1):
            goes_on = node.id != FINAL and place <= p.advance
            if not goes_on:
                out_at[player] = (-node.stage, place)
    ranked = sorted(out_at.values())
    return {player: 1 + ranked.index(key) for player, key in out_at.items()}


@st.composite
def knockouts(draw: st.DrawFn) -> tuple[int, int, int, Plan]:
    table_size = draw(st.integers(MIN_TABLE, MAX_TABLE))
    advance = draw(st.integers(1, max(1, table_size // 2)))
    entrants = draw(st.integers(MIN_TABLE, 64))
    try:
        return entrants, table_size, advance, plan(entrants, table_size, advance)
    except TableKnockoutError:
        assume(False)
        raise


@settings(max_examples=examples(300))
@given(knockouts(), st.data())
def test_played_through_every_entrant_is_placed_and_nobody_plays_after_going_out(
    case: tuple[int, int, int, Plan], data: st.DataObject
) -> None:
    entrants, _table_size, advance, p = case
    seats, finish = play_through(p, entrants, data.draw)
    last_round: dict[int, int] = {}
    rounds = max(n.round for n in p.nodes)
    for node in p.nodes:
        players = seats[node.id]
        assert len(set(players)) == len(players)
        if node.id == FINAL:
            assert node.round == rounds
            assert 2 <= len(players) <= MAX_TABLE
        else:
            assert MIN_TABLE <= len(players) <= MAX_TABLE
            assert len(players) > advance  # somebody goes out at every table
        for player in players:
            assert last_round.get(player, 0) == node.round - 1  # every round played in turn, none after going out
            last_round[player] = node.round
    for number in range(1, rounds + 1):
        tables = [n for n in p.nodes if n.round == number]
        sizes = [len(seats[n.id]) for n in tables]
        assert max(sizes) - min(sizes) <= 1
        assert sum(sizes) == (entrants if number == 1 else advance * len([n for n in p.nodes if n.round == number - 1]))
        if number > 1:  # exactly `advance` of every table of the round before go on
            went_on = Counter(s.node for n in tables for s in n.sources if isinstance(s, PlaceOf))
            assert set(went_on.values()) == {advance}
    places = final_places(p, finish)
    assert sorted(places) == list(range(entrants))
    final = finish[FINAL]
    assert [places[player] for player in final] == list(range(1, len(final) + 1))
    assert min(places.values()) == 1


def test_thirty_two_at_tables_of_four_top_two_go_on() -> None:
    p = plan(32, 4, 2)
    assert [(r, len([n for n in p.nodes if n.round == r])) for r in range(1, 5)] == [(1, 8), (2, 4), (3, 2), (4, 1)]
    first = p.node("T1-1")
    assert first.sources == (Seed(0), Seed(15), Seed(16), Seed(31))  # snake: 1, 16, 17, 32
    assert p.node("T1-8").sources == (Seed(7), Seed(8), Seed(23), Seed(24))
    assert p.node(FINAL).stage == 4 and p.advance == 2


def test_later_rounds_split_each_tables_qualifiers_and_seat_winners_first() -> None:
    p = plan(32, 4, 2)
    for node in p.nodes:
        if node.round == 1 or node.id == FINAL:  # the final seats both tables' top two
            continue
        sources = [s for s in node.sources if isinstance(s, PlaceOf)]
        assert len({s.node for s in sources}) == len(sources)
        assert [s.place for s in sources] == sorted(s.place for s in sources)  # winners take the first seats
        assert Counter(s.place for s in sources) == {1: 2, 2: 2}


def test_every_field_splits_its_qualifiers_wherever_the_next_round_has_tables_enough() -> None:
    for entrants in range(MIN_TABLE, 65):
        for table_size in (3, 4, 5, 6):
            for advance in range(1, table_size):
                try:
                    p = plan(entrants, table_size, advance)
                except TableKnockoutError:
                    continue
                for number in range(2, max(n.round for n in p.nodes) + 1):
                    tables = [n for n in p.nodes if n.round == number]
                    if len(tables) < advance:
                        continue
                    for node in tables:
                        sources = [s.node for s in node.sources if isinstance(s, PlaceOf)]
                        assert len(set(sources)) == len(sources), (entrants, table_size, advance, node)


@pytest.mark.parametrize(
    ("entrants", "table_size", "advance", "sizes"),
    [
        (5, 4, 2, [[5]]),  # five fit one table: the final
        (13, 4, 2, [[5, 4, 4], [3, 3], [4]]),
        (9, 3, 2, [[3, 3, 3], [3, 3], [4]]),
        (6, 3, 1, [[3, 3], [2]]),  # advance 1 from two tables: a heads-up final
    ],
)
def test_sizes_round_by_round(entrants: int, table_size: int, advance: int, sizes: list[list[int]]) -> None:
    p = plan(entrants, table_size, advance)
    got = [[len(n.sources) for n in p.nodes if n.round == r] for r in range(1, max(n.round for n in p.nodes) + 1)]
    assert got == sizes


@pytest.mark.parametrize(
    ("entrants", "table_size", "advance", "seats", "says"),
    [
        (2, 4, 2, 10, "at least 3 players"),
        (16, 4, 4, 10, "advance: 1 to 3"),
        (16, 4, 0, 10, "advance: 1 to 3"),
        (6, 4, 3, 10, "sends nobody out"),
        (20, 11, 2, 10, "table_size: 3 to 10"),
        (40, 10, 2, 8, "deals for at most 8"),
    ],
)
def test_refusals_say_why(entrants: int, table_size: int, advance: int, seats: int, says: str) -> None:
    with pytest.raises(TableKnockoutError, match=says):
        plan(entrants, table_size, advance, seats)


@settings(max_examples=examples(200))
@given(knockouts(), st.data())
def test_resolved_round_by_round_the_final_table_ranks_the_top_and_ties_are_shared(
    case: tuple[int, int, int, Plan], data: st.DataObject
) -> None:
    entrants, _table_size, advance, p = case
    players = [f"p{i:02d}" for i in range(entrants)]
    results: dict[str, tuple[str, ...]] = {}
    out: set[str] = set()
    for number in range(1, p.rounds + 1):
        state = resolve(p, players, results)
        ready = state.ready()
        assert {s.node.round for s in ready} == {number}  # a round's tables are ready together, and only they
        for table in ready:
            assert not set(table.entrants) & out
            order = tuple(data.draw(st.permutations(table.entrants)))
            results[table.node.id] = order
            out.update(order if table.node.id == FINAL else order[advance:])
    state = resolve(p, players, results)
    assert state.places is not None
    assert sorted(state.places) == players
    final = results[FINAL]
    assert [state.places[q] for q in final] == list(range(1, len(final) + 1))
    assert final_places(p, {k: [players.index(q) for q in v] for k, v in results.items()}) == {
        players.index(q): place for q, place in state.places.items()
    }


@settings(max_examples=examples(300))
@given(
    st.integers(MIN_TABLE, 64), st.integers(MIN_TABLE, MAX_TABLE), st.integers(1, 9), st.integers(MIN_TABLE, MAX_TABLE)
)
def test_every_table_of_a_plan_fits_the_ruleset_or_the_plan_is_refused(
    entrants: int, table_size: int, advance: int, seats: int
) -> None:
    try:
        p = plan(entrants, table_size, advance, seats)
    except TableKnockoutError:
        return
    sizes = [len(n.sources) for n in p.nodes]
    assert max(sizes) <= seats and min(sizes) >= 2
    assert all(len(n.sources) > advance for n in p.nodes if n.id != FINAL)
