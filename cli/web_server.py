"""``unoduo web``'s server: textual-serve, each browser signed in as itself (docs/TUI.md "In a browser").

textual-serve's :class:`Server` runs one fixed command per websocket. :class:`PlayServer` keeps
its page, its static files and its protocol, and changes who the client is:

- The page (``/``) gives a browser without one a random id in a cookie (HttpOnly, SameSite=Lax,
  Secure behind https; a year, renewed on each visit).
- The websocket (``/ws``) starts ``unoduo play --config-dir <that browser's directory>``
  (:mod:`cli.web_browsers`): the token the browser's player signs in with is kept there, so a
  reload, or another tab of the same browser, is the same player, and another browser is not.
  Without a saved token the client opens on its sign-in screen. The host's own config directory
  is never used, and the client runs without the host's ``UNODUO_*`` variables (no director
  token, no password).
- Bounds: at most ``max_sessions`` clients running in all and ``max_per_browser`` per browser
  (beyond: 429 or 503 with a sentence, on the page and the socket), at most ``max_browsers``
  browser directories (:class:`cli.web_browsers.BrowserDirs`); the token of one removed is
  signed out on the server. A websocket from another site's
  page (its ``Origin`` not this server's) is refused (403): a page elsewhere cannot drive a
  player's client with their cookie.
- The page's socket address is taken from the address the browser used (``Host``), unless a
  public URL is given: a phone that opened ``http://192.168.1.20:8001/`` connects back there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
import sys
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp_jinja2
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from cli.web_browsers import (
    DEFAULT_MAX_PER_BROWSER,
    DEFAULT_MAX_SESSIONS,
    BrowserDirs,
    browser_key,
    new_browser_id,
    valid_browser_id,
)
from tui_client.connection.api import Api, ApiError
from tui_client.connection.config import ConfigStore, Credentials

log = logging.getLogger("unoduo-web")

COOKIE = "unoduo_browser"
COOKIE_MAX_AGE = 365 * 24 * 3600
SECRET_PREFIX = "UNODUO_"  # the host's settings (director token, password): never handed to a browser's client


MIN_COLUMNS = 64  # the client's screens need 60 columns (tui_client.screens.too_small), and a margin
PHONE_HEAD = '<meta name="viewport" content="width=device-width, initial-scale=1">'
PHONE_FONT = f"""<script>
(() => {{ // a narrow window (a phone): a font size that still gives {MIN_COLUMNS} columns, unless ?fontsize= says
  const terminal = document.getElementById("terminal");
  if (terminal && !new URLSearchParams(location.search).has("fontsize")) {{
    const fits = Math.floor(window.innerWidth / {MIN_COLUMNS} / 0.6);  // a monospace cell is about 0.6 em wide
    terminal.dataset.fontSize = String(Math.max(8, Math.min(Number(terminal.dataset.fontSize) || 16, fits)));
  }}
}})();
</script>"""


def for_phones(html: str) -> str:
    """textual-serve's page, readable on a phone: laid out at the device's width (its template has no
    ``<meta name=viewport>``, so a phone drew a 980-pixel page shrunk), in a font small enough for
    the client's screens to fit (before textual.js reads the size, on load)."""
    return html.replace("<head>", f"<head>\n    {PHONE_HEAD}", 1).replace("</body>", f"{PHONE_FONT}\n  </body>", 1)


class Sessions:
    """The clients running, per browser; a refusal when one more would pass a bound."""

    def __init__(self, max_sessions: int = DEFAULT_MAX_SESSIONS, max_per_browser: int = DEFAULT_MAX_PER_BROWSER):
        self.max_sessions = max_sessions
        self.max_per_browser = max_per_browser
        self.running: Counter[str] = Counter()

    def refusal(self, key: str) -> tuple[int, str] | None:
        """(status, words) if the browser ``key`` may not start another client now, else None."""
        if self.running[key] >= self.max_per_browser:
            return 429, (
                f"This browser already has {self.running[key]} unoduo tabs open (at most {self.max_per_browser}): "
                "close one, then reload."
            )
        if self.total() >= self.max_sessions:
            return 503, f"This unoduo web is full ({self.max_sessions} players at once): try again in a while."
        return None

    def total(self) -> int:
        return sum(self.running.values())

    @contextlib.contextmanager
    def held(self, key: str) -> Iterator[None]:
        self.running[key] += 1
        try:
            yield
        finally:
            self.running[key] -= 1
            if self.running[key] <= 0:
                del self.running[key]


class ClientService(AppService):
    """textual-serve's app service, with the environment of a browser's client: the host's
    ``UNODUO_*`` settings are left out."""

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width=width, height=height)
        return {k: v for k, v in environment.items() if not k.startswith(SECRET_PREFIX)}


async def sign_out_all(api: Api, credentials: Collection[Credentials]) -> int:
    """Sign each token out on the server (``DELETE /api/sessions/current``); how many it took.
    One the server refuses or cannot be reached for is left: the directory is gone either way."""
    done = 0
    try:
        for c in credentials:
            api.token = c.token
            try:
                await api.sign_out()
            except ApiError as error:
                log.warning("could not sign out a forgotten browser's token (%s): %s", c.name, error.words())
            else:
                done += 1
    finally:
        await api.aclose()
    return done


def client_command(server: str, config_dir: Path, options: Sequence[str] = ()) -> str:
    """The shell command of one browser's client: ``unoduo play`` on ``server``, its token in ``config_dir``."""
    argv = [sys.executable, "-m", "cli.main", "play", "--server", server, "--config-dir", str(config_dir), *options]
    return shlex.join(argv)


class PlayServer(Server):
    """textual-serve, one sign-in per browser (see the module's docstring)."""

    def __init__(
        self,
        server: str,
        browsers: BrowserDirs,
        sessions: Sessions,
        *,
        options: Sequence[str] = (),
        host: str,
        port: int,
        public_url: str | None = None,
        shown_url: str | None = None,
        make_api: Callable[[str], Api] = Api,
    ) -> None:
        super().__init__(client_command(server, browsers.root / "<browser>", options), host=host, port=port)
        self.title = "unoduo play"
        self.server = server
        self.browsers = browsers
        self.sessions = sessions
        self.options = list(options)
        self.make_api = make_api  # the connection the forgotten browsers' tokens are signed out on
        self.retiring: set[asyncio.Task[int]] = set()
        self.given_public_url = public_url.rstrip("/") if public_url else None
        self.shown_url = (shown_url or self.given_public_url or f"http://{host}:{port}").rstrip("/")

    # ------------------------------------------------------------ the page

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page, and the browser's id in its cookie (a new one if it has none)."""
        browser = valid_browser_id(request.cookies.get(COOKIE)) or new_browser_id()
        refused = self.sessions.refusal(browser_key(browser))
        response: web.StreamResponse
        if refused is not None:
            status, words = refused
            response = web.Response(status=status, text=words + "\n", content_type="text/plain")
        else:
            page = aiohttp_jinja2.render_template("app_index.html", request, self.page_context(request))
            page.text = for_phones(page.text or "")
            response = page
        response.set_cookie(
            COOKIE,
            browser,
            max_age=COOKIE_MAX_AGE,
            path="/",
            httponly=True,
            samesite="Lax",
            secure=self.base_url(request).startswith("https:"),
        )
        response.headers["Cache-Control"] = "no-store"
        return response

    def base_url(self, request: web.Request) -> str:
        """Where the browser reaches this server: the public URL given, else the address it used."""
        return self.given_public_url or f"{request.scheme}://{request.host}"

    def page_context(self, request: web.Request) -> dict[str, Any]:
        """textual-serve's template values, its URLs on the address the browser used."""
        base = self.base_url(request)
        socket = ("wss:" if base.startswith("https:") else "ws:") + base.split(":", 1)[1]
        return {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"{socket}/ws",
            "config": {"static": {"url": f"{base}/static/"}},
            "application": {"name": self.title},
        }

    # ------------------------------------------------------------ the socket

    def same_origin(self, request: web.Request) -> bool:
        """A websocket opened by this server's page (or by no browser page at all)."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True
        return urlsplit(origin).netloc.lower() == urlsplit(self.base_url(request)).netloc.lower()

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse | web.Response:  # type: ignore[override]
        """One browser's client: ``unoduo play`` with the browser's own config directory."""
        if not self.same_origin(request):
            return web.Response(status=403, text="this socket serves unoduo web's own page only\n")
        browser = valid_browser_id(request.cookies.get(COOKIE))
        if browser is None:
            return web.Response(status=400, text="no browser id: open the page first (cookies on)\n")
        key = browser_key(browser)
        refused = self.sessions.refusal(key)
        if refused is not None:
            return web.Response(status=refused[0], text=refused[1] + "\n")
        with self.sessions.held(key):
            config_dir = self.browser_dir(key)
            return await self.run_client(request, client_command(self.server, config_dir, self.options))

    def browser_dir(self, key: str) -> Path:
        """The config directory of the browser ``key``; a new one first makes room (:meth:`retire`)."""
        if not self.browsers.path(key).is_dir():
            self.retire(self.browsers.expired(busy=set(self.sessions.running), room_for=1))
        return self.browsers.open(key)

    def retire(self, paths: Collection[Path]) -> None:
        """Remove browsers' directories, and sign the tokens they kept out on the server (in the
        background): a browser forgotten here leaves no token working there."""
        kept = [c for p in paths if (c := ConfigStore(self.server, p).load_credentials()) is not None]
        self.browsers.remove(paths)
        if kept:
            task = asyncio.create_task(sign_out_all(self.make_api(self.server), kept))
            self.retiring.add(task)
            task.add_done_callback(self.retiring.discard)

    async def run_client(self, request: web.Request, command: str) -> web.WebSocketResponse:
        """textual-serve's websocket loop, with ``command`` run by a :class:`ClientService`."""
        websocket = web.WebSocketResponse(heartbeat=15)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        service: ClientService | None = None

        async def close() -> None:
            await websocket.close()

        try:
            await websocket.prepare(request)
            service = ClientService(
                command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            await service.start(width, height)
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # textual-serve's own handler logs and closes the same way
            log.exception(error)
        finally:
            if service is not None:
                await service.stop()
        return websocket

    async def on_startup(self, app: web.Application) -> None:
        self.console.print(
            f"unoduo web: players open {self.shown_url}/ in their browsers; each signs in as itself", soft_wrap=True
        )
        self.console.print(
            f"(clients play on {self.server}; browsers' sign-ins kept in {self.browsers.root})", soft_wrap=True
        )
        self.console.print("[cyan]Press Ctrl+C to quit")
