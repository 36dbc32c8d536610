"""Names a player chose are shown as written (issue 33.4): players registered on the real server
app (in this process) under names full of ``[`` ``]`` and markup words, entered in a tournament
with a markup name of its own, are drawn exactly — brackets, tags and all — in the tournament
screen's standings, schedule and pairings, on a player's page, and in the sign-in screen. Before
the fix a ``DataTable`` cell read a name as markup (``[red]x`` drawn as a red ``x``, a bot
account's ``[bot]`` label gone, ``eve [/]`` an error)."""

from __future__ import annotations

import html
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from textual.pilot import Pilot

from tests.tui.helpers import plain, until
from tests.tui.in_process import SERVER, InProcessApi, served
from tui_client.apps.play_app import make_play_app
from tui_client.screens.player_screen import PlayerScreen
from tui_client.screens.signin_screen import SignInScreen
from tui_client.screens.tournament_screen import TournamentScreen

pytestmark = pytest.mark.anyio

DIRECTOR = "director-token-for-the-literal-names"
HUMANS = ("[bold]ann[/bold]", "[red]x", "[link=https://e.x]y[/link]", "[bot] bob", "eve [/]")
ROBOT = "[i]robo"  # a bot account: shown with its label, "[i]robo [bot]"
CUP = "[b]Cup[/b] [red]"


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[FastAPI]:
    async with served(tmp_path / "literal.sqlite3", DIRECTOR) as app:
        yield app


async def call(server: FastAPI, method: str, path: str, status: int = 0, **kwargs: Any) -> Any:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server), base_url=SERVER) as client:
        response = await client.request(method, path, **kwargs)
    assert response.status_code == status if status else response.status_code < 300, response.text
    return response.json()


async def cup(server: FastAPI) -> tuple[str, dict[str, str]]:
    """The players registered under their markup names, and a started tournament of them all."""
    refused = await call(server, "POST", "/api/players", 400, json={"name": "bob [bot]"})
    assert "[bot]" in refused["message"]  # the label is the server's to give: "[bot] bob" instead
    ids = {}
    for name in HUMANS:
        ids[name] = (await call(server, "POST", "/api/players", json={"name": name}))["id"]
    robot = await call(server, "POST", "/api/players", json={"name": ROBOT, "bot": True})
    ids[ROBOT] = robot["id"]
    director = {"Authorization": f"Bearer {DIRECTOR}"}
    body = {"name": CUP, "players": [*ids.values(), "bot:greedy"], "bot_accounts": True, "move_seconds": 600}
    made = await call(server, "POST", "/api/tournaments", headers=director, json=body)
    await call(server, "POST", f"/api/tournaments/{made['id']}/start", headers=director)
    return str(made["id"]), ids


def drawn(pilot: Pilot[Any], tmp_path: Path) -> str:
    """The screen as drawn (a saved SVG screenshot, read back as text)."""
    svg = Path(pilot.app.save_screenshot(path=str(tmp_path), filename="screen.svg")).read_text()
    return html.unescape(svg).replace("\xa0", " ")


SHOWN = (*HUMANS, f"{ROBOT} [bot]")


async def test_the_tournament_screen_shows_every_name_as_written(server: FastAPI, tmp_path: Path) -> None:
    tournament, _ids = await cup(server)
    app = make_play_app(SERVER, config_dir=tmp_path, tournament=tournament, api=InProcessApi(server))
    async with app.run_test(size=(160, 50)) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, TournamentScreen)
        await until(pilot, lambda: screen.loads >= 1 and screen.tournament is not None, "the tournament")
        assert CUP in plain(screen.query_one("#tour-title"))

        def every_name_drawn() -> bool:
            # the standings (a row per player) and round 1's pairings: each name at least twice (the
            # schedule may be drawn a refresh after the standings on a loaded machine: wait for both)
            text = drawn(pilot, tmp_path)
            return all(text.count(name) >= 2 for name in SHOWN) and CUP in text

        await until(pilot, every_name_drawn, "every name drawn as written, in the standings and the pairings")


async def test_a_players_page_and_the_sign_in_show_the_name_as_written(server: FastAPI, tmp_path: Path) -> None:
    _tournament, ids = await cup(server)
    name = HUMANS[2]
    app = make_play_app(SERVER, config_dir=tmp_path, player=ids[name], api=InProcessApi(server))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, PlayerScreen)
        await until(pilot, lambda: screen.loads >= 1, "the player's page")
        assert plain(screen.query_one("#player-title")).startswith(f"{name} · ")
        await until(pilot, lambda: f"{name} · " in drawn(pilot, tmp_path), "the page's title drawn")

    app = make_play_app(SERVER, config_dir=tmp_path / "other", api=InProcessApi(server))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, SignInScreen), "the sign-in screen")
        signin = pilot.app.screen
        assert isinstance(signin, SignInScreen)
        await until(pilot, lambda: signin.ready, "the form")
        taken = HUMANS[0]
        await pilot.click("#signin-name")
        for key in taken:
            await pilot.press(key)
        await pilot.press("enter")
        await until(pilot, lambda: "is taken" in plain(signin.query_one("#signin-status")), "the refusal")
        assert plain(signin.query_one("#signin-status")).startswith(f"{taken} is taken on this server")
        assert f"{taken} is taken" in drawn(pilot, tmp_path)
