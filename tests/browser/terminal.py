"""Driving the terminal client that ``unoduo web`` serves, in headless Chromium (``tests.browser.cdp``):
a browser context of its own (a separate cookie jar: another person's browser), the page's
cookies, keys typed into xterm.js (its hidden textarea, as a keyboard does), and what the client
sent the page to draw.

xterm.js draws on a canvas, so there is no text in the DOM: :func:`tap_terminal` keeps what the
page's websocket receives (the client's output, escape sequences and all) where the test can
search it for words (:func:`shows_text`); colours are read off a screenshot (:func:`shows`).
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from tests.browser.cdp import Page

KEYS = {  # the DevTools key events xterm.js turns into a terminal's bytes
    "enter": {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"},
    "tab": {"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9},
}


def devtools_port(profile: Path) -> int:
    """The DevTools port of the Chromium running on ``profile`` (``tests.browser.cdp.chromium``)."""
    return int((profile / "DevToolsActivePort").read_text().splitlines()[0])


@contextmanager
def separate_context(port: int, stall_seconds: float) -> Iterator[Page]:
    """A tab in a new browser context of the Chromium on ``port``: cookies of its own, as another
    person's browser has. The context is disposed of on the way out."""
    browser_socket = httpx.get(f"http://127.0.0.1:{port}/json/version").json()["webSocketDebuggerUrl"]
    with connect(browser_socket, max_size=2**27) as browser:
        control = Page(browser, stall_seconds)
        context = control.call("Target.createBrowserContext", disposeOnDetach=True)["browserContextId"]
        try:
            target = control.call("Target.createTarget", url="about:blank", browserContextId=context)["targetId"]
            with connect(f"ws://127.0.0.1:{port}/devtools/page/{target}", max_size=2**27) as socket:
                yield Page(socket, stall_seconds)
        finally:
            control.call("Target.disposeBrowserContext", browserContextId=context)


def cookies(page: Page) -> dict[str, dict[str, Any]]:
    """The page's cookies by name (HttpOnly ones too: the protocol sees what scripts cannot)."""
    return {c["name"]: c for c in page.call("Network.getCookies")["cookies"]}


TAP = """
(() => {
  const Native = window.WebSocket, decoder = new TextDecoder();
  window.__terminal = "";
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (typeof event.data === "string") return;
        window.__terminal = (window.__terminal + decoder.decode(event.data, {stream: true})).slice(-400000);
      });
    }
  };
})();
"""


def tap_terminal(page: Page) -> None:
    """From the next document on, the page keeps what its websocket receives (the newest 400,000
    characters) in ``window.__terminal``."""
    page.call("Page.enable")
    page.call("Page.addScriptToEvaluateOnNewDocument", source=TAP)


def shows_text(page: Page, words: str) -> bool:
    """The client has sent the page ``words`` to draw (since the page loaded)."""
    return bool(page.evaluate(f"(window.__terminal || '').includes({json.dumps(words)})"))


def focus_terminal(page: Page) -> None:
    """Keys go to the terminal: xterm.js's hidden textarea has the focus."""
    page.wait_for("!!document.querySelector('.xterm-helper-textarea')", "the page has no terminal")
    page.evaluate("document.querySelector('.xterm-helper-textarea').focus()")


def type_text(page: Page, text: str) -> None:
    """``text`` typed into the terminal."""
    focus_terminal(page)
    page.call("Input.insertText", text=text)


def press(page: Page, key: str, modifiers: int = 0) -> None:
    """One key (a name in :data:`KEYS`, or a letter; ``modifiers`` 2 is Ctrl) pressed in the terminal."""
    focus_terminal(page)
    event: dict[str, Any] = KEYS.get(key) or {
        "key": key,
        "code": f"Key{key.upper()}",
        "windowsVirtualKeyCode": ord(key.upper()),
        **({} if modifiers else {"text": key}),
    }
    page.call("Input.dispatchKeyEvent", type="keyDown", modifiers=modifiers, **event)
    page.call(
        "Input.dispatchKeyEvent", type="keyUp", modifiers=modifiers, **{k: v for k, v in event.items() if k != "text"}
    )


def reload(page: Page) -> None:
    """Reload the page and wait until the new document has loaded."""
    page.evaluate("window.__before_reload = true")
    page.call("Page.reload", ignoreCache=True)
    page.wait_for("!window.__before_reload && document.readyState === 'complete'", "the page did not reload")


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
        method, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if method == 1:
                line[i] = (line[i] + a) & 255
            elif method == 2:
                line[i] = (line[i] + b) & 255
            elif method == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif method == 4:
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


def shows(page: Page, rgb: tuple[int, int, int] = FOOTER_KEY, pixels: int = 50) -> bool:
    """The page shows ``rgb`` on more than ``pixels`` pixels (by default: the client has drawn a
    screen, its footer keys are there in their colour)."""
    _width, _height, rows = png_pixels(page.screenshot())
    return count_colour(rows, rgb) > pixels
