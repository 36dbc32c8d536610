"""Names a player chose are shown as written on the table, the note screen and the replay
(issue 33.4): ``[bold]ann[/bold]``, ``[red]x``, ``bob [bot]`` keep every bracket, at 80×24
and 60×20. Textual reads a ``str`` handed to a widget as markup; these screens hand it Text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from tests.engine.test_replay_names import LEGAL_UNO_DUO, renamed
from tests.tui.helpers import until
from tests.tui.test_dispute_screen import the_note
from tests.tui.test_lobby_screens import loaded, lobby_app
from tests.tui.test_play_snapshots import MATCH, canned_messages
from tui_client.apps.play_app import PlayApp
from tui_client.apps.replay_app import make_app

pytestmark = pytest.mark.anyio

NAMES = [("[bold]ann[/bold]", "bob [bot]"), ("[red]x", "[link=https://e.x]y[/link] [bot]")]
SIZES = [(80, 24), (60, 20)]


def drawn(app: App[Any]) -> str:
    """The terminal as drawn now, one string (a name may wrap: joined lines compared)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def flat(text: str) -> str:
    """The words drawn, borders and line breaks left out (a wrapped name reads whole again)."""
    return " ".join(text.replace("│", " ").split())


@pytest.mark.parametrize("names", NAMES)
@pytest.mark.parametrize("size", SIZES)
async def test_the_table_and_the_note_show_names_as_written(
    names: tuple[str, str], size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    me, other = names
    app, api = lobby_app(tmp_path, monkeypatch)
    async with app.run_test(size=size) as pilot:
        await loaded(pilot, api, pairing=False)
        assert isinstance(app, PlayApp)
        table = app.open_table(MATCH, 0, [me, other])
        events = len(canned_messages())
        await until(pilot, lambda: table.model.last_seq == events and table.connected, "the canned match")
        await pilot.pause()
        screen = drawn(app)
        assert f"you ({me}, seat 0)" in flat(screen)
        assert f"{other} played" in screen  # the log
        table.banner = f"connection lost — {other} says hi"
        table.next_ready(f"vs {other}")
        table.redraw()
        await pilot.pause()
        assert f"connection lost — {other} says hi" in drawn(app)
        await pilot.press("up", "up")  # bob kept the drawn card
        note = await the_note(pilot)
        await pilot.pause()
        assert f"dispute event #{note.seq}: {note.summary}" in flat(drawn(app))
        assert note.summary.startswith(f"{other} ")


@pytest.mark.parametrize("names", NAMES)
async def test_the_replay_shows_names_as_written(names: tuple[str, str]) -> None:
    app = make_app(renamed(LEGAL_UNO_DUO, list(names)), source="named.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("right", "right", "right")
        await pilot.pause()
        screen = drawn(app)
        assert f"seat 0 ({names[0]})" in screen and f"{names[0]} joined" in screen, screen
        assert names[1].split(" ")[0] in screen and "[bot]" in screen, screen
