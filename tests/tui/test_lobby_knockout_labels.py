"""The lobby's line for a knockout's next match (issue 36.6): the server's ``label`` (``GET
/api/me``'s ``next``, the lobby socket's ``pairing``) said where a round robin says "round 2":
``Cup · winners' round 2 vs bob``, ``Cup · losers' round 3 vs cyd``, ``Cup · grand final vs
dan``, ``Cup · round 1 table 3 — top 2 go on, with bob, cyd, dan``, ``Cup · pool B round 2 vs
eve``; without a label the words are as before."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tui_client.models.lobby_model import next_lines, pairing_of, pairing_words

NOW = datetime(2026, 12, 8, 17, 0, tzinfo=UTC)
CUP: dict[str, Any] = {
    "id": "t_cup",
    "name": "Cup",
    "players": [{"id": f"p_{n}", "name": n, "kind": "human"} for n in ("ann", "bob", "cyd", "dan", "eve")],
}


def two_seat(label: str | None, opponent: str) -> dict[str, Any]:
    return {
        "tournament": "t_cup",
        "round": 4,
        "opponent": f"p_{opponent}",
        "white": True,
        "opponents": [f"p_{opponent}"],
        "label": label,
    }


@pytest.mark.parametrize(
    ("label", "opponent", "line"),
    [
        ("winners' round 2", "bob", "Cup · winners' round 2 vs bob (white: you draft first)"),
        ("losers' round 3", "cyd", "Cup · losers' round 3 vs cyd (white: you draft first)"),
        ("grand final", "dan", "Cup · grand final vs dan (white: you draft first)"),
        ("pool B round 2", "eve", "Cup · pool B round 2 vs eve (white: you draft first)"),
        (None, "bob", "Cup round 4: vs bob (white: you draft first)"),
    ],
)
def test_a_two_seat_knockout_says_its_round(label: str | None, opponent: str, line: str) -> None:
    me = {"id": "p_ann", "name": "ann", "matches": [], "next": [two_seat(label, opponent)]}
    assert next_lines(me, [CUP], NOW) == [line]


def test_a_knockout_table_says_who_goes_on() -> None:
    n = {
        "tournament": "t_cup",
        "round": 1,
        "opponent": "p_bob",
        "white": False,
        "opponents": ["p_bob", "p_cyd", "p_dan"],
        "label": "round 1 table 3 — top 2 go on",
    }
    me = {"id": "p_ann", "name": "ann", "matches": [], "next": [n]}
    assert next_lines(me, [CUP], NOW) == ["Cup · round 1 table 3 — top 2 go on, with bob, cyd, dan"]


def test_the_pairing_message_carries_the_label() -> None:
    deadline = (NOW + timedelta(minutes=4, seconds=32)).isoformat()
    message = {
        "type": "pairing",
        "tournament": "t_cup",
        "name": "Cup",
        "round": 5,
        "match": "m_1",
        "join_deadline": deadline,
        "opponent": {"id": "p_bob", "name": "bob", "kind": "human"},
        "white": True,
        "seats": 2,
        "label": "winners' round 2",
    }
    pairing = pairing_of(message)
    assert pairing is not None and pairing.label == "winners' round 2"
    assert pairing_words(pairing, "bob", "Cup", "", NOW) == "Cup · winners' round 2 vs bob — join within 4:32"
    table = pairing_of({**message, "seats": 4, "label": "final table"})
    assert table is not None
    assert (
        pairing_words(table, "bob, cyd, dan", "Cup", "", NOW)
        == "Cup · final table, with bob, cyd, dan — join within 4:32"
    )
    plain = pairing_of({key: value for key, value in message.items() if key != "label"})
    assert plain is not None and pairing_words(plain, "bob", "Cup", "", NOW).startswith("Cup round 5 vs bob")


def test_the_round_to_come_says_its_label() -> None:
    from tui_client.models.lobby_model import bye_lines

    state = {
        "names": {"t_cup": "Cup"},
        "coming": [{"tournament": "t_cup", "round": 3, "starts_at": None, "label": "losers' round 2"}],
    }
    assert bye_lines(state, NOW) == ["Cup · losers' round 2: paired when it opens"]
    state["coming"] = [{"tournament": "t_cup", "round": 3, "starts_at": None}]
    assert bye_lines(state, NOW) == ["Cup round 3: paired when it opens"]


def test_a_knockout_match_line_names_its_node() -> None:
    from tui_client.models.lobby_model import match_where

    summary = {"tournament": "t_cup", "round": 2, "node": "L1-1", "bracket": "losers"}
    assert match_where(summary, {"t_cup": "Cup"}) == "Cup round 2 · L1-1"
    assert match_where({**summary, "node": "pool-B"}, {"t_cup": "Cup"}) == "Cup round 2 · pool B"
    assert match_where({"tournament": "t_cup", "round": 2}, {"t_cup": "Cup"}) == "Cup round 2"
