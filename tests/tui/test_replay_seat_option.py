"""``unoduo replay FILE --seat N``: the scrubber opens as seat N saw the table (any seat of a table
of 2 to 10), ``v`` still cycles the views, and a seat the match does not have is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app as cli_app
from tests.tui.helpers import plain
from tui_client.apps.replay_app import FailureScreen, ScrubberScreen, make_app
from tui_client.widgets.replay_widgets import TitleBar

pytestmark = pytest.mark.anyio

TABLE = Path(__file__).resolve().parents[2] / "replays" / "table-of-four.jsonl"


async def test_the_scrubber_opens_from_the_seat_asked_for() -> None:
    app = make_app(TABLE.read_text(encoding="utf-8"), source=str(TABLE), seat=2)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, ScrubberScreen) and screen.viewer == 2
        assert "view seat 2" in plain(screen.query_one(TitleBar))
        await pilot.press("v")
        assert screen.viewer == 3  # v goes on from there: seat 3, then the auditor
        await pilot.press("v")
        assert "view audit" in plain(screen.query_one(TitleBar))


async def test_a_seat_the_match_does_not_have_is_a_failure_screen() -> None:
    app = make_app(TABLE.read_text(encoding="utf-8"), source=str(TABLE), seat=4)
    async with app.run_test(size=(120, 40)):
        assert isinstance(app.screen, FailureScreen)


def test_the_command_refuses_a_seat_the_match_does_not_have() -> None:
    result = CliRunner().invoke(cli_app, ["replay", str(TABLE), "--seat", "4"])
    assert result.exit_code == 2 and "--seat 4: this match has seats 0 to 3" in result.output
