"""The TRF16 export: header lines, the fixed columns of the 001 lines, the result codes."""

from __future__ import annotations

from pathlib import Path

from server.tournaments.swiss import SwissGame, SwissRound
from server.tournaments.trf import trf_text

FIXTURES = Path(__file__).parent / "data" / "swiss"
PLAYERS = ["a", "b", "c", "d", "e"]
NAMES = {"a": "Ann", "b": "Bob", "c": "Cy", "d": "Dee", "e": "Eve Extremely-Long-Name The Third Of That Name"}
HISTORY = [
    SwissRound((SwissGame("a", "c", "a"), SwissGame("d", "b", "b")), bye="e"),
    SwissRound((SwissGame("b", "a", "a", forfeit=True), SwissGame("e", "d", None, forfeit=True)), bye="c"),
]


def player_lines(text: str) -> dict[int, str]:
    return {int(line[4:8]): line for line in text.splitlines() if line.startswith("001")}


def field(line: str, first: int, last: int) -> str:
    """Columns first..last, 1-based and inclusive, as the TRF16 description counts them."""
    return line[first - 1 : last]


def test_header_lines() -> None:
    text = trf_text("Club night", PLAYERS, NAMES, HISTORY, 5, start="2026/12/02", end="2026/12/03")
    lines = text.splitlines()
    assert lines[:7] == [
        "012 Club night",
        "042 2026/12/02",
        "052 2026/12/03",
        "062 5",
        "092 Individual: Swiss-System (FIDE Dutch)",
        "XXR 5",
        "XXC white1",
    ]
    assert text.endswith("\n")


def test_player_line_columns() -> None:
    lines = player_lines(trf_text("T", PLAYERS, NAMES, HISTORY, 5))
    a = lines[1]
    assert field(a, 1, 3) == "001"
    assert field(a, 5, 8) == "   1"
    assert field(a, 15, 47) == "Ann".ljust(33)
    assert field(a, 81, 84) == " 2.0"  # a win and a forfeit win
    assert field(a, 86, 89) == "    "  # a pairing program's input ranks nobody: a report is ranked by its standings
    assert field(a, 90, 99) == "     3 w 1"  # round 1: beat start rank 3 with white
    assert field(a, 100, 109) == "     2 b +"  # round 2: forfeit win against b, black
    assert len(a) == 109


def test_result_codes_bye_forfeits_and_double_forfeit() -> None:
    lines = player_lines(trf_text("T", PLAYERS, NAMES, HISTORY, 5))
    assert field(lines[2], 100, 109) == "     1 w -"  # b lost by forfeit
    assert field(lines[5], 90, 99) == "  0000 - U"  # e: the pairing-allocated bye
    assert field(lines[5], 100, 109) == "     4 w -"  # double forfeit: both lose
    assert field(lines[4], 100, 109) == "     5 b -"
    assert field(lines[3], 100, 109) == "  0000 - U"
    assert field(lines[5], 15, 47) == NAMES["e"][:33]  # names are cut to the 33 columns


def test_a_pairing_input_has_no_rank_of_its_own() -> None:
    """Issue 33.3: the TRF ranked by score then pairing number, not by the published tie-breaks;
    the only ranks written now are the standings' (server.tournaments.trf.tournament_trf)."""
    lines = player_lines(trf_text("T", PLAYERS, NAMES, HISTORY, 5))
    assert {field(line, 86, 89) for line in lines.values()} == {"    "}
    assert {field(line, 81, 84) for line in lines.values()} == {" 2.0", " 1.0", " 0.0"}


def test_absent_rounds_and_the_next_round_marker() -> None:
    history = [SwissRound((SwissGame("a", "b", "b"),), bye="c")]  # d and e absent
    lines = player_lines(trf_text("T", PLAYERS, NAMES, history, 3, absent_next={"a"}))
    assert field(lines[4], 90, 99) == "  0000 - Z"
    assert field(lines[1], 100, 109) == "  0000 - Z"  # a will not be paired in round 2
    assert len(lines[2]) == 99


def test_crosscheck_fixtures_are_reproduced() -> None:
    """Each fixture tournament's saved TRF is what trf_text writes for its history today."""
    import json

    fixtures = sorted(FIXTURES.glob("*/*.json"))
    assert fixtures
    for path in fixtures:
        data = json.loads(path.read_text(encoding="utf-8"))
        players = data["players"]
        history = []
        for entry in data["rounds"]:
            if entry["bbp"] is None:
                break
            games = tuple(
                SwissGame(w, b, winner) for (w, b), winner in zip(entry["bbp"]["boards"], entry["winners"], strict=True)
            )
            history.append(SwissRound(games, entry["bbp"]["bye"]))
        names = {pid: f"Player {pid[1:]}" for pid in players}
        expected = path.with_suffix(".trf").read_text(encoding="utf-8")
        assert trf_text(data["name"], players, names, history, data["rounds_total"]) == expected
