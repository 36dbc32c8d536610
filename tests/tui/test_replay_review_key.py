"""The scrubber's review key (issue 37): ``r`` reviews the perspective's seat and marks the decision at the cursor."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.widgets import ContentSwitcher, Static

from engine.review.review import ReviewSettings
from tests.tui.helpers import SAMPLE, sample_text
from tui_client.apps.replay_app import ScrubberScreen, make_app
from tui_client.models.review_view import decision_at, next_flagged, pane_lines

pytestmark = pytest.mark.anyio


async def test_r_reviews_the_seat_and_shows_its_decision_at_the_cursor() -> None:
    app = make_app(sample_text(), source=str(SAMPLE), seat=1)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, ScrubberScreen)
        screen.review_settings = ReviewSettings(samples=1)
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        review = screen.reviews[1]
        assert review["seat"] == 1 and review["reviewed"] > 0
        assert screen.query_one("#right", ContentSwitcher).current == "review"
        assert "seat 1" in str(screen.query_one("#review", VerticalScroll).border_title)
        first = review["decisions"][0]["seq"]
        screen.goto(first)
        body = str(screen.query_one("#review-body", Static).render())
        assert "decision at the cursor" in body and "> " in body
        await pilot.press("r")  # again: the next flagged decision, or a notice that there is none
        flagged = next_flagged(review, first)
        assert screen.cursor == (first if flagged is None else flagged)
        await pilot.press("s")  # the score chart again
        assert screen.query_one("#right", ContentSwitcher).current != "review"


def test_the_pane_names_the_last_decision_before_the_cursor() -> None:
    review = {
        "seat": 0,
        "accuracy": 50.0,
        "counts": {"blunder": 1, "mistake": 0, "inaccuracy": 0},
        "settings": {"samples": 2},
        "decisions": [
            {"seq": 10, "round": 1, "kind": "turn", "chosen": {"type": "draw"}, "best": {"type": "draw"},
             "loss": 0.0, "loss_stderr": 0.0, "band": None, "coach": {"type": "draw"},
             "options": [{"option": {"type": "draw"}, "mean": 0.5, "stderr": 0.01}]},
            {"seq": 20, "round": 1, "kind": "turn", "chosen": {"type": "draw"}, "best": {"type": "play", "card": "R5"},
             "loss": 0.3, "loss_stderr": 0.01, "band": "blunder",
             "options": [{"option": {"type": "play", "card": "R5"}, "mean": 0.8, "stderr": 0.01},
                         {"option": {"type": "draw"}, "mean": 0.5, "stderr": 0.01}]},
        ],
    }  # fmt: skip
    assert decision_at(review, 5) is None and "no decision" in pane_lines(review, 5)[-1]
    assert decision_at(review, 15)["seq"] == 10  # type: ignore[index]
    lines = pane_lines(review, 20)
    assert any("blunder" in line for line in lines) and any(line.startswith("> draw") for line in lines)
    assert next_flagged(review, 0) == 20 and next_flagged(review, 25) == 20


def test_the_player_page_says_its_reviewed_accuracy_once_there_is_one() -> None:
    from tui_client.models.player_model import review_words

    assert review_words({"review": {"matches": 0, "of_matches": 3, "accuracy": None}}) is None
    assert review_words({}) is None
    words = review_words(
        {"review": {"matches": 2, "of_matches": 3, "accuracy": 96.5, "average_loss": 0.0123, "agreement": 0.61}}
    )
    assert words == "Game Review: accuracy 96% · average loss 0.012 · the coach's choice 61% (2 of the last 3 matches)"
