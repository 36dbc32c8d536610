"""A timed tournament round's clock (RULES.md D26) where a player looks: the table's title and the
lobby's line for the match: the time left in the round, then "time called"."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tui_client.models.lobby_model import lobby_entries, round_clock_words
from tui_client.models.play_model import PlayModel, round_deadline_in
from tui_client.models.tournament_model import round_heading_words

NOW = datetime(2026, 12, 7, 19, 0, tzinfo=UTC)
DEADLINE = "2026-12-07T19:12:30.000000Z"  # 12:30 after NOW


def test_the_table_counts_the_round_down_then_says_time_is_called() -> None:
    m = PlayModel("m_1", 0, ["ada", "bob"], view={"phase": "play", "time_called": None})
    assert m.round_clock(NOW) is None  # an untimed match: no round clock
    m.round_deadline = DEADLINE
    assert m.round_clock(NOW) == "12:30 left in round"
    assert m.round_clock(NOW + timedelta(minutes=13)) == "round time up"  # the call is on its way
    m.view = {"phase": "play", "time_called": DEADLINE}
    assert m.round_clock(NOW + timedelta(minutes=13)) == "time called: decided on totals"


def test_the_deadline_is_read_off_the_tournament_round() -> None:
    t = {"rounds": [{"number": 1, "deadline": None}, {"number": 2, "deadline": DEADLINE}]}
    assert round_deadline_in(t, 2) == DEADLINE
    assert round_deadline_in(t, 1) is None and round_deadline_in(t, 3) is None


def test_the_lobby_line_of_a_live_timed_match_says_the_time_left() -> None:
    summary = {
        "id": "m_1",
        "status": "live",
        "seats": [{"id": "p_ada", "name": "ada"}, {"id": "p_bob", "name": "bob"}],
        "scores": [0, 12],
        "tournament": "t_1",
        "round": 2,
        "round_deadline": DEADLINE,
        "time_called": None,
    }
    me = {"id": "p_ada", "matches": [summary]}
    line = lobby_entries(me, (), {"t_1": "Club night"}, NOW)[0].text
    assert line.endswith("· live · 12:30 left in the round"), line
    called = lobby_entries({**me, "matches": [{**summary, "time_called": DEADLINE}]}, (), {}, NOW)[0].text
    assert called.endswith("· live · time called: decided on totals"), called
    assert round_clock_words({**summary, "round_deadline": None}, NOW) == ""  # untimed: as before


def test_a_timed_rounds_heading_says_when_it_ends_then_that_time_was_called() -> None:
    t = {"format": "swiss", "rounds": []}
    running = {"number": 1, "status": "running", "pairings": [{"slot": "1.1"}], "deadline": DEADLINE}
    assert round_heading_words(t, running)[1].startswith("ends ")
    assert round_heading_words(t, {**running, "time_called": DEADLINE})[1] == "time called"
    assert round_heading_words(t, {**running, "deadline": None})[1] == ""  # untimed: as before
    assert round_heading_words(t, {"number": 2, "status": "pending", "pairings": []})[1] == "not paired yet"


def test_a_match_decided_when_time_was_called_says_so_in_the_lobby() -> None:
    seats = [{"id": "p_ada", "name": "ada"}, {"id": "p_bob", "name": "bob"}]
    match = {"id": "m_t", "status": "finished", "seats": seats, "scores": [12, 40], "winner": "p_ada"}
    (entry,) = lobby_entries({"id": "p_ada", "matches": [{**match, "ended": {"how": "time_called"}}]})
    assert entry.text.endswith("· you won 12–40 when time was called"), entry.text
