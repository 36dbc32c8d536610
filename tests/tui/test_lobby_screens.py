"""The lobby and the table of ``unoduo play`` on fixed data, at 80×24 and 60×20 (and below the
minimum size): snapshots (pytest-textual-snapshot; after a deliberate change,
``pytest tests/tui/test_lobby_screens.py --snapshot-update``, then look at the SVGs), the cursor
kept on the same match across a refresh, Tab never landing on a hidden widget, and the event
log's numbers never running into its words.

The lobby's server is a fake HTTP transport and a fake lobby socket fed by the test; the clock
is frozen, so the join deadline reads the same in every run.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from rich.text import Text
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import OptionList, Static

from tests.tui.helpers import until
from tests.tui.test_play_snapshots import MATCH, NAMES, FrozenClock, ReplayedSocket, canned_messages
from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.connection.api import Api
from tui_client.connection.config import ConfigStore, Credentials
from tui_client.models import lobby_model, play_model
from tui_client.models.play_model import LogLine, PlayModel
from tui_client.screens.help_screen import HelpScreen
from tui_client.screens.lobby_screen import LobbyScreen
from tui_client.screens.table_screen import PlayScreen
from tui_client.widgets.play_widgets import PlayLog

SERVER = "http://unoduo.test"
NOW = datetime(2026, 1, 1, 0, 10, tzinfo=UTC)
DEADLINE = NOW + timedelta(minutes=4, seconds=32)
ANN = {"id": "p_ann", "name": "ann", "kind": "human"}
BOB = {"id": "p_bob", "name": "bob", "kind": "human"}
GREEDY = {"id": "bot-greedy-1", "name": "greedy-1", "kind": "bot"}
RANDOM = {"id": "bot-random-1", "name": "random-1", "kind": "bot"}


def summary(match: str, status: str, seats: list[Any], **more: Any) -> dict[str, Any]:
    return {
        "id": match,
        "status": status,
        "seats": seats,
        "scores": [0, 0],
        "tournament": None,
        "round": None,
        "winner": None,
        "player1": 0,
        "ruleset": "uno-duo",
        "move_seconds": 60,
        **more,
    }


def me(extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        **ANN,
        "matches": [
            summary("m_old", "finished", [ANN, GREEDY], scores=[229, 31], winner="bot-greedy-1"),
            summary("m_cup1", "finished", [BOB, ANN], scores=[67, 202], winner="p_bob", tournament="t_cup", round=1),
            summary("m_cup2", "waiting", [ANN, RANDOM], tournament="t_cup", round=2),
            *(extra or []),
        ],
        "next": [{"tournament": "t_cup", "round": 3, "opponent": "p_bob", "white": True}],
    }


CUP = {
    "id": "t_cup",
    "name": "Club Cup",
    "status": "running",
    "players": [ANN, BOB, GREEDY, RANDOM],
    "rounds": [
        {
            "number": 2,
            "status": "running",
            "matches": [summary("m_live", "live", [BOB, GREEDY], scores=[41, 87], tournament="t_cup", round=2)],
        }
    ],
}
LISTED = [
    {"id": "t_cup", "name": "Club Cup", "status": "running", "players": 4, "rounds": 3, "opened": 2, "open": False},
    {
        "id": "t_fri",
        "name": "Friday Open",
        "status": "created",
        "players": 3,
        "rounds": 0,
        "opened": 0,
        "open": True,
        "entries": 3,
        "entered": False,
    },
]
DISPUTES = [
    {
        "id": "t_cup-d1",
        "tournament": "t_cup",
        "match": "m_cup1",
        "slot": "1.1",
        "seq": 355,
        "player": "p_ann",
        "note": "the draw pile ran out oddly",
        "status": "ruled",
        "decision": "stands",
        "ruling_note": "the pile was reshuffled (D9)",
    },
    {
        "id": "t_cup-d2",
        "tournament": "t_cup",
        "match": "m_cup2",
        "slot": "2.1",
        "seq": 12,
        "player": "p_ann",
        "note": "slow join",
        "status": "open",
        "decision": None,
        "ruling_note": None,
    },
]


class FakeLobbySocket:
    """The lobby socket: what the test puts in ``queue``, then silence."""

    def __init__(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        self.queue = queue
        self.close_code: int | None = None
        self.close_reason: str | None = None

    async def _read(self) -> AsyncIterator[str]:
        while True:
            message = await self.queue.get()
            if message.get("type") == "_drop":  # the test drops the connection (as a server restart would)
                self.close_code, self.close_reason = 1012, "the server is restarting: reconnect"
                return
            yield json.dumps(message)

    def __aiter__(self) -> AsyncIterator[str]:
        return self._read()

    async def close(self) -> None:
        self.close_code = 1000


class FakeServer(Api):
    """GET /api/me, the tournaments and the disputes from ``self.me`` and the constants above;
    the lobby socket from ``self.feed``; a canned match's socket for ``MATCH``."""

    def __init__(self) -> None:
        super().__init__(SERVER, transport=httpx.MockTransport(self.answer))
        self.state = me()
        self.feed: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.loads = 0
        self.connects = 0

    def answer(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/api/me":
            self.loads += 1
            return httpx.Response(200, json=self.state)
        if path == "/api/tournaments":
            return httpx.Response(200, json=LISTED)
        if path == "/api/tournaments/t_cup":
            return httpx.Response(200, json=CUP)
        if path == "/api/me/disputes":
            return httpx.Response(200, json=DISPUTES)
        return httpx.Response(404, json={"code": "not_found", "message": f"nothing canned at {path}"})

    async def open_lobby_socket(self) -> Any:
        self.connects += 1
        return FakeLobbySocket(self.feed)

    async def open_socket(self, match_id: str, since: int) -> Any:
        return cast(Any, ReplayedSocket(canned_messages() if match_id == MATCH else []))


def lobby_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[PlayApp, FakeServer]:
    monkeypatch.setattr(lobby_model, "datetime", FrozenClock)
    monkeypatch.setattr(play_model, "datetime", FrozenClock)
    ConfigStore(SERVER, tmp_path).save_credentials(Credentials(SERVER, "p_ann", "ann", "token-of-ann"))
    api = FakeServer()
    app = make_play_app(SERVER, config_dir=tmp_path, api=api)
    app.auto_join = False  # type: ignore[attr-defined]  # the snapshot shows the pairing waiting
    return app, api


async def loaded(pilot: Pilot[Any], api: FakeServer, pairing: bool = True) -> LobbyScreen:
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.me is not None, "the lobby")
    screen = app.screen
    assert isinstance(screen, LobbyScreen)
    if pairing:
        api.feed.put_nowait(
            {
                "type": "pairing",
                "tournament": "t_cup",
                "name": "Club Cup",
                "round": 2,
                "match": "m_cup2",
                "join_deadline": DEADLINE.isoformat().replace("+00:00", "Z"),
                "opponent": RANDOM,
                "white": True,
            }
        )
        await until(pilot, lambda: "join within 4:32" in plain(screen.query_one("#next", Static)), "the pairing")
    await until(pilot, lambda: screen.disputes != [], "the disputes")
    await pilot.pause()
    return screen


def plain(widget: Static) -> str:
    content = widget.content
    return str(getattr(content, "plain", content))


# ---------------------------------------------------------------- the lobby


@pytest.mark.anyio
@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_every_lobby_key_is_in_the_footer_or_first_in_its_help(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    """At 80x24 and 60x20 ``?`` is in the footer, and ``?`` opens the help at the lobby's own keys
    (it opened at the table's, the lobby's a screen further down), where every key the footer
    leaves out is listed."""
    app, api = lobby_app(tmp_path, monkeypatch)
    async with app.run_test(size=size) as pilot:
        screen = await loaded(pilot, api)
        footer = " ".join(str(w.render()) for w in screen.query("FooterKey"))
        assert "?" in footer and "q" in footer, footer
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")
        words = Text.from_markup(plain(pilot.app.screen.query_one("#help-body", Static))).plain
        assert words.lstrip().startswith("The lobby"), words[:60]
        lobby_help = words.split("A tournament")[0]
        for binding in LobbyScreen.BINDINGS:
            assert isinstance(binding, Binding)
            key = {"question_mark": "?"}.get(binding.key, binding.key)
            assert binding.show or f" {key} " in f" {lobby_help} ", (key, lobby_help)
        assert "Tab" in lobby_help  # the disputes box: a ruling read whole


@pytest.mark.anyio
async def test_the_lobby_in_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the lobby snapshots show, in words."""
    app, api = lobby_app(tmp_path, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot, api)
        nxt = plain(screen.query_one("#next", Static))
        assert nxt.splitlines() == [
            "next: Club Cup round 2 vs random-1 — join within 4:32 · Enter joins",
            "      waiting for Club Cup round 3: vs bob (white: you draft first)",
        ]
        options = screen.query_one("#matches", OptionList)
        lines = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert lines == [
            "join   vs random-1 · Club Cup round 2 · join within 4:32",
            "watch  bob vs greedy-1 · Club Cup round 2 · 41–87",
            "done   vs bob · Club Cup round 1 · bob won 67–202",
            "done   vs greedy-1 · casual · greedy-1 won 31–229",
            "open   Friday Open · 3 entered · e: enter",
            "tour   Club Cup · running · 2/3 rounds · 4 players · you play",
        ]
        disputes = plain(screen.query_one("#disputes-text", Static)).splitlines()
        assert disputes == [
            '#12 in Club Cup round 2 board 1 (you): open, waiting for the director · "slow join"',
            '#355 in Club Cup round 1 board 1 (you): ruled — the result stands: "the pile was reshuffled (D9)"',
        ]


def test_the_lobby_at_80x24(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lobby with a pairing counting down, a match to watch, results winner first, an open
    tournament to enter, a running one, and the player's disputes with a ruling."""
    app, api = lobby_app(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(pilot, api)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_the_lobby_at_60x20(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, api = lobby_app(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded(pilot, api)

    assert snap_compare(app, terminal_size=(60, 20), run_before=run_before)


def test_the_lobby_below_its_minimum_size(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, api = lobby_app(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await loaded(pilot, api)
        assert screen.too_small

    assert snap_compare(app, terminal_size=(56, 18), run_before=run_before)


# ---------------------------------------------------------------- the table


async def canned_table(pilot: Pilot[Any], api: FakeServer) -> PlayScreen:
    await loaded(pilot, api, pairing=False)
    app = pilot.app
    assert isinstance(app, PlayApp)
    screen = app.open_table(MATCH, 0, NAMES)
    events = len(canned_messages())
    await until(pilot, lambda: screen.model.last_seq == events and screen.connected, "the canned match")
    await settled(pilot, screen)
    return screen


async def settled(pilot: Pilot[Any], screen: PlayScreen) -> None:
    """Wait until the table's layout stops changing: the prompt (height auto, wrapped to the
    width) is laid out on a later refresh than the one that changed its text, and a snapshot taken
    in between shows it one line short (seen on a loaded CI machine)."""
    prompt = screen.query_one("#prompt")
    shape: tuple[int, int] | None = None
    steady = 0
    while steady < 3:
        await pilot.pause()
        now = (prompt.size.height, prompt.virtual_size.height)
        steady = steady + 1 if now == shape else 0
        shape = now


def test_the_table_at_80x24(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, api = lobby_app(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await canned_table(pilot, api)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_the_table_at_60x20(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, api = lobby_app(tmp_path, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await canned_table(pilot, api)

    assert snap_compare(app, terminal_size=(60, 20), run_before=run_before)


@pytest.mark.anyio
async def test_the_table_at_60x20_keeps_the_clock_and_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, api = lobby_app(tmp_path, monkeypatch)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await canned_table(pilot, api)
        await pilot.pause()
        assert not screen.too_small
        for selector in ("#prompt", "#table-title"):
            widget = screen.query_one(selector, Static)
            assert widget.region.height >= 1, selector
        assert "⏱ 42 s" in plain(screen.query_one("#prompt", Static))
        assert screen.query_one(PlayLog).region.height >= 3


# ---------------------------------------------------------------- the cursor, the focus, the log


@pytest.mark.anyio
async def test_the_cursor_stays_on_the_same_match_across_a_refresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's case: the cursor on "join vs random-1"; a refresh brings a new match in above
    it; Enter still opens (joins) the player's own match, not the line now at that row."""
    app, api = lobby_app(tmp_path, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot, api, pairing=False)
        options = screen.query_one("#matches", OptionList)
        options.highlighted = options.get_option_index("join:m_cup2")
        row = options.highlighted
        api.state = me([summary("m_new", "live", [ANN, GREEDY], scores=[3, 9])])  # a "play" line sorts first
        loads = api.loads
        await pilot.press("r")
        await until(pilot, lambda: api.loads > loads and any(e.match == "m_new" for e in screen.entries), "the refresh")
        assert options.highlighted == row + 1
        highlighted = options.get_option_at_index(options.highlighted or 0)
        assert highlighted.id == "join:m_cup2"
        # The match goes live (join → play): the cursor follows the match, not the row.
        api.state = me()
        api.state["matches"][2]["status"] = "live"
        loads = api.loads
        await pilot.press("r")
        await until(pilot, lambda: api.loads > loads and screen.entries[0].kind == "play", "the next refresh")
        assert options.get_option_at_index(options.highlighted or 0).id == "play:m_cup2"


def visible(widget: Widget) -> bool:
    return (
        widget.display
        and widget.visible
        and widget.region.area > 0
        and all(a.display for a in widget.ancestors if isinstance(a, Widget))
    )


@pytest.mark.anyio
async def test_tab_never_lands_on_a_hidden_widget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app, api = lobby_app(tmp_path, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, api, pairing=False)
        seen = set()
        for _ in range(6):
            await pilot.press("tab")
            focused = app.focused
            if focused is not None:
                seen.add(focused.id)
                assert visible(focused), focused
        assert seen <= {"matches", "disputes"}, seen  # the name field is hidden; the disputes box scrolls (focusable)
        table = await canned_table(pilot, api)
        for _ in range(4):
            await pilot.press("tab")
            assert app.focused is None or visible(app.focused), app.focused
        assert table.model.outstanding is None  # Tab sent nothing


def test_sequence_numbers_from_1000_do_not_run_into_the_words() -> None:
    model = PlayModel("m_x", 0, ["ann", "random-1"])
    model.log = [LogLine(998, "you played R5"), LogLine(1114, "random-1 drew a card"), LogLine(0, "a note", "note")]
    widget = PlayLog(model)
    lines = [line.plain for line in widget.lines(10)]
    assert lines == ["#998  you played R5", "#1114 random-1 drew a card", "      a note"]
    model.picked = 998
    marked = widget.lines(10)[0]
    assert any("reverse" in str(span.style) for span in marked.spans)


@pytest.mark.anyio
async def test_the_feed_reconnects_and_takes_the_fresh_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The socket drops: the title says so, the feed connects again, and the new connection's
    ``state`` replaces what the lobby knew (a match finished while it was down shows as done)."""
    app, api = lobby_app(tmp_path, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot, api, pairing=False)
        await until(pilot, lambda: screen.feed_state == "live", "the feed")
        api.feed.put_nowait({"type": "_drop"})
        await until(pilot, lambda: api.connects >= 2, "the reconnect")
        await until(pilot, lambda: screen.feed_state == "live", "live again")
        fresh = me()
        fresh["matches"][2] = summary(
            "m_cup2", "finished", [ANN, RANDOM], scores=[12, 200], winner="p_ann", tournament="t_cup", round=2
        )
        loads = api.loads
        api.feed.put_nowait({"type": "state", **fresh})
        await until(pilot, lambda: any(e.kind == "done" and e.match == "m_cup2" for e in screen.entries), "the state")
        assert api.loads == loads  # taken from the socket, not asked for again
        done = next(e for e in screen.entries if e.match == "m_cup2")
        assert done.text == "done   vs random-1 · Club Cup round 2 · you won 12–200"
