"""The sign-in of ``unoduo play`` (issue 20, point 1): a new player, or an existing one by password
or by a director's code, and never a second account of a taken name. The client talks to the real
server app in this process (``httpx.ASGITransport``); the lobby's socket is left unconnected."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy
from fastapi import FastAPI
from textual.pilot import Pilot
from textual.widgets import Input

from server.store.models import player_tokens_table, players_table
from tests.tui.helpers import plain, until
from tests.tui.in_process import SERVER, InProcessApi, served
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.connection.accounts import Accounts
from tui_client.connection.config import ConfigStore
from tui_client.screens.lobby_screen import LobbyScreen
from tui_client.screens.signin_screen import EXISTING, NEW, SignInScreen

pytestmark = pytest.mark.anyio

DIRECTOR = "director-token-for-the-signin-tests"
PASSWORD = "correct horse battery"


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[FastAPI]:
    async with served(tmp_path / "signin.sqlite3", DIRECTOR) as app:
        yield app


async def http(server: FastAPI, method: str, path: str, **kwargs: Any) -> Any:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server), base_url=SERVER) as client:
        response = await client.request(method, path, **kwargs)
    assert response.status_code < 300, response.text
    return response.json()


def humans(server: FastAPI) -> list[str]:
    with server.state.store.engine.connect() as conn:
        query = sqlalchemy.select(players_table.c.id).where(players_table.c.kind == "human")
        return list(conn.execute(query).scalars())


def tokens_of(server: FastAPI, player_id: str) -> int:
    with server.state.store.engine.connect() as conn:
        query = sqlalchemy.select(sqlalchemy.func.count()).where(player_tokens_table.c.player_id == player_id)
        count: int = conn.execute(query).scalar_one()
    return count


def client(server: FastAPI, config: Path, name: str | None = None, **options: Any) -> PlayApp:
    return make_play_app(SERVER, name, config_dir=config, api=InProcessApi(server), **options)


async def sign_in_screen(pilot: Pilot[Any]) -> SignInScreen:
    await until(
        pilot, lambda: isinstance(pilot.app.screen, SignInScreen) and pilot.app.screen.ready, "the sign-in screen"
    )
    screen = pilot.app.screen
    assert isinstance(screen, SignInScreen)
    return screen


async def lobby(pilot: Pilot[Any]) -> LobbyScreen:
    app = pilot.app
    assert isinstance(app, PlayApp)
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.me is not None, "the lobby")
    screen = app.screen
    assert isinstance(screen, LobbyScreen)
    return screen


async def fill(pilot: Pilot[Any], screen: SignInScreen, field: str, text: str) -> None:
    box = screen.query_one(f"#signin-{field}", Input)
    box.value = text
    box.focus()
    await pilot.pause()


def status(screen: SignInScreen) -> str:
    return plain(screen.query_one("#signin-status")).lower()


async def test_a_new_player_registers_with_a_password_on_the_sign_in_screen(server: FastAPI, tmp_path: Path) -> None:
    app = client(server, tmp_path / "laptop")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await sign_in_screen(pilot)
        assert screen.mode == NEW
        await fill(pilot, screen, "name", "ann")
        await fill(pilot, screen, "password", "short")
        await pilot.press("enter")
        assert "at least 8 characters" in status(screen) and humans(server) == []
        await fill(pilot, screen, "password", PASSWORD)
        await pilot.press("enter")
        await lobby(pilot)
        assert app.credentials is not None and app.credentials.name == "ann"
        assert "registered as ann" in plain(app.screen.query_one("#lobby-status"))
    assert len(humans(server)) == 1
    assert ConfigStore(SERVER, tmp_path / "laptop").load_credentials() == app.credentials


async def test_a_taken_name_is_never_a_second_account_it_signs_in_by_password(server: FastAPI, tmp_path: Path) -> None:
    """``unoduo play --name ann`` on a second laptop, ann being taken: the sign-in screen opens on
    "existing player" with the name filled in; her password signs in as the same player."""
    ann = await http(server, "POST", "/api/players", json={"name": "ann", "password": PASSWORD})
    app = client(server, tmp_path / "second-laptop", "ANN")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await sign_in_screen(pilot)
        assert screen.mode == EXISTING and "taken" in status(screen)
        assert screen.query_one("#signin-name", Input).value == "ANN"
        assert humans(server) == [ann["id"]]  # nothing registered
        await fill(pilot, screen, "password", "wrong password")
        await pilot.press("enter")
        await until(pilot, lambda: "no player has this name" in status(screen), "the refusal")
        await fill(pilot, screen, "password", PASSWORD)
        await pilot.press("enter")
        await lobby(pilot)
        assert app.credentials is not None and app.credentials.player_id == ann["id"]
        assert app.credentials.token != ann["token"]
    assert humans(server) == [ann["id"]] and tokens_of(server, ann["id"]) == 2


async def test_registering_a_taken_name_turns_the_screen_to_sign_in(server: FastAPI, tmp_path: Path) -> None:
    await http(server, "POST", "/api/players", json={"name": "bob"})
    app = client(server, tmp_path / "c")
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await sign_in_screen(pilot)
        await fill(pilot, screen, "name", "Bob")
        await pilot.press("enter")
        await until(pilot, lambda: screen.mode == EXISTING, "the turn to sign in")
        assert "bob is taken" in status(screen) and len(humans(server)) == 1
        code = await http(server, "POST", "/api/players/bob/codes", headers={"Authorization": f"Bearer {DIRECTOR}"})
        await fill(pilot, screen, "code", code["code"].replace("-", "").lower())
        await pilot.press("enter")
        await lobby(pilot)
        assert app.credentials is not None and app.credentials.name == "bob"
    assert len(humans(server)) == 1


async def test_the_command_line_password_or_code_signs_in_without_the_screen(server: FastAPI, tmp_path: Path) -> None:
    ann = await http(server, "POST", "/api/players", json={"name": "ann", "password": PASSWORD})
    by_password = client(server, tmp_path / "a", "ann", password=PASSWORD)
    async with by_password.run_test(size=(80, 24)) as pilot:
        await lobby(pilot)
        assert by_password.credentials is not None and by_password.credentials.player_id == ann["id"]
        assert "signed in as ann with your password" in plain(by_password.screen.query_one("#lobby-status"))
    code = await http(server, "POST", "/api/players/ann/codes", headers={"Authorization": f"Bearer {DIRECTOR}"})
    by_code = client(server, tmp_path / "b", "ann", code=code["code"])
    async with by_code.run_test(size=(80, 24)) as pilot:
        await lobby(pilot)
        assert by_code.credentials is not None and by_code.credentials.player_id == ann["id"]
    used = client(server, tmp_path / "c", "ann", code=code["code"])  # used once: the screen asks
    async with used.run_test(size=(80, 24)) as pilot:
        screen = await sign_in_screen(pilot)
        assert screen.mode == EXISTING and "no player has this name" in status(screen)
    assert humans(server) == [ann["id"]] and tokens_of(server, ann["id"]) == 3
    fresh = client(server, tmp_path / "d", "cy", password=PASSWORD)  # a free name: registered with it
    async with fresh.run_test(size=(80, 24)) as pilot:
        await lobby(pilot)
    signed = await http(server, "POST", "/api/sessions", json={"name": "cy", "password": PASSWORD})
    assert signed["name"] == "cy"


async def test_signing_out_forgets_the_token_and_the_server_refuses_it(server: FastAPI, tmp_path: Path) -> None:
    api = InProcessApi(server)
    accounts = Accounts(api, ConfigStore(SERVER, tmp_path))
    try:
        me = await accounts.register("dee", PASSWORD)
        other = await accounts.sign_in("dee", password=PASSWORD)  # a second device's token, saved over
        assert (await accounts.sign_out()) == other
        assert accounts.saved() is None and await accounts.sign_out() is None
        api.token = other.token
        with pytest.raises(Exception, match="belongs to nobody"):
            await api.me()
        api.token = me.token  # the first device's token still works
        assert (await api.me())["id"] == me.player_id
    finally:
        await api.aclose()


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_sign_in_screen_fits(server: FastAPI, tmp_path: Path, size: tuple[int, int]) -> None:
    """Every part of both modes is on screen at 80×24 and 60×20 (the SVGs are kept for a look)."""
    await http(server, "POST", "/api/players", json={"name": "ann"})
    app = client(server, tmp_path, "ann")
    async with app.run_test(size=size) as pilot:
        screen = await sign_in_screen(pilot)
        await pilot.pause()
        shot = Path(app.save_screenshot(filename=f"signin-{size[0]}x{size[1]}.svg", path=str(tmp_path)))
        text = re.sub(r"\s+", " ", " ".join(re.findall(r">([^<>]*)</text>", shot.read_text())).replace("&#160;", " "))
        for words in ("I have an account", "Password", "from the director", "Sign in", "ann is taken"):
            assert words in text, (size, words)
        for widget in ("#signin-name", "#signin-password", "#signin-code", "#signin-submit", "#signin-status"):
            region = screen.query_one(widget).region
            assert region.height > 0 and region.bottom <= size[1] - 1 and region.right <= size[0], (widget, region)
        await pilot.press("ctrl+t")
        assert screen.mode == NEW and not screen.query_one("#code-row").display


async def test_x_twice_in_the_lobby_signs_out_and_opens_the_sign_in_screen(server: FastAPI, tmp_path: Path) -> None:
    """``x`` asks, a second ``x`` signs out: the server refuses the token, the config directory no
    longer has it, and the sign-in screen is back (in ``unoduo web``: the browser forgets its player)."""
    app = client(server, tmp_path / "browser", "eve")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await lobby(pilot)
        eve = app.credentials
        assert eve is not None
        await pilot.press("x", "r", "x")  # another key in between: the second x asks again
        assert "press x again to sign out eve" in plain(screen.query_one("#lobby-status"))
        assert ConfigStore(SERVER, tmp_path / "browser").load_credentials() == eve
        await pilot.press("x")
        signin = await sign_in_screen(pilot)
        assert signin.mode == NEW and signin.query_one("#signin-name", Input).value == ""
        assert app.credentials is None and ConfigStore(SERVER, tmp_path / "browser").load_credentials() is None
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server), base_url=SERVER) as http_client:
            refused = await http_client.get("/api/me", headers={"Authorization": f"Bearer {eve.token}"})
        assert refused.status_code == 401
        await fill(pilot, signin, "name", "fay")
        await pilot.press("enter")
        await lobby(pilot)
        assert app.credentials is not None and app.credentials.name == "fay"
