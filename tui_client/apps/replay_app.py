"""``unoduo replay``: the replay scrubber (docs/TUI.md).

:func:`make_app` builds the app from a replay's text, or from a server and a match id (the
replay is then fetched in a worker, and shown on the same screen). A replay that fails
verification opens on :class:`FailureScreen`, which says what failed and offers no scrubbing.
"""

from __future__ import annotations

import gc
import time
from functools import partial
from typing import Any, ClassVar

import httpx
from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer, Static

from engine.game.errors import ReplayUnreadable
from engine.review.report import review_dict
from engine.review.review import ReviewSettings, ReviewUnavailable, review_seat
from tui_client.connection.remote import FetchFailed, fetch_replay, replay_url
from tui_client.models.replay_model import Frame, ReplayModel
from tui_client.models.review_view import next_flagged, pane_lines
from tui_client.screens.help_screen import HELP_CSS, HelpScreen
from tui_client.screens.too_small import MinimumSize
from tui_client.widgets.replay_widgets import (
    AuditPanel,
    EventLog,
    ScoreChart,
    TableAudit,
    TablePanel,
    Timeline,
    TitleBar,
)

CSS = """
#main { height: 1fr; }
#left { width: 1fr; min-width: 36; }
#right { width: 1fr; min-width: 36; }
TablePanel { height: auto; border: round $primary; padding: 0 1; }
EventLog { height: 1fr; min-height: 4; border: round $primary; padding: 0 1; }
#audit { border: round #ff5252; padding: 0 1; height: 1fr; }
#at { border: round #ff5252; padding: 0 1; height: 1fr; }
#review { border: round $primary; padding: 0 1; height: 1fr; }
ScoreChart { border: round $primary; padding: 0 1; height: 1fr; }
#failure { border: heavy #ff5252; padding: 1 2; margin: 1 2; height: auto; }
#loading { padding: 1 2; }
"""


SCRUBBER_LINES = 14  # the scrubber's lines besides one per seat (title, timeline, table, events, footer)

EVENT = Binding.Group("event", compact=True)
ROUND = Binding.Group("round", compact=True)
ENDS = Binding.Group("ends")


class ScrubberScreen(MinimumSize, Screen[None]):
    """Every event of a verified replay, one at a time. Below 72×20 the two columns (the table
    and its log, the audit or the scores) cannot both be drawn: the screen says so instead of
    cutting off the audit's verdict (``too_small``)."""

    MIN_SIZE: ClassVar[tuple[int, int]] = (72, 20)
    DEFAULT_CSS = "ScrubberScreen Footer.-compact FooterLabel { margin: 0 1 0 0; }"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "event", key_display="←", priority=True, group=EVENT),
        Binding("right", "step(1)", "event", key_display="→", priority=True, group=EVENT),
        Binding("left_square_bracket", "round(-1)", "round", key_display="[", priority=True, group=ROUND),
        Binding("right_square_bracket", "round(1)", "round", key_display="]", priority=True, group=ROUND),
        Binding("w", "challenge(1)", "W+4 challenge"),
        Binding("W", "challenge(-1)", "previous challenge", show=False),
        Binding("v", "perspective", "view"),
        Binding("s", "scores", "scores"),
        # ? and q before the rest: a compact footer of 72 columns always shows them (issue 33.5);
        # every key, also those cut off or not shown, is in the help
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("q", "app.quit", "quit"),
        Binding("r", "review", "review"),  # after ? and q: cut off before them at 72 columns
        Binding("home", "jump('start')", "start", key_display="Home", priority=True, group=ENDS),
        Binding("end", "jump('end')", "end", key_display="End", priority=True, group=ENDS),
        Binding("pageup", "step(-25)", "25 back", show=False, priority=True),
        Binding("pagedown", "step(25)", "25 on", show=False, priority=True),
        Binding("up", "scroll_audit(-1)", "scroll the audit", show=False, priority=True),
        Binding("down", "scroll_audit(1)", "scroll the audit", show=False, priority=True),
    ]

    def __init__(self, model: ReplayModel, start: int = 1, table_audit: TableAudit | None = None) -> None:
        super().__init__()
        self.model = model
        self.start = start  # the event it opens at (a disputed one, from the tournament screen)
        self.cursor = start
        # A dispute's view: the right side shows the whole table at the cursor (unoduo audit --at)
        # where no challenge is audited; ``s`` still switches to the scores.
        self.table_audit = table_audit
        self.perspective = 0  # index into the model's perspectives (the auditor, then every seat)
        self.pin_scores = False
        self.frame: Frame | None = None
        self.last_update_ms = 0.0  # the last cursor move: frame built and widgets updated
        # Game Review (r): each seat's review once computed, the seat being computed, the pane shown.
        self.reviews: dict[int, dict[str, Any]] = {}
        self.reviewing: int | None = None
        self.show_review = False
        self.review_settings = ReviewSettings()  # the command line's and the API's default: the same review

    def minimum(self) -> tuple[int, int]:
        """72×20, and at a table of more than six a line more per seat: the table lists every
        seat on a line of its own and the event log still needs its lines."""
        width, height = self.MIN_SIZE
        return width, max(height, self.model.seats + SCRUBBER_LINES)

    def compose(self) -> ComposeResult:
        yield TitleBar(self.model, id="title")
        yield Timeline(self.model, id="timeline")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield TablePanel(self.model, id="table")
                yield EventLog(id="events")
            with ContentSwitcher(initial="scores", id="right"):
                with VerticalScroll(id="audit", can_focus=False):
                    yield AuditPanel(self.model, id="audit-body")
                yield ScoreChart(self.model, id="scores")
                with VerticalScroll(id="review", can_focus=False):
                    yield Static("", id="review-body")
                if self.table_audit is not None:
                    with VerticalScroll(id="at", can_focus=False):
                        yield self.table_audit
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#audit", VerticalScroll).border_title = "audit"
        self.goto(self.start)
        if getattr(self.app, "freeze_gc", False):
            # Everything built so far lives as long as the app: keep it out of the collector's
            # full passes, which otherwise cost a key press 30-90 ms now and then (docs/TUI.md).
            self.call_after_refresh(gc.freeze)

    def on_resize(self, event: Resize) -> None:
        self.goto(self.cursor)

    @property
    def viewer(self) -> Any:
        return self.model.perspectives[self.perspective]

    def goto(self, seq: int) -> None:
        started = time.perf_counter()
        self.cursor = self.model.clamp(seq)
        frame = self.model.frame(self.cursor, self.viewer, before=30)
        self.frame = frame
        self.query_one(TitleBar).show(frame)
        self.query_one(Timeline).show(frame.seq)
        self.query_one(TablePanel).show(frame)
        self.query_one(EventLog).show(frame)
        switcher = self.query_one(ContentSwitcher)
        review = self.reviews.get(self.review_seat)
        if self.show_review and review is not None:
            self.query_one("#review-body", Static).update(Text("\n".join(pane_lines(review, frame.seq))))
            self.query_one(
                "#review", VerticalScroll
            ).border_title = f"review: {self.model.seat_label(self.review_seat)}"
            switcher.current = "review"
        elif frame.challenge is not None and not self.pin_scores:
            panel = self.query_one(AuditPanel)
            panel.show(frame.challenge, frame.viewer)
            self.query_one("#audit", VerticalScroll).border_title = panel.border_title
            switcher.current = "audit"
        elif self.table_audit is not None and not self.pin_scores:
            self.table_audit.show(frame.seq)
            self.query_one("#at", VerticalScroll).border_title = f"audit: the table after #{frame.seq}"
            switcher.current = "at"
        else:
            self.query_one(ScoreChart).show(frame.seq)
            switcher.current = "scores"
        self.last_update_ms = (time.perf_counter() - started) * 1000

    # ------------------------------------------------------------ actions

    def action_step(self, delta: int) -> None:
        self.goto(self.cursor + delta)

    def action_round(self, direction: int) -> None:
        m = self.model
        self.goto(m.next_round(self.cursor) if direction > 0 else m.prev_round(self.cursor))

    def action_jump(self, where: str) -> None:
        self.goto(1 if where == "start" else self.model.total)

    def action_challenge(self, direction: int) -> None:
        m = self.model
        target = m.next_challenge(self.cursor) if direction > 0 else m.prev_challenge(self.cursor)
        if target is None:
            self.notify("this replay has no Wild Draw Four challenge", timeout=3)
            return
        if (direction > 0 and target <= self.cursor) or (direction < 0 and target >= self.cursor):
            self.notify("wrapped around to the " + ("first" if direction > 0 else "last") + " challenge", timeout=2)
        self.pin_scores = False
        self.goto(target)

    @property
    def review_seat(self) -> int:
        """The seat the review key reviews: the perspective's seat (the auditor's: seat 0)."""
        viewer = self.viewer
        return viewer if isinstance(viewer, int) else 0

    def action_review(self) -> None:
        """Show the review of the perspective's seat (computed here the first time, in a thread);
        pressed again, jump to the next flagged decision."""
        seat = self.review_seat
        review = self.reviews.get(seat)
        if review is None:
            if self.reviewing is None:
                self.reviewing = seat
                self.notify(f"reviewing {self.model.seat_label(seat)}: up to a minute for a long match", timeout=5)
                self.run_worker(partial(self._review, seat), thread=True, exclusive=True, group="review")
            return
        if self.show_review:
            target = next_flagged(review, self.cursor)
            if target is None:
                self.notify("no decision of this seat is flagged", timeout=3)
                return
            self.goto(target)
            return
        self.show_review = True
        self.pin_scores = False
        self.goto(self.cursor)

    def _review(self, seat: int) -> None:
        try:
            review = review_dict(
                review_seat(self.model.events, seat, self.review_settings), self.model.header.get("match")
            )
        except ReviewUnavailable as exc:
            self.app.call_from_thread(self._not_reviewed, str(exc))
            return
        self.app.call_from_thread(self._reviewed, seat, review)

    def _not_reviewed(self, why: str) -> None:
        self.reviewing = None
        self.notify(f"no review: {why}", timeout=4)

    def _reviewed(self, seat: int, review: dict[str, Any]) -> None:
        self.reviewing = None
        self.reviews[seat] = review
        if seat == self.review_seat:
            self.show_review = True
            self.goto(self.cursor)

    def action_help(self) -> None:
        self.app.push_screen(ReplayHelp())

    def action_perspective(self) -> None:
        self.perspective = (self.perspective + 1) % len(self.model.perspectives)
        self.goto(self.cursor)

    def action_scores(self) -> None:
        self.pin_scores = not self.pin_scores
        self.show_review = False
        self.goto(self.cursor)

    def action_scroll_audit(self, lines: int) -> None:
        current = self.query_one(ContentSwitcher).current
        if current in ("audit", "at"):
            self.query_one(f"#{current}", VerticalScroll).scroll_relative(y=lines, animate=False)

    def on_timeline_jump(self, message: Timeline.Jump) -> None:
        self.goto(message.seq)


REPLAY_HELP = """The replay scrubber

  ← →         one event back / on
  PgUp PgDn   25 events back / on
  [ ]         the start of this round (or the one before) / of the next
  Home End    the first / the last event
  w W         the next / the previous Wild Draw Four challenge
  r           Game Review of the perspective's seat (the auditor's:
              seat 0): its decision at the cursor, every option's
              expected match points; r again: the next flagged one
  v           the perspective: the auditor, then each seat in turn
  s           pin the score chart (s again unpins)
  ↑ ↓         scroll the audit panel
  d           (a dispute's view) back to the disputed event
  !           (a player of the match, from the tournament screen)
              dispute the event under the cursor with a note
  ?           this help
  q           quit (from the tournament screen: back to it)
  Esc         (from the tournament screen) back to it

Click the timeline or an event line to jump to it.

(↑ ↓ PgUp PgDn scroll · any other key closes)"""


class ReplayHelp(HelpScreen):
    """``?`` over the scrubber: every key of the replay screen (the table's are in HelpScreen)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-scroll"):
            yield Static(Text(REPLAY_HELP), id="help-body")


class FailureScreen(Screen[None]):
    """A replay that fails verification, or could not be had: the failure in words, no scrubbing."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "app.quit", "quit")]

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__()
        self.heading = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        body = Text()
        body.append(self.lines[0] + "\n\n", style="bold #ff5252")
        for line in self.lines[1:]:
            body.append(line + "\n")
        failure = Static(body, id="failure")
        failure.border_title = self.heading
        yield Static(Text("unoduo replay", style="bold"), id="title")
        yield failure
        yield Footer()


def failure_lines(model: ReplayModel) -> list[str]:
    v = model.verification
    lines = [model.failure_words()]
    lines += [f"passed before it: {check}" for check in v.checks]
    lines += [
        "",
        "Nothing in a replay that fails verification can be relied on, so it is not scrubbed.",
        "`unoduo verify FILE` and `unoduo audit FILE` report the same failure.",
    ]
    return lines


def screen_for(model: ReplayModel, seat: int | None = None) -> Screen[None]:
    """The scrubber of a verified replay, from the auditor's perspective or, given ``seat``, that
    seat's (``unoduo replay --seat N``); a failure screen otherwise."""
    if model.ok and seat is not None and seat not in model.perspectives:
        return FailureScreen("no such seat", [f"--seat {seat}: this match has seats 0 to {model.seats - 1}"])
    if model.ok:
        screen = ScrubberScreen(model)
        if seat is not None:
            screen.perspective = model.perspectives.index(seat)
        return screen
    title = f"NOT VERIFIED · {model.source or 'replay'} · match {model.header.get('match')}"
    return FailureScreen(title, failure_lines(model))


class LoadingScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "app.quit", "quit")]

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def compose(self) -> ComposeResult:
        yield Static(f"fetching {self.url} …", id="loading")
        yield Footer()


class ReplayApp(App[None]):
    """The scrubber for one replay: from its text (``model``) or fetched from a server."""

    CSS = CSS + HELP_CSS
    TITLE = "unoduo replay"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        model: ReplayModel | None = None,
        *,
        server: str | None = None,
        match: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        freeze_gc: bool = False,
        seat: int | None = None,
    ) -> None:
        super().__init__()
        self.freeze_gc = freeze_gc
        self.seat = seat  # the perspective it opens with (None: the auditor's)
        if model is None and (server is None or match is None):
            raise ValueError("a replay needs its text, or a server and a match id")
        self.model = model
        self.server = server
        self.match = match
        self.transport = transport
        self.verified: bool | None = None if model is None else model.ok

    def on_mount(self) -> None:
        if self.model is not None:
            self.push_screen(screen_for(self.model, self.seat))
            return
        assert self.server is not None and self.match is not None
        self.push_screen(LoadingScreen(replay_url(self.server, self.match)))
        self.fetch()

    @work(exclusive=True)
    async def fetch(self) -> None:
        assert self.server is not None and self.match is not None
        url = replay_url(self.server, self.match)
        try:
            text = await fetch_replay(self.server, self.match, transport=self.transport)
            model = ReplayModel(text, source=url)
        except FetchFailed as exc:
            self.switch_screen(FailureScreen("could not fetch the replay", [str(exc)]))
            return
        except ReplayUnreadable as exc:
            self.switch_screen(FailureScreen("not a replay", [f"{url}: {exc}"]))
            return
        self.model = model
        self.verified = model.ok
        self.switch_screen(screen_for(model, self.seat))


def make_app(
    text: str | None = None,
    *,
    source: str = "",
    server: str | None = None,
    match: str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    freeze_gc: bool = False,
    seat: int | None = None,
) -> ReplayApp:
    """The scrubber for a replay's ``text`` (ReplayUnreadable if it is not a replay file), or
    for match ``match`` of ``server`` (fetched once the app runs). ``freeze_gc``: once the
    scrubber is up, ``gc.freeze()`` what it built (the command does; tests need not). ``seat``:
    open with that seat's perspective instead of the auditor's (``v`` still cycles)."""
    if text is not None:
        return ReplayApp(ReplayModel(text, source=source), freeze_gc=freeze_gc, seat=seat)
    return ReplayApp(server=server, match=match, transport=transport, freeze_gc=freeze_gc, seat=seat)
