"""Swiss pairings by the Dutch system: hand-checked rounds and invariants over generated tournaments."""

from __future__ import annotations

import random

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.tournaments.swiss import Pairings, SwissError, SwissGame, SwissRound, pair_round
from tests.profiles import examples

EIGHT = [f"p{n}" for n in range(1, 9)]


def played(pairings: Pairings, winners: dict[tuple[str, str], str] | None = None) -> SwissRound:
    """The round as played: white wins unless `winners` says otherwise."""
    games = tuple(SwissGame(w, b, (winners or {}).get((w, b), w)) for w, b in pairings.boards)
    return SwissRound(games, pairings.bye)


def test_round_one_of_eight_pairs_the_top_half_against_the_bottom_half_with_alternating_colours() -> None:
    assert pair_round(EIGHT, [], 5) == Pairings((("p1", "p5"), ("p6", "p2"), ("p3", "p7"), ("p8", "p4")), None)


def test_round_one_of_nine_gives_the_bye_to_the_last_player() -> None:
    nine = [*EIGHT, "p9"]
    assert pair_round(nine, [], 5) == Pairings((("p1", "p5"), ("p6", "p2"), ("p3", "p7"), ("p8", "p4")), "p9")


def test_round_two_transposes_s2_to_grant_colour_preferences() -> None:
    # Round 1: 1-5, 6-2, 3-7, 8-4, the higher-ranked player wins each. Scores 1: p1..p4, 0: p5..p8.
    # Bracket 1 is S1 = (p1, p2), S2 = (p3, p4); p1 and p3 both want black (they had white), so
    # the first transposition p1-p4, p2-p3 grants every preference. Likewise p5-p8, p6-p7 below.
    first = SwissRound(
        (
            SwissGame("p1", "p5", "p1"),
            SwissGame("p6", "p2", "p2"),
            SwissGame("p3", "p7", "p3"),
            SwissGame("p8", "p4", "p4"),
        )
    )
    assert pair_round(EIGHT, [first], 5) == Pairings((("p4", "p1"), ("p2", "p3"), ("p5", "p8"), ("p7", "p6")), None)


def test_a_lone_leader_floats_down_to_the_highest_available_player() -> None:
    # Round 1: p1 beats p3, p2 beats p4; round 2: p1 beats p2, p3 beats p4. Scores: p1 2, p2 1,
    # p3 1, p4 0. p1 is alone in its bracket and floats to the 1-point bracket, where it has met
    # both p2 and p3: it floats on to p4, and p2-p3 is the 1-point bracket's pair.
    four = ["p1", "p2", "p3", "p4"]
    r1 = SwissRound((SwissGame("p1", "p3", "p1"), SwissGame("p4", "p2", "p2")))
    r2 = SwissRound((SwissGame("p2", "p1", "p1"), SwissGame("p3", "p4", "p3")))
    pairings = pair_round(four, [r1, r2], 3)
    assert {frozenset(b) for b in pairings.boards} == {frozenset(("p1", "p4")), frozenset(("p2", "p3"))}
    assert pairings.boards[0] in {("p1", "p4"), ("p4", "p1")}  # board 1: the pair with the higher score


def test_no_pairing_left_raises() -> None:
    four = ["a", "b", "c", "d"]
    rounds = [
        SwissRound((SwissGame("a", "c", "a"), SwissGame("d", "b", "b"))),
        SwissRound((SwissGame("b", "a", "a"), SwissGame("c", "d", "c"))),
        SwissRound((SwissGame("a", "d", "a"), SwissGame("c", "b", "b"))),
    ]
    with pytest.raises(SwissError):
        pair_round(four, rounds, 4)


def test_withdrawn_players_are_neither_paired_nor_given_the_bye() -> None:
    pairings = pair_round(EIGHT, [], 5, absent={"p8"})
    paired = {p for board in pairings.boards for p in board}
    assert "p8" not in paired and pairings.bye != "p8"
    assert len(paired) == 6 and pairings.bye == "p7"


def test_a_forfeit_counts_as_met_but_gives_no_colour() -> None:
    two_rounds = [
        SwissRound((SwissGame("p1", "p2", "p1", forfeit=True), SwissGame("p3", "p4", "p3"))),
    ]
    pairings = pair_round(["p1", "p2", "p3", "p4"], two_rounds, 3)
    assert frozenset(("p1", "p2")) not in {frozenset(b) for b in pairings.boards}


def test_a_double_forfeit_scores_nothing_for_either() -> None:
    first = SwissRound((SwissGame("p1", "p2", None, forfeit=True), SwissGame("p3", "p4", "p3")))
    pairings = pair_round(["p1", "p2", "p3", "p4"], [first], 3)
    # p3 (1 point) is alone in the top bracket and floats down to the highest-ranked 0-point player
    # that it has not met: p1.
    assert {frozenset(b) for b in pairings.boards} == {frozenset(("p1", "p3")), frozenset(("p2", "p4"))}


def test_a_forfeit_winner_does_not_get_the_bye() -> None:
    three = ["p1", "p2", "p3"]
    first = SwissRound((SwissGame("p1", "p2", "p2", forfeit=True),), bye="p3")
    # p2 won by forfeit and p3 had the bye: the bye must go to p1 though it is higher ranked.
    assert pair_round(three, [first], 3).bye == "p1"


# --- invariants over generated tournaments -------------------------------------------------------


def colour_runs(colours: list[str]) -> int:
    longest = run = 0
    for i, colour in enumerate(colours):
        run = run + 1 if i and colours[i - 1] == colour else 1
        longest = max(longest, run)
    return longest


def absolute_preference(colours: list[str]) -> str | None:
    """The colour a player must get (C.04.3 A.6.a), or None: |white - black| > 1, or the same
    colour in the last two games played."""
    difference = colours.count("w") - colours.count("b")
    if difference > 1 or colours[-2:] == ["w", "w"]:
        return "b"
    if difference < -1 or colours[-2:] == ["b", "b"]:
        return "w"
    return None


def can_complete_with_bye(
    active: list[str], bye: str, met: set[frozenset[str]], colours: dict[str, list[str]], topscorers: set[str]
) -> bool:
    """Whether the others can all be paired when `bye` sits out: no rematch (C.1), no two players
    with the same absolute colour preference unless one is a topscorer of the last round (C.3)."""
    rest = [p for p in active if p != bye]

    def allowed(a: str, b: str) -> bool:
        if frozenset((a, b)) in met:
            return False
        want_a, want_b = absolute_preference(colours[a]), absolute_preference(colours[b])
        return want_a is None or want_a != want_b or a in topscorers or b in topscorers

    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(rest)
    graph.add_edges_from((a, b) for i, a in enumerate(rest) for b in rest[i + 1 :] if allowed(a, b))
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(rest)


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[list[str], int, int, list[tuple[int, str]]]:
    size = draw(st.integers(8, 30))
    rounds = draw(st.integers(1, 7))
    seed = draw(st.integers(0, 2**32))
    withdrawals = draw(st.lists(st.tuples(st.integers(1, rounds), st.integers(0, size - 1)), max_size=3))
    players = [f"x{n:02d}" for n in range(size)]
    return players, rounds, seed, [(r, players[i]) for r, i in withdrawals]


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tournaments())
def test_invariants_of_generated_tournaments(case: tuple[list[str], int, int, list[tuple[int, str]]]) -> None:
    players, rounds_total, seed, withdrawals = case
    rng = random.Random(seed)
    rank = {p: i for i, p in enumerate(players)}
    history: list[SwissRound] = []
    met: set[frozenset[str]] = set()
    byes: set[str] = set()
    no_bye: set[str] = set()  # had the bye or won by forfeit
    score = dict.fromkeys(players, 0)
    colours: dict[str, list[str]] = {p: [] for p in players}
    for round_number in range(1, rounds_total + 1):
        absent = {p for r, p in withdrawals if r <= round_number}
        active = [p for p in players if p not in absent]
        try:
            pairings = pair_round(players, history, rounds_total, absent)
        except SwissError:
            return  # possible in a small field late on; the invariants held for every round before
        assert pairings == pair_round(players, history, rounds_total, absent)  # deterministic
        seated = [p for board in pairings.boards for p in board]
        assert sorted(seated + ([pairings.bye] if pairings.bye else [])) == sorted(active)  # each once
        assert (pairings.bye is not None) == (len(active) % 2 == 1)
        for white, black in pairings.boards:
            assert frozenset((white, black)) not in met  # C.1: never a rematch
        last_round = round_number == rounds_total
        topscorers = {p for p in active if last_round and score[p] * 2 > len(history)}
        if pairings.bye is not None:
            assert pairings.bye not in no_bye  # C.2: one bye (or forfeit win) at most
            eligible = [
                p for p in active if p not in no_bye and can_complete_with_bye(active, p, met, colours, topscorers)
            ]
            lowest = min(score[p] for p in eligible)
            assert score[pairings.bye] == lowest  # the bye to the lowest score group that allows it
        games = []
        for white, black in pairings.boards:
            forfeit = rng.random() < 0.05
            higher, lower = (white, black) if rank[white] < rank[black] else (black, white)
            winner: str | None = higher if rng.random() < 0.65 else lower
            if forfeit and rng.random() < 0.3:
                winner = None
            games.append(SwissGame(white, black, winner, forfeit))
            met.add(frozenset((white, black)))
            if not forfeit:
                colours[white].append("w")
                colours[black].append("b")
                for p, opponent in ((white, black), (black, white)):
                    excused = p in topscorers or opponent in topscorers  # A.7: last round only
                    difference = colours[p].count("w") - colours[p].count("b")
                    assert excused or abs(difference) <= 2
                    assert excused or colour_runs(colours[p]) <= 2
            elif winner is not None:
                no_bye.add(winner)
            if winner is not None:
                score[winner] += 1
        if pairings.bye is not None:
            byes.add(pairings.bye)
            no_bye.add(pairings.bye)
            score[pairings.bye] += 1
        history.append(SwissRound(tuple(games), pairings.bye))
