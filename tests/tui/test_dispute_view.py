"""The director's dispute view (tournament screen, ``o`` on a dispute) against a real server: it
opens at the disputed event, in the audit perspective, with both hands in the table panel and
the audit of the table beside it, for a finished match (its replay) and a live one (the
director's events so far, checked as far as they can be before the seed is revealed), in words;
at 80×24 every part has room. pat plays a double round-robin against a house bot: round 1 to
the end, then disputes an event of it and one of round 2 while round 2 is live."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from textual.containers import VerticalScroll
from textual.widgets import ContentSwitcher, DataTable

from bench.progress import wait_for
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import Http, ok, play_to_end, with_color
from tests.tui.helpers import scrubber_ready, until
from tui_client.apps.play_app import make_play_app
from tui_client.connection.config import ConfigStore, Credentials
from tui_client.screens.dispute_note import DisputeNoteScreen
from tui_client.screens.replay_screens import MatchScrubber
from tui_client.screens.tournament_screen import TournamentScreen
from tui_client.widgets.replay_widgets import TableAudit, TablePanel

pytestmark = pytest.mark.anyio

DIRECTOR = "director-of-the-dispute-view-tests"
SIZE = (80, 24)


@pytest.fixture(scope="module")
def disputed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    port = free_port()
    db = tmp_path_factory.mktemp("dispute-view") / "d.sqlite3"
    process = serve("--port", str(port), "--db", f"sqlite:///{db}", env=serve_env(UNODUO_DIRECTOR_TOKEN=DIRECTOR))
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        with httpx.Client(base_url=base, timeout=10) as client:
            pat = ok(client.post("/api/players", json={"name": "pat"}), 201)
            director = {"Authorization": f"Bearer {DIRECTOR}"}
            seat = {"Authorization": f"Bearer {pat['token']}"}
            made = client.post(
                "/api/tournaments",
                headers=director,
                json={
                    "name": "Duel",
                    "players": [pat["id"], "bot:random"],
                    "double": True,
                    "rules": {"target": 30},
                    "move_seconds": 600,
                },
            )
            assert made.status_code == 201, made.text
            tid = made.json()["id"]
            ok(client.post(f"/api/tournaments/{tid}/start", headers=director))

            def match_of_round(number: int) -> str | None:
                detail = client.get(f"/api/tournaments/{tid}").json()
                for rnd in detail["rounds"]:
                    if rnd["number"] == number:
                        for p in rnd["pairings"]:
                            if p["match"]:
                                return str(p["match"])
                return None

            def seat_of(match: str) -> int:
                seats = client.get(f"/api/matches/{match}").json()["match"]["seats"]
                return [s["id"] for s in seats].index(pat["id"])

            first = wait_for(lambda: match_of_round(1), "round 1's match")
            ok(client.post(f"/api/matches/{first}/join", headers=seat, json={"entropy": "ab" * 16}))
            final, _ = play_to_end(cast(Http, client), first, seat, seat_of(first), random.Random(5))
            finished_seq = 40
            assert final["version"] > finished_seq
            d1 = ok(
                client.post(
                    f"/api/matches/{first}/disputes",
                    headers=seat,
                    json={"seq": finished_seq, "note": "a card too many"},
                ),
                201,
            )
            second = wait_for(lambda: match_of_round(2), "round 2's match")
            joined = ok(client.post(f"/api/matches/{second}/join", headers=seat, json={"entropy": "cd" * 16}))
            view, rng = joined["view"], random.Random(9)
            for step in range(60):  # through the draft, into play: both hands hold cards
                if view["phase"] == "play" or not view["legal"]:
                    break
                command = with_color(rng.choice(view["legal"]), rng)
                body = {"command_id": f"d-{step}", "expected_version": view["version"], "command": command}
                view = ok(client.post(f"/api/matches/{second}/commands", headers=seat, json=body))["view"]
            assert view["phase"] == "play", view["phase"]
            live_seq = view["version"]
            d2 = ok(
                client.post(
                    f"/api/matches/{second}/disputes", headers=seat, json={"seq": live_seq, "note": "odd deal"}
                ),
                201,
            )
        yield {
            "server": base,
            "pat": pat,
            "tournament": tid,
            "finished": (first, finished_seq, d1),
            "live": (second, live_seq, d2),
        }
    finally:
        stop(process)


def plain(widget: Any) -> str:
    return str(widget.render())


async def open_dispute(pilot: Any, app: Any, dispute_id: str) -> MatchScrubber:
    await until(pilot, lambda: isinstance(app.screen, TournamentScreen) and len(app.screen.disputes) >= 2, "both")
    screen = app.screen
    assert isinstance(screen, TournamentScreen)
    table = screen.query_one("#disputes", DataTable)
    table.focus()
    table.move_cursor(row=[d.id for d in screen.disputes].index(dispute_id), animate=False)
    await pilot.press("o")
    await until(pilot, lambda: scrubber_ready(app), "the dispute view")
    scrubber = app.screen
    assert isinstance(scrubber, MatchScrubber)
    await pilot.pause()
    return scrubber


def check_view(scrubber: MatchScrubber, seq: int, dispute: dict[str, Any]) -> None:
    assert scrubber.cursor == seq  # at the disputed event, not at event 1
    assert scrubber.viewer == "auditor"  # the audit perspective: every card
    panel = scrubber.query_one(TablePanel)
    assert panel.region.height >= 8, panel.region  # the table panel has room (it had none)
    words = str(panel.render())
    assert "seat 0 (" in words and "seat 1 (" in words
    assert "(random)" in words and "pat" in words  # by name
    assert "▮" not in words  # both hands face up, no card backs
    hands = scrubber.model.table(seq).hands
    assert hands[0] and hands[1], hands  # both filled
    for hand in hands:
        assert " ".join(hand) in words
    assert scrubber.query_one(ContentSwitcher).current in ("at", "audit")
    audit = scrubber.query_one("#at", VerticalScroll)
    assert audit.region.width >= 30 and audit.region.height >= 8
    text = str(scrubber.query_one(TableAudit).text(seq))
    assert f"dispute {dispute['id']} · event #{seq}" in text and dispute["note"] in text
    assert f"The table just after seq {seq}" in text
    assert "hand of seat 0 (" in text and "hand of seat 1 (" in text
    assert "draw_order" not in text and "{" not in text  # words, not JSON


async def test_a_finished_matchs_dispute_opens_at_its_event_with_both_hands(
    disputed: dict[str, Any], tmp_path: Path
) -> None:
    match, seq, dispute = disputed["finished"]
    app = make_play_app(
        disputed["server"], tournament=disputed["tournament"], director_token=DIRECTOR, config_dir=tmp_path
    )
    async with app.run_test(size=SIZE) as pilot:
        scrubber = await open_dispute(pilot, app, dispute["id"])
        assert not scrubber.model.live and scrubber.model.ok and scrubber.model.header["match"] == match
        check_view(scrubber, seq, dispute)
        await pilot.press("w")  # the challenges (if any) and back: the table panel keeps its room
        await pilot.press("right", "right")
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert scrubber.query_one(TablePanel).region.height >= 8
        await pilot.press("d")
        assert scrubber.cursor == seq
        app.save_screenshot(path=os.environ.get("UNODUO_SHOTS", str(tmp_path)), filename="finished.svg")
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, TournamentScreen), "back")


async def test_a_live_matchs_dispute_opens_at_its_event_in_words(disputed: dict[str, Any], tmp_path: Path) -> None:
    match, seq, dispute = disputed["live"]
    app = make_play_app(
        disputed["server"], tournament=disputed["tournament"], director_token=DIRECTOR, config_dir=tmp_path
    )
    async with app.run_test(size=SIZE) as pilot:
        scrubber = await open_dispute(pilot, app, dispute["id"])
        model = scrubber.model
        assert model.live and model.ok and model.header["match"] == match
        assert any("openings: all" in check for check in model.verification.checks)
        check_view(scrubber, seq, dispute)
        assert "live · chain ✓" in plain(scrubber.query_one("#title"))
        app.save_screenshot(path=os.environ.get("UNODUO_SHOTS", str(tmp_path)), filename="live.svg")


async def test_a_player_disputes_the_event_under_the_replays_cursor(disputed: dict[str, Any], tmp_path: Path) -> None:
    """pat (signed in on this client) opens the replay of the finished match from the tournament
    screen, moves to an event and disputes it with ``!`` and a note: the director sees it."""
    pat = disputed["pat"]
    ConfigStore(disputed["server"], tmp_path).save_credentials(
        Credentials(disputed["server"], pat["id"], pat["name"], pat["token"])
    )
    match, _seq, _dispute = disputed["finished"]
    app = make_play_app(disputed["server"], tournament=disputed["tournament"], config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TournamentScreen) and app.screen.loads > 0, "the tournament")
        screen = app.screen
        assert isinstance(screen, TournamentScreen)
        schedule = screen.query_one("#schedule", DataTable)
        schedule.focus()
        schedule.move_cursor(row=next(i for i, r in enumerate(screen.schedule) if r.match == match), animate=False)
        await pilot.press("enter")
        await until(pilot, lambda: scrubber_ready(app), "the replay")
        scrubber = app.screen
        assert isinstance(scrubber, MatchScrubber) and scrubber.my_seat() is not None
        scrubber.goto(60)
        await pilot.press("exclamation_mark")
        await until(pilot, lambda: isinstance(app.screen, DisputeNoteScreen), "the note")
        note = app.screen
        assert isinstance(note, DisputeNoteScreen) and note.seq == 60
        await pilot.press(*"the draw pile was short", "enter")
        await until(pilot, lambda: bool(scrubber.sent_disputes), "the dispute sent")
        assert scrubber.sent_disputes[0]["seq"] == 60
        assert app.screen is scrubber  # the note closed, back on the replay
    with httpx.Client(base_url=disputed["server"], timeout=10) as client:
        listed = ok(client.get("/api/disputes", headers={"Authorization": f"Bearer {DIRECTOR}"}))
    mine = [d for d in listed if d["match"] == match and d["seq"] == 60]
    assert [d["note"] for d in mine] == ["the draw pile was short"] and mine[0]["player"] == pat["id"]
