"""Late entry and half-point byes in a Swiss, on a fold alone (docs/TOURNAMENTS.md "Late entry",
"Half-point byes"): entries after the start until a set round is paired, half points in the
pairing, the standings and the TRF, and byes asked for before a round is paired."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.domain_errors import Malformed, NotNow
from server.tournaments.decide import (
    MAX_HALF_BYES,
    Advance,
    Enter,
    EntryNotFound,
    MatchEnd,
    RecordResult,
    RequestBye,
    Start,
    Withdraw,
    decide,
)
from server.tournaments.model import FINISHED, Format, Tournament
from server.tournaments.standings import StandingRow, half_points
from server.tournaments.swiss import SwissGame, SwissRound, pair_round
from server.tournaments.trf import tournament_trf, trf_text
from tests.profiles import examples
from tests.tournaments.test_check_in import create
from tests.tournaments.test_decide import NOW, SEED, apply, made

FIELD = ("p1", "p2", "p3", "p4", "p5", "p6")


def swiss(players: tuple[str, ...] = FIELD, rounds: int = 4, **switches: object) -> Tournament:
    t = made(players, format=Format.SWISS, rounds=rounds, **switches)
    apply(t, Start())
    return t


def open_and_play(t: Tournament, rng: random.Random | None = None) -> int:
    """Open the next round and decide each of its matches (white wins, or at random); its number."""
    apply(t, Advance(SEED))
    number = t.opened
    for slot in t.round_slots(number):
        if slot.match is not None and not t.done(slot):
            seat = rng.randrange(2) if rng is not None else 0
            apply(t, RecordResult(slot.match, MatchEnd(seat, (0, 100) if seat == 0 else (100, 0), slot.seats)))
    return number


def row(t: Tournament, player: str) -> StandingRow:
    return next(r for r in t.standings(SEED) if r.player == player)


# ---------------------------------------------------------------- half-point byes


def test_a_half_point_bye_leaves_the_player_out_and_scores_a_half() -> None:
    t = swiss()
    assert apply(t, RequestBye("p1", "p1", 1)).command_id == "bye-p1-1"
    assert decide(t, RequestBye("p1", "p1", 1), NOW).events == []  # again: nothing more
    open_and_play(t)
    assert all(not slot.has("p1") for slot in t.round_slots(1)) and t.rounds[0].bye != "p1"
    standing = row(t, "p1")
    assert standing.tiebreaks["score"] == 0.5 and standing.half_byes == 1 and standing.byes == 0
    winners = [r for r in t.standings(SEED) if r.won == 1]
    assert all(type(r.tiebreaks["score"]) is int for r in winners)  # whole scores stay whole numbers


def test_a_bye_is_refused_once_its_round_is_paired_past_the_bound_or_outside_a_swiss() -> None:
    t = swiss()
    open_and_play(t)
    with pytest.raises(NotNow, match="paired already"):
        decide(t, RequestBye("p2", "p2", 1), NOW)
    with pytest.raises(Malformed, match="1 to 4"):
        decide(t, RequestBye("p2", "p2", 5), NOW)
    with pytest.raises(EntryNotFound):
        decide(t, RequestBye("zed", "zed", 3), NOW)
    for number in range(2, 2 + MAX_HALF_BYES):
        apply(t, RequestBye("p2", "p2", number))
    with pytest.raises(NotNow, match="at most"):
        decide(t, RequestBye("p2", "p2", 4), NOW)
    robin = made(("a", "b"))
    with pytest.raises(NotNow, match="swiss"):
        decide(robin, RequestBye("a", "a", 1), NOW)
    apply(t, Withdraw("p3", "gone"))
    with pytest.raises(NotNow, match="still in"):
        decide(t, RequestBye("p3", "p3", 4), NOW)


def test_half_points_in_the_pairing_sit_between_the_score_groups() -> None:
    history = [SwissRound((SwissGame("a", "c", "a"), SwissGame("d", "e", "d")), half_byes=("b",))]
    pairings = pair_round(["a", "b", "c", "d", "e"], history, 3)
    assert ("a", "d") in pairings.boards or ("d", "a") in pairings.boards  # the 1-pointers meet
    assert pairings.bye != "b"  # a half-point bye leaves the PAB to someone lower: c or e
    assert "+" not in trf_text("x", ["a", "b", "c", "d", "e"], {}, history, 3)
    assert "0000 - H" in trf_text("x", ["a", "b", "c", "d", "e"], {}, history, 3)


def test_the_trf_and_the_standings_agree_on_half_points() -> None:
    t = swiss()
    apply(t, RequestBye("p4", "p4", 1))
    open_and_play(t)
    report = tournament_trf(t, t.standings(SEED), {p: p for p in t.players})
    line = next(line for line in report.splitlines() if " p4 " in line)
    assert " 0.5 " in line and "0000 - H" in line
    assert half_points(5) == 2.5 and half_points(4) == 2 and type(half_points(4)) is int


# ---------------------------------------------------------------- late entry


def test_late_entries_are_taken_until_the_set_round_is_paired_and_paired_from_the_next() -> None:
    t = swiss(late_entry_rounds=2)
    open_and_play(t)
    apply(t, Enter("late", "late", "director"))
    assert t.entered_from == {"late": 2}
    assert row(t, "late").tiebreaks["score"] == 0
    open_and_play(t)
    assert any(slot.has("late") for slot in t.round_slots(2)) or t.rounds[1].bye == "late"
    with pytest.raises(NotNow, match="until round 2 was paired"):
        decide(t, Enter("later", "later", "director"), NOW)


def test_a_late_entrant_missed_rounds_score_a_half_when_the_director_allows() -> None:
    t = swiss(late_entry_rounds=3, late_entry_bye=True)
    open_and_play(t)
    open_and_play(t)
    apply(t, Enter("late", "late", "director"))
    open_and_play(t)
    standing = row(t, "late")
    assert standing.half_byes == 2
    assert t.scheduled_count("late") == 2  # 4 rounds, 2 missed


def test_late_entry_is_refused_where_it_cannot_work() -> None:
    for asked, says in (
        ({"late_entry_rounds": 5}, "1 to 3"),
        ({"late_entry_bye": True}, "needs late_entry_rounds"),
        ({"late_entry_rounds": 1, "duplicate": True}, "duplicate"),
        ({"late_entry_rounds": 1, "format": Format.ROUND_ROBIN, "rounds": None}, "swiss"),
    ):
        with pytest.raises(Malformed, match=says):
            decide(Tournament("t_x"), create(**asked), NOW)


# ---------------------------------------------------------------- properties


@st.composite
def evenings(draw: st.DrawFn) -> tuple[int, int, int, list[tuple[int, int]], list[tuple[int, int]], bool]:
    size = draw(st.integers(3, 10))
    rounds = draw(st.integers(2, 5))
    late = draw(st.integers(1, rounds))
    entries = draw(st.lists(st.tuples(st.integers(0, late - 1), st.integers(0, 3)), max_size=4))
    byes = draw(st.lists(st.tuples(st.integers(0, size + 3), st.integers(1, rounds)), max_size=6))
    return size, rounds, late, entries, byes, draw(st.booleans())


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(evenings(), st.integers(0, 2**32))
def test_late_entrants_are_never_paired_before_they_entered_and_byes_asked_for_are_honoured(
    case: tuple[int, int, int, list[tuple[int, int]], list[tuple[int, int]], bool], seed: int
) -> None:
    size, rounds, late, entries, byes, allowed = case
    rng = random.Random(seed)
    t = made(
        tuple(f"p{n}" for n in range(size)),
        format=Format.SWISS,
        rounds=rounds,
        late_entry_rounds=late,
        late_entry_bye=allowed,
    )
    apply(t, Start())
    honoured: dict[int, set[str]] = {}
    for number in range(1, rounds + 1):
        for after_round, k in entries:
            if after_round == number - 1 and f"late{k}" not in t.players and t.entries_open():
                apply(t, Enter(f"late{k}", f"late{k}", "director"))
        for who, asked in byes:
            pool = t.players
            player = pool[who % len(pool)]
            if asked >= number:
                try:
                    if apply(t, RequestBye(player, player, asked)).events:
                        honoured.setdefault(asked, set()).add(player)
                except NotNow:
                    pass  # past the bound, or withdrawn: refused, nothing recorded
        if t.status == FINISHED:
            break
        open_and_play(t, rng)
        if t.status == FINISHED or t.opened < number:
            break  # nobody left to pair without a rematch: the tournament ended
        seated = {p for slot in t.round_slots(number) for p in slot.seats} | {t.rounds[number - 1].bye} - {None}
        for player, first in t.entered_from.items():
            assert first <= number or player not in seated  # never paired before entering
        assert not (honoured.get(number, set()) & seated)  # a bye asked for: left out of the pairing
    rows = {r.player: r for r in t.standings(SEED)}
    for player in t.players:
        halves = sum(1 for n in range(1, t.opened + 1) if player in t.half_byes_in(n))
        assert rows[player].half_byes == halves
        whole = rows[player].won + rows[player].byes
        assert rows[player].tiebreaks["score"] == whole + halves / 2
