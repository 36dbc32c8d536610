"""A tournament in a season on ``unoduo play``'s tournament screen, against a real ``unoduo serve``
(issue 36.5): the line under the title names the season and the signed-in player's place and
points in it, ``s`` opens the season's table (every row, the events counted by number), ``q``
comes back. pat plays a night against a house bot and never joins (signed in with a saved token): the bot wins by the join
deadline, and pat is second of two in the season."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import DataTable, Static

from bench.progress import wait_for
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.tui.helpers import until
from tui_client.apps.play_app import make_play_app
from tui_client.connection.config import ConfigStore, Credentials
from tui_client.screens.season_screen import SeasonScreen
from tui_client.screens.tournament_screen import TournamentScreen

pytestmark = pytest.mark.anyio

DIRECTOR = "director-of-the-season-screen-tests"


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    port = free_port()
    db = tmp_path_factory.mktemp("season-screen") / "s.sqlite3"
    process = serve("--port", str(port), "--db", f"sqlite:///{db}", env=serve_env(UNODUO_DIRECTOR_TOKEN=DIRECTOR))
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        with httpx.Client(base_url=base, timeout=10) as client:
            director = {"Authorization": f"Bearer {DIRECTOR}"}
            pat = client.post("/api/players", json={"name": "pat"}).json()
            body = {"name": "Night 1", "players": [pat["id"], "bot:greedy"], "rules": {"target": 30}, "join_seconds": 1}
            tid = client.post("/api/tournaments", headers=director, json=body).json()["id"]
            later = client.post("/api/tournaments", headers=director, json={**body, "name": "Night 2"}).json()["id"]
            season = client.post("/api/seasons", headers=director, json={"name": "Winter"}).json()
            for t in (tid, later):
                added = client.post(
                    f"/api/seasons/{season['id']}/tournaments", headers=director, json={"tournament": t}
                )
                assert added.status_code == 200, added.text
            assert client.post(f"/api/tournaments/{tid}/start", headers=director).status_code == 200
            wait_for(
                lambda: client.get(f"/api/tournaments/{tid}").json(),
                "night 1 to end",
                until=lambda t: t["status"] == "finished",
                moving=lambda t: repr(t["rounds"]),
            )
        yield {"server": base, "tournament": tid, "season": season["id"], "pat": pat}
    finally:
        stop(process)


async def test_the_season_line_and_the_season_table(night: dict[str, Any], tmp_path: Path) -> None:
    pat = night["pat"]
    ConfigStore(night["server"], tmp_path).save_credentials(
        Credentials(night["server"], pat["id"], "pat", pat["token"])
    )
    app = make_play_app(night["server"], tournament=night["tournament"], config_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(
            pilot, lambda: isinstance(app.screen, TournamentScreen) and app.screen.season is not None, "the season"
        )
        line = str(app.screen.query_one("#tour-season", Static).content)
        assert line == "Season Winter · you: 2nd of 2, 18 pts · s: the season table", line
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, SeasonScreen) and app.screen.loads > 0, "the season table")
        screen = app.screen
        head = str(screen.query_one("#season-head", Static).content)
        assert head == "Winter · open · 1 of 2 events finished\nevery event counts · points 25/18/15/12/10/8/6/4/2/1"
        events = screen.query_one("#season-events", DataTable)
        listed = [[str(getattr(c, "plain", c)) for c in events.get_row_at(i)] for i in range(events.row_count)]
        assert [row[1] for row in listed] == ["Night 1", "Night 2"]
        assert [row[3] for row in listed] == ["finished", "in play (created)"]
        table = screen.query_one("#season-table", DataTable)
        rows = [[str(getattr(c, "plain", c)) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert [str(c.label) for c in table.columns.values()] == ["#", "player", "Ev", "Pts", "W", "best", "counted"]
        assert rows == [["1", "greedy", "1", "25", "1", "1st", "1"], ["2", "pat", "1", "18", "0", "2nd", "1"]]
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, TournamentScreen), "back to the tournament")
