"""Seasons on folds alone (server/tournaments/season_*.py, places.py): the Decider's events and
refusals, the table's points, best N of M, ranks and tie-breaks, promotion and relegation, and a
tournament's final places, with no store, no server and no clock."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.domain_errors import Malformed, NotNow
from server.tournaments.decide import Advance, Withdraw
from server.tournaments.places import final_places
from server.tournaments.season_decide import (
    MAX_EVENTS,
    AddTournament,
    CreateSeason,
    FinishSeason,
    SeasonCommand,
    SeasonDecision,
    decide,
)
from server.tournaments.season_model import (
    DEFAULT_POINTS,
    Division,
    Move,
    Season,
    SeasonCreated,
    SeasonFinished,
    TournamentAdded,
    claim_holder,
    evolve,
    fold,
)
from server.tournaments.season_table import SeasonRow, season_table
from tests.tournaments.test_decide import SEED, apply, play_round, started

AT = "2026-12-07T19:30:00+00:00"


def run(s: Season, command: SeasonCommand) -> SeasonDecision:
    decision = decide(s, command)
    for event in decision.events:
        evolve(s, event, AT)
    return decision


def season(**asked: object) -> Season:
    s = Season("s_1")
    run(s, CreateSeason(name="Winter", commitment="c" * 64, **asked))  # type: ignore[arg-type]
    return s


def with_events(s: Season, count: int) -> Season:
    for n in range(count):
        run(s, AddTournament(f"t_{n}"))
    return s


# ---------------------------------------------------------------- the Decider


def test_a_creation_fills_in_the_published_defaults_and_happens_once() -> None:
    s = season()
    assert (s.points_by_place, s.best_of, s.divisions, s.promote, s.relegate) == (DEFAULT_POINTS, None, (), 0, 0)
    with pytest.raises(NotNow, match="exists already"):
        decide(s, CreateSeason(name="again", commitment=""))
    split = season(divisions=3)
    assert [d.name for d in split.divisions] == ["Division 1", "Division 2", "Division 3"]
    assert (split.promote, split.relegate) == (2, 2)
    assert split.division_of("anyone") == "Division 3"  # a newcomer starts in the lowest


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ({"best_of": 0}, "best_of"),
        ({"best_of": MAX_EVENTS + 1}, "best_of"),
        ({"points_by_place": ()}, "1 to 64"),
        ({"points_by_place": (3, 5)}, "worse place"),
        ({"points_by_place": (0, 0)}, "first place"),
        ({"points_by_place": (1001,)}, "0 to 1000"),
        ({"divisions": 1}, "2 to 8"),
        ({"divisions": (Division("A"), Division("A"))}, "name of its own"),
        ({"divisions": (Division("A", ("x",)), Division("B", ("x",)))}, "one division"),
        ({"divisions": (Division(" A"), Division("B"))}, "name"),
        ({"promote": 1}, "need divisions"),
        ({"divisions": 2, "relegate": 17}, "relegate"),
    ],
)
def test_a_creation_that_makes_no_season_is_refused(asked: dict[str, object], said: str) -> None:
    with pytest.raises(Malformed, match=said):
        season(**asked)


def test_tournaments_are_added_once_up_to_the_bound_and_not_after_the_end() -> None:
    s = with_events(season(), MAX_EVENTS)
    with pytest.raises(NotNow, match="full"):
        decide(s, AddTournament("t_more"))
    with pytest.raises(NotNow, match="already"):
        decide(s, AddTournament("t_0"))
    s = with_events(season(), 1)
    with pytest.raises(NotNow, match="still in play"):
        decide(s, FinishSeason({}, ("t_0",), SEED))
    (finished,) = run(s, FinishSeason({"t_0": {"ann": 1}}, (), SEED)).events
    assert isinstance(finished, SeasonFinished) and finished.server_seed == SEED.hex()
    for command in (AddTournament("t_9"), FinishSeason({}, (), SEED)):
        with pytest.raises(NotNow, match="finished"):
            decide(s, command)


def test_the_events_fold_back_from_their_stored_data() -> None:
    events = [
        SeasonCreated("W", 3, (5, 3), "c", (Division("A", ("ann",)), Division("B")), 1, 1),
        TournamentAdded("t_1"),
        SeasonFinished("ab", (Move("bob", "B", "A"),), (Division("A", ("bob",)), Division("B", ("ann",)))),
    ]
    s = fold("s_1", [(e.TYPE.value, e.payload(), AT) for e in events])
    assert (s.best_of, s.tournaments, s.status, s.version) == (3, ["t_1"], "finished", 3)
    assert s.moves == (Move("bob", "B", "A"),) and s.divisions_after[1].players == ("ann",)
    claims = [("season_claimed", {"season": "s_1"}), ("season_claim_released", {"season": "s_1"})]
    assert claim_holder(claims[:1]) == "s_1" and claim_holder(claims) is None


def test_a_following_season_starts_from_the_divisions_after_the_moves() -> None:
    before = season(
        divisions=(Division("A", ("a1", "a2", "a3")), Division("B", ("b1", "b2", "b3"))), promote=1, relegate=1
    )
    with_events(before, 1)
    places = {"t_0": {"b1": 1, "a1": 2, "b2": 3, "a2": 4, "a3": 5, "b3": 6}}
    (finished,) = run(before, FinishSeason(places, (), SEED)).events
    assert isinstance(finished, SeasonFinished)
    assert set(finished.moves) == {Move("b1", "B", "A"), Move("a3", "A", "B")}
    assert before.divisions_after == (Division("A", ("a1", "a2", "b1")), Division("B", ("b2", "b3", "a3")))
    after = Season("s_2")
    run(after, CreateSeason(name="Spring", commitment="d", follows=before))
    assert after.divisions == before.divisions_after and (after.promote, after.relegate, after.follows) == (1, 1, "s_1")
    with pytest.raises(Malformed, match="not both"):
        decide(Season("s_3"), CreateSeason(name="x", commitment="d", follows=before, divisions=2))
    with pytest.raises(NotNow, match="has not finished"):
        decide(Season("s_3"), CreateSeason(name="x", commitment="d", follows=season()))


# ---------------------------------------------------------------- the table


def test_points_by_place_best_of_and_the_tie_breaks() -> None:
    s = with_events(season(best_of=2, points_by_place=(10, 6, 3)), 3)
    places = {
        "t_0": {"ann": 1, "bob": 2, "cy": 3, "di": 4},
        "t_1": {"bob": 1, "ann": 2, "cy": 2, "di": 4},  # a shared second place: 6 each
        "t_2": {"cy": 1, "di": 2},
    }
    rows = {r.player: r for r in season_table(s, places, SEED)}
    assert rows["ann"].points == 16 and rows["ann"].counted == ("t_0", "t_1")
    assert rows["cy"].points == 16 and rows["cy"].counted == ("t_1", "t_2") and rows["cy"].events == 3
    assert rows["bob"].points == 16
    assert rows["di"].points == 6 and rows["di"].best_place == 2
    # ann, bob, cy: 16 each, one win each, best place 1; the later event: cy won it, ann and bob
    # did not play it; then t_1: bob 10 over ann 6
    assert [r.player for r in season_table(s, places, SEED)] == ["cy", "bob", "ann", "di"]
    assert [r.rank for r in season_table(s, places, SEED)] == [1, 2, 3, 4]


def test_players_equal_on_every_tie_break_share_a_rank_and_the_lot_lists_them() -> None:
    s = with_events(season(), 1)
    table = season_table(s, {"t_0": {"ann": 1, "bob": 2, "cy": 2}}, SEED)
    assert [r.rank for r in table] == [1, 2, 2]
    other = season_table(s, {"t_0": {"ann": 1, "bob": 2, "cy": 2}}, bytes(32))
    assert {r.player for r in table[1:]} == {r.player for r in other[1:]} == {"bob", "cy"}


def test_a_tournament_in_play_counts_nothing() -> None:
    s = with_events(season(), 2)
    rows = season_table(s, {"t_1": {"ann": 1, "bob": 2}}, SEED)
    assert [(r.player, r.events, r.points) for r in rows] == [("ann", 1, 25), ("bob", 1, 18)]


def test_with_divisions_places_count_among_the_division() -> None:
    s = with_events(season(divisions=(Division("A", ("ann", "bob")), Division("B"))), 1)
    rows = season_table(s, {"t_0": {"cy": 1, "ann": 2, "di": 3, "bob": 4}}, SEED)
    assert [(r.division, r.rank, r.player, r.points) for r in rows] == [
        ("A", 1, "ann", 25),
        ("A", 2, "bob", 18),
        ("B", 1, "cy", 25),
        ("B", 2, "di", 18),
    ]


EVENTS = st.lists(
    st.dictionaries(st.sampled_from("abcdefgh"), st.integers(1, 6), min_size=1, max_size=8), min_size=0, max_size=6
)


@settings(max_examples=150, deadline=None)
@given(
    events=EVENTS,
    best_of=st.none() | st.integers(1, 5),
    divided=st.booleans(),
    points=st.lists(st.integers(0, 30), min_size=1, max_size=8).map(lambda p: tuple(sorted(p, reverse=True))),
)
def test_the_table_is_consistent_with_its_points(
    events: list[dict[str, int]], best_of: int | None, divided: bool, points: tuple[int, ...]
) -> None:
    if points[0] == 0:
        points = (1, *points[1:])
    divisions = (Division("top", ("a", "b", "c")), Division("low")) if divided else None
    s = with_events(season(best_of=best_of, points_by_place=points, divisions=divisions), len(events))
    places: Mapping[str, Mapping[str, int]] = {f"t_{n}": e for n, e in enumerate(events)}
    table = season_table(s, places, SEED)
    played = {p for e in events for p in e}
    assert {r.player for r in table} == played | ({"a", "b", "c"} if divided else set())
    assert len(table) == len({r.player for r in table})
    for division in {r.division for r in table}:
        rows = [r for r in table if r.division == division]
        check_ranks(rows)
    for r in table:
        assert r.events == sum(1 for e in events if r.player in e)
        assert len(r.counted) == (r.events if best_of is None else min(best_of, r.events))
        best = sorted((x.points for x in r.results), reverse=True)[: len(r.counted)]
        assert r.points == sum(best) == sum(x.points for x in r.results if x.counted)


def check_ranks(rows: list[SeasonRow]) -> None:
    """Ranks are a permutation with ties: the first is 1, each one the one above it or its own
    position; more points never rank lower; a shared rank means equal points."""
    for i, row in enumerate(rows):
        if i:
            above = rows[i - 1]
            assert row.rank in (above.rank, i + 1)
            assert above.points >= row.points
            if row.points < above.points:
                assert row.rank == i + 1  # fewer points: below everyone above it
            if row.rank == above.rank:
                assert (row.points, row.wins, row.best_place) == (above.points, above.wins, above.best_place)
    assert not rows or rows[0].rank == 1


@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.integers(0, 7), min_size=2, max_size=4), promote=st.integers(0, 3), relegate=st.integers(0, 3))
def test_promotion_and_relegation_move_each_player_once_and_one_division(
    sizes: list[int], promote: int, relegate: int
) -> None:
    divisions = tuple(Division(f"D{i}", tuple(f"p{i}_{j}" for j in range(n))) for i, n in enumerate(sizes))
    s = with_events(season(divisions=divisions, promote=promote, relegate=relegate), 1)
    everyone = [p for d in divisions for p in d.players]
    places = {"t_0": {p: i + 1 for i, p in enumerate(everyone)}}
    run(s, FinishSeason(places, (), SEED))
    names = [d.name for d in divisions]
    assert len({m.player for m in s.moves}) == len(s.moves)
    for m in s.moves:
        assert abs(names.index(m.source) - names.index(m.target)) == 1
    after = [p for d in s.divisions_after for p in d.players]
    assert sorted(after) == sorted(everyone)
    for i, d in enumerate(divisions):
        up = sum(1 for m in s.moves if m.source == d.name and names.index(m.target) < i)
        down = sum(1 for m in s.moves if m.source == d.name and names.index(m.target) > i)
        assert up == (min(promote, len(d.players)) if i > 0 else 0)
        assert down == (min(relegate, len(d.players) - up) if i < len(names) - 1 else 0)


# ---------------------------------------------------------------- a tournament's final places


def test_final_places_follow_the_standings_with_the_withdrawn_last() -> None:
    t = started(("ann", "bob", "cy", "di"))
    for number in (1, 2):
        apply(t, Advance(SEED))
        play_round(t, number)
    apply(t, Withdraw("ann", "left"))  # results kept: still last
    apply(t, Advance(SEED))
    play_round(t, 3)
    apply(t, Advance(SEED))
    assert t.status == "finished"
    places = final_places(t, SEED)
    assert places["ann"] == 4 and sorted(places.values()) == [1, 2, 3, 4]
    order = [r.player for r in t.standings(SEED) if r.player != "ann"]
    assert [places[p] for p in order] == [1, 2, 3]
