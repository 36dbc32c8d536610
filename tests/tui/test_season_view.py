"""The season's rows and words (tui_client/models/season_view.py), from a server's answer alone."""

from __future__ import annotations

from typing import Any

from tui_client.models.season_view import (
    division_words,
    divisions_of,
    event_rows,
    move_lines,
    player_season_words,
    season_rules,
    season_title,
    standing_cells,
)


def row(player: str, rank: int, division: str | None, points: int, counted: list[str]) -> dict[str, Any]:
    return {
        "player": player,
        "name": player.upper(),
        "rank": rank,
        "division": division,
        "events": len(counted),
        "points": points,
        "counted": counted,
        "wins": 0,
        "best_place": 2,
    }


SEASON: dict[str, Any] = {
    "name": "Winter",
    "status": "finished",
    "best_of": 2,
    "points_by_place": [3, 2, 1],
    "divisions": [{"name": "A", "players": ["a"]}, {"name": "B", "players": []}],
    "promote": 1,
    "relegate": 1,
    "tournaments": [
        {"id": "t_1", "name": "N1", "status": "finished", "in_play": False},
        {"id": "t_2", "name": "N2", "status": "running", "in_play": True},
    ],
    "standings": [row("a", 1, "A", 5, ["t_1", "t_2"]), row("b", 1, "B", 3, ["t_1"]), row("c", 1, "B", 3, ["t_1"])],
    "moves": [{"name": "B", "direction": "up", "source": "B", "target": "A"}],
}


def test_the_season_in_words() -> None:
    assert season_title(SEASON) == "Winter · finished · 1 of 2 events finished"
    assert season_rules(SEASON) == "the best 2 events count · points 3/2/1"
    assert division_words(SEASON) == "2 divisions · at the end 1 go up, 1 go down"
    assert division_words({"divisions": []}) == ""
    assert event_rows(SEASON) == [("1", "N1", "t_1", "finished"), ("2", "N2", "t_2", "in play (running)")]
    assert divisions_of(SEASON) == ["A", "B"] and divisions_of({"divisions": []}) == [None]
    assert standing_cells(SEASON, "A") == [("1", "A", "2", "5", "0", "2nd", "1 2")]
    assert [c[0] for c in standing_cells(SEASON, "B")] == ["1=", "1="]  # a shared rank
    assert move_lines(SEASON) == ["B: up, from B to A"]


def test_the_players_line_names_the_division_and_a_shared_place() -> None:
    assert player_season_words(SEASON, "a") == "Season Winter · you: 1st of 1 in A, 5 pts"
    assert player_season_words(SEASON, "c") == "Season Winter · you: =1st of 2 in B, 3 pts"
    assert player_season_words(SEASON, "zed") == player_season_words(SEASON, None) == "Season Winter"
