"""A small driver of Debian's headless Chromium over the DevTools protocol, for the tests that look
at pages in a real browser: open a page at a viewport size (a phone's with touch and the
``<meta name=viewport>`` honoured), read the DOM by evaluating JavaScript in it, wait until a
condition on the DOM holds, and take screenshots.

It speaks the protocol's JSON over the ``websockets`` client the project already depends on (no
Selenium, no Playwright download). Every wait is on a condition, capped by the stall window of
``bench.progress``: its expiry is a clear failure ("the page never showed ..."), never a timing
assertion, so a loaded machine is slow and still passes.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from bench.progress import STALL_SECONDS, wait_for

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NO_CHROMIUM = "no chromium on PATH (.ci/run installs Debian's when root)"
POLL_SECONDS = 0.1  # between two looks at the DOM while waiting on a condition
STALE = "__cdp_stale"  # set on the old document before a navigation: its absence means the new one is in


@dataclass(frozen=True)
class Viewport:
    """A window size; ``mobile`` emulates a phone (its meta viewport honoured, touch events)."""

    width: int
    height: int
    mobile: bool = False

    @property
    def name(self) -> str:
        return f"{self.width}x{self.height}"


DESKTOP = Viewport(1280, 800)
PHONE = Viewport(390, 844, mobile=True)
WALL = Viewport(1920, 1080)


class PageError(AssertionError):
    """The page's JavaScript threw, or the browser refused a command: the test fails with its words."""


class Page:
    """One tab of the browser, driven over its DevTools socket."""

    def __init__(self, socket: ClientConnection, stall_seconds: float = STALL_SECONDS) -> None:
        self.socket = socket
        self.stall_seconds = stall_seconds
        self._ids = iter(range(1, 2**31))

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one protocol command and wait for its answer (events arriving meanwhile are dropped:
        the driver enables no domain but Page, and that only while :meth:`scripted`)."""
        n = next(self._ids)
        self.socket.send(json.dumps({"id": n, "method": method, "params": params}))
        while True:
            answer = json.loads(self.socket.recv(timeout=self.stall_seconds))
            if answer.get("id") != n:
                continue
            if "error" in answer:
                raise PageError(f"{method}: {answer['error']}")
            result: dict[str, Any] = answer.get("result", {})
            return result

    def viewport(self, size: Viewport) -> None:
        """Lay the page out at ``size`` from now on (and, for a phone, as a phone does)."""
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=size.width,
            height=size.height,
            deviceScaleFactor=1,
            mobile=size.mobile,
        )
        self.call("Emulation.setTouchEmulationEnabled", enabled=size.mobile)

    def open(self, url: str, size: Viewport | None = None) -> None:
        """Navigate to ``url`` (at ``size`` if given) and wait until its document has loaded."""
        if size is not None:
            self.viewport(size)
        self.evaluate(f"window.{STALE} = true")
        answer = self.call("Page.navigate", url=url)
        if answer.get("errorText"):
            raise PageError(f"{url}: {answer['errorText']}")
        self.wait_for(f"!window.{STALE} && document.readyState === 'complete'", f"{url} did not load")

    @contextmanager
    def scripted(self, source: str) -> Iterator[None]:
        """Run ``source`` in every document opened meanwhile, before the page's own scripts (the
        Page domain is enabled for it: its events are read past like any other)."""
        self.call("Page.enable")
        added = self.call("Page.addScriptToEvaluateOnNewDocument", source=source)
        try:
            yield
        finally:
            self.call("Page.removeScriptToEvaluateOnNewDocument", identifier=added["identifier"])
            self.call("Page.disable")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-like values come back as Python)."""
        answer = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise PageError(f"{expression!r} threw: {text}")
        return answer.get("result", {}).get("value")

    def wait_for(self, expression: str, failure: str) -> Any:
        """Evaluate ``expression`` until it is truthy; its value. Fails with ``failure`` (and what
        the expression last gave) only when it has stayed falsy for the whole stall window."""
        return wait_for(lambda: self.evaluate(expression), failure, stall_seconds=self.stall_seconds, poll=POLL_SECONDS)

    def text(self, selector: str) -> str:
        """The visible text of the first element ``selector`` matches ("" when none does)."""
        found = self.evaluate(f"(document.querySelector({json.dumps(selector)}) || {{}}).innerText || ''")
        return str(found)

    def texts(self, selector: str) -> list[str]:
        """The visible text of every element ``selector`` matches, in document order."""
        found = self.evaluate(f"[...document.querySelectorAll({json.dumps(selector)})].map(e => e.innerText)")
        return [str(t) for t in found]

    def screenshot(self, path: Path | None = None, full_page: bool = False) -> bytes:
        """A PNG of the viewport (or of the whole page's height), also written to ``path`` if given."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            width, height = self.evaluate(
                "[document.documentElement.clientWidth, document.documentElement.scrollHeight]"
            )
            params |= {"clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}}
            params["captureBeyondViewport"] = True
        png = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(png)
        return png


def _devtools_port(profile: Path, browser: subprocess.Popen[bytes], stall_seconds: float) -> int:
    """The port Chromium chose (``--remote-debugging-port=0``), from the file it writes in its profile."""
    port_file = profile / "DevToolsActivePort"

    def written() -> int:
        if browser.poll() is not None:
            raise AssertionError(f"chromium exited with {browser.returncode} before opening its DevTools port")
        lines = port_file.read_text().splitlines() if port_file.exists() else []
        return int(lines[0]) if lines and lines[0].isdigit() else 0

    return wait_for(written, "chromium did not open its DevTools port", stall_seconds=stall_seconds, poll=POLL_SECONDS)


def _first_tab(port: int, stall_seconds: float) -> str:
    """The DevTools socket of the browser's first tab."""

    def tab() -> str:
        try:
            tabs = httpx.get(f"http://127.0.0.1:{port}/json/list").json()
        except httpx.HTTPError:
            return ""
        return next((str(t["webSocketDebuggerUrl"]) for t in tabs if t["type"] == "page"), "")

    return wait_for(tab, "chromium showed no tab to drive", stall_seconds=stall_seconds, poll=POLL_SECONDS)


@contextmanager
def chromium(profile: Path | None = None, stall_seconds: float = STALL_SECONDS) -> Iterator[Page]:
    """Headless Chromium with a fresh profile (in ``profile``, else a temporary folder); its tab.
    The browser is stopped on the way out, whatever happened."""
    if CHROMIUM is None:
        raise AssertionError(NO_CHROMIUM)
    with tempfile.TemporaryDirectory(prefix="chromium-") as scratch:
        folder = profile if profile is not None else Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "DevToolsActivePort").unlink(missing_ok=True)  # a profile used before: its old port
        argv = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"]
        argv += ["--hide-scrollbars", "--remote-debugging-port=0", f"--user-data-dir={folder}"]
        argv += ["--window-size=1280,800", "about:blank"]
        browser = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            port = _devtools_port(folder, browser, stall_seconds)
            with connect(_first_tab(port, stall_seconds), max_size=2**27) as socket:
                yield Page(socket, stall_seconds)
        finally:
            browser.terminate()
            try:
                browser.wait(timeout=10)
            except subprocess.TimeoutExpired:
                browser.kill()
                browser.wait()
