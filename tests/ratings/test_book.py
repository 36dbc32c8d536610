"""The rating book (server/ratings/book.py): invariants of folding results, over hypothesis's logs."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.ratings.book import Book, Result, family_of
from tests.profiles import examples

PLAYERS = ["ada", "bo", "cy", "di", "bot:greedy"]
START = datetime(2026, 12, 1, 19, tzinfo=UTC)


def at(minutes: int) -> str:
    return (START + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


duo_match = st.tuples(st.sampled_from(PLAYERS), st.sampled_from(PLAYERS), st.booleans(), st.integers(1, 20000))
table = st.tuples(
    st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=5),
    st.lists(st.integers(1, 5), min_size=5, max_size=5),
    st.integers(1, 20000),
)


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(duo_match, max_size=25))
def test_a_winner_never_loses_points_and_games_count_the_rated_matches(log: list[tuple[str, str, bool, int]]) -> None:
    book = Book()
    games: Counter[str] = Counter()
    minute = 0
    for n, (a, b, a_won, gap) in enumerate(log):
        minute += gap
        before = {p: book.of(p, "uno-duo").rating for p in (a, b)}
        changes = book.rate(Result(f"m{n}", "uno-duo", at(minute), (a, b), (1, 2) if a_won else (2, 1)))
        if a == b:
            assert changes == []
            continue
        games.update([a, b])
        winner, loser = (a, b) if a_won else (b, a)
        assert book.of(winner, "uno-duo").rating >= before[winner]
        assert book.of(loser, "uno-duo").rating <= before[loser]
        assert all(45.0 <= book.of(p, "uno-duo").deviation <= 500.0 for p in (a, b))
    assert {p: book.of(p, "uno-duo").games for p in PLAYERS} == {p: games[p] for p in PLAYERS}


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(table, max_size=15))
def test_at_a_table_first_never_loses_and_last_never_gains(log: list[tuple[list[str], list[int], int]]) -> None:
    book = Book()
    minute = 0
    for n, (seats, places, gap) in enumerate(log):
        minute += gap
        ranks = tuple(places[: len(seats)])
        before = {p: book.of(p, "classic").rating for p in seats}
        changes = {c.identity: c for c in book.rate(Result(f"t{n}", "classic", at(minute), tuple(seats), ranks))}
        repeated = {p for p, k in Counter(seats).items() if k > 1}
        assert set(changes) == set(seats) - repeated
        for seat, player in enumerate(seats):
            if player in repeated:
                assert book.of(player, "classic").rating == before[player]
            elif ranks[seat] == min(ranks) and ranks.count(min(ranks)) == 1:
                assert changes[player].after >= changes[player].before
            elif ranks[seat] == max(ranks) and ranks.count(max(ranks)) == 1:
                assert changes[player].after <= changes[player].before


def test_families_and_refusals() -> None:
    assert [family_of(r) for r in ("uno-duo", "classic-2p", "classic", "chess", None)] == [
        "uno-duo",
        "classic",
        "classic",
        None,
        None,
    ]
    with pytest.raises(ValueError):
        Result("m", "chess", at(0), ("a", "b"), (1, 2))
    with pytest.raises(ValueError):
        Result("m", "uno-duo", at(0), ("a", "b", "c"), (1, 2, 3))
    with pytest.raises(ValueError):
        Result("m", "classic", at(0), ("a",), (1,))
