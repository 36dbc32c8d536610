"""The scrubber (``unoduo replay``) on a replay that names its seats: the table and the log
call them by name, the result is said winner first with the rule."""

from __future__ import annotations

import pytest

from tests.engine.test_replay_names import LEGAL_UNO_DUO, renamed

pytestmark = pytest.mark.anyio


async def test_the_scrubber_calls_the_seats_by_name_and_says_the_result_winner_first() -> None:
    from tui_client.apps.replay_app import make_app
    from tui_client.widgets.replay_widgets import EventLog, TablePanel

    text = renamed(LEGAL_UNO_DUO, ["ann", "random-1"])
    app = make_app(text, source="named.jsonl")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("right", "right")
        table = str(app.screen.query_one(TablePanel).render())
        assert "seat 0 (ann)" in table and "seat 1 (random-1)" in table
        assert "ann joined" in str(app.screen.query_one(EventLog).render())
        await pilot.press("end", "left")  # match_ended is just before seed_revealed
        words = str(app.screen.query_one(EventLog).render())
        assert "match over: " in words and " wins " in words and "(lowest total wins)" in words
        assert "p_b7787254ada7c867" not in words


async def test_event_numbers_from_1000_on_stay_apart_from_the_words() -> None:
    from textual.app import App, ComposeResult

    from tui_client.models.replay_model import Frame, LogLine
    from tui_client.widgets.replay_widgets import EventLog

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield EventLog(id="events")

    log = [LogLine(999, "ann played R5", False), LogLine(1113, "bob drew a card", False)]
    log.append(LogLine(12345, "random-1 drew a card", True))
    frame = Frame(12345, 12345, "auditor", "cards_drawn", {}, log, None, 9)
    app = One()
    async with app.run_test(size=(60, 10)) as pilot:
        app.query_one(EventLog).show(frame)
        await pilot.pause()
        words = str(app.query_one(EventLog).render())
        assert "  999 ann played R5" in words and " 1113 bob drew a card" in words
        assert "▶12345 random-1 drew a card" in words
