"""``unoduo replay FILE`` in a real terminal (tmux): the screen a person sees, keys sent as typed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.progress import STALL_SECONDS
from tests.tui.helpers import SAMPLE, tampered_text

TMUX = shutil.which("tmux")
UNODUO = Path(sys.executable).with_name("unoduo")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed: the real-terminal test needs it"),
]


class Terminal:
    """One tmux session on a private server socket (never the user's own tmux server)."""

    def __init__(self, command: str, width: int = 120, height: int = 40) -> None:
        assert TMUX is not None
        self.socket = f"unoduo-test-{uuid.uuid4().hex[:8]}"
        self.session = "replay"
        self._tmux("new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height), command)

    def _tmux(self, *args: str) -> str:
        assert TMUX is not None
        # pytest-xdist's workers carry COLUMNS=80 and LINES=24, which would beat the pane's size.
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        env["TERM"] = "xterm-256color"
        done = subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True, env=env, timeout=20)
        return done.stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.session)

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", self.session, *keys)

    def wait_for(self, text: str, timeout: float = STALL_SECONDS) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared on the screen:\n{screen}")

    def alive(self) -> bool:
        assert TMUX is not None
        return (
            subprocess.run([TMUX, "-L", self.socket, "has-session", "-t", self.session], capture_output=True).returncode
            == 0
        )

    def close(self) -> None:
        self._tmux("kill-server")


@pytest.fixture
def terminal() -> Iterator[list[Terminal]]:
    made: list[Terminal] = []
    yield made
    for t in made:
        t.close()


def _command(file: Path, status: Path) -> str:
    return f"cd {Path.cwd()} && {UNODUO} replay {file}; echo $? > {status}; sleep 30"


def test_w_shows_the_verdict_in_a_real_terminal(terminal: list[Terminal], tmp_path: Path) -> None:
    status = tmp_path / "status"
    term = Terminal(_command(SAMPLE, status))
    terminal.append(term)
    term.wait_for("event 1/513")
    term.keys("w")
    screen = term.wait_for("event 80/513")
    assert "audit: challenge 1/4 · seq 80" in screen
    assert "verdict: ILLEGAL" in screen and "ILLEGAL: YS could be played" in screen
    assert "hand then: R3 R7 Y1 Y1 [YS] Y+2" in screen
    assert "seat 0 challenged seat 1's Wild Draw Four" in screen  # the log
    term.keys("v")
    screen = term.wait_for("view seat 0")
    assert "▮▮▮▮▮▮ 6 cards" in screen  # seat 1's hand, face down
    term.keys("q")
    deadline = time.monotonic() + STALL_SECONDS
    while not status.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert status.read_text().strip() == "0"


def test_a_tampered_replay_in_a_real_terminal(terminal: list[Terminal], tmp_path: Path) -> None:
    bad = tmp_path / "tampered.jsonl"
    bad.write_text(tampered_text(), encoding="utf-8")
    status = tmp_path / "status"
    term = Terminal(_command(bad, status), width=100, height=30)
    terminal.append(term)
    screen = term.wait_for("NOT VERIFIED: line 81")
    assert "not scrubbed" in screen
    term.keys("q")
    deadline = time.monotonic() + STALL_SECONDS
    while not status.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert status.read_text().strip() == "1"
