"""The dispute's note (``tui_client.screens.dispute_note``) and the table's dispute key on fixed data:
the note asked over the table with the event in words, an empty note refused before anything
is sent, Esc sends nothing, and the server's refusal shown in words. (The dispute reaching a
real server, and the ruling coming back: test_lobby_live.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.app import App
from textual.widgets import Input, Static

from tests.tui.helpers import until
from tests.tui.test_lobby_screens import canned_table, lobby_app
from tui_client.screens.dispute_note import DisputeNoteScreen

pytestmark = pytest.mark.anyio


class NoteApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.results: list[str | None] = []

    def on_mount(self) -> None:
        self.push_screen(DisputeNoteScreen(1114, "random-1 drew a card"), self.results.append)


def plain(widget: Static) -> str:
    content = widget.content
    return str(getattr(content, "plain", content))


async def test_the_note_is_asked_with_the_event_in_words() -> None:
    app = NoteApp()
    async with app.run_test(size=(60, 20)) as pilot:
        modal = app.screen
        assert isinstance(modal, DisputeNoteScreen)
        assert plain(modal.query_one("#dispute-what", Static)) == "dispute event #1114: random-1 drew a card"
        assert app.focused is modal.query_one("#dispute-note", Input)
        await pilot.press("enter")  # empty: refused, still asking
        assert app.screen is modal and app.results == []
        assert "a dispute needs a note" in plain(modal.query_one("#dispute-hint", Static))
        await pilot.press(*"  seat 1 drew twice ", "enter")
        await until(pilot, lambda: app.results != [], "the note")
        assert app.results == ["seat 1 drew twice"]


async def test_esc_disputes_nothing() -> None:
    app = NoteApp()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("x", "escape")
        await until(pilot, lambda: app.results != [], "the answer")
        assert app.results == [None]


async def test_the_dispute_key_at_the_table_and_a_refusal_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, api = lobby_app(tmp_path, monkeypatch)
    posted: list[dict[str, Any]] = []
    answer = api.answer

    def refuse_casual(request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.endswith("/disputes"):
            posted.append({"path": request.url.path, "body": request.read().decode()})
            return httpx.Response(
                409, json={"code": "not_a_tournament_match", "message": "only a tournament match can be disputed"}
            )
        return answer(request)

    monkeypatch.setattr(api.client, "_transport", httpx.MockTransport(refuse_casual))
    async with app.run_test(size=(80, 24)) as pilot:
        table = await canned_table(pilot, api)
        latest = table.model.dispute_target()
        assert latest is not None and latest.seq == table.model.events()[-1].seq
        await pilot.press("up", "up")
        picked = table.model.dispute_target()
        assert picked is not None and picked.seq == table.model.events()[-3].seq
        assert table.query_one("PlayLog").border_title == f"events · ↑↓ pick · ! dispute #{picked.seq}"
        await pilot.press("exclamation_mark")
        await until(pilot, lambda: isinstance(app.screen, DisputeNoteScreen), "the note")
        modal = app.screen
        assert isinstance(modal, DisputeNoteScreen) and modal.seq == picked.seq and modal.summary == picked.text
        await pilot.press(*"odd", "enter")
        await until(pilot, lambda: "refused" in table.model.status, "the refusal")
        assert table.model.status == (
            f"the dispute of #{picked.seq} was refused: Only a tournament match can be disputed. [not_a_tournament_match]"
        )
        assert (
            posted
            and f'"seq":{picked.seq}' in posted[0]["body"].replace(" ", "")
            and '"note":"odd"' in posted[0]["body"].replace(" ", "")
        )
        assert table.disputes == []
