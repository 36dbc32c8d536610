"""Sample replays for the terminal client's tests, and waiting on an app under Pilot."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
SAMPLE = REPLAYS / "sim-2026-uno-duo-16-greedy-vs-random.jsonl"  # 513 events, 3 rounds, 4 challenges
CLASSIC = REPLAYS / "sim-2026-classic-2p-7-random-vs-greedy.jsonl"  # 1374 events


def sample_text() -> str:
    return SAMPLE.read_text(encoding="utf-8")


def tampered_text() -> str:
    """The sample with challenge 1's opened ``matching`` changed: its seal no longer opens."""
    lines = sample_text().splitlines()
    for index, line in enumerate(lines):
        obj = json.loads(line)
        if obj.get("seq") == 80:
            obj["open"]["matching"] = []
            lines[index] = json.dumps(obj, separators=(",", ":"))
    return "\n".join(lines) + "\n"


def plain(widget: Widget) -> str:
    """What a widget draws, as plain text."""
    if isinstance(widget, Static):
        content = widget.content
        return content.plain if isinstance(content, Text) else str(content)
    rendered = widget.render()
    return rendered.plain if isinstance(rendered, Text) else str(rendered)


async def until(pilot: Pilot[Any], condition: Callable[[], object], what: str, timeout: float = 30.0) -> None:
    """Let the app run until ``condition()`` holds; AssertionError naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)
