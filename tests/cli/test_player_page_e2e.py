"""A player's page end to end, through a real ``unoduo serve``: ann plays two casual matches
against house bots over HTTP, the house bots play a small tournament of their own (rated), and
then ``unoduo player show`` prints the pages (ratings, sparkline, matches with the bots marked,
head-to-head, ``--versus``, ``--json``), and the terminal client's player screen shows them: with
``--player``, and from the lobby with ``i``."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import DataTable
from typer.testing import CliRunner, Result

from cli.main import app
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.cli.test_tournament_cmd import finished
from tests.server.helpers import ok, play_to_end, register
from tests.tui.helpers import plain, until
from tui_client.apps.play_app import make_play_app
from tui_client.models.player_model import chart_series, rating_of
from tui_client.screens.player_screen import PlayerScreen, RatingChart

TOKEN = "director-token-for-the-player-page-tests"
runner = CliRunner(env={"UNODUO_URL": None, "UNODUO_DIRECTOR_TOKEN": None, "COLUMNS": "80"})


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The server, ann's id, and the house bots' tournament (finished)."""
    folder = tmp_path_factory.mktemp("player_page")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    # The access log goes to a file: hundreds of commands would fill a pipe nobody reads.
    process = serve(
        "--port",
        str(port),
        "--db",
        f"sqlite:///{folder / 'p.sqlite3'}",
        env=serve_env(UNODUO_DIRECTOR_TOKEN=TOKEN),
        log=folder / "serve.log",
    )
    try:
        wait_until_up(base, process)
        with httpx.Client(base_url=base, timeout=30.0) as client:
            ann, headers = register(client, "ann")
            for n, bot in enumerate(("bot:greedy", "bot:random")):
                match = ok(client.post("/api/matches", headers=headers, json={"opponent": bot}), 201)["id"]
                ok(client.post(f"/api/matches/{match}/join", headers=headers, json={"entropy": f"ann-{n}"}))
                final, _ = play_to_end(client, match, headers, 0, random.Random(n))
                assert final["phase"] == "match_over"
            director = {"Authorization": f"Bearer {TOKEN}"}
            body = {"name": "Bot night", "players": ["bot:greedy", "bot:random", "bot:greedy"], "rules": {"target": 30}}
            tournament = ok(client.post("/api/tournaments", json=body, headers=director), 201)["id"]
            ok(client.post(f"/api/tournaments/{tournament}/start", headers=director))
        yield {"base": base, "ann": ann, "tournament": finished(base, tournament)}
    finally:
        stop(process)
    assert "Traceback" not in (folder / "serve.log").read_text(encoding="utf-8")


def player(*args: str, url: str) -> Result:
    result = runner.invoke(app, ["player", *args, "--url", url])
    assert "Traceback" not in result.output, result.output
    return result


def page_of(base: str, entry: str) -> dict[str, Any]:
    found: dict[str, Any] = ok(httpx.get(f"{base}/api/players/{entry}", timeout=30.0))
    return found


def test_player_show_prints_anns_page_in_80_columns(served: dict[str, Any]) -> None:
    base = served["base"]
    page = page_of(base, served["ann"])
    shown = player("show", "ann", url=base)
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert lines[0] == f"ann  ({served['ann']}, human)"
    text = shown.stdout
    # Casual matches are not rated: both families as a newcomer's, marked provisional.
    assert f"UNO Duo  {rating_of(page, 'uno-duo').text} · provisional · 0 games" in text
    assert "last matches (newest first, 2 of 2)" in text
    assert "greedy [bot]" in text and "random [bot]" in text and "casual" in text
    results = {item["result"] for item in page["history"]}
    assert results <= {"won", "lost"} and all(r in text for r in results)
    assert "head-to-head (most played first)" in text
    as_json = player("show", "ann", "--json", url=base)
    assert as_json.exit_code == 0 and json.loads(as_json.stdout) == page
    # The casual house bot by its id (the same player a tournament enters: the server's own greedy).
    greedy = next(h["opponent"]["id"] for h in page["head_to_head"] if h["opponent"]["name"] == "greedy")
    versus = player("show", "ann", "--versus", greedy, url=base)
    assert versus.exit_code == 0, versus.output
    assert versus.stdout.startswith("ann vs greedy [bot]: 1 played, ")
    missing = player("show", "nobody", url=base)
    assert missing.exit_code == 1 and missing.stdout == "" and "not_found" in missing.stderr


def test_a_house_bots_rated_matches_draw_its_sparkline(served: dict[str, Any]) -> None:
    base = served["base"]
    bot = next(p for p in served["tournament"]["players"] if p["name"] == "random")
    page = page_of(base, bot["id"])
    series = chart_series(page, "uno-duo")
    assert len(series.values) >= 2, page["rating_history"]  # its two tournament matches, rated
    shown = player("show", bot["id"], url=base)
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.startswith(f"random  ({bot['id']}, bot)")
    spark = next(line for line in shown.stdout.splitlines() if series.summary in line)
    assert set(spark.split()[0]) <= set("▁▂▃▄▅▆▇█")
    assert "Bot night r" in shown.stdout and "Bot night" in shown.stdout.split("tournaments")[-1]


@pytest.mark.anyio
async def test_the_player_screen_on_a_real_server(served: dict[str, Any], tmp_path: Path) -> None:
    base = served["base"]
    bot = next(p for p in served["tournament"]["players"] if p["name"] == "random")
    async with make_play_app(base, config_dir=tmp_path, player=bot["id"]).run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, PlayerScreen), "the player screen")
        screen = pilot.app.screen
        assert isinstance(screen, PlayerScreen)
        await until(pilot, lambda: screen.loads >= 1 or screen.failures > 0, "the page")
        assert screen.failures == 0
        chart = screen.query_one(RatingChart)
        assert chart.series is not None and len(chart.series.values) >= 2
        assert "┤" in plain(chart) and str(chart.border_title).startswith("rating · UNO Duo")
        history = screen.query_one("#history", DataTable)
        opponents = {str(history.get_row_at(r)[1]) for r in range(history.row_count)}
        # One bot, one page: its two tournament matches against the two greedy bots (the server's
        # own, greedy and greedy-2) and the casual random's match against ann (its own name is no opponent).
        assert history.row_count == 3 and "ann" in opponents
        assert opponents - {"ann"} == {"greedy [bot]", "greedy-2 [bot]"}
        assert {str(history.get_row_at(r)[5]) for r in range(2)} <= {"Bot night r1", "Bot night r2", "Bot night r3"}


@pytest.mark.anyio
async def test_i_in_the_lobby_opens_your_own_page(served: dict[str, Any], tmp_path: Path) -> None:
    app_ = make_play_app(served["base"], "zoe", config_dir=tmp_path)
    async with app_.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app_.credentials is not None, "signing in")
        await pilot.pause()
        await pilot.press("i")
        await until(pilot, lambda: isinstance(pilot.app.screen, PlayerScreen), "zoe's page")
        screen = pilot.app.screen
        assert isinstance(screen, PlayerScreen)
        await until(pilot, lambda: screen.loads >= 1 or screen.failures > 0, "the page")
        assert app_.credentials is not None and screen.entry == app_.credentials.player_id
        assert plain(screen.query_one("#player-title")).startswith("zoe · player · ")
        assert plain(screen.query_one(RatingChart)) == "no rated UNO Duo match yet"
        await pilot.press("q")
        assert not isinstance(pilot.app.screen, PlayerScreen)
