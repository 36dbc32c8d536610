"""What the scrubber looks like at a challenge, in a terminal of 80×24 (the smallest it supports)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from tests.tui.helpers import sample_text
from tui_client.apps.replay_app import make_app

pytestmark = pytest.mark.anyio


def test_the_scrubber_at_challenge_1(snap_compare: Any) -> None:
    """The table, the timeline, the log and the audit panel at seq 80 (pytest-textual-snapshot;
    after a deliberate change of the screen: ``pytest tests/tui --snapshot-update``)."""
    assert snap_compare(make_app(sample_text(), source="sample.jsonl"), press=["w"], terminal_size=(80, 24))


def _screen_text(svg: str) -> str:
    """The characters of a Textual SVG screenshot, one text run after another."""
    runs = re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.S)
    return html.unescape("".join(runs)).replace("\xa0", " ")


async def test_the_verdict_is_on_an_80x24_screen_without_scrolling(tmp_path: Path) -> None:
    app = make_app(sample_text(), source="sample.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("w")
        path = Path(app.save_screenshot(filename="challenge-1.svg", path=str(tmp_path)))
    text = _screen_text(path.read_text(encoding="utf-8"))
    assert "audit: challenge 1/4 · seq 80" in text
    assert "verdict: ILLEGAL" in text and "ILLEGAL: YS could be played" in text
    assert "[YS]" in text  # the card that made the play illegal, marked
    assert "event 80/513" in text and "view audit" in text
    assert "←→event" in text and "W+4 challenge" in text  # the footer (its runs are placed, not spaced)
