"""The tournament screen at 80×24 and 60×20 (docs/TUI.md "The tournament screen"): compact
standings that fit the width (the deciding tie-break abbreviated, the legend in the border),
the full columns with ``f`` or on a wide terminal, the "make the terminal at least" notice below
60×16; cursors that stay on the same player, pairing or dispute when a refresh moves it; the
hidden disputes table never takes the focus. Canned answers (test_play_snapshots' tournament)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from tests.tui.helpers import until
from tests.tui.test_play_snapshots import SERVER, TOURNAMENT, loaded, refuse, tournament_app, tournament_detail
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.connection.api import Api
from tui_client.models.tournament_model import COMPACT_STANDING_COLUMNS, STANDING_COLUMNS
from tui_client.screens.too_small import TooSmallNotice
from tui_client.screens.tournament_screen import TournamentScreen, row_key_at

pytestmark = pytest.mark.anyio


def labels(table: DataTable[Any]) -> list[str]:
    return [str(c.label) for c in table.columns.values()]


def cells(table: DataTable[Any], row: int) -> list[str]:
    return [str(getattr(c, "plain", c)) for c in table.get_row_at(row)]


def fits(table: DataTable[Any]) -> bool:
    """Every column is drawn: nothing to scroll sideways to."""
    return table.virtual_size.width <= table.scrollable_content_region.width


async def test_at_80x24_the_standings_are_compact_and_fit(tmp_path: Path) -> None:
    app = tournament_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        standings = screen.query_one("#standings", DataTable)
        assert labels(standings) == [label for _key, label in COMPACT_STANDING_COLUMNS]
        assert cells(standings, 0) == ["1", "ann", "3", "2–1 +1b", "196–305", "PD 109"]
        assert (
            cells(standings, 1)[-1] == "H2H 2" and cells(standings, 3)[-1] == "MW 2" and cells(standings, 4)[-1] == ""
        )
        assert standings.border_subtitle == "MW match wins · H2H head-to-head · PD points diff"  # the legend
        assert fits(standings) and fits(screen.query_one("#schedule", DataTable))
        assert not screen.too_small and not screen.query_one(TooSmallNotice).display
        schedule = screen.query_one("#schedule", DataTable)
        assert "results winner first (lowest total wins)" in str(schedule.border_title)
        assert ["1.1", "bob", "eve", "decided", "bob wins 40–104"] == cells(schedule, 1)  # winner's total first
        await pilot.press("f")  # every tie-break, on request
        assert labels(standings) == [label for _key, label in STANDING_COLUMNS]
        assert cells(standings, 0)[-1] == "points difference"
        await pilot.press("f")
        assert labels(standings) == [label for _key, label in COMPACT_STANDING_COLUMNS]


async def test_a_wide_terminal_gets_every_column_and_a_narrow_one_compact_again(tmp_path: Path) -> None:
    app = tournament_app(tmp_path)
    async with app.run_test(size=(150, 40)) as pilot:
        screen = await loaded(pilot)
        standings = screen.query_one("#standings", DataTable)
        assert labels(standings) == [label for _key, label in STANDING_COLUMNS]
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert labels(standings) == [label for _key, label in COMPACT_STANDING_COLUMNS]
        assert standings.row_count == 5 and cells(standings, 0)[1] == "ann"


async def test_at_60x20_everything_is_there_and_below_the_minimum_the_notice(tmp_path: Path) -> None:
    app = tournament_app(tmp_path)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await loaded(pilot)
        assert not screen.too_small
        standings = screen.query_one("#standings", DataTable)
        schedule = screen.query_one("#schedule", DataTable)
        assert fits(standings) and standings.region.height >= 5 + 2  # all five players
        status = screen.query_one("#tour-status")
        assert schedule.region.height >= 5 and status.region.height == 0  # no words: no line taken
        screen.say("something to say")
        await pilot.pause()
        assert status.region.height >= 1 and schedule.region.height >= 5
        screen.say("")
        await pilot.resize_terminal(59, 20)
        await pilot.pause()
        notice = screen.query_one(TooSmallNotice)
        assert screen.too_small and notice.display
        assert str(notice.render()) == "make the terminal at least 60×16 (now 59×20)"
        assert notice.region == screen.region
        await pilot.resize_terminal(60, 16)
        await pilot.pause()
        assert not notice.display


def test_the_tournament_screen_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(pilot)

    assert snap_compare(tournament_app(tmp_path), terminal_size=(80, 24), run_before=run_before)


def test_the_tournament_screen_at_60x20(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(pilot)

    assert snap_compare(tournament_app(tmp_path), terminal_size=(60, 20), run_before=run_before)


def changing_app(tmp_path: Path, answers: list[dict[str, Any]]) -> PlayApp:
    """The tournament answering ``answers`` in turn (the last one from then on)."""
    calls = {"n": 0}

    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path == f"/api/tournaments/{TOURNAMENT}":
            detail = answers[min(calls["n"], len(answers) - 1)]
            calls["n"] += 1
            return httpx.Response(200, json=detail)
        return refuse(request)

    api = Api(SERVER, transport=httpx.MockTransport(answer))
    return make_play_app(SERVER, config_dir=tmp_path, tournament=TOURNAMENT, api=api)


async def test_cursors_stay_on_the_same_item_when_a_refresh_moves_it(tmp_path: Path) -> None:
    before = tournament_detail()
    after = copy.deepcopy(before)
    after["rounds"][0]["bye"] = None  # one row fewer above every later pairing
    after["standings"] = list(reversed(after["standings"]))  # every player moves
    app = changing_app(tmp_path, [before, after])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        schedule = screen.query_one("#schedule", DataTable)
        standings = screen.query_one("#standings", DataTable)
        live = next(i for i, r in enumerate(screen.schedule) if r.status == "live")
        schedule.move_cursor(row=live, animate=False)
        standings.move_cursor(row=1, animate=False)  # dee
        key, player = row_key_at(schedule, live), cells(standings, 1)[1]
        assert player == "dee"
        screen.load()
        await until(pilot, lambda: screen.loads >= 2, "the refresh")
        assert row_key_at(schedule, schedule.cursor_row) == key and schedule.cursor_row == live - 1
        assert cells(standings, standings.cursor_row)[1] == "dee" and standings.cursor_row == 3
        assert screen.schedule[schedule.cursor_row].status == "live"  # Enter opens what the cursor is on


async def test_tab_never_lands_on_the_hidden_disputes_table(tmp_path: Path) -> None:
    app = tournament_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        disputes = screen.query_one("#disputes", DataTable)
        assert not disputes.display and not disputes.can_focus
        seen = set()
        for _ in range(6):
            await pilot.press("tab")
            assert isinstance(screen, TournamentScreen)
            seen.add(getattr(screen.focused, "id", None))
        assert "disputes" not in seen and {"standings", "schedule"} <= seen
