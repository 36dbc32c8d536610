"""The tournament screen of ``unoduo play`` against a real server (``unoduo serve``, house bots
answering at once): a five-player round-robin to 30 points (pat, a registered player, and four
house bots), so every round has a bye and the bots' matches finish in a moment while pat's
waits for pat. Standings with every column, the schedule by round, Enter on a live pairing →
the live table as a spectator, Enter on a finished one → its replay, and the director's open
dispute opened at its event; reached directly (``--tournament``) and from the lobby (``t``)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import DataTable, OptionList, Static

from bench.progress import wait_for
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.tui.helpers import scrubber_ready, until
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.models.tournament_model import STANDING_COLUMNS
from tui_client.screens.lobby_screen import LobbyScreen
from tui_client.screens.replay_screens import MatchScrubber
from tui_client.screens.table_screen import PlayScreen
from tui_client.screens.tournament_screen import TournamentScreen

pytestmark = pytest.mark.anyio

SIZE = (150, 45)
DIRECTOR = "director-of-the-tournament-screen-tests"


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    port = free_port()
    db = tmp_path_factory.mktemp("tournament-screen") / "t.sqlite3"
    process = serve("--port", str(port), "--db", f"sqlite:///{db}", env=serve_env(UNODUO_DIRECTOR_TOKEN=DIRECTOR))
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        with httpx.Client(base_url=base, timeout=10) as client:
            pat = client.post("/api/players", json={"name": "pat"}).json()
            director = {"Authorization": f"Bearer {DIRECTOR}"}
            players = [pat["id"], "bot:greedy", "bot:random", "bot:greedy", "bot:random"]
            made = client.post(
                "/api/tournaments",
                headers=director,
                json={"name": "Cup", "players": players, "rules": {"target": 30}, "move_seconds": 600},
            )
            assert made.status_code == 201, made.text
            tid = made.json()["id"]
            assert client.post(f"/api/tournaments/{tid}/start", headers=director).status_code == 200

            def pats_match() -> str | None:
                detail = client.get(f"/api/tournaments/{tid}").json()
                for rnd in detail["rounds"]:
                    for p in rnd["pairings"]:
                        if pat["id"] in (p["white"]["id"], p["black"]["id"]) and p["match"]:
                            return str(p["match"])
                return None

            match = wait_for(pats_match, "pat's first match")
            seat = {"Authorization": f"Bearer {pat['token']}"}
            joined = client.post(f"/api/matches/{match}/join", headers=seat, json={"entropy": "ab" * 16})
            assert joined.status_code == 200, joined.text
            disputed = client.post(
                f"/api/matches/{match}/disputes", headers=seat, json={"seq": 1, "note": "the deal looks odd"}
            )
            assert disputed.status_code == 201, disputed.text
        yield {"server": base, "tournament": tid, "pat": pat, "match": match, "dispute": disputed.json()}
    finally:
        stop(process)


def tournament_screen(app: PlayApp) -> TournamentScreen:
    screen = app.screen
    assert isinstance(screen, TournamentScreen), screen
    return screen


def rows_of(table: DataTable[Any]) -> list[list[str]]:
    return [[str(getattr(c, "plain", c)) for c in table.get_row_at(i)] for i in range(table.row_count)]


def labels_of(table: DataTable[Any]) -> list[str]:
    return [str(column.label) for column in table.columns.values()]


async def test_standings_schedule_spectator_replay_and_dispute(cup: dict[str, Any], tmp_path: Path) -> None:
    app = make_play_app(cup["server"], tournament=cup["tournament"], director_token=DIRECTOR, config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TournamentScreen) and app.screen.loads > 0, "the tournament")
        screen = tournament_screen(app)
        # The bots' round 1 is over at once: wait until its results are in the standings.
        await until(
            pilot,
            lambda: any(r.kind == "pairing" and r.status == "decided" for r in screen.schedule),
            "a decided pairing",
        )
        title = screen.query_one("#tour-title", Static).content
        assert (
            "Cup · running · round" in str(title) and "uno-duo to 30" in str(title) and "1 open dispute" in str(title)
        )

        standings = screen.query_one("#standings", DataTable)
        assert labels_of(standings) == [label for _key, label in STANDING_COLUMNS]
        assert labels_of(standings)[:9] == [
            "#",
            "player",
            "played",
            "won",
            "lost",
            "byes",
            "forfeits",
            "pts for",
            "pts against",
        ]
        assert labels_of(standings)[9:] == ["wins", "h2h", "SB", "pts diff", "conceded", "lot", "decided by"]
        rows = rows_of(standings)
        assert len(rows) == 5
        assert [r[0] for r in rows] == ["1", "2", "3", "4", "5"]
        names = {r[1] for r in rows}
        assert names == {"pat", "greedy", "greedy-2", "random", "random-2"}
        assert all(len(r) == len(STANDING_COLUMNS) for r in rows)
        assert all(r[-1] for r in rows[:-1]) and rows[-1][-1] == ""  # decided by, except the last row
        assert sum(int(r[3]) for r in rows) == sum(int(r[4]) for r in rows) >= 2  # wins = losses
        assert {r[-1] for r in rows[:-1]} <= {
            "match wins",
            "head-to-head",
            "Sonneborn–Berger",
            "points difference",
            "points conceded",
            "lot",
        }

        schedule = screen.query_one("#schedule", DataTable)
        lines = rows_of(schedule)
        headings = [line[0] for line in lines if line[0].startswith("round ")]
        assert headings == [f"round {n}" for n in range(1, 6)]  # 5 players: 5 rounds, a bye in each
        assert sum(1 for line in lines if line[3] == "bye") == 5
        pairings = [line for line in lines if re.fullmatch(r"\d\.\d", line[0])]
        assert len(pairings) == 10
        decided = [line for line in pairings if line[3] == "decided"]
        assert decided and all(re.search(r" wins \d+–\d+$", line[4]) for line in decided)
        assert any(line[3] == "pending" for line in pairings)
        round_1 = lines[: lines.index(next(line for line in lines if line[0] == "round 2"))]
        assert ["1 bye", "pat", "", "bye", ""] in round_1

        disputes = screen.query_one("#disputes", DataTable)
        dispute = cup["dispute"]
        seat = f"seat {dispute['seat']} (pat)"
        assert disputes.display
        assert rows_of(disputes) == [[dispute["id"], dispute["slot"], cup["match"], "#1", seat, "the deal looks odd"]]

        # The standings as drawn (a saved SVG screenshot, read back as text). The bots' pairings
        # go on while this runs, so the rows are read again for each screenshot until the
        # drawing has caught up with them.
        def drawn() -> str:
            svg = Path(app.save_screenshot(path=str(tmp_path), filename="tournament.svg")).read_text()
            return html.unescape(svg).replace("\xa0", " ")

        def standings_drawn() -> bool:
            svg = drawn()
            first = rows_of(standings)[0][-1]
            words = ("standings", "pts against", "h2h", "pts diff", "conceded", "decided by", first, "round 1")
            return all(w in svg for w in words) and all(name in svg for name in names)

        await until(pilot, standings_drawn, "the standings as drawn, with the first row's decided by")

        # Enter on pat's live pairing: the live table, as a spectator (no saved token here).
        live = next(i for i, r in enumerate(screen.schedule) if r.match == cup["match"])
        assert screen.schedule[live].watchable
        schedule.focus()
        schedule.move_cursor(row=live, animate=False)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), "the live table")
        table = app.screen
        assert isinstance(table, PlayScreen)
        await until(pilot, lambda: table.model.view is not None, "the live view")
        assert table.model.watching and table.model.seat is None and table.model.match == cup["match"]
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, TournamentScreen), "back to the tournament")

        # Enter on a finished pairing: its replay, verified, in the scrubber.
        done = next(i for i, r in enumerate(screen.schedule) if r.finished)
        schedule.focus()
        schedule.move_cursor(row=done, animate=False)
        await pilot.press("enter")
        await until(pilot, lambda: scrubber_ready(app), "the replay")
        scrubber = app.screen
        assert isinstance(scrubber, MatchScrubber)
        assert scrubber.model.ok and scrubber.model.header.get("match") == screen.schedule[done].match
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, TournamentScreen), "back from the replay")

        # The director opens the dispute: pat's match is live, so its events so far, in the
        # scrubber, at the disputed event (tests/tui/test_dispute_view.py goes further).
        await pilot.press("o")
        await until(pilot, lambda: scrubber_ready(app), "the live match's audit")
        live_view = app.screen
        assert isinstance(live_view, MatchScrubber)
        assert live_view.model.live and live_view.model.ok and live_view.cursor == 1
        assert live_view.model.header["match"] == cup["match"]
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, TournamentScreen), "back from the audit view")
        await pilot.press("q")  # opened directly: q quits
        await until(pilot, lambda: not app.is_running, "the app to quit")


async def test_from_the_lobby_with_t_and_no_disputes_without_the_director(cup: dict[str, Any], tmp_path: Path) -> None:
    app = make_play_app(cup["server"], "lee", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, LobbyScreen) and bool(app.screen.tournament_lines),
            "the lobby's tournament line",
        )
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        line = lobby.tournament_lines[0]
        assert line.tournament == cup["tournament"] and line.text.startswith("tour   Cup · running")
        options = lobby.query_one("#matches", OptionList)
        options.highlighted = next(
            i for i in range(options.option_count) if options.get_option_at_index(i).id == line.option_id
        )
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TournamentScreen) and app.screen.loads > 0, "the tournament")
        screen = tournament_screen(app)
        assert screen.query_one("#standings", DataTable).row_count == 5
        assert not screen.query_one("#disputes", DataTable).display
        await pilot.press("o")
        assert "only the director sees disputes" in str(screen.query_one("#tour-status", Static).content)
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "back to the lobby")
