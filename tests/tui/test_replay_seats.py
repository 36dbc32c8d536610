"""Tables of 3-10 seats played by the engine (``classic``, random bots; ``tests/tui/tables.py``)
through the client: the live table's model on the views the server would send, and the
scrubber on the replay, from every seat's perspective (docs/TUI.md "A table of more than two")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.game.seating import next_seat
from engine.record.sealing import AUDITOR
from tests.tui.helpers import plain, until
from tests.tui.tables import MATCH, real_match, real_messages, real_replay, seat_names
from tui_client.models.play_model import PlayModel
from tui_client.models.replay_model import ReplayModel
from tui_client.models.seating import around
from tui_client.widgets.play_widgets import opponents_text, turn_words


@pytest.mark.parametrize("seats", [4, 10])
def test_the_live_table_on_real_views(seats: int) -> None:
    """Every decision of a real match, from seat 1's side: the panel lists every other seat with
    the count the view gives, the turn marker on the seat to move, and names the next player as
    the engine's own ``next_seat`` finds it."""
    match = real_match(seats, target=500, steps=120)  # still in play after 120 decisions
    model = PlayModel(MATCH, 1, seat_names(seats))
    for text in real_messages(match, 1):
        assert not model.apply(json.loads(text))
        v = model.view or {}
        if v.get("phase") != "play":
            continue
        lines = opponents_text(model, 200, 20).plain.splitlines()
        for line, seat in zip(lines, around(seats, 1), strict=True):
            words = line.replace("▶", "").split()
            assert words[0] == seat_names(seats)[seat]
            assert words[1] == str(v["hand_counts"][seat]) or words[1] == "left"
            assert line.startswith("▶") == (v["pending"]["seat"] == seat)
    state = match.state
    turn = state.pending.seat
    assert turn is not None and model.view is not None
    after = next_seat(state, turn)
    assert turn_words(model).endswith(f", then {model.voice.name(after)}")
    assert model.check.ok


@pytest.fixture(scope="module")
def four() -> ReplayModel:
    # Seed "t3": a round with Skips and Reverses both ways (the stock seed's match, since
    # RULES.md D25 draws a Draw Two at once, is a short round without a Skip).
    return ReplayModel(real_replay(4, seed="t3"), "table4.jsonl")


def test_a_four_seat_replay_verifies_and_has_every_perspective(four: ReplayModel) -> None:
    assert four.ok and four.seats == 4
    assert four.perspectives == (AUDITOR, 0, 1, 2, 3)
    assert four.players == ["ann", "bob", "greedy-1", "dan"]


def test_each_seat_sees_only_its_own_hand(four: ReplayModel) -> None:
    seq = four.round_starts[0][1] + 40
    for viewer in four.perspectives:
        v = four.frame(seq, viewer).view
        if viewer == AUDITOR:
            assert len(v["hands"]) == 4
        else:
            assert "hands" not in v and len(v["hand"]) == v["hand_counts"][viewer]


def test_the_log_says_where_a_reverse_turns_and_who_a_skip_skips(four: ReplayModel) -> None:
    words = [four.describe(seq, AUDITOR) for seq in range(1, four.total + 1)]
    assert any(w.endswith(" — direction now counter-clockwise") for w in words)
    assert any(w.endswith(" — direction now clockwise") for w in words)
    skips = [w for w in words if w.endswith(" is skipped")]
    assert skips and all(w.split(" played ")[1].split()[0].endswith("S") for w in skips)
    assert words[0].endswith("ann, bob, greedy-1 and dan")
    assert any(w.startswith("cut: ann ") and " deals" in w for w in words)
    ended = next(w for w in words if w.startswith("match over: "))
    assert " wins with " in ended and "(first to 60 wins)" in ended


@pytest.mark.anyio
async def test_v_takes_every_seat_of_a_table_of_ten() -> None:
    from tui_client.apps.replay_app import ScrubberScreen, make_app
    from tui_client.widgets.replay_widgets import TablePanel, TitleBar

    app = make_app(real_replay(10), source="table10.jsonl")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(
            pilot, lambda: isinstance(app.screen, ScrubberScreen) and app.screen.frame is not None, "the scrubber"
        )
        screen: Any = app.screen
        await pilot.press(*["pagedown"] * 4)
        seen = []
        for _ in range(11):
            await pilot.press("v")
            seen.append(screen.viewer)
            table = plain(screen.query_one(TablePanel))
            assert len(table.splitlines()) >= 10
            assert f"view seat {screen.viewer}" in str(screen.query_one(TitleBar).render()) or screen.viewer == AUDITOR
        assert seen == [*range(10), AUDITOR]


@pytest.mark.anyio
async def test_a_table_of_ten_asks_for_more_lines_than_72x20() -> None:
    from tui_client.apps.replay_app import ScrubberScreen, make_app

    app = make_app(real_replay(10), source="table10.jsonl")
    async with app.run_test(size=(72, 20)) as pilot:
        await until(
            pilot, lambda: isinstance(app.screen, ScrubberScreen) and app.screen.frame is not None, "the scrubber"
        )
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ScrubberScreen) and screen.too_small and screen.minimum() == (72, 24)
