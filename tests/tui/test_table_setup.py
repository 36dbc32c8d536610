"""The lobby's ``c``: a classic table of 2 to 10 made from one line (``bob, 2 greedy``), against a
real ``unoduo serve``: the player's table opens at once, the person named finds it in their
lobby, and play starts when every seat has joined. The line's mistakes are said before anything
is sent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from textual.widgets import Input, Static

from tests.cli.serving import running
from tests.tui.helpers import until
from tests.tui.test_lobby_live import live_lobby
from tui_client.apps.play_app import make_play_app
from tui_client.screens.table_screen import PlayScreen
from tui_client.screens.table_setup import GuestsError, TableSetupScreen, parse_guests

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("line", "guests"),
    [
        ("bob", ["bob"]),
        ("greedy", ["bot:greedy"]),
        ("bob, 2 greedy, random", ["bob", "bot:greedy", "bot:greedy", "bot:random"]),
        ("greedy x3", ["bot:greedy"] * 3),
        ("3x random, bot:greedy", ["bot:random"] * 3 + ["bot:greedy"]),
        (" Ann ,, Bob ", ["Ann", "Bob"]),
        ("9 random", ["bot:random"] * 9),
    ],
)
def test_a_guests_line_names_the_other_seats_in_order(line: str, guests: list[str]) -> None:
    assert parse_guests(line) == guests


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("", "name who sits with you"),
        (" , ", "name who sits with you"),
        ("bob, BOB", "bob named twice"),
        ("2 bob", "only a house bot can take several seats"),
        ("10 greedy", "a table seats 1 to 9 others"),
        ("5 greedy, 5 random", "10 others is too many"),
        ("bot:clever", "there is no house bot"),
        ("0 greedy", "a table seats 1 to 9 others"),
    ],
)
def test_a_line_that_cannot_make_a_table_says_why(line: str, words: str) -> None:
    with pytest.raises(GuestsError, match=words):
        parse_guests(line)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("table-setup") / "tables.sqlite3"
    with running(db, UNODUO_BOT_THINK_SECONDS="0") as base:
        yield base


async def test_c_makes_a_table_that_the_named_person_finds_and_joins(server: str, tmp_path: Path) -> None:
    with httpx.Client(base_url=server, timeout=10) as client:
        bob = client.post("/api/players", json={"name": "bob"}).json()
    app = make_play_app(server, "ann", config_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await live_lobby(pilot, app)
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, TableSetupScreen), "the table's question")
        setup = app.screen
        guests = setup.query_one("#table-guests", Input)

        guests.value = "bob, Bob"  # a mistake is said, nothing is sent
        await pilot.press("enter")
        hint = setup.query_one("#table-hint", Static)
        await until(pilot, lambda: "bob named twice" in str(hint.content), "the mistake in words")
        assert app.screen is setup

        guests.value = "bob, 2 greedy"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), "ann's table")
        table = app.screen
        assert isinstance(table, PlayScreen)
        match = table.model.match
        assert table.model.names == ["ann", "bob", "greedy", "greedy-2"]

        # bob's lobby lists the table; he joins and play starts for all four.
        headers = {"Authorization": f"Bearer {bob['token']}"}
        async with httpx.AsyncClient(base_url=server, timeout=10, headers=headers) as client:
            me = (await client.get("/api/me")).json()
            listed = [m for m in me["matches"] if m["id"] == match]
            assert listed and [p["name"] for p in listed[0]["seats"]] == ["ann", "bob", "greedy", "greedy-2"]
            joined = await client.post(f"/api/matches/{match}/join", json={"entropy": "bob's"})
            assert joined.status_code == 200, joined.text
        await until(
            pilot,
            lambda: table.model.view is not None and table.model.view.get("phase") == "play",
            "the table in play",
        )
        view = table.model.view
        assert view is not None
        assert view["seats"] == 4 and len(view["hand_counts"]) == 4 and view["ruleset"] == "classic"
