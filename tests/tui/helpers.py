"""Sample replays for the terminal client's tests, and waiting on an app under Pilot.

Waits fail on no progress, never on a budget for the whole wait: :func:`until` gives up only when
its progress reading (by default none: then the stall window is the cap) has held still for
:data:`bench.progress.STALL_SECONDS`, so a loaded machine makes a test slower, not failed."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from bench.progress import STALL_SECONDS, Stall

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


async def until(
    pilot: Pilot[Any],
    condition: Callable[[], object],
    what: str,
    progress: Callable[[], Hashable] = lambda: None,
    stall: float = STALL_SECONDS,
) -> None:
    """Let the app run until ``condition()`` holds; AssertionError naming ``what`` once ``progress()``
    (e.g. the match's version) has not changed for ``stall`` seconds."""
    stalled = Stall(stall)
    while not condition():
        stalled.moved(progress())
        if stalled.stuck:
            raise AssertionError(f"no progress towards {what} for {stall:g} s")
        await pilot.pause(0.02)


def scrubber_ready(app: Any) -> bool:
    """The app shows a match's scrubber whose mount has run (its panels exist and show a frame):
    a test that acts on it as soon as it is pushed races its compose on a loaded machine."""
    from tui_client.screens.replay_screens import MatchScrubber

    screen = app.screen
    return isinstance(screen, MatchScrubber) and screen.is_mounted and getattr(screen, "frame", None) is not None
