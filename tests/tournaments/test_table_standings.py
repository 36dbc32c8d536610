"""The standings of a tables tournament (server/tournaments/table_standings.py).

Hand-built rounds where each level of the chain (placement points, match points, firsts, lot)
decides somewhere, with the lots set against the expected order where a tie-break above the lot
must explain it; shared places and a table larger than the points list; the refusals; then
properties over random rounds of random tables (hypothesis).
"""

from __future__ import annotations

import itertools
import random
import string
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.game.events import EventType
from engine.game.rulesets import CLASSIC
from engine.play.selfplay import play_match
from server.tournaments.standings import StandingRow
from server.tournaments.table_standings import (
    TABLE_TIEBREAKS,
    TableResult,
    default_placement_points,
    placement_points_for,
    table_standings,
)

FOUR = (3, 2, 1, 0)


def table(seats: str, scores: tuple[int, ...], forfeit: tuple[bool, ...] = ()) -> TableResult:
    """A table of one-letter players with their final totals; places by D23 (equal totals share)."""
    return TableResult(tuple(seats), places_by_totals(scores), scores, forfeit)


def places_by_totals(scores: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 + sum(other > mine for other in scores) for mine in scores)


def order(rows: list[StandingRow]) -> str:
    return "".join(row.player for row in rows)


def row_of(rows: list[StandingRow], player: str) -> StandingRow:
    return next(row for row in rows if row.player == player)


# --- the points list ------------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "points"), [(3, (2, 1, 0)), (4, FOUR), (10, tuple(range(9, -1, -1))), (1, (0,))])
def test_the_default_points_are_k_minus_one_down_to_zero(size: int, points: tuple[int, ...]) -> None:
    assert default_placement_points(size) == points


def test_placement_points_past_the_end_of_the_list_are_zero() -> None:
    assert [placement_points_for(place, FOUR) for place in range(1, 7)] == [3, 2, 1, 0, 0, 0]
    assert placement_points_for(1, ()) == 0
    with pytest.raises(ValueError, match="places start at 1"):
        placement_points_for(0, FOUR)
    with pytest.raises(ValueError, match="at least one"):
        default_placement_points(0)


# --- hand examples ------------------------------------------------------------------------------


def test_a_round_of_sixteen_players_at_four_tables() -> None:
    players = list("abcdefghijklmnop")
    results = [
        table("abcd", (512, 300, 300, 40)),  # b and c share 2nd: 2 points each; d is 4th
        table("efgh", (505, 410, 120, 0)),
        table("ijkl", (530, 200, 100, 50)),
        table("mnop", (300, 250, 250, 250)),  # a round limit ended it: n, o and p share 2nd
    ]
    lots = players[::-1]  # p draws best, a worst: every tie above the lot is against the lots
    rows = table_standings(players, results, lots, FOUR)
    assert order(rows) == "iaemfcbponjgkldh"
    assert [row.rank for row in rows] == list(range(1, 17))
    assert [row.tiebreaks["placement_points"] for row in rows] == [3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 0, 0, 0]
    assert [row.decided_by for row in rows] == [
        "match_points",  # i 530 over a 512
        "match_points",
        "match_points",
        "placement_points",  # m (3, first with 300) over f (2)
        "match_points",
        "lot",  # c and b: 2 points, 300, no first each; c draws 13, b 14
        "match_points",
        "lot",  # p, o, n: 2 points, 250 each
        "lot",
        "match_points",
        "placement_points",
        "match_points",
        "placement_points",
        "match_points",
        "match_points",
        None,
    ]
    assert row_of(rows, "a") == StandingRow(
        rank=2,
        player="a",
        played=1,
        won=1,
        lost=0,
        byes=0,
        forfeits=0,
        points_for=512,
        points_against=640,
        tiebreaks={"placement_points": 3, "match_points": 512, "firsts": 1, "lot": 15},
        decided_by="match_points",
    )
    assert (row_of(rows, "h").won, row_of(rows, "h").lost, row_of(rows, "h").points_against) == (0, 1, 1035)


def test_firsts_decide_when_placement_and_match_points_are_equal() -> None:
    # x: 1st and 4th (3 + 0 points, 500 + 100); y: 2nd and 3rd (2 + 1 points, 300 + 300).
    players = ["x", "y", "u", "v", "w", "z"]
    results = [
        TableResult(("x", "y", "u", "v"), (1, 2, 3, 4), (500, 300, 50, 10)),
        TableResult(("w", "z", "y", "x"), (1, 2, 3, 4), (520, 400, 300, 100)),
    ]
    rows = table_standings(players, results, ["y", "w", "z", "u", "v", "x"], FOUR)
    x, y = row_of(rows, "x"), row_of(rows, "y")
    assert x.tiebreaks["placement_points"] == y.tiebreaks["placement_points"] == 3
    assert x.tiebreaks["match_points"] == y.tiebreaks["match_points"] == 600
    assert x.rank == y.rank - 1 and x.decided_by == "firsts"  # the lot favours y
    assert (x.won, x.lost, y.won, y.lost) == (1, 1, 0, 2)


def test_shared_places_each_get_that_places_points() -> None:
    rows = table_standings(list("abcd"), [table("abcd", (510, 80, 80, 80))], list("abcd"), FOUR)
    assert {row.player: row.tiebreaks["placement_points"] for row in rows} == {"a": 3, "b": 2, "c": 2, "d": 2}
    assert [row.decided_by for row in rows] == ["placement_points", "lot", "lot", None]


def test_a_five_seat_table_with_a_four_place_list() -> None:
    five = table("abcde", (500, 300, 200, 100, 50))
    rows = table_standings(list("abcde"), [five], list("edcba"), FOUR)
    assert {row.player: row.tiebreaks["placement_points"] for row in rows} == {"a": 3, "b": 2, "c": 1, "d": 0, "e": 0}
    assert order(rows) == "abcde"  # d and e both 0 points: d's 100 over e's 50, against the lots
    assert rows[3].decided_by == "match_points"
    shared_last = TableResult(tuple("abcde"), (1, 2, 3, 4, 4), (500, 300, 200, 100, 100))
    rows = table_standings(list("abcde"), [shared_last], list("abcde"), (4, 3, 2, 1))
    assert {row.player: row.tiebreaks["placement_points"] for row in rows} == {"a": 4, "b": 3, "c": 2, "d": 1, "e": 1}


def test_forfeits_are_counted_and_the_totals_stand() -> None:
    left = table("abc", (500, 120, 300), forfeit=(False, True, False))
    rows = table_standings(list("abc"), [left], list("abc"), (2, 1, 0))
    assert [row.forfeits for row in rows] == [0, 0, 1]
    assert order(rows) == "acb" and row_of(rows, "b").points_for == 120


def test_a_player_without_tables_gets_an_empty_row() -> None:
    rows = table_standings(list("abcz"), [table("abc", (500, 10, 5))], list("zabc"), (2, 1, 0))
    z = row_of(rows, "z")
    assert (z.rank, z.played, z.won, z.lost, z.points_for, z.points_against) == (4, 0, 0, 0, 0, 0)
    assert z.tiebreaks == {"placement_points": 0, "match_points": 0, "firsts": 0, "lot": 0}


def test_an_engine_table_ended_by_its_round_limit() -> None:
    # The engine's match_ended places (D23) read straight into a TableResult.
    result = play_match(["greedy"] * 4, replace(CLASSIC, round_limit=1), "x", 0)
    end = next(e.data for e in result.events if e.type == EventType.MATCH_ENDED)
    seats = tuple("abcd")
    rows = table_standings(seats, [TableResult(seats, tuple(end["places"]), tuple(end["scores"]))], seats, FOUR)
    assert rows[0].player == seats[end["winner"]] and rows[0].tiebreaks["placement_points"] == 3
    assert sum(row.tiebreaks["placement_points"] for row in rows) == 3 + 3 * 2  # three share 2nd


# --- refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "results", "lots", "message"),
    [
        (["a", "a"], [], ["a", "a"], "listed twice"),
        (["a", "b"], [], ["a"], "lots lack players"),
        (["a", "b"], [], ["a", "c"], "lots lack players"),
        (["a", "b"], [], ["a", "b", "b"], "permutation"),
        (["a", "b"], [TableResult(("a", "z"), (1, 2), (5, 0))], ["a", "b"], "not among the players"),
        (["a", "b"], [TableResult(("a", "a"), (1, 2), (5, 0))], ["a", "b"], "twice"),
        (["a", "b"], [TableResult(("a", "b"), (1,), (5, 0))], ["a", "b"], "places"),
        (["a", "b"], [TableResult(("a", "b"), (1, 2), (5,))], ["a", "b"], "scores"),
        (["a", "b"], [TableResult(("a", "b"), (1, 2), (5, 0), (True,))], ["a", "b"], "forfeit"),
        (["a", "b"], [TableResult(("a", "b"), (0, 2), (5, 0))], ["a", "b"], "places start at 1"),
    ],
)
def test_refusals(players: list[str], results: list[TableResult], lots: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        table_standings(players, results, lots, FOUR)


# --- properties -----------------------------------------------------------------------------------


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[list[str], list[TableResult], list[str], tuple[int, ...]]:
    """Random players, a few rounds of random tables (2 to 10 seats, ties in the totals likely),
    a points list of any length, and a random draw of lots."""
    players = list(string.ascii_letters[: draw(st.integers(2, 24))])
    rng = random.Random(draw(st.integers(0, 2**32)))
    results: list[TableResult] = []
    for _ in range(draw(st.integers(0, 6))):
        pool = players[:]
        rng.shuffle(pool)
        while len(pool) >= 2:
            size = min(len(pool), rng.randint(2, 10))
            seats, pool = tuple(pool[:size]), pool[size:]
            scores = tuple(rng.choice([0, 50, 120, 300, 500, rng.randint(0, 600)]) for _ in seats)
            forfeit = tuple(rng.random() < 0.1 for _ in seats) if rng.random() < 0.5 else ()
            results.append(TableResult(seats, places_by_totals(scores), scores, forfeit))
    points = tuple(draw(st.lists(st.integers(0, 20), max_size=10)))
    lots = players[:]
    rng.shuffle(lots)
    return players, results, lots, points


@given(tournaments())
def test_the_rows_hand_out_exactly_the_tables_points(
    case: tuple[list[str], list[TableResult], list[str], tuple[int, ...]],
) -> None:
    players, results, lots, points = case
    rows = table_standings(players, results, lots, points)
    handed_out = sum(placement_points_for(place, points) for r in results for place in r.places)
    assert sum(row.tiebreaks["placement_points"] for row in rows) == handed_out
    assert sum(row.played for row in rows) == sum(len(r.seats) for r in results)
    assert sum(row.won for row in rows) == sum(r.places.count(1) for r in results)
    assert sum(row.points_for for row in rows) == sum(sum(r.scores) for r in results)
    assert sum(row.points_against for row in rows) == sum((len(r.seats) - 1) * sum(r.scores) for r in results)
    assert sum(row.forfeits for row in rows) == sum(sum(r.forfeit) for r in results)


@given(tournaments())
def test_ranks_run_one_to_n_and_each_row_is_above_the_next_on_its_decider(
    case: tuple[list[str], list[TableResult], list[str], tuple[int, ...]],
) -> None:
    players, results, lots, points = case
    rows = table_standings(players, results, lots, points)
    for position, (upper, lower) in enumerate(itertools.pairwise(rows), start=2):
        # a place is shared only by players who have played no table (issue 33.7), never by lot
        shares = upper.played == lower.played == 0 and upper.points_for == lower.points_for == 0
        assert lower.rank == (upper.rank if shares else position)
    assert rows[0].rank == 1
    assert sorted(row.player for row in rows) == sorted(players)
    assert rows[-1].decided_by is None
    for upper, lower in itertools.pairwise(rows):
        name = upper.decided_by
        if upper.rank == lower.rank:
            assert name is None and players.index(upper.player) < players.index(lower.player)
            continue
        assert name is not None
        earlier = TABLE_TIEBREAKS[: TABLE_TIEBREAKS.index(name)]
        assert all(upper.tiebreaks[n] == lower.tiebreaks[n] for n in earlier)
        if name == "lot":
            assert upper.tiebreaks[name] < lower.tiebreaks[name]
        else:
            assert upper.tiebreaks[name] > lower.tiebreaks[name]


@given(tournaments(), st.randoms(use_true_random=False))
def test_the_order_of_the_results_does_not_matter(
    case: tuple[list[str], list[TableResult], list[str], tuple[int, ...]], shuffler: random.Random
) -> None:
    players, results, lots, points = case
    shuffled = results[:]
    shuffler.shuffle(shuffled)
    assert table_standings(players, shuffled, lots, points) == table_standings(players, results, lots, points)
