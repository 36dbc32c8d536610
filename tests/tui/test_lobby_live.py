"""The live lobby of ``unoduo play`` against a real ``unoduo serve`` (the lobby socket ``WS
/api/me/ws``, house bots answering at once), driven with Textual's Pilot: a round that opens
takes the seat by itself (fresh entropy), rings the bell and opens the table; with auto-join off
the join deadline counts down and Enter joins; a finished match goes back to the lobby, which
opens the next round's table; an open tournament entered and left with ``e``; the dispute key
at the table, the ruling pushed to the lobby, and a ``replay`` ruling moving the player to the
new match while the old table stops offering moves."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, Static

from tests.cli.serving import running
from tests.tui.helpers import until
from tests.tui.test_play_live import play_moves
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.screens import table_screen
from tui_client.screens.dispute_note import DisputeNoteScreen
from tui_client.screens.lobby_screen import LobbyScreen
from tui_client.screens.table_screen import PlayScreen

pytestmark = pytest.mark.anyio

SIZE = (100, 30)
DIRECTOR = "director-of-the-lobby-tests"
BOSS = {"Authorization": f"Bearer {DIRECTOR}"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("lobby-server") / "lobby.sqlite3"
    with running(db, UNODUO_BOT_THINK_SECONDS="0", UNODUO_DIRECTOR_TOKEN=DIRECTOR) as base:
        yield base


def text_of(app: PlayApp, selector: str) -> str:
    content = app.screen.query_one(selector, Static).content
    return str(getattr(content, "plain", content))


def static_text(widget: Static) -> str:
    content = widget.content
    return str(getattr(content, "plain", content))


async def live_lobby(pilot: Pilot[Any], app: PlayApp) -> LobbyScreen:
    """The lobby signed in, with its socket connected."""
    await until(
        pilot,
        lambda: isinstance(app.screen, LobbyScreen) and app.screen.me is not None and app.screen.feed_state == "live",
        "the live lobby",
    )
    screen = app.screen
    assert isinstance(screen, LobbyScreen)
    return screen


async def tournament(server: str, name: str, players: list[str], **more: Any) -> dict[str, Any]:
    """A tournament made and started by the director."""
    async with httpx.AsyncClient(base_url=server, timeout=10) as client:
        made = await client.post("/api/tournaments", headers=BOSS, json={"name": name, "players": players, **more})
        assert made.status_code == 201, made.text
        started = await client.post(f"/api/tournaments/{made.json()['id']}/start", headers=BOSS)
        assert started.status_code == 200, started.text
        detail: dict[str, Any] = started.json()
        return detail


def our_match(detail: dict[str, Any], player: str, number: int = 1) -> dict[str, Any]:
    rnd = next(r for r in detail["rounds"] if r["number"] == number)
    found: dict[str, Any] = next(m for m in rnd["matches"] if any(p and p["id"] == player for p in m["seats"]))
    return found


def rings(app: PlayApp, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the terminal bells the app rings."""
    rung: list[int] = []
    monkeypatch.setattr(app, "bell", lambda: rung.append(1))
    return rung


async def table_of(pilot: Pilot[Any], app: PlayApp, match: str) -> PlayScreen:
    await until(
        pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.model.match == match, f"the table of {match}"
    )
    screen = app.screen
    assert isinstance(screen, PlayScreen)
    await until(pilot, lambda: screen.connected and screen.model.view is not None, "the table's socket")
    return screen


# ---------------------------------------------------------------- taking the seat


async def test_a_pairing_takes_the_seat_by_itself_rings_the_bell_and_opens_the_table(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_play_app(server, "ann", config_dir=tmp_path)
    rung = rings(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        lobby = await live_lobby(pilot, app)
        assert "● live" in text_of(app, "#lobby-title") and "auto-join on" in text_of(app, "#lobby-title")
        assert app.credentials is not None
        me = app.credentials.player_id
        detail = await tournament(server, "Auto Cup", [me, "bot:greedy"])
        match = our_match(detail, me)
        table = await table_of(pilot, app, match["id"])  # nobody pressed a key
        assert rung, "the bell rang"
        assert match["id"] in lobby.taken and lobby.seat_state[match["id"]] == "joined"
        seat = next(i for i, p in enumerate(match["seats"]) if p["id"] == me)
        assert table.model.seat == seat and not table.model.watching
        assert table.back_when_over
        # The seat was taken: the match has started (the bot joins at once), the draft is on.
        await until(pilot, lambda: (table.model.view or {}).get("phase") == "draft", "the match under way")
        assert "you (ann, seat" in text_of(app, "#table-title")


async def test_no_auto_join_from_the_command_line_starts_the_lobby_with_it_off(server: str, tmp_path: Path) -> None:
    """``unoduo play --no-auto-join`` is ``make_play_app(auto_join=False)``: off from the start."""
    app = make_play_app(server, "ben", config_dir=tmp_path, auto_join=False)
    async with app.run_test(size=SIZE) as pilot:
        lobby = await live_lobby(pilot, app)
        assert not lobby.auto_join and "auto-join off" in text_of(app, "#lobby-title")
        await pilot.press("a")
        assert lobby.auto_join and "auto-join on" in text_of(app, "#lobby-title")


async def test_with_auto_join_off_the_deadline_counts_down_and_enter_joins(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_play_app(server, "bea", config_dir=tmp_path)
    rung = rings(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        lobby = await live_lobby(pilot, app)
        await pilot.press("a")
        assert "auto-join off" in text_of(app, "#lobby-title") and not lobby.auto_join
        assert app.credentials is not None
        me = app.credentials.player_id
        detail = await tournament(server, "Hand Cup", [me, "bot:random"], join_seconds=600)
        match = our_match(detail, me)
        await until(pilot, lambda: "join within" in text_of(app, "#next"), "the pairing with its deadline")
        first = text_of(app, "#next")
        assert re.search(r"(?m)Hand Cup round 1 vs random — join within (9|10):\d\d · Enter joins$", first), first
        assert rung, "the bell rang for the pairing"
        assert isinstance(app.screen, LobbyScreen), "auto-join off: the lobby waits for the player"
        clock = re.compile(r"join within (\d+):(\d\d)")

        def seconds(text: str) -> int:
            found = clock.search(text)
            assert found is not None, text
            return int(found[1]) * 60 + int(found[2])

        await until(pilot, lambda: seconds(text_of(app, "#next")) < seconds(first), "the countdown")
        options = lobby.query_one("#matches", OptionList)
        index = options.get_option_index(f"join:{match['id']}")
        assert "join within" in str(options.get_option_at_index(index).prompt)
        options.highlighted = index
        options.focus()
        await pilot.press("enter")
        await table_of(pilot, app, match["id"])


# ---------------------------------------------------------------- back to the lobby, and the next round


async def test_a_finished_match_shows_its_result_then_the_next_round_opens(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_screen, "RETURN_SECONDS", 3600.0)  # the test presses Enter itself
    app = make_play_app(server, "cat", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        lobby = await live_lobby(pilot, app)
        assert app.credentials is not None
        me = app.credentials.player_id
        # Target 1: the first round's loser reaches it, so one round is the match. Double: two rounds.
        detail = await tournament(server, "Short Cup", [me, "bot:greedy"], double=True, rules={"target": 1})
        first = our_match(detail, me)
        table = await table_of(pilot, app, first["id"])
        await play_moves(pilot, table, lambda: table.model.over, limit=800)
        await until(pilot, lambda: "match over:" in text_of(app, "#prompt"), "the result")
        result = text_of(app, "#prompt")
        assert "(lowest total wins)" in result, result
        # Round 2 opens as round 1 ends: the lobby takes that seat at once, but the finished table
        # stays (its result readable) and says what comes next.
        await until(pilot, lambda: table.next_words is not None, "the next round, ready")
        after = text_of(app, "#after")
        assert after.startswith("next: Short Cup round 2") and "Enter: now" in after, after
        assert app.screen is table and "match over:" in text_of(app, "#prompt")
        await pilot.press("enter")
        second = our_match(await fetch_tournament(server, detail["id"]), me, 2)
        table2 = await table_of(pilot, app, second["id"])
        assert table2 is not table and table2.model.seat == 1 - (table.model.seat or 0)
        assert sum(isinstance(s, PlayScreen) for s in app.screen_stack) == 1
        assert lobby.seat_state[second["id"]] == "joined"


async def fetch_tournament(server: str, tournament_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server, timeout=10) as client:
        got = await client.get(f"/api/tournaments/{tournament_id}")
        assert got.status_code == 200, got.text
        detail: dict[str, Any] = got.json()
        return detail


async def test_back_to_the_lobby_by_itself_after_the_result(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_screen, "RETURN_SECONDS", 2.0)
    app = make_play_app(server, "dot", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        lobby = await live_lobby(pilot, app)
        assert app.credentials is not None
        me = app.credentials.player_id
        detail = await tournament(server, "Once Cup", [me, "bot:random"], rules={"target": 1})
        first = our_match(detail, me)
        table = await table_of(pilot, app, first["id"])
        await play_moves(pilot, table, lambda: table.model.over, limit=800)
        await until(pilot, lambda: "back to the lobby in" in text_of(app, "#after"), "the way back, announced")
        await until(pilot, lambda: app.screen is lobby, "back in the lobby")
        await until(
            pilot, lambda: any(e.kind == "done" and e.match == first["id"] for e in lobby.entries), "the result"
        )
        done = next(e for e in lobby.entries if e.match == first["id"])
        assert re.search(r"(you|random) won \d+–\d+", done.text), done.text


# ---------------------------------------------------------------- open tournaments


async def test_entering_and_leaving_an_open_tournament_with_e(server: str, tmp_path: Path) -> None:
    app = make_play_app(server, "eve", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        lobby = await live_lobby(pilot, app)
        async with httpx.AsyncClient(base_url=server, timeout=10) as client:
            made = await client.post("/api/tournaments", headers=BOSS, json={"name": "Open Night", "open": True})
            assert made.status_code == 201, made.text
            tid = made.json()["id"]
        await pilot.press("r")
        await until(pilot, lambda: any(o.tournament == tid for o in lobby.open_lines), "the open tournament")
        options = lobby.query_one("#matches", OptionList)
        options.highlighted = options.get_option_index(f"open:{tid}")
        line = next(o for o in lobby.open_lines if o.tournament == tid)
        assert line.text == "open   Open Night · 0 entered · e: enter"
        await pilot.press("e")
        await until(pilot, lambda: "you entered Open Night" in text_of(app, "#lobby-status"), "the entry")
        await until(pilot, lambda: any(o.tournament == tid and o.entered for o in lobby.open_lines), "entered")
        line = next(o for o in lobby.open_lines if o.tournament == tid)
        assert line.text == "open   Open Night · 1 entered · you are in (e: leave)"
        assert options.highlighted == options.get_option_index(f"open:{tid}")  # the cursor stayed on it
        await pilot.press("e")
        await until(pilot, lambda: "you left Open Night" in text_of(app, "#lobby-status"), "leaving")
        await until(pilot, lambda: any(o.tournament == tid and not o.entered for o in lobby.open_lines), "left")
        # Started behind the lobby's back: e is refused by the server, in words.
        async with httpx.AsyncClient(base_url=server, timeout=10) as client:
            for bot in ("bot:greedy", "bot:random"):
                entered = await client.post(f"/api/tournaments/{tid}/entries", headers=BOSS, json={"player": bot})
                assert entered.status_code == 201, entered.text
            assert (await client.post(f"/api/tournaments/{tid}/start", headers=BOSS)).status_code == 200
        await pilot.press("e")
        await until(pilot, lambda: "could not enter Open Night" in text_of(app, "#lobby-status"), "the refusal")
        status = text_of(app, "#lobby-status")
        assert "[" in status and "Traceback" not in status, status


# ---------------------------------------------------------------- disputes and rulings


async def dispute_by_key(pilot: Pilot[Any], app: PlayApp, table: PlayScreen, note: str) -> dict[str, Any]:
    """``!`` at the table, the note typed, Enter: the dispute the server recorded."""
    target = table.model.dispute_target()
    assert target is not None
    await pilot.press("exclamation_mark")
    await until(pilot, lambda: isinstance(app.screen, DisputeNoteScreen), "the dispute's note")
    modal = app.screen
    assert isinstance(modal, DisputeNoteScreen) and modal.seq == target.seq
    what = static_text(modal.query_one("#dispute-what", Static))
    assert what == f"dispute event #{target.seq}: {target.text}"
    modal.query_one("#dispute-note", Input).value = note
    await pilot.press("enter")
    await until(pilot, lambda: app.screen is table and bool(table.disputes), "the dispute's answer")
    assert f"dispute of #{target.seq} sent" in table.model.status, table.model.status
    return table.disputes[-1]


async def test_the_dispute_key_and_the_ruling_pushed_to_the_lobby(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_play_app(server, "fay", config_dir=tmp_path)
    rung = rings(app, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        lobby = await live_lobby(pilot, app)
        assert app.credentials is not None
        me = app.credentials.player_id
        detail = await tournament(server, "Dispute Cup", [me, "bot:greedy"])
        match = our_match(detail, me)
        table = await table_of(pilot, app, match["id"])
        await until(pilot, lambda: table.model.dispute_target() is not None, "an event to dispute")
        await pilot.press("up")  # the marker moves back one event: that one is disputed
        dispute = await dispute_by_key(pilot, app, table, "the deck looked stacked")
        assert dispute["match"] == match["id"] and dispute["note"] == "the deck looked stacked"
        async with httpx.AsyncClient(base_url=server, timeout=10) as client:
            mine = await client.get("/api/me/disputes", headers={"Authorization": f"Bearer {app.credentials.token}"})
            assert [d["id"] for d in mine.json()] == [dispute["id"]]
            before = len(rung)
            ruled = await client.post(
                f"/api/disputes/{dispute['id']}/ruling", headers=BOSS, json={"decision": "stands", "note": "fair deal"}
            )
            assert ruled.status_code == 200, ruled.text
        # Pushed: the lobby (under the table) lists the ruling, the table says it, the bell rings.
        await until(
            pilot,
            lambda: "ruled — the result stands" in static_text(lobby.query_one("#disputes-text", Static)),
            "the ruling",
        )
        assert '"fair deal"' in static_text(lobby.query_one("#disputes-text", Static))
        assert "the director ruled on the dispute of" in table.model.status and len(rung) > before
        assert table.model.annulled is None


async def test_a_replay_ruling_stops_the_old_table_and_opens_the_new_match_once(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_screen, "RETURN_SECONDS", 3600.0)
    app = make_play_app(server, "gus", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await live_lobby(pilot, app)
        assert app.credentials is not None
        me = app.credentials.player_id
        detail = await tournament(server, "Replay Cup", [me, "bot:greedy"])
        match = our_match(detail, me)
        table = await table_of(pilot, app, match["id"])
        await until(pilot, lambda: table.model.my_decision, "our decision")
        dispute = await dispute_by_key(pilot, app, table, "the clock jumped")
        async with httpx.AsyncClient(base_url=server, timeout=10) as client:
            ruled = await client.post(
                f"/api/disputes/{dispute['id']}/ruling", headers=BOSS, json={"decision": "replay", "note": "play again"}
            )
            assert ruled.status_code == 200, ruled.text
        await until(pilot, lambda: table.model.annulled is not None, "the annulment at the old table")
        words = table.model.annulled or ""
        assert words.startswith("this match was annulled by the director's ruling: replayed as match m"), words
        new = words.rsplit(" ", 1)[-1]
        assert "annulled" in text_of(app, "#prompt") and "⏱" not in text_of(app, "#prompt")
        shown = [b.id for b in table.query("#actions Button").results(Button) if b.display]
        assert shown == ["b-help", "b-leave"]  # no moves offered
        await pilot.press("d")
        assert table.model.status == words  # the keys refuse, in words
        # The new match's seat is taken by itself; the old table says so; Enter opens it, once.
        await until(pilot, lambda: table.next_words is not None, "the new match ready")
        assert "opens in" in text_of(app, "#after")
        await pilot.press("enter")
        replayed = await table_of(pilot, app, new)
        assert sum(isinstance(s, PlayScreen) for s in app.screen_stack) == 1
        await until(pilot, lambda: (replayed.model.view or {}).get("phase") == "draft", "the new match under way")
        async with httpx.AsyncClient(base_url=server, timeout=10) as client:
            old = (await client.get(f"/api/matches/{match['id']}")).json()
        assert old["match"]["status"] == "annulled" and not old["view"].get("legal") and not old["view"].get("deadline")
        # Back in the lobby the old match is a "void" line; opened, its table says why and offers nothing.
        monkeypatch.setattr(table_screen, "RETURN_SECONDS", 3600.0)
        await pilot.press("q")
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await until(pilot, lambda: any(e.kind == "void" and e.match == match["id"] for e in lobby.entries), "void")
        void = next(e for e in lobby.entries if e.match == match["id"])
        assert void.text.endswith(f"annulled by a ruling: replayed as {new}"), void.text
        options = lobby.query_one("#matches", OptionList)
        options.highlighted = options.get_option_index(void.option_id)
        options.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.model.match == match["id"], "old")
        looked = app.screen
        assert isinstance(looked, PlayScreen) and looked.model.annulled == words and looked.model.offers() == []
