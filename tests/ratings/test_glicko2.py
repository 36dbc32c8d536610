"""Glicko-2 (server/ratings/glicko2.py) against Glickman's worked example, and its invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.ratings.glicko2 import GLICKMAN, LICHESS, SCALE, Opponent, Rating, rate, rate_match


def test_glickmans_worked_example() -> None:
    """ "Example of the Glicko-2 system": 1500 / RD 200 / sigma 0.06, tau 0.5, against 1400/30
    (a win), 1550/100 and 1700/300 (two losses): 1464.06 / 151.52, sigma 0.05999."""
    player = Rating(1500.0, 200.0, 0.06)
    games = [Opponent(1400.0, 30.0, 1.0), Opponent(1550.0, 100.0, 0.0), Opponent(1700.0, 300.0, 0.0)]
    after = rate(player, games, GLICKMAN)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = rate(Rating(1600.0, 100.0, 0.06), [], GLICKMAN)
    assert after.rating == 1600.0 and after.deviation > 100.0 and after.volatility == 0.06


def test_lichess_bounds_the_deviation() -> None:
    settled = Rating(1500.0, 45.0, 0.06)
    for _ in range(20):
        settled, _ = rate_match(settled, Rating(1500.0, 45.0, 0.06), True, LICHESS)
    assert settled.deviation >= 45.0
    assert LICHESS.newcomer() == Rating(1500.0, 500.0, 0.09)


ratings = st.builds(
    Rating,
    st.floats(min_value=600, max_value=2800),
    st.floats(min_value=45, max_value=500),
    st.floats(min_value=0.03, max_value=0.12),
)


@given(ratings, ratings, st.booleans())
def test_a_match_moves_the_winner_up_and_the_loser_down_and_narrows_both(
    white: Rating, black: Rating, won: bool
) -> None:
    """The winner gains, the loser loses, and a game narrows each deviation below what the period
    alone would have made it (step 6's sqrt(phi^2 + sigma'^2)); it may still end a little wider
    than it began, when a volatile player meets someone the game says little about."""
    new_white, new_black = rate_match(white, black, won)
    winner_before, winner_after = (white, new_white) if won else (black, new_black)
    loser_before, loser_after = (black, new_black) if won else (white, new_white)
    assert winner_after.rating > winner_before.rating and loser_after.rating < loser_before.rating
    for before, after in ((white, new_white), (black, new_black)):
        widened = math.hypot(before.deviation, SCALE * after.volatility)
        assert LICHESS.min_deviation <= after.deviation <= max(widened, LICHESS.min_deviation) + 1e-6
