"""The minimum-size notice (tui_client/screens/too_small.py): below ``MIN_SIZE`` a screen says how big
the terminal must be instead of squeezing its panels; at or above it, the notice is gone."""

from __future__ import annotations

from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Footer, Static

from tui_client.screens.too_small import MinimumSize, TooSmallNotice, is_too_small, notice_words

pytestmark = pytest.mark.anyio


class Panels(MinimumSize, Screen[None]):
    MIN_SIZE: ClassVar[tuple[int, int]] = (60, 20)
    CSS = "#body { height: 1fr; } #bottom { dock: bottom; height: 3; }"

    def compose(self) -> ComposeResult:
        yield Static("the body", id="body")
        yield Static("the clock", id="bottom")
        yield Footer()


class One(App[None]):
    def on_mount(self) -> None:
        self.push_screen(Panels())


def test_the_words() -> None:
    assert notice_words((60, 20), Size(52, 18)) == "make the terminal at least 60×20 (now 52×18)"
    assert is_too_small((60, 20), Size(59, 30))
    assert is_too_small((60, 20), Size(100, 19))
    assert not is_too_small((60, 20), Size(60, 20))


def notice_of(app: App[None]) -> TooSmallNotice:
    return app.screen.query_one(TooSmallNotice)


async def test_the_notice_covers_a_small_terminal_and_goes_when_it_grows() -> None:
    app = One()
    async with app.run_test(size=(50, 15)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Panels)
        assert screen.too_small
        notice = notice_of(app)
        assert notice.display and notice.has_class("shown")
        assert str(notice.render()) == "make the terminal at least 60×20 (now 50×15)"
        # it covers the whole screen, docked parts included
        assert notice.region.size == Size(50, 15)
        assert app.screen.get_widget_at(1, 13)[0] is notice
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not screen.too_small
        assert not notice.display
        assert app.screen.get_widget_at(1, 22)[0].id == "bottom"
        await pilot.resize_terminal(59, 24)
        await pilot.pause()
        assert notice.display
        assert str(notice.render()) == "make the terminal at least 60×20 (now 59×24)"


async def test_the_scrubber_says_so_below_72x20_instead_of_cutting_off_the_audit() -> None:
    from pathlib import Path

    from tui_client.apps.replay_app import ScrubberScreen, make_app

    sample = Path(__file__).resolve().parents[2] / "replays" / "wd4-legal-challenge-uno-duo.jsonl"
    app = make_app(sample.read_text(encoding="utf-8"), source="sample")
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ScrubberScreen) and screen.too_small
        assert str(notice_of(app).render()) == "make the terminal at least 72×20 (now 60×20)"
        await pilot.resize_terminal(72, 20)
        await pilot.pause()
        assert not screen.too_small and not notice_of(app).display
        await pilot.press("w")  # the first challenge: its verdict is on screen, not cut off
        await pilot.pause()
        audit = screen.query_one("#audit")
        assert audit.region.width >= 30 and audit.region.height >= 3
        assert audit.region.right <= 72
