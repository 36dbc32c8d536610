"""The replay scrubber driven by keys and the mouse (Textual's Pilot)."""

from __future__ import annotations

import httpx
import pytest
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import ContentSwitcher

from engine.game.errors import ReplayUnreadable
from tests.tui.helpers import SAMPLE, plain, sample_text, tampered_text
from tui_client.apps.replay_app import FailureScreen, ReplayApp, ScrubberScreen, make_app
from tui_client.widgets.cards import HIGHLIGHT
from tui_client.widgets.replay_widgets import AuditPanel, EventLog, TablePanel, Timeline, TitleBar

pytestmark = pytest.mark.anyio


def _app() -> ReplayApp:
    return make_app(sample_text(), source=str(SAMPLE))


def _scrubber(app: ReplayApp) -> ScrubberScreen:
    screen = app.screen
    assert isinstance(screen, ScrubberScreen)
    return screen


def _right(screen: ScrubberScreen) -> str | None:
    """Which panel the right column shows: "audit" or "scores"."""
    return screen.query_one("#right", ContentSwitcher).current


def _highlighted(text: Text) -> list[str]:
    """The parts of ``text`` drawn in the highlight style."""
    return [text.plain[span.start : span.end] for span in text.spans if HIGHLIGHT in str(span.style)]


async def test_w_lands_on_the_first_challenge_with_the_audit_panel() -> None:
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = _scrubber(app)
        assert screen.cursor == 1 and _right(screen) == "scores"
        await pilot.press("w")
        assert screen.cursor == 80
        assert _right(screen) == "audit"
        panel = screen.query_one(AuditPanel)
        words = panel.body.plain
        assert "verdict: ILLEGAL" in words
        assert "ILLEGAL: YS could be played" in words
        assert "hand then: R3 R7 Y1 Y1 [YS] Y+2" in words
        assert "wd4_rule=no_playable, wd4_check=challenge (D13: legal only if" in words
        assert "then seat 1 (bot:random) drew 4 (challenge_upheld): W+4 BS BS R9" in words
        assert "seat 0 (bot:greedy) R1 R+2 Y2 YS YR B2 B7 W W" in words
        assert "seat 1 (bot:random) R3 R7 Y1 Y1 YS Y+2" in words
        assert _highlighted(panel.body) == ["YS"]
        assert "challenge 1/4 · seq 80" in str(panel.border_title)
        await pilot.press("w")
        assert screen.cursor == 90 and "ILLEGAL: Y1 Y1 YS Y+2 could be played" in panel.body.plain
        assert _highlighted(panel.body) == ["Y1", "Y1", "YS", "Y+2"]
        await pilot.press("w", "w")
        assert screen.cursor == 415 and "verdict: LEGAL" in panel.body.plain and _highlighted(panel.body) == []
        await pilot.press("w")  # after the last, the first again
        assert screen.cursor == 80
        await pilot.press("right")  # the penalty draw still shows the audit
        assert screen.cursor == 81 and _right(screen) == "audit"
        await pilot.press("right")
        assert screen.cursor == 82 and _right(screen) == "scores"


async def test_v_cycles_the_perspective_and_a_seat_sees_card_backs() -> None:
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = _scrubber(app)
        await pilot.press("w")
        table = screen.query_one(TablePanel)
        audit_view = plain(table)
        assert "R1 R+2 Y2 YS YR B2 B7 W W" in audit_view and "R3 R7 Y1 Y1 YS Y+2" in audit_view
        assert "view audit" in plain(screen.query_one(TitleBar))

        await pilot.press("v")
        seat0 = plain(table)
        assert "view seat 0" in plain(screen.query_one(TitleBar))
        assert "R1 R+2 Y2 YS YR B2 B7 W W" in seat0  # its own hand
        assert "R3 R7" not in seat0 and "▮▮▮▮▮▮ 6 cards" in seat0  # the other hand face down
        body = screen.query_one(AuditPanel).body.plain
        assert "[YS]" in body and "seat 1 (bot:random) ▮▮▮▮▮▮ 6 cards" in body  # the challenger was shown the hand
        assert "(as seat 0 saw it" in body

        await pilot.press("v")
        seat1 = plain(table)
        assert "view seat 1" in plain(screen.query_one(TitleBar))
        assert "R3 R7 Y1 Y1 YS Y+2" in seat1 and "R1 R+2" not in seat1 and "▮▮▮▮▮▮▮▮▮ 9 cards" in seat1
        body = screen.query_one(AuditPanel).body.plain
        assert "shown to the challenger only" in body and "[YS]" not in body
        assert "(held YS)" not in plain(screen.query_one(EventLog))

        await pilot.press("v")
        assert "view audit" in plain(screen.query_one(TitleBar)) and plain(table) == audit_view
        assert "mid-batch" in audit_view  # seq 80: the decision just answered is not offered again

        await pilot.press("left", "left")  # seq 78: the match waits for seat 0's answer
        assert "waiting for seat 0: accept or challenge the Wild Draw Four" in plain(table)
        assert "legal now" not in plain(table)  # the auditor has no commands
        await pilot.press("v")
        assert "legal now: accept, challenge" in plain(table)  # engine.protocol.views' legal list, for seat 0
        await pilot.press("v")
        assert "legal now" not in plain(table)  # not seat 1's decision


async def test_arrows_rounds_home_and_end() -> None:
    app = _app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = _scrubber(app)
        await pilot.press("right", "right", "right")
        assert screen.cursor == 4
        await pilot.press("left")
        assert screen.cursor == 3
        await pilot.press("left", "left", "left")  # not before the first event
        assert screen.cursor == 1
        await pilot.press("]")
        assert screen.cursor == 6 and "round 1 starts" in plain(screen.query_one(EventLog))
        await pilot.press("]")
        assert screen.cursor == 206 and "round 2 · event 206/513" in plain(screen.query_one(TitleBar))
        await pilot.press("right", "[")
        assert screen.cursor == 206
        await pilot.press("[")
        assert screen.cursor == 6
        await pilot.press("end")
        assert screen.cursor == 513
        assert "the server's seed is revealed" in plain(screen.query_one(EventLog))
        assert "match over: seat 0 wins" in plain(screen.query_one(TablePanel))
        await pilot.press("right")  # not past the last
        assert screen.cursor == 513
        await pilot.press("home")
        assert screen.cursor == 1 and "match created: uno-duo, to 200 points (lowest total wins)" in plain(
            screen.query_one(EventLog)
        )


async def test_up_and_down_scroll_the_audit_panel_on_a_small_screen() -> None:
    app = _app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = _scrubber(app)
        await pilot.press("w")
        scroll = screen.query_one("#audit", VerticalScroll)
        assert scroll.max_scroll_y > 0 and scroll.scroll_y == 0
        await pilot.press("down", "down")
        assert scroll.scroll_y == 2 and screen.cursor == 80
        await pilot.press("up")
        assert scroll.scroll_y == 1


async def test_the_mouse_jumps_on_the_timeline_and_the_footer_keys() -> None:
    app = _app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = _scrubber(app)
        timeline = screen.query_one(Timeline)
        bar = timeline.bar()
        column = bar.column(402)
        await pilot.click(Timeline, offset=(column, 0))
        landed = screen.cursor
        assert bar.column(landed) == column and landed == bar.seq_at(column)
        await pilot.click("FooterKey.-grouped", offset=(0, 0))  # the first footer key: ←
        assert screen.cursor == landed - 1
        first = screen.query_one(EventLog).rows[0]
        await pilot.click(EventLog, offset=(2, 1))  # a line of the log: border, then the first line
        assert screen.cursor == first < landed - 1


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_every_key_lands_the_scrubber_where_it_says(size: tuple[int, int]) -> None:
    """A run of keys in both sizes: each lands on the event it names, with the frame shown for it.
    (How fast: ``unoduo bench scrub``, docs/BENCHMARKS.md; timings are never asserted in tests.)"""
    app = make_app(sample_text(), freeze_gc=True)
    async with app.run_test(size=size) as pilot:
        screen = _scrubber(app)
        model = screen.model
        await pilot.pause()
        challenges = [c.resolved_seq for c in model.challenges]  # where w lands: each verdict
        for key in ["end", "home", "w", "v", "]", "w", "v", "end", "[", "left", "w", "v", "home", "pagedown"] * 2:
            before, viewer_before = screen.cursor, screen.perspective
            await pilot.press(key)
            await pilot.pause()
            assert screen.frame is not None and screen.frame.seq == screen.cursor
            if key == "end":
                assert screen.cursor == model.total
            elif key == "home":
                assert screen.cursor == 1
            elif key == "left":
                assert screen.cursor == max(1, before - 1)
            elif key == "w" and challenges:
                later = [seq for seq in challenges if seq > before]
                assert screen.cursor == (later[0] if later else challenges[0])  # after the last: the first
            elif key == "v":
                assert screen.perspective == (viewer_before + 1) % 3 and screen.cursor == before


async def test_a_tampered_replay_shows_the_failure_and_is_not_scrubbed() -> None:
    app = make_app(tampered_text(), source="tampered.jsonl")
    async with app.run_test(size=(100, 30)) as pilot:
        assert isinstance(app.screen, FailureScreen) and app.verified is False
        words = plain(app.screen.query_one("#failure"))
        assert "NOT VERIFIED: line 81: field 'matching'" in words and "the value (or the seal) was changed" in words
        assert "not scrubbed" in words
        assert "NOT VERIFIED · tampered.jsonl" in str(app.screen.query_one("#failure").border_title)
        await pilot.press("right", "w", "end")
        assert isinstance(app.screen, FailureScreen)
        assert not app.query(ScrubberScreen)


def test_text_that_is_not_a_replay_is_refused() -> None:
    with pytest.raises(ReplayUnreadable):
        make_app('{"format": "something else"}\n')


def _server(status: int, body: bytes) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/api/matches/m_1/replay"
        return httpx.Response(status, content=body)

    return httpx.MockTransport(answer)


async def test_a_replay_fetched_from_a_server_opens_the_same_screen() -> None:
    app = make_app(server="http://srv", match="m_1", transport=_server(200, sample_text().encode()))
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = _scrubber(app)
        await pilot.press("w")
        assert screen.cursor == 80 and "verdict: ILLEGAL" in screen.query_one(AuditPanel).body.plain
        assert app.verified is True


async def test_a_server_that_refuses_is_said_in_words() -> None:
    body = b'{"code": "match_live", "message": "the match is still being played", "rule": null}'
    app = make_app(server="http://srv", match="m_1", transport=_server(409, body))
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, FailureScreen) and app.verified is None
        words = plain(app.screen.query_one("#failure"))
        assert "answered 409 (match_live: the match is still being played)" in words
