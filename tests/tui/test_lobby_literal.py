"""The lobby shows what players chose as written (issue 33.4 and 33.5, the lobby's part): a
player and opponents registered on the real server app (in this process) under markup names, a
tournament with a markup name and a director's ruling full of brackets are drawn exactly in the
lobby's lines, its next box and its dispute box, at 80x24 and 60x20; the ruling is read whole
(it wraps, in a box that takes focus), and the footer always shows ``?`` and ``q``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from textual.widgets import OptionList

from tests.tui.helpers import plain, until
from tests.tui.in_process import SERVER, InProcessApi
from tests.tui.test_literal_names import DIRECTOR, call, drawn, server  # noqa: F401 - the fixture
from tui_client.apps.play_app import make_play_app
from tui_client.screens.lobby_screen import LobbyScreen

pytestmark = pytest.mark.anyio

ME = "[i]me"
OTHERS = ("[bold]ann[/bold]", "[red]x", "[link=https://e.x]y[/link]", "[bot] bob")
CUP = "[b]Cup[/b] [red]"
RULING = "eve's h[and] was [b]never[/b] shown: the result stands, as the log says from the deal to the end"


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_lobby_draws_names_and_a_ruling_as_written(
    server: FastAPI,  # noqa: F811
    tmp_path: Path,
    size: tuple[int, int],
) -> None:
    director = {"Authorization": f"Bearer {DIRECTOR}"}
    others = [(await call(server, "POST", "/api/players", json={"name": n}))["id"] for n in OTHERS]
    app = make_play_app(SERVER, ME, config_dir=tmp_path, api=InProcessApi(server), auto_join=False)
    async with app.run_test(size=size) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, LobbyScreen)
        await until(pilot, lambda: screen.me is not None, "signed in")
        me = str(screen.me["id"])  # type: ignore[index]
        body = {"name": CUP, "players": [me, others[0]], "move_seconds": 600, "join_seconds": 3600}
        t = await call(server, "POST", "/api/tournaments", headers=director, json=body)
        await call(server, "POST", f"/api/tournaments/{t['id']}/start", headers=director)
        table = {"name": "[red]tables", "format": "tables", "ruleset": "classic", "rounds": 1, "table_size": 4}
        table |= {"players": [me, *others[1:]], "round_starts": ["2999-12-01T19:30:00+00:00"]}
        t2 = await call(server, "POST", "/api/tournaments", headers=director, json=table)
        await call(server, "POST", f"/api/tournaments/{t2['id']}/start", headers=director)
        match = (await call(server, "GET", f"/api/tournaments/{t['id']}"))["rounds"][0]["matches"][0]["id"]
        mine = {"Authorization": f"Bearer {app.credentials.token}"}  # type: ignore[union-attr]
        dispute = await call(
            server, "POST", f"/api/matches/{match}/disputes", headers=mine, json={"seq": 1, "note": "[x]"}
        )
        await call(
            server,
            "POST",
            f"/api/disputes/{dispute['id']}/ruling",
            headers=director,
            json={"decision": "stands", "note": RULING},
        )
        await pilot.press("r")
        await until(pilot, lambda: bool(screen.disputes) and screen.disputes[0].get("ruling_note"), "the ruling")
        await pilot.pause()
        options = screen.query_one("#matches", OptionList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any(f"vs {OTHERS[0]} · {CUP} round 1" in p for p in prompts), prompts
        nxt = plain(screen.query_one("#next"))
        assert f"{CUP} round 1: vs {OTHERS[0]}" in nxt and "[red]tables round 1 at a table of 4 with [red]x" in nxt
        box = plain(screen.query_one("#disputes-text"))
        assert RULING in box.replace("\n", " ") or RULING in box, box
        shown = drawn(pilot, tmp_path)
        for word in ("[b]Cup[/b]", OTHERS[0], "h[and]", "[b]never[/b]"):  # the SVG splits text at spaces
            assert word in shown, word
        cells = "|".join(re.findall(r">([^<]+)<", shown))  # the footer's keys and words are cells apart
        assert re.search(r"\|\s*\?\s*\|\s*help\s*\|\s*q\s*\|\s*quit", cells), cells[-300:]
        screen.query_one("#disputes").focus()  # the box takes focus: a ruling longer than it scrolls
        await pilot.pause()
        assert screen.focused is screen.query_one("#disputes")
