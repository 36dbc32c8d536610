"""Single and double elimination plans and their resolution (server/tournaments/brackets.py), with
properties over every field size from 2 to 64 and random results, forfeits and withdrawals."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.tournaments.bracket_plan import Plan, Seed
from server.tournaments.brackets import (
    bracket_size,
    double_elimination,
    resolve,
    seed_positions,
    single_elimination,
)


@dataclass
class Run:
    """A knockout played to its end by :func:`play`: every match in round order."""

    plan: Plan
    players: list[str]
    results: dict[str, tuple[str | None, ...]] = field(default_factory=dict)
    played: list[tuple[int, str, tuple[str, ...]]] = field(default_factory=list)  # (round, node, entrants)
    forfeits: int = 0
    places: dict[str, int] = field(default_factory=dict)


def play(
    plan: Plan,
    n: int,
    rng: random.Random,
    *,
    forfeit_rate: float = 0.0,
    withdraw_rate: float = 0.0,
    double_forfeit_rate: float = 0.0,
    winner: str = "random",
) -> Run:
    """Play ``plan`` as the Decider does: round after round, each round's ready nodes; a
    withdrawn player forfeits every later node (the other side advances)."""
    run = Run(plan, [f"p{i:02d}" for i in range(n)])
    withdrawn: set[str] = set()
    for number in range(1, plan.rounds + 1):
        state = resolve(plan, run.players, run.results)
        for node in state.ready():
            if node.node.round != number:
                assert node.node.round > number  # nothing ready is left behind
                continue
            a, b = node.entrants
            run.played.append((number, node.node.id, (a, b)))
            gone = [p for p in (a, b) if p in withdrawn]
            if len(gone) == 2 or rng.random() < double_forfeit_rate:
                run.results[node.node.id] = (None,)
                run.forfeits += 1
                continue
            if gone:
                win = b if gone[0] == a else a
                run.forfeits += 1
            elif winner == "seed":
                win = min(a, b)
            else:
                win = a if rng.random() < 0.5 else b
                run.forfeits += rng.random() < forfeit_rate
            run.results[node.node.id] = (win, b if win == a else a)
            for p in (a, b):
                if rng.random() < withdraw_rate:
                    withdrawn.add(p)
    final = resolve(plan, run.players, run.results)
    assert final.places is not None, "everything is decided after the last round"
    run.places = final.places
    return run


def test_seed_positions_are_the_standard_ones() -> None:
    assert seed_positions(8) == [0, 7, 3, 4, 1, 6, 2, 5]
    assert [s + 1 for s in seed_positions(16)[:4]] == [1, 16, 8, 9]


def test_single_elimination_gives_byes_to_the_top_seeds() -> None:
    plan = single_elimination(6)  # a bracket of 8: seeds 1 and 2 have byes
    first = [n for n in plan.nodes if n.round == 1]
    byes = [n.sources for n in first if len(n.sources) == 1]
    assert sorted(s.index for (s,) in byes if isinstance(s, Seed)) == [0, 1]
    state = resolve(plan, list("abcdef"), {})
    assert [s.node.id for s in state.ready()] == ["W1-2", "W1-4"]  # d v e, c v f
    assert state.nodes["W1-1"].status == "walkover" and state.nodes["W1-1"].winner == "a"


def test_seeds_one_and_two_meet_only_in_the_final() -> None:
    for n in range(2, 65):
        run = play(single_elimination(n), n, random.Random(n), winner="seed")
        final = [e for _, node, e in run.played if node == "F"]
        assert final == [("p00", "p01")]


def test_single_elimination_places_share_the_semi_finals() -> None:
    run = play(single_elimination(8), 8, random.Random(1), winner="seed")
    assert sorted(Counter(run.places.values()).items()) == [(1, 1), (2, 1), (3, 2), (5, 4)]


def test_double_elimination_places_are_the_usual_ones() -> None:
    run = play(double_elimination(16), 16, random.Random(2), winner="seed")
    assert sorted(Counter(run.places.values()).items()) == [
        (1, 1),
        (2, 1),
        (3, 1),
        (4, 1),
        (5, 2),
        (7, 2),
        (9, 4),
        (13, 4),
    ]
    assert run.places["p00"] == 1 and "GF2" not in [node for _, node, _ in run.played]


def test_the_reset_is_played_when_the_losers_side_wins_the_grand_final() -> None:
    plan = double_elimination(2)
    played: dict[str, tuple[str | None, ...]] = {"W1-1": ("a", "b"), "GF": ("b", "a")}
    state = resolve(plan, ["a", "b"], played)
    assert state.nodes["GF2"].status == "ready" and state.nodes["GF2"].entrants == ("b", "a")
    won_by_winners_side = resolve(plan, ["a", "b"], {"W1-1": ("a", "b"), "GF": ("a", "b")})
    assert won_by_winners_side.nodes["GF2"].status == "void"
    assert won_by_winners_side.places == {"a": 1, "b": 2}
    state = resolve(plan, ["a", "b"], {**played, "GF2": ("a", "b")})
    assert state.places == {"a": 1, "b": 2}


def test_a_double_forfeit_puts_both_out_and_the_next_node_is_a_walkover() -> None:
    plan = single_elimination(4)
    state = resolve(plan, list("abcd"), {"W1-1": (None,), "W1-2": ("b", "c")})
    assert state.nodes["F"].status == "walkover" and state.nodes["F"].winner == "b"
    assert state.places == {"b": 1, "c": 2, "a": 3, "d": 3}


# ---------------------------------------------------------------- properties


def _check(run: Run, n: int, double: bool) -> None:
    # every entrant gets a final place; the places are a ranking with ties (1, 2, 3, 3, 5)
    assert sorted(run.places) == sorted(run.players)
    ranks = sorted(run.places.values())
    assert ranks[0] == 1
    assert all(r == i + 1 or r == ranks[i - 1] for i, r in enumerate(ranks))
    # nobody plays twice in a round
    by_round: dict[int, list[str]] = {}
    for number, _, entrants in run.played:
        by_round.setdefault(number, []).extend(entrants)
    assert all(len(ps) == len(set(ps)) for ps in by_round.values())
    # nobody plays after elimination: one loss (two in a double elimination) and you are out
    allowed = 2 if double else 1
    losses: Counter[str] = Counter()
    for _, node, entrants in run.played:
        assert all(losses[p] < allowed for p in entrants), f"{node}: {entrants} played after elimination"
        result = run.results[node]
        losses.update(p for p in entrants if p not in result[:1])
        if double and node == "GF" and result[0] == entrants[0]:
            losses[entrants[1]] = allowed  # the winners' champion won the grand final: no reset
        if double and result[0] is None:
            losses.update({p: allowed for p in entrants})  # a double forfeit: both out
    champions = [p for p in run.players if run.places[p] == 1]
    both_out = [set(e) for _, node, e in run.played if run.results[node] == (None,)]
    # more than one first: the last matches were all forfeited by both sides, nobody won the event
    assert len(champions) == 1 or all(any(p in e for e in both_out) for p in champions)


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 64), st.randoms(use_true_random=False))
def test_single_elimination_has_n_minus_1_decisions(n: int, rng: random.Random) -> None:
    run = play(single_elimination(n), n, rng)
    _check(run, n, double=False)
    byes = bracket_size(n) - n
    assert len(run.played) == n - 1  # a bye is not a match: n - 1 matches, one per player out
    assert sum(1 for r in run.played if r[0] == 1) == bracket_size(n) // 2 - byes  # round 1 less its byes
    assert max(run.places.values()) <= n
    # every node of the bracket's 2^k - 1 is decided: n - 1 by a match, the byes by walkover
    statuses = Counter(s.status for s in resolve(run.plan, run.players, run.results).nodes.values())
    assert statuses == Counter({"decided": n - 1, **({"walkover": byes} if byes else {})})


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 64), st.randoms(use_true_random=False))
def test_double_elimination_plays_2n_minus_2_or_2n_minus_1_matches(n: int, rng: random.Random) -> None:
    run = play(double_elimination(n), n, rng)
    _check(run, n, double=True)
    reset = any(node == "GF2" for _, node, _ in run.played)
    assert len(run.played) == (2 * n - 1 if reset else 2 * n - 2)
    # every non-champion loses exactly twice; the champion once (a reset) or never
    losses = Counter(p for _, node, e in run.played for p in e if p not in run.results[node][:1])
    champion = next(p for p, place in run.places.items() if place == 1)
    assert all(losses[p] == 2 for p in run.players if p != champion)
    assert losses[champion] == (1 if reset else 0)
    statuses = Counter(s.status for s in resolve(run.plan, run.players, run.results).nodes.values())
    assert statuses["decided"] == len(run.played) and set(statuses) <= {"decided", "walkover", "void"}


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 64),
    st.sampled_from([single_elimination, double_elimination]),
    st.randoms(use_true_random=False),
)
def test_forfeits_and_withdrawals_still_give_everyone_a_place(n: int, build: object, rng: random.Random) -> None:
    assert build in (single_elimination, double_elimination)
    plan = single_elimination(n) if build is single_elimination else double_elimination(n)
    run = play(plan, n, rng, forfeit_rate=0.2, withdraw_rate=0.15, double_forfeit_rate=0.05)
    _check(run, n, double=build is double_elimination)


# ---------------------------------------------------------------- losers' bracket rematches


def _rematches(plan: Plan, n: int, seeds: int = 100) -> Counter[str]:
    """Over ``seeds`` random brackets: the losers' rounds in which two players met again."""
    where: Counter[str] = Counter()
    for seed in range(seeds):
        run = play(plan, n, random.Random(seed))
        met: set[frozenset[str]] = set()
        for _, node, entrants in run.played:
            pair = frozenset(entrants)
            if node.startswith("L") and pair in met:
                where[node.split("-")[0]] += 1
            met.add(pair)
    return where


def _straight(count: int, _winners_round: int) -> list[int]:
    return list(range(count))


def _reversed(count: int, _winners_round: int) -> list[int]:
    return list(range(count - 1, -1, -1))


def _halves_swapped(count: int, _winners_round: int) -> list[int]:
    return [(i + count // 2) % count for i in range(count)]


def _pairs_flipped(count: int, _winners_round: int) -> list[int]:
    return [i ^ 1 for i in range(count)] if count > 1 else [0]


@pytest.mark.parametrize("n", [8, 16, 32, 64])
def test_the_crossover_avoids_losers_bracket_rematches(n: int) -> None:
    """Rematches in the losers' bracket, counted over 100 random brackets: the straight order
    sends winners' round 2's losers at once against the players they beat in round 1; the
    alternation (reverse, then swap halves) never does (no rematch in L2), and leaves fewer
    rematches than the straight order, than any one order alone, and than flipping pairs (which
    keeps each drop away from its own victims but gathers them again a round later) from 32 up."""
    ours = _rematches(double_elimination(n), n)
    assert ours["L2"] == 0
    straight = _rematches(double_elimination(n, _straight), n)
    assert ours.total() < straight.total() / 2, (ours, straight)
    if n >= 32:
        for other in (_reversed, _halves_swapped, _pairs_flipped):
            assert ours.total() < _rematches(double_elimination(n, other), n).total()


def test_the_first_drop_is_never_a_rematch_from_five_players_up() -> None:
    for n in range(5, 65):
        assert _rematches(double_elimination(n), n, seeds=3)["L2"] == 0, n
