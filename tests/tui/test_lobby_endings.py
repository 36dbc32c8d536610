"""A match's lobby line says how it ended (issue 33.1: a forfeit win read ``you won 0–0``)."""

from __future__ import annotations

from typing import Any

from tui_client.models.lobby_model import lobby_entries

ANN = {"id": "p_ann", "name": "ann", "kind": "human"}
BOB = {"id": "p_bob", "name": "bob", "kind": "human"}
DAN = {"id": "p_dan", "name": "dan", "kind": "human"}


def line(seats: list[dict[str, Any]], winner: str | None, ended: dict[str, Any], **more: Any) -> str:
    match = {"id": "m_t", "status": "finished", "seats": seats, "scores": [0] * len(seats), "winner": winner}
    match.update(ended=ended, **more)
    (entry,) = lobby_entries({"id": "p_ann", "matches": [match]})
    return entry.text


def test_a_forfeit_win_and_a_forfeit_loss_say_so_never_0_0() -> None:
    won = line([ANN, BOB], "p_ann", {"how": "forfeit", "forfeits": [{"seat": 1, "reason": "withdrawal"}]})
    assert won.endswith("· you won by forfeit: bob withdrew")
    lost = line([ANN, BOB], "p_bob", {"how": "forfeit", "forfeits": [{"seat": 0, "reason": "timeouts"}]})
    assert lost.endswith("· bob won: you forfeited (you ran out of time)")
    assert "0–0" not in won + lost


def test_a_table_left_by_forfeit_at_the_round_limit_and_annulments_in_words() -> None:
    table = line(
        [ANN, BOB, DAN],
        "p_dan",
        {"how": "round_limit", "forfeits": [{"seat": 0, "reason": "join_deadline"}], "rounds": 8},
        places=[3, 2, 1],
    )
    assert table.endswith(
        "dan won, you came 3rd of 3 0–0–0 (you forfeited: you did not join in time) at the round limit (8 rounds)"
    )
    match = {"id": "m_v", "status": "annulled", "seats": [ANN, BOB], "ended": {"how": "annulled", "reason": "no_show"}}
    (void,) = lobby_entries({"id": "p_ann", "matches": [match]})
    assert void.text.endswith("· annulled: neither seat joined in time")
