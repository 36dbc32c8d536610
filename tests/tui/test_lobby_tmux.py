"""``unoduo play`` in a real terminal (tmux) against a real ``unoduo serve``: the lobby, left
alone, takes the player's seat when the director starts a tournament and opens the table."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.progress import STALL_SECONDS
from tests.cli.serving import running
from tests.tui.test_replay_tmux import TMUX, UNODUO, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed: the real-terminal test needs it"),
]

DIRECTOR = "director-of-the-tmux-lobby"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with running(tmp_path / "tmux.sqlite3", UNODUO_BOT_THINK_SECONDS="0", UNODUO_DIRECTOR_TOKEN=DIRECTOR) as base:
        yield base


def saved_player(config: Path) -> str:
    """The player id the client saved once registered (waits for the file: it is written on registering)."""
    deadline = time.monotonic() + STALL_SECONDS
    while time.monotonic() < deadline:
        for path in config.rglob("*.json"):
            data = json.loads(path.read_text())
            if isinstance(data, dict) and isinstance(data.get("player"), dict):
                return str(data["player"]["id"])
        time.sleep(0.1)
    raise AssertionError(f"no saved credentials under {config}")


def test_the_lobby_takes_the_seat_by_itself_in_a_real_terminal(server: str, tmp_path: Path) -> None:
    config = tmp_path / "config"
    term = Terminal(f"{UNODUO} play --server {server} --name tia --config-dir {config}; sleep 30", 100, 30)
    try:
        screen = term.wait_for("● live")
        assert "auto-join on" in screen and "you are tia" in screen
        player = saved_player(config)
        boss = {"Authorization": f"Bearer {DIRECTOR}"}
        made = httpx.post(
            f"{server}/api/tournaments", headers=boss, json={"name": "Tmux Cup", "players": [player, "bot:greedy"]}
        )
        assert made.status_code == 201, made.text
        started = httpx.post(f"{server}/api/tournaments/{made.json()['id']}/start", headers=boss)
        assert started.status_code == 200, started.text
        # Nobody touches the keyboard: the table opens by itself, at tia's seat, the draft under way.
        screen = term.wait_for("you (tia, seat")
        assert "you (tia, seat 0) vs greedy · " in screen or "you (tia, seat 1) vs greedy · " in screen
        screen = term.wait_for("keep it (k) or pass it (p)")  # tia's draft decision (the bot answers at once)
        assert "draft step" in screen and "⏱" in screen
        term.keys("q")
        screen = term.wait_for("matches (1)")
        assert "play   vs greedy · Tmux Cup round 1" in screen
    finally:
        term.close()
