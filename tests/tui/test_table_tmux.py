"""``unoduo play`` at a table of 4 and of 10 in a real terminal (tmux, 80×24; 10 at 60×20) against a real
``unoduo serve``: a ``classic`` table of house bots made over HTTP (``POST /api/matches`` with
``opponents``), joined from the lobby, the table drawn with every opponent on its line. The
screen read back is written to ``$UNODUO_TMUX_CAPTURES`` when set (docs/TUI.md shows them)."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.progress import STALL_SECONDS
from engine.fairness.house_bots import house_bot_name
from tests.cli.serving import running
from tests.tui.test_replay_tmux import TMUX, UNODUO, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed: the real-terminal test needs it"),
]

BOTS = ("bot:greedy", "bot:random")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with running(tmp_path / "tables.sqlite3", UNODUO_BOT_THINK_SECONDS="0") as base:
        yield base


def saved_token(config: Path) -> str:
    """The token the client saved once registered (waits for the file: it is written on registering)."""
    deadline = time.monotonic() + STALL_SECONDS
    while time.monotonic() < deadline:
        for path in config.rglob("*.json"):
            data = json.loads(path.read_text())
            if isinstance(data, dict) and isinstance(data.get("token"), str):
                return str(data["token"])
        time.sleep(0.1)
    raise AssertionError(f"no saved credentials under {config}")


@pytest.mark.parametrize(("seats", "width", "height"), [(4, 80, 24), (10, 80, 24), (10, 60, 20)])
def test_a_table_in_a_real_terminal(seats: int, width: int, height: int, server: str, tmp_path: Path) -> None:
    config = tmp_path / "config"
    term = Terminal(f"{UNODUO} play --server {server} --name ann --config-dir {config}; sleep 30", width, height)
    try:
        term.wait_for("● live")
        token = saved_token(config)
        opponents = [BOTS[i % 2] for i in range(seats - 1)]
        made = httpx.post(
            f"{server}/api/matches",
            headers={"Authorization": f"Bearer {token}"},
            json={"opponents": opponents, "ruleset": "classic"},
        )
        assert made.status_code == 201, made.text
        term.wait_for("join ")
        open_from_the_lobby(term, f"at a table of {seats}")
        screen = term.wait_for("your turn")  # the bots have played up to ann
        lines = screen.splitlines()
        assert len(lines) <= height and all(len(line) <= width for line in lines)
        names = [house_bot_name(kind.split(":")[1], n) for kind, n in _numbered(opponents)]
        for name in names:  # the whole name: 'greedy' is not found in 'greedy-2'
            assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", screen), name
        assert ("↻ clockwise" in screen) or ("↺ counter-clockwise" in screen)
        assert "events" in screen and "⏱" in screen
        captures = os.environ.get("UNODUO_TMUX_CAPTURES")
        if captures:
            Path(captures, f"table-{seats}-{width}x{height}.txt").write_text(screen, encoding="utf-8")
    finally:
        term.close()


def open_from_the_lobby(term: Terminal, shown: str) -> None:
    """Enter on the lobby's line until the table is up. One run of three lost the first Enter
    pressed just after the line appeared (no "joining" note, the line unchanged); the cause is
    not established yet, so the key is sent again while the lobby is still on screen."""
    deadline = time.monotonic() + STALL_SECONDS
    while time.monotonic() < deadline:
        term.keys("Enter")
        try:
            term.wait_for(shown, timeout=3)
            return
        except AssertionError:
            continue
    raise AssertionError(f"the table never opened:\n{term.screen()}")


def _numbered(opponents: list[str]) -> list[tuple[str, int]]:
    """Each bot seat's kind and number, as the server numbers them (bot-greedy-1, bot-greedy-2, …:
    named greedy, greedy-2, …)."""
    seen: dict[str, int] = {}
    out = []
    for kind in opponents:
        seen[kind] = seen.get(kind, 0) + 1
        out.append((kind, seen[kind]))
    return out
