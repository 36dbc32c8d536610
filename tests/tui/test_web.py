"""``unoduo web``: the play client in a browser through textual-serve. A real ``unoduo serve``,
``unoduo web`` as a process on a free loopback port, and Debian's headless Chromium driven over
the DevTools protocol (with the ``websockets`` client the project already has): the page opens
the client, which signs in on the server and draws the lobby. xterm.js draws on a canvas, so the
lobby is read off a screenshot (its footer keys' colour), and the sign-in off the server."""

from __future__ import annotations

import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from bench.progress import STALL_SECONDS, wait_for
from tests.browser.cdp import CHROMIUM, NO_CHROMIUM, chromium
from tests.cli.serving import ROOT, free_port, serve, serve_env, stop, wait_until_up
from tui_client.connection.config import ConfigStore

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)

FOOTER_KEY = (255, 166, 43)  # Textual's footer key colour ($accent, #ffa62b): the lobby's footer is drawn


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """A PNG's width, height and rows of RGB(A) bytes (8-bit truecolour, as Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return (
        width,
        height,
        [bytes(r) if channels == 3 else bytes(r[i] for i in range(len(r)) if i % 4 != 3) for r in rows],
    )


def count_colour(rows: list[bytes], rgb: tuple[int, int, int], tolerance: int = 24) -> int:
    n = 0
    for row in rows:
        for i in range(0, len(row), 3):
            if all(abs(row[i + k] - rgb[k]) <= tolerance for k in range(3)):
                n += 1
    return n


def browse(url: str, shot: Path, ready: Callable[[], bool]) -> bytes:
    """Open ``url`` in headless Chromium; once ``ready()`` holds, a screenshot (PNG bytes)."""
    with chromium(shot.parent / "chromium-profile") as page:
        page.open(url)
        wait_for(ready, "the client in the page did not sign in")
        time.sleep(2.0)  # the lobby's first frames reach the page
        return page.screenshot(shot)


def test_unoduo_web_serves_the_lobby_to_a_browser(tmp_path: Path) -> None:
    port, web_port = free_port(), free_port()
    server = serve("--port", str(port), "--db", f"sqlite:///{tmp_path / 'web.sqlite3'}", env=serve_env())
    base = f"http://127.0.0.1:{port}"
    config = tmp_path / "config"
    web = None
    try:
        wait_until_up(base, server)
        argv = [sys.executable, "-m", "cli.main", "web", "--port", str(web_port), "--server", base]
        argv += ["--name", "webby", "--config-dir", str(config)]
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

        store = ConfigStore(base, config)
        png = browse(page, tmp_path / "web.png", lambda: store.load_credentials() is not None)
        # The client the page started registered on the server, under the name given to unoduo web.
        credentials = store.load_credentials()
        assert credentials is not None and credentials.name == "webby"
        me = httpx.get(f"{base}/api/me", headers={"Authorization": f"Bearer {credentials.token}"}).json()
        assert me["name"] == "webby"
        # And the lobby is on the page: its footer keys are drawn in their colour.
        width, height, rows = png_pixels(png)
        assert width == 1280 and height > 400
        assert count_colour(rows, FOOTER_KEY) > 50, "no footer keys on the page: the lobby was not drawn"
    finally:
        if web is not None:
            web.terminate()
            try:
                web.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                web.kill()
                web.communicate()
        stop(server)
