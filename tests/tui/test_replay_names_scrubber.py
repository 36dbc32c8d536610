"""The scrubber (``unoduo replay``) on a replay that names its seats: the table and the log
call them by name, the result is said winner first with the rule."""

from __future__ import annotations

import pytest

from tests.engine.test_replay_names import LEGAL_UNO_DUO, renamed

pytestmark = pytest.mark.anyio


async def test_the_scrubber_calls_the_seats_by_name_and_says_the_result_winner_first() -> None:
    from tui_client.replay_app import make_app
    from tui_client.widgets import EventLog, TablePanel

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
