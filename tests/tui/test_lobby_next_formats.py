"""The lobby's line for a tournament's next match in every format (issue 22): a table says its
size and the other seats (``Cup round 2 at a table of 4 with bob, cyd, dan``), a round whose
start is still to come says when (``starts 19:30`` today, with the date another day, in the
local zone), and the two-seat wording is as before."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tui_client.models.lobby_model import next_lines, pairing_of, pairing_words, start_words, waiting_lines

NOW = datetime(2026, 12, 8, 17, 0, tzinfo=UTC)
CUP: dict[str, Any] = {
    "id": "t_cup",
    "name": "Cup",
    "players": [{"id": f"p_{n}", "name": n, "kind": "human"} for n in ("ann", "bob", "cyd", "dan", "eve")],
}


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def me(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"id": "p_ann", "name": "ann", "matches": [], "next": list(entries)}


def test_a_table_names_its_size_and_the_other_seats() -> None:
    n = {
        "tournament": "t_cup",
        "round": 2,
        "opponent": "p_bob",
        "opponent_name": "bob, cyd, dan",
        "white": True,
        "opponents": ["p_bob", "p_cyd", "p_dan"],
    }
    assert next_lines(me(n), [CUP], NOW) == ["Cup round 2 at a table of 4 with bob, cyd, dan"]
    # the tournament not loaded: the server's names, not the ids
    assert next_lines(me(n), [], NOW) == ["t_cup round 2 at a table of 4 with bob, cyd, dan"]


def test_a_table_of_ten_names_three_then_how_many_more() -> None:
    others = [f"p_{i}" for i in range(9)]
    n = {"tournament": "t_cup", "round": 1, "opponent": "p_0", "white": False, "opponents": others}
    assert next_lines(me(n), [CUP], NOW) == ["Cup round 1 at a table of 10 with p_0, p_1, p_2 +6"]


def test_the_two_seat_wording_is_kept() -> None:
    n = {"tournament": "t_cup", "round": 3, "opponent": "p_bob", "white": True, "opponents": ["p_bob"]}
    assert next_lines(me(n), [CUP], NOW) == ["Cup round 3: vs bob (white: you draft first)"]
    old = {"tournament": "t_cup", "round": 3, "opponent": "p_cyd", "white": False}  # an older server
    assert waiting_lines(me(old), [CUP], NOW) == ["waiting for Cup round 3: vs cyd (black: they draft first)"]


def test_a_start_to_come_is_said_today_as_a_time_and_later_with_the_date() -> None:
    today = {"tournament": "t_cup", "round": 2, "opponent": "p_bob", "white": True, "starts_at": "2026-12-08T19:30Z"}
    later = {**today, "round": 3, "starts_at": "2026-12-15T19:30:00+00:00"}
    past = {**today, "round": 1, "starts_at": "2026-12-08T16:59:00+00:00"}
    assert next_lines(me(today, later, past), [CUP], NOW) == [
        "Cup round 2: vs bob (white: you draft first) · starts 19:30",
        "Cup round 3: vs bob (white: you draft first) · starts Tue 15 Dec 19:30",
        "Cup round 1: vs bob (white: you draft first)",  # its start has passed: the join deadline counts
    ]


def test_a_start_is_said_in_the_local_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "America/New_York")  # -05:00 in December
    time.tzset()
    assert start_words("2026-12-08T19:30:00+00:00", NOW) == "starts 14:30"
    assert start_words("2026-12-09T03:00:00+00:00", NOW) == "starts 22:00"  # still the 8th there
    assert start_words("2026-12-09T06:00:00+00:00", NOW) == "starts Wed 9 Dec 01:00"
    assert start_words(None, NOW) == "" and start_words("soon", NOW) == ""


def test_a_table_at_a_table_with_its_start() -> None:
    n = {
        "tournament": "t_cup",
        "round": 2,
        "opponent": "p_bob",
        "white": False,
        "opponents": ["p_bob", "p_cyd"],
        "starts_at": (NOW + timedelta(hours=2, minutes=30)).isoformat(),
    }
    assert next_lines(me(n), [CUP], NOW) == ["Cup round 2 at a table of 3 with bob, cyd · starts 19:30"]


def test_the_pairing_message_of_a_table() -> None:
    message = {
        "type": "pairing",
        "tournament": "t_cup",
        "round": 2,
        "match": "m_1",
        "seats": 4,
        "join_deadline": (NOW + timedelta(seconds=272)).isoformat(),
    }
    pairing = pairing_of(message)
    assert pairing is not None and pairing.seats == 4
    words = pairing_words(pairing, "bob, cyd, dan", "Cup", "", NOW)
    assert words == "Cup round 2 at a table of 4 with bob, cyd, dan — join within 4:32"
    assert pairing_words(pairing, None, "Cup", "", NOW) == "Cup round 2 at a table of 4 — join within 4:32"
    two = pairing_of({**message, "seats": 2})
    assert two is not None and pairing_words(two, "bob", "Cup", "", NOW) == "Cup round 2 vs bob — join within 4:32"
    old = pairing_of({k: v for k, v in message.items() if k != "seats"})
    assert old is not None and old.seats == 2
