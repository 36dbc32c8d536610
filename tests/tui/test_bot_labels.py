"""A bot account is labelled ``[bot]`` wherever a client or an export names it (docs/BOTS.md); a
house bot and a person are shown as before. Pure functions: the label, the tournament screen's
and ``unoduo tournament show``'s copy of a tournament, cut names, the lobby's seats and pairings,
and the TRF export's name field."""

from __future__ import annotations

from typing import Any

from engine.game.seat_names import BOT_ACCOUNT_LABEL, player_label, seat_names
from server.tournaments.trf import trf_text
from tui_client.models.lobby_model import next_lines, pairing_of
from tui_client.models.lobby_model import seat_names as lobby_seat_names
from tui_client.models.tournament_model import cut_name, schedule_rows, standing_rows, with_labels

ROBO = {"id": "p_00000000000000aa", "name": "robo", "kind": "bot_account"}
ANN = {"id": "p_00000000000000bb", "name": "ann", "kind": "human"}
GREEDY = {"id": "bot-greedy-t1-1", "name": "greedy-1", "kind": "bot"}


def test_the_label_marks_bot_accounts_only_and_once() -> None:
    assert BOT_ACCOUNT_LABEL == "[bot]"
    assert player_label("robo", "bot_account") == "robo [bot]"
    assert player_label("robo [bot]", "bot_account") == "robo [bot]"  # applied twice: once
    assert player_label("greedy-1", "bot") == "greedy-1"  # a house bot keeps its (reserved) name
    assert player_label("ann", "human") == player_label("ann", None) == "ann"


def _tournament() -> dict[str, Any]:
    pairing = {"slot": "1.1", "board": 1, "white": ROBO, "black": ANN, "seats": [ROBO, ANN], "status": "decided"}
    pairing["result"] = {"winner": ROBO["id"], "scores": [60, 12], "forfeit": False, "reason": "played"}
    standing = {"rank": 1, "player": ROBO["id"], "name": "robo", "played": 1, "won": 1, "lost": 0, "tiebreaks": {}}
    return {
        "id": "t_1",
        "name": "Cup",
        "players": [ROBO, ANN, GREEDY],
        "standings": [standing, {**standing, "rank": 2, "player": ANN["id"], "name": "ann"}],
        "rounds": [{"number": 1, "status": "finished", "bye": GREEDY["id"], "pairings": [pairing], "matches": []}],
    }


def test_a_tournament_as_shown_labels_the_bot_account_everywhere_and_nothing_else() -> None:
    raw = _tournament()
    shown = with_labels(raw)
    assert [p["name"] for p in shown["players"]] == ["robo [bot]", "ann", "greedy-1"]
    assert [p["id"] for p in shown["players"]] == [p["id"] for p in raw["players"]]
    assert [r[1] for r in standing_rows(shown)] == ["robo [bot]", "ann"]
    pairing = shown["rounds"][0]["pairings"][0]
    assert (pairing["white"]["name"], pairing["seats"][0]["name"], pairing["black"]["name"]) == (
        "robo [bot]",
        "robo [bot]",
        "ann",
    )
    assert (
        shown["name"] == "Cup" and raw["players"][0]["name"] == "robo"
    )  # the tournament, and the original, as they were
    cells = [row.cells for row in schedule_rows(raw) if row.kind == "pairing"]
    assert cells[0][1:3] == ("robo [bot]", "ann") and "robo [bot] wins" in cells[0][4]


def test_a_cut_name_keeps_the_label() -> None:
    long = player_label("a very long robot name indeed", "bot_account")
    assert cut_name(long, 20) == "a very long r… [bot]" and len(cut_name(long, 20)) == 20
    assert cut_name(long, 20, " (wd)").endswith("… [bot] (wd)")
    assert cut_name("a very long human name indeed", 20) == "a very long human n…"


def test_the_lobby_names_a_bot_account_with_its_label() -> None:
    summary = {"id": "m_1", "seats": [ANN, ROBO]}
    assert lobby_seat_names(summary) == ("ann", "robo [bot]")
    message = {"type": "pairing", "tournament": "t_1", "round": 1, "match": "m_1", "opponent": ROBO}
    pairing = pairing_of(message)
    assert pairing is not None and pairing.opponent == "robo [bot]"
    me = {"next": [{"tournament": "t_1", "round": 2, "opponent": ROBO["id"], "opponents": [ROBO["id"]], "white": True}]}
    assert next_lines(me, [_tournament()]) == ["Cup round 2: vs robo [bot] (white: you draft first)"]


def test_a_replay_names_the_seat_as_its_match_recorded_it() -> None:
    header = {"players": [ANN["id"], ROBO["id"]]}
    lines = [{"type": "match_created", "data": {"names": ["ann", "robo [bot]"]}}]
    assert seat_names(header, lines) == ["ann", "robo [bot]"]


def test_the_trf_name_field_keeps_the_label_of_a_long_name() -> None:
    names = {"p_1": player_label("x" * 40, "bot_account"), "p_2": "ann"}
    text = trf_text("Cup", ["p_1", "p_2"], names, [], 1)
    first = next(line for line in text.splitlines() if line.startswith("001"))
    assert first[14:47] == "x" * 27 + " [bot]"  # columns 15-47: the name, cut before its label
