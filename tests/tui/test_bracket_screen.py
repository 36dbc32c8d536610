"""The bracket on the tournament screen of a knockout (issue 36.6), at 80×24: a double
elimination's winners', losers' and grand final sections, a table knockout's "top 2 go on", pools
then their bracket, a finished single elimination's places; it scrolls with the keys, the
player's own path is marked, and a refresh draws results as they land without losing the
scroll. From the API answers of tests/cli/bracket_samples.py."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from tests.cli.bracket_samples import double_elimination, pools_into_bracket, single_elimination, table_knockout
from tests.tui.helpers import until
from tests.tui.test_play_snapshots import SERVER, loaded, refuse
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.connection.api import Api
from tui_client.connection.config import ConfigStore, Credentials
from tui_client.screens.tournament_screen import TournamentScreen
from tui_client.widgets.bracket_widget import BracketView

pytestmark = pytest.mark.anyio


class Answers:
    """The server's answer to ``GET /api/tournaments/{id}``, which a test may change (a result lands)."""

    def __init__(self, detail: dict[str, Any]) -> None:
        self.detail = detail

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path == f"/api/tournaments/{self.detail['id']}":
            return httpx.Response(200, json=self.detail)
        return refuse(request)


def bracket_app(tmp_path: Path, answers: Answers, me: str | None = None) -> PlayApp:
    """The client straight on the tournament, signed in as ``me`` (a saved token) if given."""
    if me is not None:
        name = next(p["name"] for p in answers.detail["players"] if p["id"] == me)
        ConfigStore(SERVER, tmp_path).save_credentials(Credentials(SERVER, me, name, "tok"))
    api = Api(SERVER, transport=httpx.MockTransport(answers))
    return make_play_app(SERVER, config_dir=tmp_path, tournament=str(answers.detail["id"]), api=api)


def shown_text(view: BracketView) -> list[str]:
    """The lines the view shows now (its scroll applied)."""
    height = view.scrollable_content_region.height
    return [view.render_line(y).text for y in range(height)]


async def test_a_double_elimination_scrolls_and_marks_the_players_path(tmp_path: Path) -> None:
    async with bracket_app(tmp_path, Answers(double_elimination()), me="p_05").run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        view = screen.query_one("#bracket", BracketView)
        assert view.has_focus and not screen.query_one("#schedule", DataTable).display
        await pilot.pause()
        # eve (p_05) plays L3-2 now: it is in view, and her path is marked
        assert any("L3-2" in line for line in shown_text(view))
        styles = {(s.row, s.style) for s in view.drawing.spans}
        l32_row = view.drawing.anchors["L3-2"][0]
        assert (l32_row, "mine") in styles
        l42_row = view.drawing.anchors["L4-2"][0]
        assert (l42_row, "next") in styles  # where a win sends her
        assert (view.drawing.anchors["W2-1"][0], "mine") not in styles  # not hers
        # the keys scroll it both ways
        await pilot.press("home")
        await pilot.press("pageup", "pageup", "pageup")
        top = view.scroll_y
        await pilot.press("down", "down", "j")
        assert view.scroll_y == top + 3
        x = view.scroll_x
        await pilot.press("right", "l")
        assert view.scroll_x == x + 2
        await pilot.press("end")  # scrolls with an animation: wait for its end
        await until(pilot, lambda: view.scroll_y == view.max_scroll_y, "the bracket's end")
        assert any("GF2" in line for line in shown_text(view))
        await pilot.press("m")
        assert any("L3-2" in line for line in shown_text(view))


async def test_a_result_that_lands_is_drawn_at_the_next_refresh(tmp_path: Path) -> None:
    answers = Answers(double_elimination())
    async with bracket_app(tmp_path, answers, me="p_05").run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        view = screen.query_one("#bracket", BracketView)
        at = view.scroll_offset
        landed = copy.deepcopy(answers.detail)
        node = next(n for n in landed["bracket"] if n["id"] == "L3-2")
        node["status"], node["winner"] = "decided", "p_05"
        following = next(n for n in landed["bracket"] if n["id"] == "L4-2")
        following["seats"][following["sources"].index("winner of L3-2")] = "p_05"
        answers.detail = landed
        screen.load()
        await until(pilot, lambda: screen.loads >= 2, "the refresh")
        assert view.scroll_offset == at  # the refresh keeps the scroll
        path = view.drawing.plain()
        assert "winner of L3-2" not in path  # L4-2's seat is eve now
        assert (view.drawing.anchors["L4-2"][0], "mine") in {(s.row, s.style) for s in view.drawing.spans}


async def test_b_switches_to_the_schedule_and_back(tmp_path: Path) -> None:
    async with bracket_app(tmp_path, Answers(double_elimination())).run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        assert isinstance(screen, TournamentScreen)
        await pilot.press("b")
        schedule = screen.query_one("#schedule", DataTable)
        assert schedule.display and schedule.has_focus and not screen.query_one("#bracket").display
        await pilot.press("b")
        assert screen.query_one("#bracket", BracketView).has_focus


async def snap(pilot: Pilot[Any]) -> None:
    await loaded(pilot)
    await pilot.pause()


def test_the_double_elimination_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(
        bracket_app(tmp_path, Answers(double_elimination()), me="p_05"), terminal_size=(80, 24), run_before=snap
    )


def test_the_double_elimination_losers_bracket_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await loaded(pilot)
        await pilot.pause()
        screen.query_one("#bracket", BracketView).scroll_to_node("L2-1")
        await pilot.pause()

    assert snap_compare(
        bracket_app(tmp_path, Answers(double_elimination()), me="p_09"), terminal_size=(80, 24), run_before=run_before
    )


def test_the_finished_single_elimination_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    app = bracket_app(tmp_path, Answers(single_elimination()), me="p_03")
    assert snap_compare(app, terminal_size=(80, 24), run_before=snap)


def test_the_table_knockout_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    app = bracket_app(tmp_path, Answers(table_knockout()), me="p_07")
    assert snap_compare(app, terminal_size=(80, 24), run_before=snap)


def test_the_pools_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    app = bracket_app(tmp_path, Answers(pools_into_bracket()), me="p_13")
    assert snap_compare(app, terminal_size=(80, 24), run_before=snap)


def test_the_schedule_names_each_pairings_node() -> None:
    from tui_client.models.tournament_model import schedule_rows

    cells = [r.cells[0] for r in schedule_rows(double_elimination()) if r.kind == "pairing"]
    assert cells[:2] == ["1.1 W1-1", "1.2 W1-2"] and "2.5 L1-1" in cells
    pools = [r.cells[0] for r in schedule_rows(pools_into_bracket()) if r.kind == "pairing"]
    assert pools[0] == "1.1 pool A" and "4.1 W1-1" in pools
