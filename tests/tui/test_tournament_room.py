"""The tournament screen at 80×24 and 60×20 with a club's eight players and two house bots
(issue 33.5): the schedule shows as many rows as the screen has room for (before, the standings
took up to 14 lines and left the schedule one to three), and every key is in the footer or in
``?``'s help, with ``?`` and ``q`` always in the footer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from textual._compositor import LayoutUpdate
from textual.app import App
from textual.binding import Binding
from textual.widgets import DataTable

from tests.tui.helpers import plain, until
from tests.tui.in_process import SERVER, InProcessApi, served
from tui_client.apps.play_app import make_play_app
from tui_client.screens.help_screen import HelpScreen
from tui_client.screens.tournament_screen import TournamentScreen

pytestmark = pytest.mark.anyio

DIRECTOR = "director-token-for-the-room-tests"


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[tuple[FastAPI, str]]:
    """Eight people and two house bots in a round robin, started (its first round being played)."""
    async with served(tmp_path / "room.sqlite3", DIRECTOR) as app:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=SERVER) as client:
            ids = []
            for name in ("ann", "bob", "cyd", "dee", "eve", "fay", "gus", "hal"):
                ids.append((await client.post("/api/players", json={"name": name})).json()["id"])
            director = {"Authorization": f"Bearer {DIRECTOR}"}
            body = {"name": "Tuesday club", "players": [*ids, "bot:greedy", "bot:random"], "move_seconds": 600}
            made = await client.post("/api/tournaments", headers=director, json=body)
            assert made.status_code == 201, made.text
            started = await client.post(f"/api/tournaments/{made.json()['id']}/start", headers=director)
            assert started.status_code == 200, started.text
        yield app, str(made.json()["id"])


def drawn_lines(app: App[Any]) -> list[str]:
    update = app.screen._compositor.render_update(full=True)
    assert isinstance(update, LayoutUpdate)
    return ["".join(segment.text for segment in strip) for strip in update.strips]


def rows_shown(table: DataTable[Any]) -> int:
    """How many of the table's rows are on screen at once (its header and a scrollbar left out)."""
    room = table.scrollable_content_region.height - (1 if table.show_header else 0)
    return min(table.row_count, room)


@pytest.mark.parametrize(("size", "rows"), [((80, 24), 10), ((60, 20), 6)])
async def test_the_schedule_has_the_room_and_every_key_is_reachable(
    club: tuple[FastAPI, str], tmp_path: Path, size: tuple[int, int], rows: int
) -> None:
    server, tournament = club
    app = make_play_app(SERVER, config_dir=tmp_path, tournament=tournament, api=InProcessApi(server))
    async with app.run_test(size=size) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, TournamentScreen)
        await until(pilot, lambda: screen.loads >= 1, "the tournament")
        schedule = screen.query_one("#schedule", DataTable)
        standings = screen.query_one("#standings", DataTable)
        assert schedule.row_count > rows and standings.row_count == 10
        await pilot.pause()
        assert rows_shown(schedule) >= rows, (rows_shown(schedule), "\n".join(drawn_lines(pilot.app)))
        assert rows_shown(standings) >= 4  # the top of the standings stays in sight (↑↓ for the rest)

        footer = drawn_lines(pilot.app)[-1]
        assert footer.lstrip().startswith("? help") and "q back" in footer, footer
        shown = {b.key for b in TournamentScreen.BINDINGS if isinstance(b, Binding) and b.show}
        in_footer = {key for key in shown if f" {'?' if key == 'question_mark' else key} " in f" {footer} "}
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")
        help_words = plain(pilot.app.screen.query_one("#help-body"))
        assert help_words.lstrip().removeprefix("[b]").startswith("A tournament"), help_words[:80]  # its own keys first
        tournament_help = help_words.split("A tournament")[1].split("The table")[0]
        for binding in TournamentScreen.BINDINGS:
            assert isinstance(binding, Binding)
            word = {"question_mark": "?", "enter": "Enter", "tab": "Tab"}.get(binding.key, binding.key)
            assert binding.key in in_footer or f"{word} " in tournament_help, (binding.key, footer)
