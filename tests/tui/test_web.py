"""``unoduo web``: the play client in a browser through textual-serve, each browser signed in as
itself (issue 38, point 7). One real ``unoduo serve --web-client`` for the module (the server and
``unoduo web`` beside it),
Debian's headless Chromium driven over the DevTools protocol (``tests.browser.cdp``) with two
browser contexts: two people's browsers, each with its own cookie jar. The host's config
directory holds a saved token (``hosty``'s): no browser is ever that player.

xterm.js draws on a canvas, so what the client shows is read off the server (its access log:
``i`` in the lobby fetches the signed-in player's own page) and off the per-browser config
directories ``unoduo web`` keeps; the screenshots are kept in the test's folder."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from bench.progress import STALL_SECONDS, wait_for
from tests.browser.cdp import CHROMIUM, NO_CHROMIUM, PHONE, Page, chromium
from tests.browser.terminal import (
    cookies,
    devtools_port,
    press,
    reload,
    separate_context,
    shows,
    shows_text,
    tap_terminal,
    type_text,
)
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import ok
from tui_client.connection.config import ConfigStore, Credentials

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)]


@dataclass(frozen=True)
class Served:
    """The module's server and ``unoduo web``: where they are, and what the test looks at."""

    base: str  # the unoduo server
    page: str  # unoduo web's page
    log: Path  # the server's access log
    browsers: Path  # unoduo web's per-browser config directories
    host_config: Path  # the host's own config directory (its saved token: hosty's)
    hosty: Credentials
    folder: Path

    def fetched(self, path: str, since: int = 0) -> bool:
        return f'"GET {path} HTTP/1.1" 200' in self.log.read_text(encoding="utf-8")[since:]

    def log_size(self) -> int:
        return len(self.log.read_text(encoding="utf-8"))


PASSWORD = "cy's long password"
ERROR_RED = (255, 82, 82)  # the sign-in screen's words for a refusal (#ff5252)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``unoduo serve --web-client PORT``: the club's one command (the play client for browsers
    started beside the server, stopped with it). The host's config directory holds hosty's token."""
    folder = tmp_path_factory.mktemp("web")
    port, web_port = free_port(), free_port()
    log = folder / "serve.log"
    env = serve_env(XDG_CONFIG_HOME=str(folder / "xdg-config"), XDG_STATE_HOME=str(folder / "xdg-state"))
    db = f"sqlite:///{folder / 'web.sqlite3'}"
    server = serve("--port", str(port), "--db", db, "--web-client", str(web_port), env=env, log=log)
    base, page = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{web_port}/"
    try:
        wait_until_up(base, server)
        hosty = ok(httpx.post(f"{base}/api/players", json={"name": "hosty"}, timeout=30.0), 201)
        # The host's own saved token, where ``unoduo play`` on this machine would find it.
        host_config = folder / "xdg-config" / "unoduo"
        credentials = Credentials(base, hosty["id"], hosty["name"], hosty["token"])
        ConfigStore(base, host_config).save_credentials(credentials)

        def answer() -> httpx.Response | None:
            assert server.poll() is None, log.read_text(encoding="utf-8")
            try:
                return httpx.get(page, timeout=1.0)
            except httpx.TransportError:
                return None

        first = wait_for(answer, "unoduo serve --web-client: the web client did not come up")
        assert first is not None
        assert first.status_code == 200 and "textual.js" in first.text
        cookie = first.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie
        browsers = folder / "xdg-state" / "unoduo" / "web-browsers"  # the state directory's
        yield Served(base, page, log, browsers, host_config, credentials, folder)
    finally:
        stop(server)
    with pytest.raises(httpx.TransportError):  # the web client stopped with the server
        httpx.get(page, timeout=5.0)


def browser_dir(served: Served, page: Page) -> Path:
    """The config directory ``unoduo web`` keeps for the browser of ``page``: its id's hash."""
    cookie = cookies(page)["unoduo_browser"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    return served.browsers / hashlib.sha256(cookie["value"].encode()).hexdigest()


def signed_in(served: Served, folder: Path) -> Credentials | None:
    return ConfigStore(served.base, folder).load_credentials()


def own_page_opens(served: Served, page: Page, player_id: str, since: int) -> None:
    """``i`` in the lobby until the server has served ``player_id``'s page to the client: the
    client in the page is signed in as that player (``i`` on a sign-in screen fetches nothing)."""

    def fetched() -> bool:
        press(page, "i")
        return served.fetched(f"/api/players/{player_id}", since)

    wait_for(fetched, f"the page's client never opened {player_id}'s own page", poll=1.0)


def test_each_browser_signs_in_as_itself_and_keeps_it_across_a_reload(served: Served) -> None:
    profile = served.folder / "chromium-profile"
    with chromium(profile) as ann_page, separate_context(devtools_port(profile), STALL_SECONDS) as cy_page:
        # Ann's browser: a first visit opens the sign-in screen (nothing saved for this browser,
        # and the host's token is not used); she registers a new name.
        tap_terminal(ann_page)
        ann_page.open(served.page)
        ann_dir = browser_dir(served, ann_page)
        wait_for(ann_dir.is_dir, "no config directory for the first browser")
        wait_for(lambda: shows_text(ann_page, "Choose the name you will play under"), "no sign-in screen")
        assert signed_in(served, ann_dir) is None
        ann_page.screenshot(served.folder / "web-sign-in.png")
        type_text(ann_page, "ann")
        press(ann_page, "enter")
        ann = wait_for(lambda: signed_in(served, ann_dir), "the first browser never registered")
        assert ann is not None and ann.name == "ann"
        wait_for(lambda: shows_text(ann_page, "registered as ann; your token is kept for this browser"), "no lobby")

        # Cy's browser (another cookie jar): the name he types is taken (his, from another
        # device): the screen turns to "I have an account" (its words in red) and his password signs in.
        ok(httpx.post(f"{served.base}/api/players", json={"name": "cy", "password": PASSWORD}, timeout=30.0), 201)
        tap_terminal(cy_page)
        cy_page.open(served.page)
        cy_dir = browser_dir(served, cy_page)
        assert cy_dir != ann_dir
        wait_for(cy_dir.is_dir, "no config directory for the second browser")
        wait_for(lambda: shows_text(cy_page, "Choose the name you will play under"), "no sign-in screen")
        type_text(cy_page, "cy")
        press(cy_page, "enter")
        wait_for(lambda: shows_text(cy_page, "is taken on this server"), "the sign-in screen never said cy is taken")
        assert shows(cy_page, ERROR_RED)  # in red
        cy_page.screenshot(served.folder / "web-taken.png")
        type_text(cy_page, PASSWORD)
        press(cy_page, "enter")
        cy = wait_for(lambda: signed_in(served, cy_dir), "the second browser never signed in")
        assert cy is not None and cy.name == "cy" and cy.player_id != ann.player_id
        own_page_opens(served, cy_page, cy.player_id, 0)
        cy_page.screenshot(served.folder / "web-cy.png")

        # A reload of ann's page is ann again, signed in by the token her browser keeps.
        since = served.log_size()
        reload(ann_page)
        assert browser_dir(served, ann_page) == ann_dir
        own_page_opens(served, ann_page, ann.player_id, since)
        ann_page.screenshot(served.folder / "web-ann.png")

        # Cy signs out (x twice in the lobby: q leaves the page of the player first): the browser
        # forgets the token and the server refuses it; a reload opens the sign-in screen.
        press(cy_page, "q")
        press(cy_page, "x")
        press(cy_page, "x")
        wait_for(lambda: signed_in(served, cy_dir) is None, "signing out did not forget the browser's token")
        me = httpx.get(f"{served.base}/api/me", headers={"Authorization": f"Bearer {cy.token}"}, timeout=30.0)
        assert me.status_code == 401
        cy_page.viewport(PHONE)  # and on a phone: laid out at its width, in a font that fits 64 columns
        reload(cy_page)
        wait_for(lambda: shows_text(cy_page, "Choose the name you will"), "no sign-in screen after signing out")
        assert cy_page.evaluate("document.getElementById('terminal').dataset.fontSize") == "10"
        assert cy_page.evaluate("window.innerWidth") == PHONE.width
        cy_page.screenshot(served.folder / "web-phone.png")

    # Only the players the browsers signed in as: never the host's (its token untouched, unused).
    assert ConfigStore(served.base, served.host_config).load_credentials() == served.hosty
    names = {c.name for d in served.browsers.iterdir() if (c := signed_in(served, d)) is not None}
    assert names == {"ann"}
    assert not served.fetched(f"/api/players/{served.hosty.player_id}")


def test_the_socket_serves_only_this_page_to_a_browser_with_an_id(served: Served) -> None:
    """No cookie: 400; another site's page: 403, in words (the bounds: tests/cli/test_web_browsers.py)."""
    web = served.page.replace("http:", "ws:") + "ws"
    mine = {"Cookie": f"unoduo_browser={'A' * 43}", "Origin": served.page.rstrip("/")}

    def refused(headers: dict[str, str]) -> tuple[int, str]:
        with pytest.raises(InvalidStatus) as caught:
            with connect(web, additional_headers=headers, open_timeout=STALL_SECONDS):
                pass
        return caught.value.response.status_code, bytes(caught.value.response.body or b"").decode()

    assert refused({"Origin": mine["Origin"]}) == (400, "no browser id: open the page first (cookies on)\n")
    status, words = refused({**mine, "Origin": "http://elsewhere.example"})
    assert status == 403 and "own page only" in words
