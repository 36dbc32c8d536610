"""Disputing at the table at 80×24 and 60×20 (issue 33.5): the event picked with ↑/↓ is on
screen, highlighted, however long the lines after it wrap, and stays there while the note is
written; the note screen shows the move clock; every key is in the footer or behind ``?``."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import Input, Static

from engine.record.jsonfmt import AT_FORMAT
from tests.tui.helpers import plain, sample_text, until
from tests.tui.test_lobby_screens import canned_table, lobby_app
from tests.tui.test_play_snapshots import NOW
from tui_client.apps.replay_app import REPLAY_HELP, ReplayHelp, ScrubberScreen, make_app
from tui_client.screens.dispute_note import HINT, DisputeNoteScreen
from tui_client.screens.help_screen import HELP
from tui_client.screens.table_screen import PlayScreen
from tui_client.screens.tournament_screen import MatchScrubber
from tui_client.widgets.play_widgets import PlayLog

pytestmark = pytest.mark.anyio

SIZES = [(80, 24), (60, 20)]
LONG = "bob played R+2 — you face 2 — and this line goes on long enough to wrap over several rows of the log"


def screen_text(app: App[Any]) -> list[str]:
    """The terminal's lines as drawn now (every layer: a modal and what shows under it)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def log_rows(app: App[Any], table: PlayScreen) -> list[str]:
    """The log's rows as they are on the terminal (inside its border)."""
    region = table.query_one(PlayLog).content_region
    lines = screen_text(app)
    return [lines[y][region.x : region.right] for y in range(region.y, region.bottom)]


async def wrapping_table(pilot: Pilot[Any], api: Any) -> PlayScreen:
    """The canned table with a dozen more events whose lines wrap over two or three rows."""
    table = await canned_table(pilot, api)
    first = table.model.last_seq + 1
    for seq in range(first, first + 12):
        table.model._add(seq, LONG)
    table.redraw()
    await pilot.pause()
    return table


async def the_note(pilot: Pilot[Any]) -> DisputeNoteScreen:
    """Press ``!`` at the table and wait for the note screen."""
    app = pilot.app
    await pilot.press("exclamation_mark")
    await until(pilot, lambda: isinstance(app.screen, DisputeNoteScreen), "the note")
    note = app.screen
    assert isinstance(note, DisputeNoteScreen)
    return note


@pytest.mark.parametrize("size", SIZES)
async def test_the_picked_event_is_always_on_screen(
    size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, api = lobby_app(tmp_path, monkeypatch)
    async with app.run_test(size=size) as pilot:
        table = await wrapping_table(pilot, api)
        for presses in range(1, 20):
            await pilot.press("up")
            await pilot.pause()
            target = table.model.dispute_target()
            assert target is not None and table.model.picked == target.seq
            assert f"! dispute #{target.seq}" in str(table.query_one(PlayLog).border_title)
            rows = log_rows(app, table)
            assert any(row.lstrip().startswith(f"#{target.seq} ") for row in rows), (presses, target.seq, rows)


@pytest.mark.parametrize("size", SIZES)
async def test_the_disputed_event_stays_on_screen_under_the_note(
    size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note box sits above the log: the disputed event is still there, highlighted, as more
    events come in; the move clock is on the note box itself."""
    app, api = lobby_app(tmp_path, monkeypatch)
    async with app.run_test(size=size) as pilot:
        table = await wrapping_table(pilot, api)
        await pilot.press("up", "up", "up", "up", "up")
        target = table.model.dispute_target()
        assert target is not None
        note = await the_note(pilot)
        assert note.seq == target.seq
        first = table.model.last_seq + 13
        for seq in range(first, first + 8):  # the match goes on while the note is written
            table.model._add(seq, LONG)
        table.redraw()
        await pilot.press(*"odd")
        await pilot.pause()
        rows = log_rows(app, table)
        assert any(row.lstrip().startswith(f"#{target.seq} ") for row in rows), rows
        assert note.query_one("#dispute-box").region.bottom <= table.query_one(PlayLog).region.y
        drawn = "\n".join(screen_text(app))
        assert "⏱ 42 s left for your move" in drawn


async def test_the_note_warns_when_the_clock_runs_low_and_esc_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dispute stops no clock: with little time left the note box says so (and rings once);
    Esc goes back to the table with the note kept, and ``!`` opens it again as it was."""
    app, api = lobby_app(tmp_path, monkeypatch)
    bells: list[int] = []
    async with app.run_test(size=(60, 20)) as pilot:
        monkeypatch.setattr(app, "bell", lambda: bells.append(1))
        table = await canned_table(pilot, api)
        await pilot.press("up")
        note = await the_note(pilot)
        seq = note.seq
        await pilot.press(*"the pile")
        assert table.model.view is not None
        table.model.view["deadline"] = (NOW + timedelta(seconds=9)).strftime(AT_FORMAT)
        clock = note.query_one("#dispute-clock", Static)
        await until(pilot, lambda: "9 s left for your move!" in plain(clock), "the warning")
        assert "Esc: back, note kept" in plain(clock) and bells == [1]
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is table, "back at the table")
        assert table.drafts == {seq: "the pile"} and table.model.picked == seq
        assert table.model.status == f"your note on #{seq} is kept: ! finishes it"
        again = await the_note(pilot)
        assert again.seq == seq
        assert again.query_one("#dispute-note", Input).value == "the pile"


def key_words(binding: Binding) -> str:
    """How a key is written in the footer and the help: ``←``, ``Enter``, ``Esc``, ``PgUp``, ``k``."""
    named = {"enter": "Enter", "escape": "Esc", "up": "↑", "down": "↓", "pageup": "PgUp", "pagedown": "PgDn"}
    return named.get(binding.key) or binding.key_display or binding.key


def help_keys(text: str, column: int) -> set[str]:
    """The keys a help text lists: the words of its key column (``  r y g b  name a colour``),
    ``column`` characters wide after the two-space indent."""
    keys: set[str] = set()
    for line in text.splitlines():
        if line.startswith("  ") and not line.startswith("   "):
            keys.update(line[2 : 2 + column].split())
    return keys


def bindings(screen: type[Any]) -> list[Binding]:
    """The keys the client's own screen classes bind (Textual's own Tab for the focus aside)."""
    out: dict[str, Binding] = {}
    for cls in reversed(screen.__mro__):
        for binding in vars(cls).get("BINDINGS", []) if cls.__module__.startswith("tui_client") else []:
            assert isinstance(binding, Binding)
            out[binding.key] = binding
    return list(out.values())


@pytest.mark.parametrize("size", SIZES)
async def test_every_key_of_the_table_is_in_the_footer_or_the_help(
    size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, api = lobby_app(tmp_path, monkeypatch)
    async with app.run_test(size=size) as pilot:
        await canned_table(pilot, api)
        footer = screen_text(app)[-1]
        assert "? help" in footer and "q leave" in footer, footer
        listed = help_keys(HELP.split("[b]The lobby[/b]")[0], 9)
        for binding in bindings(PlayScreen):
            assert key_words(binding) in listed, binding


@pytest.mark.parametrize("size", [(72, 20), (80, 24)])
@pytest.mark.parametrize("screen", [ScrubberScreen, MatchScrubber])
async def test_every_key_of_the_replay_is_in_the_footer_or_the_help(
    screen: type[ScrubberScreen], size: tuple[int, int]
) -> None:
    app = make_app(sample_text())
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        if screen is MatchScrubber:
            assert app.model is not None
            app.push_screen(MatchScrubber(app.model))
            await pilot.pause()
        # The footer paints after the screen's first refresh, later than one pause on a loaded machine.
        await until(pilot, lambda: "? help" in screen_text(app)[-1], "the footer")
        footer = screen_text(app)[-1]
        assert "? help" in footer and ("q quit" in footer or "q back" in footer), footer
        listed = help_keys(REPLAY_HELP, 12)
        for binding in bindings(screen):
            assert key_words(binding) in listed, binding
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, ReplayHelp), "the help")
        assert "PgUp PgDn" in "\n".join(screen_text(app))


async def test_every_key_of_the_note_is_on_it() -> None:
    for binding in bindings(DisputeNoteScreen):
        assert key_words(binding) in HINT, binding
    assert "Enter" in HINT  # the note's Input sends with Enter
