"""The player screen (docs/TUI.md "The player screen") on canned pages served by a fake transport:
``unoduo play --player``'s first screen, the rows and the bot marks, ``f`` switching the chart's
family, ``t`` the side panel, Enter on an opponent opening their page, a refusal said in a line,
``p`` from a tournament's standings, the sizes it fits, and snapshots of it at 80×24 and 60×20."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from tests.tui.helpers import plain, until
from tests.tui.player_pages import ANN, BOB, pages_app
from tests.tui.test_play_snapshots import loaded, tournament_app
from tui_client.screens.player_screen import PlayerScreen, RatingChart
from tui_client.screens.too_small import TooSmallNotice

pytestmark = pytest.mark.anyio


def cells(table: DataTable[Any], row: int) -> list[str]:
    return [str(getattr(c, "plain", c)) for c in table.get_row_at(row)]


def column(table: DataTable[Any], index: int) -> list[str]:
    return [cells(table, row)[index] for row in range(table.row_count)]


async def opened(pilot: Pilot[Any], loads: int = 1) -> PlayerScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, PlayerScreen), "the player screen")
    screen = pilot.app.screen
    assert isinstance(screen, PlayerScreen)
    await until(pilot, lambda: screen.loads >= loads or screen.failures > 0, "the player's page")
    await pilot.pause()
    return screen


def chart_text(screen: PlayerScreen) -> str:
    return plain(screen.query_one(RatingChart))


async def test_the_page_rows_and_bot_marks(tmp_path: Path) -> None:
    async with pages_app(tmp_path).run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        assert plain(screen.query_one("#player-title")) == "ann · player · p_ann0001"
        ratings_line = plain(screen.query_one("#player-ratings"))
        assert "UNO Duo 1724 ± 60 · 24 games" in ratings_line and "classic 1489? ± 290 · 3 games" in ratings_line
        assert "? provisional" in ratings_line
        history = screen.query_one("#history", DataTable)
        assert history.row_count == 8 and history.has_focus
        assert cells(history, 1) == ["2026-11-04", "deepuno [bot]", "lost", "88–212", "−6", "Spring Cup r2"]
        assert cells(history, 3)[1:5] == ["greedy-1 [bot]", "won", "40–204", "+17"]
        assert cells(history, 2)[1:3] == ["bob, cyd +2", "2nd of 5"]
        assert column(history, 2) == ["live", "lost", "2nd of 5", "won", "lost", "waiting", "annulled", "drawn"]
        side = screen.query_one("#side", DataTable)
        assert column(side, 0) == ["bob", "greedy-1 [bot]", "deepuno [bot]", "cyd"]
        assert column(side, 2) == ["5–4–0", "6–0–0", "1–3–0", "1–1–1"]
        # The chart: UNO Duo, its y-axis from 1500 to 1730, the dates below, the summary in its border.
        chart = screen.query_one(RatingChart)
        assert str(chart.border_title) == "rating · UNO Duo · f: classic"
        assert str(chart.border_subtitle) == "now 1724 · 1500–1730 · 24 matches"
        text = chart_text(screen)
        assert text.startswith("1730┤") and "\n1500┤" in text and "2026-11-01" in text and "2026-11-04" in text
        assert any(0x2800 < ord(ch) <= 0x28FF for ch in text)  # braille dots drawn


async def test_f_switches_the_family_and_t_the_side_panel(tmp_path: Path) -> None:
    async with pages_app(tmp_path).run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        chart = screen.query_one(RatingChart)
        await pilot.press("f")
        assert screen.family == "classic" and chart.series is not None and chart.series.family == "classic"
        assert str(chart.border_title) == "rating · classic · f: UNO Duo"
        assert str(chart.border_subtitle) == "now 1489 · 1471–1500 · 3 matches"
        assert chart_text(screen).splitlines()[-1].strip().startswith("└2026-11-20")
        await pilot.press("f")
        assert screen.family == "uno-duo" and "1730┤" in chart_text(screen)
        side = screen.query_one("#side", DataTable)
        await pilot.press("t")
        assert str(side.border_title).startswith("tournaments")
        assert [cells(side, r) for r in range(side.row_count)] == [
            ["Spring Cup", "live", "2nd of 5"],
            ["Autumn Swiss", "done", "1st of 8"],
        ]
        await pilot.press("t")
        assert column(side, 0)[0] == "bob"


async def test_enter_on_an_opponent_opens_their_page_and_q_comes_back(tmp_path: Path) -> None:
    async with pages_app(tmp_path).run_test(size=(80, 24)) as pilot:
        first = await opened(pilot)
        side = first.query_one("#side", DataTable)
        side.focus()
        await pilot.press("enter")  # bob, the most played
        await until(pilot, lambda: pilot.app.screen is not first, "bob's page")
        bob = await opened(pilot)
        assert bob.entry == BOB and bob.page is not None and bob.page["name"] == "bob"
        assert "UNO Duo 1500? ± 350 · 0 games" in plain(bob.query_one("#player-ratings"))
        assert chart_text(bob) == "no rated UNO Duo match yet"
        assert str(bob.query_one("#history", DataTable).border_title) == "matches: none yet"
        await pilot.press("q")
        assert pilot.app.screen is first
        await pilot.press("q")  # the first screen: q quits
        await until(pilot, lambda: not pilot.app.is_running, "the app to quit")


async def test_a_match_that_cannot_be_opened_is_said_in_words(tmp_path: Path) -> None:
    async with pages_app(tmp_path).run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        history = screen.query_one("#history", DataTable)
        history.move_cursor(row=5, animate=False)  # waiting for its second seat
        await pilot.press("enter")
        assert plain(screen.query_one("#player-status")) == "m_wait is waiting: nothing to watch"
        history.move_cursor(row=3, animate=False)  # finished: its replay, which this fake server lacks
        await pilot.press("enter")
        await until(pilot, lambda: "cannot open the replay" in plain(screen.query_one("#player-status")), "a refusal")
        assert pilot.app.screen is screen


async def test_an_unknown_player_is_said_in_the_status_line(tmp_path: Path) -> None:
    async with pages_app(tmp_path, player="nobody").run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        assert screen.failures == 1 and screen.page is None
        status = plain(screen.query_one("#player-status"))
        assert status == "cannot load the player nobody: No player nobody. [not_found]"
        assert chart_text(screen) == "loading…"


async def test_an_older_server_without_pages_shows_who_and_says_so(tmp_path: Path) -> None:
    pages = {ANN: {"id": ANN, "name": "ann", "kind": "human"}}
    async with pages_app(tmp_path, pages).run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        assert plain(screen.query_one("#player-title")) == "ann · player · p_ann0001"
        assert "no ratings or match history" in plain(screen.query_one("#player-status"))
        assert screen.query_one("#history", DataTable).row_count == 0


async def test_p_on_a_standings_row_opens_that_players_page(tmp_path: Path) -> None:
    async with tournament_app(tmp_path).run_test(size=(80, 24)) as pilot:
        tournament = await loaded(pilot)
        standings = tournament.query_one("#standings", DataTable)
        standings.move_cursor(row=1, animate=False)  # dee
        key = standings.coordinate_to_cell_key(standings.cursor_coordinate).row_key.value
        await pilot.press("p")
        screen = await opened(pilot)
        assert screen.entry == key
        # This canned server has no player pages: a refusal in words, and q goes back.
        assert screen.failures == 1 and "cannot load the player" in plain(screen.query_one("#player-status"))
        await pilot.press("q")
        assert pilot.app.screen is tournament


async def test_at_60x20_everything_is_there_and_below_the_minimum_the_notice(tmp_path: Path) -> None:
    async with pages_app(tmp_path).run_test(size=(60, 20)) as pilot:
        screen = await opened(pilot)
        assert not screen.too_small
        history = screen.query_one("#history", DataTable)
        chart = screen.query_one(RatingChart)
        assert history.region.height >= 2 + 1 + 3  # the border, the header, three matches
        assert chart.content_region.height >= 4 and chart.content_region.width >= 28
        assert history.virtual_size.width <= history.scrollable_content_region.width  # no sideways scroll
        assert cells(history, 1)[:2] == ["11-04", "deep… [bot]"]  # the name cut, never the mark
        assert all(cell.endswith("[bot]") for cell in column(screen.query_one("#side", DataTable), 0)[1:3])
        await pilot.resize_terminal(59, 20)
        await pilot.pause()
        notice = screen.query_one(TooSmallNotice)
        assert screen.too_small and notice.display
        assert str(notice.render()) == "make the terminal at least 60×18 (now 59×20)"
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not notice.display and cells(history, 1)[:2] == ["2026-11-04", "deepuno [bot]"]


def test_the_player_screen_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    """ann's page: both ratings (classic provisional, ``1489?``), the UNO Duo chart with its
    y-axis and dates, head-to-head with two bots marked, and eight matches of every kind."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await opened(pilot)

    assert snap_compare(pages_app(tmp_path), terminal_size=(80, 24), run_before=run_before)


def test_the_player_screen_at_60x20(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await opened(pilot)

    assert snap_compare(pages_app(tmp_path), terminal_size=(60, 20), run_before=run_before)
