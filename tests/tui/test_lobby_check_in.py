"""Check-in from the lobby (docs/TOURNAMENTS.md "Check-in"): the open line says the window and
how many confirmed, offers k to an entrant who has not, and k checks in through a real server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from textual.widgets import OptionList

from tests.tui.helpers import until
from tests.tui.test_lobby_live import BOSS, SIZE, live_lobby, server, text_of
from tui_client.apps.play_app import make_play_app
from tui_client.models.lobby_model import open_lines
from tui_client.models.tournament_model import schedule_rows, title_words, tournament_lines

__all__ = ["server"]  # the module's server, shared with the lobby's other live tests

NOW = datetime(2026, 12, 7, 19, 0, tzinfo=UTC)


def listed(**fields: object) -> dict[str, object]:
    return {"id": "t1", "name": "Club", "open": True, "status": "created", "entries": 3, **fields}


def test_the_open_line_says_the_window_and_offers_k_to_an_entrant_inside_it() -> None:
    opens = (NOW + timedelta(minutes=10)).isoformat()
    (before,) = open_lines([listed(entered=True, check_in_opens=opens)], {}, "me", NOW)
    assert "check-in starts" in before.text and not before.check_in
    inside = NOW + timedelta(minutes=11)
    (due,) = open_lines([listed(entered=True, check_in_opens=opens, checked_in=1)], {}, "me", inside)
    assert due.text.endswith("· 1 checked in · k: check in") and due.check_in
    (done,) = open_lines(
        [listed(entered=True, check_in_opens=opens, checked_in=2, you_checked_in=True)], {}, "me", inside
    )
    assert done.text.endswith("· 2 checked in, you too") and not done.check_in
    (outsider,) = open_lines([listed(entered=False, check_in_opens=opens, checked_in=2)], {}, "me", inside)
    assert not outsider.check_in
    (plain,) = open_lines([listed(entered=True)], {}, "me", inside)
    assert "check" not in plain.text


@pytest.mark.anyio
async def test_k_checks_in_from_the_lobby(server: str, tmp_path: Path) -> None:
    app = make_play_app(server, "kim", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        lobby = await live_lobby(pilot, app)
        starts = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
        body = {"name": "Check Night", "open": True, "starts_at": starts, "check_in_minutes": 120}
        async with httpx.AsyncClient(base_url=server, timeout=10) as client:
            made = await client.post("/api/tournaments", headers=BOSS, json=body)
            assert made.status_code == 201, made.text
            tid = made.json()["id"]
            entered = await client.post(f"/api/tournaments/{tid}/entries", headers=BOSS, json={"player": "kim"})
            assert entered.status_code == 201, entered.text
        await pilot.press("r")
        await until(pilot, lambda: any(o.tournament == tid and o.check_in for o in lobby.open_lines), "k offered")
        options = lobby.query_one("#matches", OptionList)
        options.highlighted = options.get_option_index(f"open:{tid}")
        await pilot.press("k")
        await until(pilot, lambda: "checked in to Check Night" in text_of(app, "#lobby-status"), "the check-in")
        await until(pilot, lambda: any(o.tournament == tid and "you too" in o.text for o in lobby.open_lines), "shown")


def test_the_tournament_screen_says_half_byes_a_forced_pair_and_who_did_not_check_in() -> None:
    t = {
        "name": "Club",
        "status": "running",
        "format": "swiss",
        "players": [{"id": "a", "name": "ann"}, {"id": "c", "name": "cy"}, {"id": "d", "name": "di"}],
        "not_checked_in": [{"id": "b", "name": "bob"}],
        "half_byes": {"2": ["d"]},
        "late_entries": {"c": 2},
        "late_entry_bye": True,
        "rounds": [
            {"number": 1, "status": "finished", "pairings": [], "bye": None, "note": "forbidden pairing …"},
            {"number": 2, "status": "pending", "pairings": [], "bye": None},
        ],
    }
    rows = [(r.kind, r.cells[:2]) for r in schedule_rows(t)]
    assert ("bye", ("1 ½ bye", "cy")) in rows and ("bye", ("2 ½ bye", "di")) in rows
    assert ("note", ("1 note", "forbidden pair")) in rows
    assert "not checked in: bob" in title_words(t)


def test_a_running_swiss_still_taking_late_entries_is_offered_in_the_lobby() -> None:
    (line,) = open_lines([listed(status="running", entered=False, late_entry_until=2)], {}, "me", NOW)
    assert line.text == "open   Club · 3 entered · e: enter · late entry until round 2"
    (mine,) = open_lines([listed(status="running", entered=True, late_entry_until=2)], {}, "me", NOW)
    assert "you are in · late entry" in mine.text and "leave" not in mine.text
    assert open_lines([listed(status="running", entered=False)], {}, "me", NOW) == []  # entries closed


def test_the_lobby_tells_a_player_withdrawn_for_not_checking_in() -> None:
    (line,) = tournament_lines([listed(status="running", you_missed_check_in=True, rounds=3, opened=1, players=6)])
    assert line.text.endswith("· you did not check in: withdrawn at the start")
