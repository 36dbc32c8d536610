"""The bracket in a real terminal (tmux, 80×24) against a real ``unoduo serve`` (issue 36.6): a
double elimination of eight house bots run to its end, then ``unoduo play --tournament ID`` opens
on the bracket with the final places on top; End scrolls down to the grand final's reset, the
bottom border says where the view is, and ``b`` switches to the standings and the schedule."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.cli.serving import running
from tests.cli.test_tournament_e2e import _wait_finished
from tests.server.helpers import ok
from tests.tui.test_replay_tmux import TMUX, UNODUO, Terminal

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed: the real-terminal test needs it"),
]

DIRECTOR = "director-of-the-tmux-bracket"


def test_the_bracket_of_a_finished_double_elimination_in_a_real_terminal(tmp_path: Path) -> None:
    with running(tmp_path / "bracket.sqlite3", UNODUO_BOT_THINK_SECONDS="0", UNODUO_DIRECTOR_TOKEN=DIRECTOR) as base:
        boss = {"Authorization": f"Bearer {DIRECTOR}"}
        with httpx.Client(base_url=base, timeout=30.0) as client:
            body = {
                "name": "Tmux Cup",
                "players": ["bot:greedy", "bot:random"] * 4,
                "format": "double_elimination",
                "rules": {"target": 60},
            }
            made = ok(client.post("/api/tournaments", headers=boss, json=body), 201)
            ok(client.post(f"/api/tournaments/{made['id']}/start", headers=boss))
            t = _wait_finished(client, made["id"])
        champion = next(p["name"] for p in t["players"] if p["id"] == t["places"][0]["player"])
        config = tmp_path / "config"
        term = Terminal(f"{UNODUO} play --server {base} --tournament {t['id']} --config-dir {config}; sleep 30", 80, 24)
        try:
            screen = term.wait_for("Final places", f"1st {champion}", "┌ W1-1 ")
            assert "Tmux Cup · finished" in screen and "double elimination" in screen
            assert screen.splitlines()[-2].rstrip().endswith("Final places ─╯")  # where the view is
            term.keys("End")
            term.wait_for("┌ GF2 ", "─ Losers' bracket: losers' round 1")  # the section at the view's top
            term.keys("b")
            screen = term.wait_for("standings", "schedule")
            assert "1.1 W1-1" in screen
        finally:
            term.close()
