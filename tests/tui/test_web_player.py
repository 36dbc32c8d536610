"""``unoduo web --player ID``: the player screen in a browser through textual-serve. A real
``unoduo serve`` where three house bots have played a small tournament (rated), ``unoduo web`` as a
process, and Debian's headless Chromium (tests/tui/test_web.py's ``browse``): the page's client
fetches random's page (the server's access log says so) and draws it, its rating chart's line
among it (the screenshot is kept in the test's folder: ``web-player.png``)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from bench.progress import STALL_SECONDS, wait_for
from tests.browser.cdp import CHROMIUM, NO_CHROMIUM, chromium
from tests.browser.terminal import FOOTER_KEY, count_colour, png_pixels
from tests.cli.serving import ROOT, free_port, serve, serve_env, stop, wait_until_up
from tests.cli.test_tournament_cmd import finished
from tests.server.helpers import ok

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM),
]


def page_drawn(png: bytes) -> bool:
    """The player's page is on the page: the footer keys are drawn in their colour, and the
    rating in reverse video (``1923? ± 283`` on a light block: a run of light pixels no glyph
    makes, there only once the page has loaded)."""
    _width, _height, rows = png_pixels(png)
    return count_colour(rows, FOOTER_KEY) > 50 and any(light_run(row) >= 60 for row in rows)


def light_run(row: bytes) -> int:
    """The longest run of light pixels (every channel above 200) in a row of RGB bytes."""
    best = run = 0
    for i in range(0, len(row), 3):
        run = run + 1 if min(row[i : i + 3]) > 200 else 0
        best = max(best, run)
    return best


def screenshot_once(url: str, shot: Path, ready: Callable[[], bool], drawn: Callable[[bytes], bool]) -> bytes:
    """Open ``url`` in headless Chromium; once ``ready()`` holds, screenshots until one is
    ``drawn`` (xterm.js paints its canvas a moment after the frames arrive), kept in ``shot``.
    Each wait is capped by the stall window, a clear failure rather than a budget."""
    with chromium(shot.parent / "chromium-profile") as page:
        page.open(url)
        wait_for(ready, "the client in the page did not fetch the player's page")
        return wait_for(
            lambda: page.screenshot(shot), f"the page never showed the screen (last: {shot})", drawn, poll=0.5
        )


def test_unoduo_web_shows_a_players_page(tmp_path: Path) -> None:
    port, web_port = free_port(), free_port()
    log = tmp_path / "serve.log"
    token = "director-token-for-the-web-player-test"
    env = serve_env(UNODUO_DIRECTOR_TOKEN=token)
    server = serve("--port", str(port), "--db", f"sqlite:///{tmp_path / 'web.sqlite3'}", env=env, log=log)
    base = f"http://127.0.0.1:{port}"
    web = None
    try:
        wait_until_up(base, server)
        director = {"Authorization": f"Bearer {token}"}
        body = {"name": "Bot night", "players": ["bot:greedy", "bot:random", "bot:greedy"], "rules": {"target": 30}}
        with httpx.Client(base_url=base, timeout=30.0) as client:
            tournament = ok(client.post("/api/tournaments", json=body, headers=director), 201)["id"]
            ok(client.post(f"/api/tournaments/{tournament}/start", headers=director))
        bot = next(p["id"] for p in finished(base, tournament)["players"] if p["name"] == "random")
        rated = ok(httpx.get(f"{base}/api/players/{bot}", timeout=30.0))["rating_history"]["uno-duo"]
        assert len(rated) >= 2  # a line to draw
        argv = [sys.executable, "-m", "cli.main", "web", "--port", str(web_port), "--server", base]
        argv += ["--player", bot, "--host", "127.0.0.1", "--browsers-dir", str(tmp_path / "browsers")]
        web = subprocess.Popen(
            argv, cwd=ROOT, env=serve_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        page = f"http://127.0.0.1:{web_port}/"
        deadline = time.monotonic() + STALL_SECONDS  # a cap whose expiry is a clear failure, not a budget
        while True:
            assert web.poll() is None, web.communicate()
            try:
                answer = httpx.get(page, timeout=1.0)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "unoduo web did not come up"
                time.sleep(0.1)
        assert answer.status_code == 200 and "textual.js" in answer.text

        def fetched() -> bool:
            return f'"GET /api/players/{bot} HTTP/1.1" 200' in log.read_text(encoding="utf-8")

        png = screenshot_once(page, tmp_path / "web-player.png", fetched, page_drawn)
        width, height, _rows = png_pixels(png)
        assert width == 1280 and height > 400
    finally:
        if web is not None:
            web.terminate()
            try:
                web.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                web.kill()
                web.communicate()
        stop(server)
