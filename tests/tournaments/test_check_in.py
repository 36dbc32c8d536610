"""Check-in on a fold alone (server/tournaments/decide.py; docs/TOURNAMENTS.md "Check-in"): the
window before the start, the confirmations, and the start that withdraws whoever did not confirm."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.game.rulesets import RULESETS
from server.domain_errors import Malformed, NotNow
from server.tournaments.decide import CheckIn, Create, Enter, EntryNotFound, Leave, Start, decide
from server.tournaments.model import CREATED, RUNNING, CheckInClosed, Format, Tournament, TournamentStarted
from tests.tournaments.test_decide import NOW, apply, made

START = NOW + timedelta(hours=1)
OPENS = START - timedelta(minutes=30)


def with_check_in(players: tuple[str, ...] = ("ann", "bob", "cy")) -> Tournament:
    return made(players, open=True, starts_at=START.isoformat(), check_in_minutes=30)


def test_entrants_check_in_inside_the_window_only_and_once() -> None:
    t = with_check_in()
    assert t.start_moment() == START and t.check_in_opens() == OPENS
    with pytest.raises(NotNow, match="opens at"):
        decide(t, CheckIn("ann", "ann"), OPENS - timedelta(seconds=1))
    with pytest.raises(EntryNotFound):
        decide(t, CheckIn("zed", "zed"), OPENS)
    assert apply(t, CheckIn("ann", "ann"), OPENS).command_id == "check-in-ann"
    assert t.checked_in == ["ann"]
    assert decide(t, CheckIn("ann", "ann"), OPENS).events == []  # again: nothing more, no refusal
    apply(t, CheckIn("bob", "bob"), START - timedelta(seconds=1))
    apply(t, Start(), START)
    with pytest.raises(NotNow, match="closed"):
        decide(t, CheckIn("ann", "ann"), START)


def test_a_tournament_without_check_in_refuses_one() -> None:
    t = made(("ann", "bob"), open=True)
    with pytest.raises(NotNow, match="no check-in"):
        decide(t, CheckIn("ann", "ann"), NOW)


def test_the_start_withdraws_the_unconfirmed_before_the_schedule_and_names_them() -> None:
    t = with_check_in(("ann", "bob", "cy", "di"))
    for player in ("ann", "cy", "di"):
        apply(t, CheckIn(player, player), OPENS)
    decision = apply(t, Start(), START)
    closed, start = decision.events
    assert isinstance(closed, CheckInClosed) and closed.missing == ("bob",)
    assert isinstance(start, TournamentStarted)
    assert t.status == RUNNING and t.players == ["ann", "cy", "di"] and t.not_checked_in == ["bob"]
    assert all("bob" not in r.pairings for r in t.rounds)


def test_the_start_is_refused_when_fewer_than_two_confirmed() -> None:
    t = with_check_in()
    apply(t, CheckIn("ann", "ann"), OPENS)
    with pytest.raises(NotNow, match="needs at least 2"):
        decide(t, Start(), START)
    assert t.status == CREATED and t.players == ["ann", "bob", "cy"]


def test_the_start_time_starts_it_by_itself_and_not_before() -> None:
    t = with_check_in()
    for player in ("ann", "bob"):
        apply(t, CheckIn(player, player), OPENS)
    assert decide(t, Start(scheduled=True), START - timedelta(seconds=1)).events == []
    apply(t, Start(scheduled=True), START)
    assert t.status == RUNNING and t.not_checked_in == ["cy"]
    assert decide(t, Start(scheduled=True), START).events == []  # started already: nothing to do


def test_the_director_may_start_early_and_check_in_closes_then() -> None:
    t = with_check_in()
    for player in ("ann", "bob"):
        apply(t, CheckIn(player, player), OPENS)
    apply(t, Start(), OPENS + timedelta(minutes=1))
    assert t.status == RUNNING and t.not_checked_in == ["cy"]


def test_entering_in_the_window_is_checking_in_and_leaving_undoes_it() -> None:
    t = with_check_in(())
    apply(t, Enter("ann", "ann", "player"), NOW)
    assert t.checked_in == []
    apply(t, Enter("bob", "bob", "player"), OPENS)
    apply(t, Enter("cy", "cy", "director"), OPENS)  # entered by the director: cy still confirms
    assert t.checked_in == ["bob"]
    apply(t, Leave("bob", "bob", "player"), OPENS)
    assert t.checked_in == []


def test_round_one_start_time_is_the_start_without_starts_at() -> None:
    t = made(("ann", "bob"), open=True, round_starts=(START.isoformat(),), check_in_minutes=10)
    assert t.start_moment() == START and t.check_in_opens() == START - timedelta(minutes=10)
    assert made(("ann", "bob"), round_starts=(START.isoformat(),)).start_moment() is None  # no check-in: as before


def create(**asked: object) -> Create:
    fields: dict[str, object] = {
        "name": "club night",
        "players": (),
        "ruleset": RULESETS["uno-duo"],
        "format": Format.SWISS,
        "commitment": "c" * 64,
        "rounds": 3,
        "open": True,
    }
    fields.update(asked)
    return Create(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        ({"check_in_minutes": 30}, "needs a start"),
        (
            {"check_in_minutes": 30, "starts_at": START, "open": False, "players": ("a", "b", "c", "d")},
            "open tournament",
        ),
        ({"check_in_minutes": 0, "starts_at": START}, "check_in_minutes"),
        ({"check_in_minutes": 24 * 60 + 1, "starts_at": START}, "check_in_minutes"),
        ({"starts_at": NOW}, "in the future"),
        ({"starts_at": START, "round_starts": (START - timedelta(minutes=1),)}, "no later than round 1"),
    ],
)
def test_a_check_in_that_cannot_work_is_refused_at_creation(asked: dict[str, object], says: str) -> None:
    with pytest.raises(Malformed, match=says):
        decide(Tournament("t_x"), create(**asked), NOW)


def test_a_creation_records_the_start_and_the_window() -> None:
    (created,) = decide(Tournament("t_x"), create(starts_at=START, check_in_minutes=30), NOW).events
    assert created.payload()["starts_at"] == START.isoformat().replace("+00:00", "Z") or created.payload()["starts_at"]
    assert created.payload()["check_in_minutes"] == 30
    (plain,) = decide(Tournament("t_x"), create(), NOW).events
    assert "starts_at" not in plain.payload() and "check_in_minutes" not in plain.payload()  # old shape kept


def test_the_house_bots_the_service_names_need_no_check_in() -> None:
    t = with_check_in(("ann", "bot-greedy-1", "cy"))
    apply(t, CheckIn("ann", "ann"), OPENS)
    apply(t, Start(present=frozenset({"bot-greedy-1"})), START)
    assert t.players == ["ann", "bot-greedy-1"] and t.not_checked_in == ["cy"]
