"""Table ratings (server/ratings/tables.py): OpenSkill's Plackett–Luce over a table's D23 places."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.ratings.tables import TableRating, conservative, newcomer, rate_table, shown


def test_a_first_table_of_four_newcomers_orders_them_by_place() -> None:
    after = rate_table([newcomer()] * 4, [3, 1, 4, 2])
    by_place = sorted(range(4), key=lambda seat: [3, 1, 4, 2][seat])
    mus = [after[seat].mu for seat in by_place]
    assert mus == sorted(mus, reverse=True) and mus[0] > newcomer().mu > mus[-1]
    assert all(r.sigma < newcomer().sigma for r in after)  # every seat is known better after a table


def test_a_shared_place_rates_the_sharers_alike() -> None:
    after = rate_table([newcomer()] * 3, [1, 2, 2])
    assert after[1] == after[2] and after[0].mu > after[1].mu


def test_a_newcomer_shows_zero_and_a_winner_climbs() -> None:
    assert conservative(newcomer()) == pytest.approx(0.0, abs=1e-9)
    assert conservative(rate_table([newcomer(), newcomer(), newcomer()], [1, 2, 3])[0]) > 0
    assert shown(newcomer()) == pytest.approx((1500.0, 500.0))


@pytest.mark.parametrize(
    ("seats", "places"), [([newcomer()], [1]), ([newcomer()] * 3, [1, 2]), ([newcomer()] * 2, [0, 1])]
)
def test_a_table_that_is_no_table_is_refused(seats: list[TableRating], places: list[int]) -> None:
    with pytest.raises(ValueError):
        rate_table(seats, places)


@given(st.lists(st.integers(min_value=1, max_value=10), min_size=3, max_size=10))
def test_first_place_never_loses_rating_and_last_never_gains(places: list[int]) -> None:
    after = rate_table([newcomer()] * len(places), places)
    best, worst = min(places), max(places)
    for seat, place in enumerate(places):
        if place == best and best != worst:
            assert after[seat].mu >= newcomer().mu
        if place == worst and best != worst:
            assert after[seat].mu <= newcomer().mu
