"""``unoduo replay FILE`` in a real terminal (tmux): the screen a person sees, keys sent as typed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.progress import STALL_SECONDS, wait_for
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

    def wait_for(self, *texts: str, timeout: float = STALL_SECONDS) -> str:
        """The screen once it shows every one of ``texts`` (a screen is drawn a part at a time: one
        text there says nothing of another); AssertionError after ``timeout`` s (a cap) without."""
        try:
            return wait_for(
                self.screen, "the screen", until=lambda s: all(t in s for t in texts), stall_seconds=timeout
            )
        except AssertionError:
            raise AssertionError(f"{texts!r} never all appeared on the screen:\n{self.screen()}") from None

    def alive(self) -> bool:
        assert TMUX is not None
        return (
            subprocess.run([TMUX, "-L", self.socket, "has-session", "-t", self.session], capture_output=True).returncode
            == 0
        )

    def close(self) -> None:
        self._tmux("kill-server")


def exit_status(status: Path) -> str:
    """The exit status the command wrote to the file ``status`` once the app ended."""
    return wait_for(lambda: status.exists() and status.read_text().strip(), "the app's exit status")


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
    term.wait_for(
        "event 80/513",
        "audit: challenge 1/4 · seq 80",
        "verdict: ILLEGAL",
        "ILLEGAL: YS could be played",
        "hand then: R3 R7 Y1 Y1 [YS] Y+2",
        "seat 0 challenged seat 1's Wild Draw Four",  # the log
    )
    term.keys("v")
    term.wait_for("view seat 0", "▮▮▮▮▮▮ 6 cards")  # seat 1's hand, face down
    term.keys("q")
    assert exit_status(status) == "0"


def test_a_tampered_replay_in_a_real_terminal(terminal: list[Terminal], tmp_path: Path) -> None:
    bad = tmp_path / "tampered.jsonl"
    bad.write_text(tampered_text(), encoding="utf-8")
    status = tmp_path / "status"
    term = Terminal(_command(bad, status), width=100, height=30)
    terminal.append(term)
    term.wait_for("NOT VERIFIED: line 81", "not scrubbed")
    term.keys("q")
    assert exit_status(status) == "1"
