"""The tournament screen for a Swiss and a tables tournament (issue 22), from hand-made answers in
the new API shape (tests/cli/format_samples.py): the format in the title, each round's start
time, a Swiss's rounds not paired yet, a table's seats (seat order, then by place with totals,
wrapped between seats), the standings with the format's chain as columns (compact at 80 columns,
every column with ``f``), at 80×24 and wider; the headless rows first, then Pilot and snapshots."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from tests.cli.format_samples import LONG_NAME, swiss, tables
from tests.tui.test_play_snapshots import SERVER, loaded, refuse
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.connection.api import Api
from tui_client.models.tournament_model import (
    STANDING_COLUMNS,
    schedule_columns,
    schedule_rows,
    standings_cells,
    standings_columns,
    standings_legend,
    title_words,
    tournament_lines,
)
from tui_client.screens.tournament_screen import TournamentScreen, seat_lines

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Start times print in the local zone: UTC here, so the words are fixed."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def labels_of(columns: tuple[tuple[str, str], ...]) -> list[str]:
    return [label for _key, label in columns]


# ---------------------------------------------------------------- the headless rows


def test_the_title_says_the_format() -> None:
    assert title_words(swiss()) == "Winter Swiss · running · round 3/5 · Swiss · uno-duo to 100 · 20 players"
    assert title_words(tables()) == (
        "Club night · running · round 2/5 · tables of 4 · points 3/2/1/0 · classic to 500 · 16 players"
    )
    limited = {**tables(), "rules": {"target": 500, "round_limit": 2}}  # the walk's 'classic to 500' under a limit
    assert "classic to 500 or after round 2 · " in title_words(limited)


def test_a_swiss_standings_follow_its_chain() -> None:
    t = swiss()
    assert labels_of(standings_columns(t, full=False)) == [
        *("#", "player", "P", "Score", "Bch", "SB", "W", "PD", "PC", "by"),
    ]
    rows = standings_cells(t, full=False)
    assert rows[0] == ("1", "ann", "2", "3", "8", "11", "3", "213", "191", "Bch 8")
    assert rows[6][1] == "gus (wd)" and rows[19][1] == LONG_NAME[:19] + "…" and len(rows[19][1]) == 20
    assert rows[19][-1] == ""  # the last row: nothing below it to be decided against
    full = labels_of(standings_columns(t, full=True))
    assert full[:6] == ["#", "player", "played", "byes", "forfeits", "pts for"]
    assert full[6:] == ["Score", "Bch", "SB", "W", "PD", "PC", "lot", "by"]
    assert standings_cells(t, full=True)[0][-1] == "Bch 8" and standings_cells(t, full=True)[19][1] == LONG_NAME
    assert standings_legend(t) == "Bch Buchholz · SB Sonneborn–Berger · W wins · PD pts diff · PC conceded"


def test_a_tables_standings_follow_its_chain() -> None:
    t = tables()
    assert labels_of(standings_columns(t, full=False)) == ["#", "player", "P", "Pts", "MP", "1st", "by"]
    assert standings_cells(t, full=False)[0] == ("1", "ann", "2", "6", "869", "1", "MP 869")
    assert standings_legend(t) == "Pts placement points · MP match points · 1st tables won"


def test_a_round_robin_keeps_its_columns() -> None:
    rr = {**swiss(), "format": "round_robin"}
    assert standings_columns(rr, full=True) == STANDING_COLUMNS
    assert labels_of(standings_columns(rr, full=False)) == ["#", "player", "P", "W–L", "pts for–agst", "decided by"]


def test_a_swiss_schedule_has_start_times_and_unpaired_rounds() -> None:
    rows = schedule_rows(swiss())
    headings = [r.cells for r in rows if r.kind == "round"]
    assert headings[1] == ("round 2", "Tue 8 Dec 19:30", "", "finished", "")
    assert headings[3] == ("round 4", "Tue 22 Dec 19:30", "", "pending", "not paired yet")
    assert next(r.cells for r in rows if r.kind == "pairing") == ("1.1", "ann", "bob", "decided", "ann wins 101–41")


def test_a_tables_schedule_has_the_seats_and_places() -> None:
    t = tables()
    assert schedule_columns(t)[1][0] == "table"
    rows = schedule_rows(t)
    first = next(r for r in rows if r.kind == "pairing")
    assert first.cells == ("1.1", "cyd 1st 187, dan 2nd 127, ann 3rd 67, bob 4th 0", "decided")
    assert first.names == ("ann", "bob", "cyd", "dan") and first.seats == ("p_01", "p_02", "p_03", "p_04")
    live = next(r for r in rows if r.kind == "pairing" and r.status == "live")
    assert live.parts == ("hal", "ivy", "jon", "kim") and live.watchable  # seat order until decided
    assert next(r for r in rows if r.kind == "round" and r.round == 4).cells == ("round 4", "", "pending")


def test_seat_lines_break_between_seats() -> None:
    parts = tuple(f"player{i} {i}th {i * 10}" for i in range(4, 11))
    for room in (20, 30, 50):
        lines = seat_lines(parts, room)
        assert all(len(line) <= room for line in lines)
        assert " ".join(lines) == ", ".join(parts)


# ---------------------------------------------------------------- the screen


def short_names(value: Any) -> Any:
    """``value`` with every player's (and standings row's) name cut to 8 characters."""
    if isinstance(value, dict):
        out = {k: short_names(v) for k, v in value.items()}
        if isinstance(out.get("name"), str) and ("kind" in out or "rank" in out):
            out["name"] = out["name"][:8]
        return out
    if isinstance(value, list):
        return [short_names(v) for v in value]
    return value


def format_app(tmp_path: Path, detail: dict[str, Any]) -> PlayApp:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path == f"/api/tournaments/{detail['id']}":
            return httpx.Response(200, json=detail)
        return refuse(request)

    api = Api(SERVER, transport=httpx.MockTransport(answer))
    return make_play_app(SERVER, config_dir=tmp_path, tournament=str(detail["id"]), api=api)


def labels(table: DataTable[Any]) -> list[str]:
    return [str(c.label) for c in table.columns.values()]


def cells(table: DataTable[Any], row: int) -> list[str]:
    return [str(getattr(c, "plain", c)) for c in table.get_row_at(row)]


def fits(table: DataTable[Any]) -> bool:
    return table.virtual_size.width <= table.scrollable_content_region.width


async def test_a_swiss_at_80x24(tmp_path: Path) -> None:
    detail = short_names(swiss())  # names of up to 8 characters fit 80 columns; longer ones scroll sideways
    async with format_app(tmp_path, detail).run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        title = str(screen.query_one("#tour-title", Static).render())
        assert "round 3/5 · Swiss" in title
        standings = screen.query_one("#standings", DataTable)
        assert labels(standings) == ["#", "player", "P", "Score", "Bch", "SB", "W", "PD", "PC", "by"]
        assert fits(standings)
        schedule = screen.query_one("#schedule", DataTable)
        assert labels(schedule) == ["slot", "white", "black", "status", "result"]
        assert cells(schedule, 0)[:2] == ["round 1", "Tue 1 Dec 19:30"]
        unpaired = next(i for i, r in enumerate(screen.schedule) if r.kind == "round" and r.round == 4)
        assert cells(schedule, unpaired) == ["round 4", "Tue 22 Dec 19:30", "", "pending", "not paired yet"]
        assert fits(schedule)
        await pilot.press("f")
        assert labels(standings)[-2:] == ["lot", "by"]


async def test_a_tables_tournament_at_80x24_wraps_a_table_between_seats(tmp_path: Path) -> None:
    async with format_app(tmp_path, tables(count=23, size=10, rounds_planned=3)).run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        standings = screen.query_one("#standings", DataTable)
        assert labels(standings) == ["#", "player", "P", "Pts", "MP", "1st", "by"] and fits(standings)
        schedule = screen.query_one("#schedule", DataTable)
        assert labels(schedule) == ["slot", "table (seat order; by place when decided)", "status"]
        assert fits(schedule)
        seats = cells(schedule, 1)[1].split("\n")
        assert len(seats) > 1 and all(len(line) <= screen.table_room() for line in seats)
        assert "ivy 1st 547," in seats[0]
        row = schedule.ordered_rows[1]
        assert row.height == len(seats)


async def test_enter_on_a_live_table_opens_it_with_every_seat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[tuple[str, int | None, tuple[str, ...]]] = []
    async with format_app(tmp_path, tables()).run_test(size=(100, 30)) as pilot:
        screen = await loaded(pilot)
        assert isinstance(screen, TournamentScreen)
        monkeypatch.setattr(
            type(screen.play), "open_table", lambda self, m, s, n: opened.append((m, s, tuple(n))), raising=True
        )
        live = next(i for i, r in enumerate(screen.schedule) if r.status == "live")
        screen.open_schedule_row(live)
    assert opened == [("m_tb_2_2", None, ("hal", "ivy", "jon", "kim"))]


def test_the_swiss_screen_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(pilot)

    assert snap_compare(format_app(tmp_path, short_names(swiss())), terminal_size=(80, 24), run_before=run_before)


def test_the_tables_screen_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(pilot)

    assert snap_compare(format_app(tmp_path, tables()), terminal_size=(80, 24), run_before=run_before)


def test_the_tables_of_ten_screen_at_120x32(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(pilot)

    detail = tables(count=23, size=10, rounds_planned=3)
    assert snap_compare(format_app(tmp_path, detail), terminal_size=(120, 32), run_before=run_before)


async def test_at_120_columns_the_full_standings_fit(tmp_path: Path) -> None:
    async with format_app(tmp_path, tables(count=23, size=10, rounds_planned=3)).run_test(size=(120, 32)) as pilot:
        screen = await loaded(pilot)
        standings = screen.query_one("#standings", DataTable)
        assert labels(standings)[-5:] == ["Pts", "MP", "1st", "lot", "by"] and fits(standings)
        assert fits(screen.query_one("#schedule", DataTable))
    async with format_app(tmp_path, swiss()).run_test(size=(120, 32)) as pilot:
        screen = await loaded(pilot)
        standings = screen.query_one("#standings", DataTable)
        assert "Bch" in labels(standings) and "played" in labels(standings) and fits(standings)


def test_the_lobby_list_says_a_swiss_or_tables() -> None:
    listed = [
        {"id": "t_a", "name": "A", "status": "running", "players": 20, "rounds": 5, "opened": 2, "format": "swiss"},
        {"id": "t_b", "name": "B", "status": "running", "players": 16, "rounds": 5, "opened": 1, "format": "tables"},
        {"id": "t_c", "name": "C", "status": "running", "players": 4, "rounds": 3, "opened": 1},
    ]
    assert [line.text for line in tournament_lines(listed, ["t_b"])] == [
        "tour   B · tables · running · 1/5 rounds · 16 players · you play",
        "tour   A · Swiss · running · 2/5 rounds · 20 players",
        "tour   C · running · 1/3 rounds · 4 players",
    ]
