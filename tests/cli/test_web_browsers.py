"""``unoduo web``'s per-browser sign-in, its parts without a browser: the browser ids, the
per-browser config directories and their bounds, the clients' bounds, the environment a
browser's client gets, and the page's addresses (tests/tui/test_web.py drives the whole in
Chromium)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from aiohttp import DummyCookieJar, web
from aiohttp.test_utils import TestClient, TestServer, make_mocked_request
from textual_serve.download_manager import DownloadManager
from typer.testing import CliRunner

from bench.progress import STALL_SECONDS
from cli.main import app
from cli.web_beside import local_server_url, web_client_argv
from cli.web_browsers import BrowserDirs, browser_key, new_browser_id, valid_browser_id
from cli.web_server import ClientService, PlayServer, Sessions, client_command
from tests.tui.in_process import SERVER, InProcessApi, served
from tui_client.connection.accounts import Accounts
from tui_client.connection.api import ApiError
from tui_client.connection.config import ConfigStore


def test_browser_ids_are_random_and_only_their_own_shape_is_accepted() -> None:
    ids = {new_browser_id() for _ in range(100)}
    assert len(ids) == 100 and all(valid_browser_id(i) == i for i in ids)
    for forged in (None, "", "short", "A" * 42, "A" * 44, "../../etc/passwd" + "A" * 27, "A" * 42 + "/"):
        assert valid_browser_id(forged) is None
    key = browser_key("A" * 43)
    assert len(key) == 64 and "A" not in key  # the directory's name is a hash: the cookie is not on disk


def aged(path: Path, seconds_ago: float) -> None:
    when = path.stat().st_mtime - seconds_ago
    os.utime(path, (when, when))


def test_browser_directories_are_bounded_least_recently_used_first(tmp_path: Path) -> None:
    dirs = BrowserDirs(tmp_path / "browsers", max_browsers=3, max_age=3600)
    keys = [browser_key(new_browser_id()) for _ in range(5)]
    for age, key in zip((50, 40, 30), keys, strict=False):
        aged(dirs.open(key), age)
    assert (dirs.path(keys[0]).stat().st_mode & 0o777) == 0o700
    assert dirs.expired() == [] and dirs.expired(room_for=1) == [dirs.path(keys[0])]
    dirs.open(keys[0])  # used again: now the most recent
    assert dirs.expired(busy={keys[1]}, room_for=1) == [dirs.path(keys[2])]  # never a busy one
    aged(dirs.path(keys[2]), 7200)  # unused for longer than max_age: expired even with room
    assert dirs.expired() == [dirs.path(keys[2])]
    dirs.remove(dirs.expired())
    assert {p.name for p in dirs.known()} == {keys[0], keys[1]}


@pytest.mark.anyio
async def test_a_forgotten_browsers_token_is_signed_out_on_the_server(tmp_path: Path) -> None:
    """A new browser beyond ``max_browsers``: the least recently used directory goes, and the
    token it kept stops working on the server; the others' keep working."""
    async with served(tmp_path / "web.sqlite3", "director-token-of-the-web-test") as app:
        web = PlayServer(
            SERVER,
            BrowserDirs(tmp_path / "browsers", max_browsers=2),
            Sessions(),
            host="127.0.0.1",
            port=8001,
            make_api=lambda _server: InProcessApi(app),
        )
        players = []
        for name, age in (("old", 60), ("recent", 30)):
            key = browser_key(new_browser_id())
            folder = web.browser_dir(key)
            api = InProcessApi(app)
            players.append(await Accounts(api, ConfigStore(SERVER, folder)).register(name))
            await api.aclose()
            aged(folder, age)
        newcomer = browser_key(new_browser_id())
        assert web.browser_dir(newcomer).is_dir() and len(web.browsers.known()) == 2
        assert len(web.retiring) == 1
        assert await next(iter(web.retiring)) == 1
        checks = InProcessApi(app)
        try:
            for player, works in zip(players, (False, True), strict=True):
                checks.token = player.token
                try:
                    await checks.me()
                except ApiError as error:
                    assert not works and error.status == 401
                else:
                    assert works
        finally:
            await checks.aclose()


def test_clients_are_bounded_per_browser_and_in_all() -> None:
    sessions = Sessions(max_sessions=3, max_per_browser=2)
    with sessions.held("a"), sessions.held("a"):
        status, words = sessions.refusal("a") or (0, "")
        assert status == 429 and "at most 2" in words
        assert sessions.refusal("b") is None
        with sessions.held("b"):
            status, words = sessions.refusal("c") or (0, "")
            assert status == 503 and "3 players at once" in words
    assert sessions.total() == 0 and sessions.refusal("a") is None and not sessions.running


def test_a_browsers_client_gets_no_unoduo_setting_of_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNODUO_DIRECTOR_TOKEN", "the host's")
    monkeypatch.setenv("UNODUO_PASSWORD", "the host's too")
    service = ClientService(
        "true", write_bytes=_nothing, write_str=_nothing, close=_closed, download_manager=DownloadManager()
    )
    environment = service._build_environment(100, 30)
    assert not [k for k in environment if k.startswith("UNODUO_")]
    assert environment["COLUMNS"] == "100" and "PATH" in environment
    command = client_command("http://h:1", Path("/state/web-browsers/ab"), ["--player", "ann o'neil"])
    assert command.endswith("play --server http://h:1 --config-dir /state/web-browsers/ab --player 'ann o'\"'\"'neil'")


async def _nothing(data: object) -> None:
    return None


async def _closed() -> None:
    return None


def test_the_page_points_its_socket_at_the_address_the_browser_used(tmp_path: Path) -> None:
    server = PlayServer("http://h:1", BrowserDirs(tmp_path), Sessions(), host="0.0.0.0", port=8001)
    phone = make_mocked_request("GET", "/", headers={"Host": "192.168.1.20:8001"})
    context = server.page_context(phone)
    assert context["app_websocket_url"] == "ws://192.168.1.20:8001/ws"
    assert context["config"]["static"]["url"] == "http://192.168.1.20:8001/static/"
    assert server.same_origin(make_mocked_request("GET", "/ws", headers={"Host": "192.168.1.20:8001"}))
    same = {"Host": "192.168.1.20:8001", "Origin": "http://192.168.1.20:8001"}
    assert server.same_origin(make_mocked_request("GET", "/ws", headers=same))
    assert not server.same_origin(make_mocked_request("GET", "/ws", headers={**same, "Origin": "http://evil.example"}))
    proxied = PlayServer(
        "http://h:1", BrowserDirs(tmp_path), Sessions(), host="127.0.0.1", port=8001, public_url="https://uno.club/"
    )
    context = proxied.page_context(phone)
    assert context["app_websocket_url"] == "wss://uno.club/ws"
    assert proxied.same_origin(make_mocked_request("GET", "/ws", headers={**same, "Origin": "https://uno.club"}))


class HeldClients(PlayServer):
    """The real page and socket handlers, each client a wait on ``release`` instead of a process:
    the bounds are the handlers' (what a client process does is tests/tui/test_web.py's)."""

    def __init__(self, root: Path) -> None:
        super().__init__("http://h:1", BrowserDirs(root), Sessions(max_sessions=3, max_per_browser=2), host="x", port=1)
        self.release = asyncio.Event()
        self.commands: list[str] = []

    async def run_client(self, request: web.Request, command: str) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self.commands.append(command)
        await self.release.wait()
        await socket.close()
        return socket


@pytest.mark.anyio
async def test_the_page_and_the_socket_refuse_a_client_beyond_the_bounds(tmp_path: Path) -> None:
    play = HeldClients(tmp_path / "browsers")
    async with TestClient(TestServer(await play._make_app()), cookie_jar=DummyCookieJar()) as client:
        page = await client.get("/")
        ann = page.cookies["unoduo_browser"].value
        assert page.status == 200 and valid_browser_id(ann)
        html = await page.text()  # laid out at a phone's width, its font chosen before textual.js reads it
        assert html.index('<meta name="viewport"') < html.index("</head>")
        assert html.index('id="terminal"') < html.index("terminal.dataset.fontSize") < html.index("</body>")
        assert page.cookies["unoduo_browser"]["httponly"] and page.cookies["unoduo_browser"]["samesite"] == "Lax"

        async def tab(browser: str) -> Any:
            return await client.ws_connect("/ws", headers={"Cookie": f"unoduo_browser={browser}"})

        tabs = [await tab(ann), await tab(ann)]
        refused = await client.get("/ws", headers={"Cookie": f"unoduo_browser={ann}"})
        assert refused.status == 429 and "at most 2" in await refused.text()
        again = await client.get("/", headers={"Cookie": f"unoduo_browser={ann}"})
        assert again.status == 429 and "close one" in await again.text()
        bob = new_browser_id()
        tabs.append(await tab(bob))
        full = await client.get("/", headers={"Cookie": f"unoduo_browser={bob}"})
        assert full.status == 503 and "3 players at once" in await full.text()
        assert [c.split("--config-dir ")[1] for c in play.commands] == [
            str(play.browsers.path(browser_key(b))) for b in (ann, ann, bob)
        ]
        play.release.set()
        for socket in tabs:
            await socket.receive()  # closed by the server once its client is done
            await socket.close()
        with anyio.fail_after(STALL_SECONDS):  # each handler leaves once its socket has closed
            while play.sessions.total():
                await asyncio.sleep(0.01)
        assert (await client.get("/", headers={"Cookie": f"unoduo_browser={ann}"})).status == 200


def test_serve_starts_the_web_client_beside_it_on_a_port_of_its_own() -> None:
    assert local_server_url("0.0.0.0", 8000) == "http://127.0.0.1:8000"
    assert local_server_url("::", 8000) == "http://127.0.0.1:8000"
    assert local_server_url("192.168.1.20", 8000) == "http://192.168.1.20:8000"
    assert local_server_url("::1", 8000) == "http://[::1]:8000"
    # it listens where the server does: loopback unless --host opens both to the network
    assert web_client_argv("http://127.0.0.1:8000", "127.0.0.1", 8001)[-4:] == ["--host", "127.0.0.1", "--port", "8001"]
    assert web_client_argv("http://127.0.0.1:8000", "0.0.0.0", 8001)[-4:] == ["--host", "0.0.0.0", "--port", "8001"]
    refused = CliRunner().invoke(app, ["serve", "--port", "8001", "--web-client", "8001"])
    assert refused.exit_code == 2 and "--web-client needs a port of its own" in refused.stderr
