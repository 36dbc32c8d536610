"""Sample replays for the terminal client's tests."""

from __future__ import annotations

import json
from pathlib import Path

from rich.text import Text
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
