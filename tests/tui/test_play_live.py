"""``unoduo play`` against a real server on loopback (``unoduo serve``, house bots answering at
once), driven with Textual's Pilot: registering and the lobby, a house-bot match played by keys
through the draft and until the round moves on, a refusal in words, the move clock running out,
watching, the receipt kept, and a reconnect across a server restart."""

from __future__ import annotations

import html
import json
import re
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Button, OptionList, Static

from bench.progress import STALL_SECONDS, Stall
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.tui.helpers import until
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.connection.config import ConfigStore
from tui_client.models.play_model import PlayModel, uno_window
from tui_client.screens.lobby_screen import LobbyScreen
from tui_client.screens.table_screen import PlayScreen
from tui_client.widgets.play_widgets import HandView

pytestmark = pytest.mark.anyio

SIZE = (100, 30)
DIRECTOR = "director-of-the-play-tests"


def _start(db: Path, port: int) -> Any:
    env = serve_env(UNODUO_BOT_THINK_SECONDS="0", UNODUO_DIRECTOR_TOKEN=DIRECTOR)
    process = serve("--port", str(port), "--db", f"sqlite:///{db}", env=env)
    wait_until_up(f"http://127.0.0.1:{port}", process)
    return process


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    process = _start(tmp_path_factory.mktemp("play-server") / "play.sqlite3", port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


def lobby(app: PlayApp) -> LobbyScreen:
    screen = app.screen
    assert isinstance(screen, LobbyScreen), screen
    return screen


def table(app: PlayApp) -> PlayScreen:
    screen = app.screen
    assert isinstance(screen, PlayScreen), screen
    return screen


def text_of(app: PlayApp, selector: str) -> str:
    content = app.screen.query_one(selector, Static).content
    return str(getattr(content, "plain", content))


def log_text(model: PlayModel) -> str:
    return "\n".join(line.text for line in model.log)


async def signed_in(pilot: Pilot[Any], app: PlayApp) -> LobbyScreen:
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.me is not None, "the lobby")
    return lobby(app)


async def start_bot_match(pilot: Pilot[Any], app: PlayApp, key: str = "g") -> PlayScreen:
    await signed_in(pilot, app)
    await pilot.press(key)
    await until(pilot, lambda: isinstance(app.screen, PlayScreen), "the table")
    screen = table(app)
    await until(pilot, lambda: screen.connected and screen.model.view is not None, "the socket")
    return screen


def keys_for(model: PlayModel, draft_steps: list[int]) -> list[str] | None:
    """The keys of a legal move now (chosen from the model's view), or None if it is not our move."""
    view = model.view
    seat = model.seat
    if view is None or seat is None or model.outstanding is not None:
        return None
    types = {c["type"] for c in model.legal}
    if "uno" in types and (uno_window(view, seat) or uno_window(view, 1 - seat)):
        return ["u"]  # say it, or catch the other seat
    if not model.my_decision:
        return None
    kind = (view.get("pending") or {}).get("kind")
    if kind == "draft":
        draft_steps.append(1)
        return ["k"] if len(draft_steps) % 2 else ["p"]
    if kind == "wild_draw_four":
        return ["a"]
    if kind == "color":
        return ["r"]
    if kind == "dump":
        return ["x"] if "dump" in types else ["p"]
    hand = model.hand
    playable = [i for i, code in enumerate(hand) if code in model.playable]
    if playable:
        index = playable[0]
        keys = ["right"] * ((index - model.selected) % len(hand))
        if len(hand) == 2 and kind == "turn":
            keys.insert(0, "u")  # UNO with the play that leaves one card
        keys.append("enter")
        if hand[index].startswith("W"):
            keys.append("b")
        return keys
    if "draw" in types:
        return ["d"]
    return ["p"]


async def play_moves(pilot: Pilot[Any], screen: PlayScreen, stop: Callable[[], bool], limit: int = 400) -> int:
    """Make legal moves with keys until ``stop()``; the number of moves made."""
    model = screen.model
    steps: list[int] = []
    moves = 0
    stall = Stall(STALL_SECONDS)
    while not stop():
        stall.moved(model.version)
        assert not stall.stuck, f"the match stopped moving at version {model.version}"
        assert moves < limit
        keys = keys_for(model, steps)
        if keys is None:
            await pilot.pause(0.02)
            continue
        version = model.version
        await pilot.press(*keys)
        moves += 1
        await until(
            pilot,
            lambda v=version: stop() or (model.outstanding is None and (model.version > v or model.status_style)),  # type: ignore[misc]
            "the answer to a move",
        )
        assert model.status_style != "refusal", model.status
    return moves


def screen_text(svg: str) -> str:
    runs = re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.S)
    return html.unescape("".join(runs)).replace("\xa0", " ")


# ---------------------------------------------------------------- the tests


async def test_registering_once_and_the_lobby(server: str, tmp_path: Path) -> None:
    app = make_play_app(server, "ann", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signed_in(pilot, app)
        assert app.credentials is not None and app.credentials.name == "ann"
        assert "you are ann" in text_of(app, "#me")
        assert "registered as ann" in text_of(app, "#lobby-status")
        assert screen.entries == []
        player = app.credentials.player_id
    store = ConfigStore(server, tmp_path)
    saved = json.loads(store.credentials_path.read_text())
    assert saved["player"] == {"id": player, "name": "ann"} and saved["token"]
    assert stat.S_IMODE(store.credentials_path.stat().st_mode) == 0o600

    again = make_play_app(server, None, config_dir=tmp_path)  # no name: the saved token signs in
    async with again.run_test(size=SIZE) as pilot:
        await signed_in(pilot, again)
        assert again.credentials is not None and again.credentials.player_id == player
        assert "registered" not in text_of(again, "#lobby-status")


async def test_the_lobby_of_a_tournament_player_next_pairing_join_and_watch(server: str, tmp_path: Path) -> None:
    app = make_play_app(server, "una", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signed_in(pilot, app)
        screen.auto_join = False  # joined by hand here (test_lobby_live.py: the lobby taking the seat itself)
        assert app.credentials is not None
        director = {"Authorization": f"Bearer {DIRECTOR}"}
        async with httpx.AsyncClient(base_url=server, timeout=10) as client:
            pat = (await client.post("/api/players", json={"name": "pat"})).json()
            players = [app.credentials.player_id, pat["id"], "bot:greedy", "bot:random"]
            made = await client.post("/api/tournaments", headers=director, json={"name": "Cup", "players": players})
            assert made.status_code == 201, made.text
            tournament = made.json()["id"]
            assert (await client.post(f"/api/tournaments/{tournament}/start", headers=director)).status_code == 200
            detail = (await client.get(f"/api/tournaments/{tournament}")).json()
            theirs = next(m for m in detail["rounds"][0]["matches"] if any(p["id"] == pat["id"] for p in m["seats"]))
            pat_headers = {"Authorization": f"Bearer {pat['token']}"}
            joined = await client.post(f"/api/matches/{theirs['id']}/join", headers=pat_headers, json={"entropy": "x"})
            assert joined.status_code == 200, joined.text
        await pilot.press("r")
        await until(pilot, lambda: {e.kind for e in screen.entries} >= {"join", "watch"}, "join and watch entries")
        watch = next(e for e in screen.entries if e.kind == "watch")
        join = next(e for e in screen.entries if e.kind == "join")
        assert watch.match == theirs["id"] and watch.seat is None and "Cup round 1" in watch.text
        assert "pat" in watch.text and join.text.startswith("join   vs ") and "Cup round 1" in join.text
        assert "Cup round 2: vs pat" in text_of(app, "#next")

        options = screen.query_one("#matches", OptionList)
        options.highlighted = screen.entries.index(watch)
        options.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), "the watched table")
        watched = table(app).model
        await until(pilot, lambda: watched.view is not None and watched.my_decision is False, "the watched view")
        assert watched.watching and "watching pat vs " in text_of(app, "#table-title")
        await pilot.press("q")
        await signed_in(pilot, app)

        options.highlighted = screen.entries.index(join)
        options.focus()
        await pilot.press("enter")  # joins the tournament match, then opens it
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), "our tournament table")
        ours = table(app).model
        await until(pilot, lambda: (ours.view or {}).get("phase") == "draft", "the tournament match under way")
        assert ours.seat == join.seat and not ours.watching


async def test_every_action_by_mouse(server: str, tmp_path: Path) -> None:
    app = make_play_app(server, "mo", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await signed_in(pilot, app)
        await pilot.click("#bot-greedy")
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), "the table")
        screen = table(app)
        model = screen.model
        clicks = 0
        stall = Stall(STALL_SECONDS)
        while (model.view or {}).get("phase") in (None, "new", "waiting", "draft"):
            stall.moved(model.version)
            assert not stall.stuck, f"the draft stopped moving at version {model.version}"
            if model.my_decision and model.outstanding is None and screen.connected:
                version = model.version
                await pilot.click("#b-keep" if clicks % 2 == 0 else "#b-draft_pass")
                clicks += 1
                await until(pilot, lambda v=version: model.version > v, "the answer to a click")  # type: ignore[misc]
            else:
                await pilot.pause(0.02)
        assert "you kept" in log_text(model) and "you passed" in log_text(model)
        await play_moves(pilot, screen, lambda: model.choosing_card)
        await pilot.pause(0.1)
        version = model.version
        hand_view = screen.query_one(HandView)
        playable = [chip for chip in hand_view.chips if model.hand[chip.index] in model.playable]
        if playable:
            chip = playable[0]
            where = (chip.x0 + 2, chip.row * 2)  # + 1 for the widget's padding
            await pilot.click(HandView, offset=where)
            assert model.selected == chip.index
            card = model.hand[chip.index]  # read now: once played, the hand is shorter
            await pilot.click(HandView, offset=where)  # the selected card again: played
            if card.startswith("W"):
                assert model.choosing_color is not None
                await pilot.pause(0.05)
                await pilot.click("#b-blue")  # a wild: its colour by button
            await until(pilot, lambda: model.version > version, "the card played")
            assert any(line.text.startswith("you played ") for line in model.log)
        else:
            await pilot.click("#b-draw")
            await until(pilot, lambda: model.version > version, "the draw")
            assert any(line.text.startswith("you drew ") for line in model.log)


async def test_a_house_bot_match_played_by_keys_until_the_round_moves_on(server: str, tmp_path: Path) -> None:
    app = make_play_app(server, "kim", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_bot_match(pilot, app)
        model = screen.model
        assert model.seat == 0 and model.names[1].startswith("greedy")
        await until(pilot, lambda: (model.view or {}).get("phase") == "draft" and model.my_decision, "the draft")
        assert "draft step" in model.prompt() and "keep it (k) or pass it (p)" in model.prompt()
        assert "⏱" in text_of(app, "#prompt")
        looked = (model.view or {})["pending"]["card"]
        buttons = [str(b.label) for b in screen.query("#actions Button").results(Button) if b.display]
        assert [label for label in buttons if label.startswith(("Keep ", "Pass "))] == [
            f"Keep {looked} (k)",
            f"Pass {looked} (p)",
        ]
        assert "Draw (d)" not in buttons and "Help (?)" in buttons and "Leave (q)" in buttons

        # The draft, with k and p.
        await play_moves(pilot, screen, lambda: (model.view or {}).get("phase") != "draft")
        words = log_text(model)
        assert "you kept" in words and "you passed" in words and "draft complete" in words
        assert len(model.hand) >= 7  # more if the starter or a first play made us draw

        # The table in the middle of a round: a screenshot, read back.
        await play_moves(pilot, screen, lambda: model.choosing_card)  # past a starter's colour or dump
        await pilot.pause(0.1)
        path = Path(app.save_screenshot(filename="table.svg", path=str(tmp_path)))
        shown = screen_text(path.read_text(encoding="utf-8"))
        assert re.search(r"round \d", shown) and "target 200" in shown and "top " in shown and "colour " in shown
        assert "chain ✓" in shown and "events" in shown and "⏱" in shown

        # Turns until the round is over (or the match, should one round end it).
        await play_moves(pilot, screen, lambda: (model.view or {}).get("round", 1) > 1 or model.over)
        assert "round 1 over:" in log_text(model)
        assert model.check.ok, model.check.problem
        assert "chain ✓" in text_of(app, "#table-title")
        seq, last_hash = model.last_seq, model.check.last_hash

        # Leaving keeps the receipt; the lobby lists the match; opening it again confirms the receipt.
        await pilot.press("q")
        screen_lobby = await signed_in(pilot, app)
        receipt = ConfigStore(server, tmp_path).receipt(model.match)
        assert receipt is not None and receipt.ok and receipt.seq >= seq
        assert receipt.seq > seq or receipt.hash == last_hash
        await until(pilot, lambda: any(e.match == model.match for e in screen_lobby.entries), "the match in the lobby")
        entry = next(e for e in screen_lobby.entries if e.match == model.match)
        options = screen_lobby.query_one("#matches", OptionList)
        options.highlighted = screen_lobby.entries.index(entry)
        options.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen is not screen, "the table again")
        reopened = table(app)
        await until(pilot, lambda: reopened.model.last_seq >= receipt.seq, "the log up to the receipt")
        assert reopened.model.check.earlier_confirmed is True
        assert f"receipt #{receipt.seq} ✓" in reopened.model.check.summary()


async def test_a_refusal_is_shown_in_words(server: str, tmp_path: Path) -> None:
    app = make_play_app(server, "lee", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_bot_match(pilot, app, key="n")
        model = screen.model
        await until(pilot, lambda: model.my_decision, "our first decision")
        assert model.names[1].startswith("random")
        # Forced past the model's own checks: the server judges it, and says why not.
        screen.send_command({"type": "play", "card": "R0"})
        await until(pilot, lambda: model.status_style == "refusal", "the refusal")
        status = text_of(app, "#status")
        assert status.startswith("refused: ") and "[not_now]" in status, status
        assert "Traceback" not in status
        screen.send_command({"type": "fly"})
        await until(pilot, lambda: "[unknown_command]" in model.status, "the second refusal")
        assert "refused:" in log_text(model)
        # A key the view does not allow sends nothing and says why.
        await pilot.press("c")
        assert model.status == "there is no Wild Draw Four to challenge" and model.outstanding is None


async def test_the_move_clock_runs_out(server: str, tmp_path: Path) -> None:
    app = make_play_app(server, "max", config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await signed_in(pilot, app)
        assert app.credentials is not None
        headers = {"Authorization": f"Bearer {app.credentials.token}"}
        async with httpx.AsyncClient(base_url=server, timeout=10) as client:
            made = await client.post(
                "/api/matches", headers=headers, json={"opponent": "bot:greedy", "move_seconds": 2}
            )
        assert made.status_code == 201, made.text
        match = made.json()["id"]
        await pilot.press("r")
        await until(pilot, lambda: any(e.match == match for e in screen.entries), "the new match in the lobby")
        entry = next(e for e in screen.entries if e.match == match)
        assert entry.kind == "join"
        options = screen.query_one("#matches", OptionList)
        options.highlighted = screen.entries.index(entry)
        options.focus()
        await pilot.press("enter")  # joins, then opens the table
        await until(pilot, lambda: isinstance(app.screen, PlayScreen), "the table")
        model = table(app).model
        await until(pilot, lambda: model.my_decision and model.seconds_left() is not None, "our decision on the clock")
        left = model.seconds_left()
        assert left is not None and left <= 2.0
        await until(pilot, lambda: "your time ran out" in log_text(model), "the timeout", lambda: model.version)
        line = next(line.text for line in model.log if "your time ran out" in line.text)
        assert line.startswith("your time ran out (the draft) — the card looked at is kept (1 in a row")
        assert model.check.ok


async def test_watching_a_match_without_a_seat(server: str, tmp_path: Path) -> None:
    async with httpx.AsyncClient(base_url=server, timeout=10) as client:
        player = (await client.post("/api/players", json={"name": "pam"})).json()  # pat is another test's
        headers = {"Authorization": f"Bearer {player['token']}"}
        match = (await client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"})).json()
        joined = (await client.post(f"/api/matches/{match['id']}/join", headers=headers, json={"entropy": "p"})).json()
        app = make_play_app(server, "sam", config_dir=tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await signed_in(pilot, app)
            screen = app.open_table(match["id"], None, ("pam", "greedy"))
            model = screen.model
            await until(pilot, lambda: model.last_seq >= joined["view"]["version"], "the match so far")
            assert model.watching and model.hand == [] and model.offers() == []
            assert "watching pam vs greedy · " in text_of(app, "#table-title")
            assert "(watching: no hand of yours)" in str(screen.query_one(HandView).render())
            assert not any(line.style == "mine" for line in model.log)
            await pilot.press("d")
            assert model.status == "you are watching: there is no seat to play from"
            # pam moves over HTTP; the watcher sees it live, without her cards.
            legal = joined["view"]["legal"]
            if legal:
                before = model.last_seq
                body = {"command_id": "c1", "expected_version": joined["view"]["version"], "command": legal[0]}
                answer = await client.post(f"/api/matches/{match['id']}/commands", headers=headers, json=body)
                assert answer.status_code == 200, answer.text
                await until(pilot, lambda: model.last_seq > before, "pam's move")
                assert "pam " in log_text(model)
            assert model.check.ok and model.check.openings == 0
            await pilot.press("q")
            await signed_in(pilot, app)
            gone = app.open_table("m_nope", None, ("?", "?"))
            await until(pilot, lambda: gone.ended is not None, "the refusal of an unknown match")
            assert text_of(app, "#banner").startswith("cannot follow this match: No match 'm_nope'"), text_of(
                app, "#banner"
            )


async def test_a_lost_connection_is_shown_and_play_resumes_from_the_last_seq(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    db = tmp_path / "restart.sqlite3"
    process = _start(db, port)
    try:
        app = make_play_app(base, "rio", config_dir=tmp_path / "config")
        async with app.run_test(size=SIZE) as pilot:
            screen = await start_bot_match(pilot, app)
            model = screen.model
            await until(pilot, lambda: model.my_decision, "our first decision")
            await play_moves(pilot, screen, lambda: model.version >= 20)
            await until(pilot, lambda: model.my_decision, "our decision")
            seq = model.last_seq

            stop(process)  # the server goes away: the socket is closed (1012) and cannot be reopened
            await until(pilot, lambda: bool(screen.banner), "the banner")
            banner = text_of(app, "#banner")
            assert banner.startswith(f"connection lost — reconnecting… resuming from #{seq} · "), banner
            await pilot.press("k")
            assert model.status == "not connected: wait for the connection to come back"

            process = _start(db, port)
            await until(pilot, lambda: screen.connected and not screen.banner, "the reconnect")
            assert model.last_seq == seq and model.check.ok
            assert f"resumed after #{seq}" in model.status
            assert not screen.query_one("#banner", Static).display

            await until(pilot, lambda: model.my_decision, "our decision after the reconnect")
            await play_moves(pilot, screen, lambda: model.last_seq > seq + 3)
            assert model.check.ok, model.check.problem
            assert model.check.envelopes == model.last_seq  # every event once, none missed
    finally:
        stop(process)
