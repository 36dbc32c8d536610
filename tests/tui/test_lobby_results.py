"""A finished match's line in the lobby names its real winner (issue 33: at a classic table the
lobby named every other seat as the winner whenever the player was not it)."""

from __future__ import annotations

from typing import Any

from tui_client.models.lobby_model import lobby_entries

ANN = {"id": "p_ann", "name": "ann", "kind": "human"}
BOB = {"id": "p_bob", "name": "bob", "kind": "human"}
DAN = {"id": "p_dan", "name": "dan", "kind": "human"}
RANDOM = {"id": "bot-random-1", "name": "random-1", "kind": "bot"}


def done_line(seats: list[dict[str, Any]], scores: list[int], winner: str | None, places: list[int] | None) -> str:
    match = {
        "id": "m_t",
        "status": "finished",
        "seats": seats,
        "scores": scores,
        "places": places,
        "winner": winner,
        "tournament": None,
        "round": None,
    }
    (entry,) = lobby_entries({"id": "p_ann", "matches": [match]})
    return entry.text


def test_a_classic_table_names_the_seat_that_won_and_the_players_place() -> None:
    line = done_line([BOB, ANN, DAN, RANDOM], [0, 96, 110, 0], "p_dan", [3, 2, 1, 4])
    assert line == "done   vs dan, random-1, bob · casual · dan won, you came 2nd of 4 110–0–96–0"
    assert "bob, dan, random-1 won" not in line


def test_the_winner_of_a_table_and_of_a_two_seat_match() -> None:
    assert done_line([ANN, BOB, DAN], [120, 0, 0], "p_ann", [1, 2, 3]).endswith("· you won 120–0–0")
    assert done_line([ANN, BOB], [67, 202], "p_bob", None).endswith("· bob won 202–67")
    assert done_line([ANN, BOB], [0, 0], None, None).endswith("· no winner 0–0")
