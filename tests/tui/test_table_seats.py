"""The live table at 3–10 seats (docs/TUI.md "A table of more than two"): every opponent on one
line (whose turn, name, cards, score, UNO!, the dealer, ``left``), the direction and who plays
next, the log naming seats by name; readable at 80×24 with 9 opponents and at 60×20, the
client's minimum. On the fixed rounds of ``tests/tui/tables.py``; snapshots
(pytest-textual-snapshot: after a deliberate change, ``pytest tests/tui/test_table_seats.py
--snapshot-update``, then look at the SVGs)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Footer, Static

from tests.tui.helpers import plain, until
from tests.tui.tables import MATCH, SERVER, FrozenClock, TableApi, seat_names, table_messages
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.models import play_model
from tui_client.models.lobby_model import lobby_entries
from tui_client.models.play_model import PlayModel
from tui_client.models.seating import around, next_seat, seat_rows
from tui_client.screens.signin_screen import SignInScreen
from tui_client.screens.table_screen import PlayScreen
from tui_client.widgets.play_widgets import (
    SPARE_LINES,
    PlayLog,
    opponents_text,
    seat_grid,
    table_text,
    title_text,
    turn_words,
)


def played(seats: int, seat: int | None = 0) -> PlayModel:
    model = PlayModel(MATCH, seat, seat_names(seats))
    for text in table_messages(seats):
        assert not model.apply(json.loads(text))
    return model


# ---------------------------------------------------------------- in words


def test_ten_seats_in_words() -> None:
    m = played(10)
    lines = opponents_text(m, 80, 5).plain.splitlines()
    assert len(lines) == 5
    assert lines[0].split() == ["bob", "5", "cards", "0", "pts", "gus", "5", "cards", "145", "pts"]
    assert lines[1].split() == [
        "greedy-1",
        "1",
        "card",
        "212",
        "pts",
        "UNO!",
        "hal",
        "6",
        "cards",
        "20",
        "pts",
        "dealer",
    ]
    assert lines[4].split() == ["fay", "left", "0", "pts"]
    assert turn_words(m) == "↺ counter-clockwise · you, then jo"
    assert table_text(m).plain.splitlines()[1] == "  you 61 pts · ↺ counter-clockwise · you, then jo"
    assert title_text(m).plain.startswith("unoduo you (ann, seat 0) at a table of 10 · round 2 · m_table")
    log = [line.text for line in m.log]
    assert log[:2] == [
        "match created: classic, to 500 points (first to 500 wins) — ann, bob, greedy-1, dan, random-2, fay, gus, hal, ivy and jo",
        "round 2 starts — hal deals",
    ]
    assert "jo played YS — you are skipped" in log
    assert "hal played GR — direction now counter-clockwise" in log
    assert "gus played GS — random-2 is skipped" in log  # fay, between them, has left
    assert "fay leaves the table: a forfeit (timeouts)" in log
    assert "greedy-1 played G1 and said UNO!" in log


def test_four_seats_in_words() -> None:
    m = played(4)
    lines = opponents_text(m, 80, 5).plain.splitlines()
    assert [line.split() for line in lines] == [
        ["▶", "bob", "6", "cards", "0", "pts"],
        ["greedy-1", "5", "cards", "212", "pts"],
        ["dan", "1", "card", "30", "pts", "UNO!"],
    ]
    assert "you 61 pts dealer" in table_text(m).plain
    assert turn_words(m) == "↺ counter-clockwise · bob, then you"
    assert m.prompt() == "bob: to play"
    assert "dan played GR and said UNO! — direction now counter-clockwise" in [line.text for line in m.log]


def test_every_seat_sees_the_others_from_its_left() -> None:
    """Seat 3's panel starts at seat 4 and goes round; a spectator's lists every seat from 0."""
    assert around(10, 3) == [4, 5, 6, 7, 8, 9, 0, 1, 2]
    assert around(4, None) == [0, 1, 2, 3]
    m = played(10)
    assert [r.seat for r in seat_rows(m.view, m.names, 3)] == around(10, 3)
    assert [r.seat for r in seat_rows(m.view, m.names, None)] == list(range(10))
    assert next_seat(m.view, 6) == 4  # counter-clockwise past fay, who left
    assert next_seat(m.view, 6, 1) == 7


@pytest.mark.parametrize("seats", range(3, 11))
@pytest.mark.parametrize(("width", "height"), [(80, 24), (60, 20), (100, 30)])
def test_the_panel_fits_every_table_size(seats: int, width: int, height: int) -> None:
    """No line wider than the screen, and (80×24 and up) no more lines than the room left for it."""
    rows = seat_rows(played(10).view, seat_names(10), 0)[: seats - 1]
    room = max(3, height - 19)
    grid = seat_grid(rows, width, room)
    assert grid.cell * grid.columns + 2 * (grid.columns - 1) <= width
    if width >= 80:
        assert grid.rows <= room
    m = played(10)
    assert all(len(line) <= width for line in opponents_text(m, width, room).plain.splitlines())


@pytest.mark.parametrize("dealer", [None, 3])
def test_names_stay_whole_at_60_columns_whoever_deals(dealer: int | None) -> None:
    """Nine opponents named ``greedy-1`` … at 60 columns: the count becomes ``7c`` or a column
    goes before a name is cut, with or without an opponent's ``dealer`` mark (CI once saw
    ``greed…`` when the player dealt)."""
    names = [f"greedy-{n}" for n in range(1, 10)]
    rows = [
        replace(r, name=names[i], dealer=(i == dealer))
        for i, r in enumerate(seat_rows(played(10).view, seat_names(10), 0))
    ]
    grid = seat_grid(rows, 60, 3)
    assert grid.name == len("greedy-1")
    assert grid.rows <= 3 + SPARE_LINES
    assert grid.cell * grid.columns + 2 * (grid.columns - 1) <= 60


def test_two_seat_words_are_as_before() -> None:
    """A two-seat table keeps its words: ``vs bob``, both scores on the table line, no panel."""
    m = PlayModel("m_two", 0, ["ann", "bob"])
    assert title_text(m).plain.startswith("unoduo you (ann, seat 0) vs bob")


# ---------------------------------------------------------------- on the screen


def table_app(seats: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[PlayApp, int]:
    monkeypatch.setattr(play_model, "datetime", FrozenClock)
    messages = table_messages(seats)
    return make_play_app(SERVER, config_dir=tmp_path, api=TableApi(messages)), len(messages)


async def open_the_table(pilot: Pilot[Any], seats: int, events: int) -> PlayScreen:
    app = pilot.app
    assert isinstance(app, PlayApp)
    await until(pilot, lambda: isinstance(app.screen, SignInScreen) and app.screen.ready, "the sign-in screen")
    screen = app.open_table(MATCH, 0, seat_names(seats))
    await until(pilot, lambda: screen.model.last_seq == events and screen.connected, "the table's round")
    prompt = screen.query_one("#prompt")
    shape: tuple[int, ...] = ()
    steady = 0
    while steady < 3:  # the wrapped prompt is laid out a refresh after its text changes
        await pilot.pause()
        now = (prompt.size.height, prompt.virtual_size.height, screen.query_one(PlayLog).size.height)
        steady = steady + 1 if now == shape else 0
        shape = now
    return screen


@pytest.mark.anyio
@pytest.mark.parametrize(("width", "height", "log_lines"), [(80, 24, 5), (60, 20, 3)])
async def test_nine_opponents_stay_readable(
    width: int, height: int, log_lines: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, events = table_app(10, tmp_path, monkeypatch)
    async with app.run_test(size=(width, height)) as pilot:
        screen = await open_the_table(pilot, 10, events)
        assert not screen.too_small
        panel = plain(screen.query_one("#opponent", Static))
        for name in seat_names(10)[1:]:
            assert name in panel
        assert "UNO!" in panel and "dealer" in panel and "left" in panel
        assert "↺ counter-clockwise" in plain(screen.query_one("#table", Static))
        assert "⏱ 42 s" in plain(screen.query_one("#prompt", Static))
        assert screen.query_one(PlayLog).content_size.height >= log_lines
        drawn = [
            w for w in screen.query("Static, HandView, PlayLog") if w.display and Footer not in map(type, w.ancestors)
        ]
        bottom = max(w.region.bottom for w in drawn)
        assert bottom <= height - 1  # nothing pushed under the footer


def test_four_seats_at_80x24(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, events = table_app(4, tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await open_the_table(pilot, 4, events)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_ten_seats_at_80x24(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, events = table_app(10, tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await open_the_table(pilot, 10, events)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_ten_seats_at_60x20(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, events = table_app(10, tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await open_the_table(pilot, 10, events)

    assert snap_compare(app, terminal_size=(60, 20), run_before=run_before)


def test_the_lobby_names_a_table() -> None:
    """A table's lines in the lobby: who the player plays, clockwise from their left (the first
    three, then how many more), and a table to watch by its size."""
    seats = [{"id": f"p_{name}", "name": name, "kind": "human"} for name in seat_names(10)]

    def summary(match: str, status: str, players: list[dict[str, str]]) -> dict[str, Any]:
        return {"id": match, "status": status, "seats": players, "scores": [0] * len(players), "winner": None}

    me = {"id": "p_dan", "matches": [summary("m_4", "waiting", seats[:4]), summary("m_10", "live", seats)]}
    entries = {e.match: e for e in lobby_entries(me)}
    assert entries["m_4"].text.startswith("join   vs ann, bob, greedy-1 · casual")
    assert entries["m_10"].text.startswith("play   vs random-2, fay, gus +6 · casual")
    assert entries["m_10"].seat == 3 and len(entries["m_10"].names) == 10
    tournament = {"rounds": [{"matches": [summary("m_w", "live", seats[4:8])]}]}
    watched = lobby_entries({"id": "p_zed", "matches": []}, [tournament])
    assert watched[0].text.startswith("watch  a table of 4: random-2, fay, gus +1 · casual")


def test_a_catch_at_a_table_says_whom() -> None:
    """Any other seat may catch (D22): the button names the seat down to one card."""
    m = played(4)
    assert m.view is not None
    m.view = {**m.view, "uno": [False] * 4, "legal": [{"type": "uno"}]}  # dan's UNO not said
    assert [o.label for o in m.offers()] == ["Catch dan: UNO!"]
    assert m.decide("uno").command == {"type": "uno"}
