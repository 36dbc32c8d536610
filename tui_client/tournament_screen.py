"""The tournament screen of ``unoduo play`` (docs/TUI.md "The tournament screen").

:class:`TournamentScreen` shows one tournament: the standings with every tie-break column and
"decided by", the schedule by round (each pairing's status and result, the bye), refreshed by a
worker every few seconds. Enter on a live pairing opens the live table (``PlayScreen``) as a
spectator (as a seat, if it is the player's own); Enter on a finished one opens its replay in
the scrubber. With the director's token it also lists the open disputes (``GET
/api/disputes``); ``o`` (or Enter) opens one: a finished match's replay at the disputed event,
otherwise the audit view just after it (the dispute's ``audit_view``).

It runs inside ``unoduo play``'s app (:class:`tui_client.play_host.PlayHost`), reached from the lobby (``t``) or directly
(``unoduo play --tournament ID``). The rows and words come from ``tournament_model``.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from engine.errors import ReplayUnreadable
from tui_client.api import Api, ApiError
from tui_client.play_host import PlayHost, host_of
from tui_client.remote import FetchFailed, fetch_replay
from tui_client.replay_app import ScrubberScreen, failure_lines
from tui_client.replay_model import ReplayModel
from tui_client.tournament_model import (
    DISPUTE_COLUMNS,
    SCHEDULE_COLUMNS,
    STANDING_COLUMNS,
    DisputeRow,
    ScheduleRow,
    dispute_rows,
    schedule_rows,
    seat_in,
    standing_rows,
    title_words,
)

REFRESH_SECONDS = 3.0

# Part of the app's CSS: the tournament screen, and the replay scrubber's layout (replay_app's
# CSS, scoped to the scrubber opened from here so the table's own ids are not touched).
TOURNAMENT_CSS = """
#tour-title { height: 1; background: $panel; }
#standings { height: auto; max-height: 14; border: round $primary; }
#schedule { height: 1fr; min-height: 5; border: round $primary; }
#disputes { height: auto; max-height: 8; border: round #ff5252; display: none; }
#disputes.shown { display: block; }
#tour-status { height: auto; min-height: 1; }
#text-body { height: 1fr; border: round $primary; padding: 0 1; }
MatchScrubber #main { height: 1fr; }
MatchScrubber #left { width: 1fr; min-width: 36; }
MatchScrubber #right { width: 1fr; min-width: 36; }
MatchScrubber TablePanel { height: auto; border: round $primary; padding: 0 1; }
MatchScrubber EventLog { height: 1fr; min-height: 4; border: round $primary; padding: 0 1; }
MatchScrubber #audit { border: round #ff5252; padding: 0 1; height: 1fr; }
MatchScrubber ScoreChart { border: round $primary; padding: 0 1; height: 1fr; }
"""


class TournamentLoaded(Message):
    def __init__(self, tournament: dict[str, Any], disputes: list[dict[str, Any]] | None, note: str) -> None:
        super().__init__()
        self.tournament = tournament
        self.disputes = disputes
        self.note = note


class TournamentFailed(Message):
    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words


class OpenScreen(Message):
    """A screen built by a worker (a replay fetched, an audit view), to push."""

    def __init__(self, screen: Screen[None]) -> None:
        super().__init__()
        self.screen = screen


class MatchScrubber(ScrubberScreen):
    """The replay scrubber opened from the tournament screen: it starts at ``seq`` (a disputed
    event) and ``q`` goes back instead of quitting."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "back", "back"),
        Binding("escape", "back", "back", show=False),
    ]

    def __init__(self, model: ReplayModel, seq: int = 1) -> None:
        super().__init__(model)
        self.start = seq

    def on_mount(self) -> None:
        self.goto(self.start)

    def action_back(self) -> None:
        self.app.pop_screen()


class TextScreen(Screen[None]):
    """Words to read (an audit view, a replay that failed verification); ``q`` goes back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "back", "back"),
        Binding("escape", "back", "back", show=False),
    ]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_words = title
        self.body = body

    def compose(self) -> ComposeResult:
        yield Static(Text(self.title_words, style="bold"), id="tour-title")
        with VerticalScroll(id="text-body"):
            yield Static(Text(self.body), id="text")
        yield Footer()

    def action_back(self) -> None:
        self.app.pop_screen()


VIEW_KEYS = (
    "phase",
    "round",
    "top",
    "color",
    "scores",
    "target",
    "draw_pile",
    "pending",
    "awaiting",
    "hands",
    "counts",
)


def audit_view_words(dispute: DisputeRow, answer: Any) -> str:
    """The audit view just after a disputed event (``GET audit_view``: ``{match, view}``), in lines."""
    view = answer.get("view") if isinstance(answer, dict) else None
    lines = [
        f"dispute {dispute.id} · match {dispute.match} · the table just after event #{dispute.seq}",
        f"(the match is not finished: its replay is not out yet; this is {dispute.audit_view})",
        "",
    ]
    if isinstance(view, dict):
        for key in VIEW_KEYS:
            if key in view:
                lines.append(f"{key}: {json.dumps(view[key], ensure_ascii=False)}")
        lines += ["", "the whole view:", json.dumps(view, indent=1, ensure_ascii=False, sort_keys=True)]
    else:
        lines.append(json.dumps(answer, indent=1, ensure_ascii=False))
    return "\n".join(lines)


def _columns(table: DataTable[Any], columns: tuple[tuple[str, str], ...]) -> None:
    for key, label in columns:
        table.add_column(label, key=key)


class TournamentScreen(Screen[None]):
    """One tournament: standings, schedule, and (for the director) open disputes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_row", "watch / replay", key_display="⏎", show=True, priority=False),
        Binding("o", "open_dispute", "open dispute"),
        Binding("tab", "app.focus_next", "next table", show=False),
        Binding("r", "refresh", "refresh"),
        Binding("q", "back", "back"),
    ]

    def __init__(self, tournament: str, director_token: str | None = None) -> None:
        super().__init__()
        self.tournament_id = tournament
        self.director_token = director_token or None
        self.tournament: dict[str, Any] | None = None
        self.schedule: list[ScheduleRow] = []
        self.disputes: list[DisputeRow] = []
        self.loads = 0  # answers received (the tests wait on it)

    @property
    def play(self) -> PlayHost:
        return host_of(self)

    def compose(self) -> ComposeResult:
        yield Static(Text(f"tournament {self.tournament_id} · loading…", style="bold"), id="tour-title")
        yield DataTable(id="standings", cursor_type="row", zebra_stripes=True)
        yield DataTable(id="schedule", cursor_type="row")
        yield DataTable(id="disputes", cursor_type="row")
        yield Static("", id="tour-status")
        yield Footer()

    def on_mount(self) -> None:
        standings = self.query_one("#standings", DataTable)
        standings.border_title = "standings"
        _columns(standings, STANDING_COLUMNS)
        schedule = self.query_one("#schedule", DataTable)
        schedule.border_title = "schedule (Enter: watch a live match, replay a finished one)"
        _columns(schedule, SCHEDULE_COLUMNS)
        disputes = self.query_one("#disputes", DataTable)
        disputes.border_title = "open disputes (o: open at the event)"
        _columns(disputes, DISPUTE_COLUMNS)
        disputes.set_class(self.director_token is not None, "shown")
        schedule.focus()
        self.load()
        self.set_interval(REFRESH_SECONDS, self.load)

    def say(self, words: str, style: str = "") -> None:
        self.query_one("#tour-status", Static).update(Text(words, style=style))

    # ------------------------------------------------------------ workers

    def director_api(self) -> Api:
        assert self.director_token is not None
        return Api(self.play.server, self.director_token)

    @work(exclusive=True, group="tournament")
    async def load(self) -> None:
        try:
            tournament = await self.play.api.tournament(self.tournament_id)
        except ApiError as error:
            self.post_message(TournamentFailed(f"cannot load tournament {self.tournament_id}: {error.words()}"))
            return
        disputes: list[dict[str, Any]] | None = None
        note = ""
        if self.director_token is not None:
            api = self.director_api()
            try:
                disputes = await api.disputes("open")
            except ApiError as error:
                note = f"disputes: {error.words()}"
            finally:
                await api.aclose()
        self.post_message(TournamentLoaded(tournament, disputes, note))

    @work(exclusive=True, group="open")
    async def open_replay(self, match: str, seq: int, title: str) -> None:
        self.say(f"fetching the replay of {match}…")
        try:
            text = await fetch_replay(self.play.server, match)
            model = ReplayModel(text, source=f"{self.play.server} {match}")
        except (FetchFailed, ReplayUnreadable) as exc:
            self.post_message(TournamentFailed(f"cannot open the replay of {match}: {exc}"))
            return
        if not model.ok:
            self.post_message(OpenScreen(TextScreen(f"NOT VERIFIED · {title}", "\n".join(failure_lines(model)))))
            return
        self.post_message(OpenScreen(MatchScrubber(model, seq)))

    @work(exclusive=True, group="open")
    async def open_audit_view(self, dispute: DisputeRow) -> None:
        self.say(f"fetching the audit view of {dispute.match} at #{dispute.seq}…")
        api = self.director_api()
        try:
            answer = await api.get(dispute.audit_view or f"/api/matches/{dispute.match}?at={dispute.seq}")
        except ApiError as error:
            self.post_message(TournamentFailed(f"cannot open {dispute.audit_view}: {error.words()}"))
            return
        finally:
            await api.aclose()
        title = f"dispute {dispute.id} · {dispute.match} at #{dispute.seq} · audit view"
        self.post_message(OpenScreen(TextScreen(title, audit_view_words(dispute, answer))))

    # ------------------------------------------------------------ results

    def on_tournament_loaded(self, message: TournamentLoaded) -> None:
        self.loads += 1
        t = message.tournament
        self.tournament = t
        self.query_one("#tour-title", Static).update(Text(title_words(t), style="bold"))
        standings = self.query_one("#standings", DataTable)
        self._fill(standings, [(str(i), cells) for i, cells in enumerate(standing_rows(t))])
        self.schedule = schedule_rows(t)
        schedule = self.query_one("#schedule", DataTable)
        self._fill(schedule, [(row.key, self._schedule_cells(row)) for row in self.schedule])
        if message.disputes is not None:
            self.disputes = dispute_rows(message.disputes, t)
            disputes = self.query_one("#disputes", DataTable)
            self._fill(disputes, [(row.id, row.cells) for row in self.disputes])
            disputes.border_title = f"open disputes ({len(self.disputes)}) · o: open at the event"
        if message.note:
            self.say(message.note, "bold #ff5252")

    @staticmethod
    def _schedule_cells(row: ScheduleRow) -> tuple[str | Text, ...]:
        if row.kind == "round":
            return tuple(Text(c, style="bold") for c in row.cells)
        if row.kind == "bye":
            return tuple(Text(c, style="dim italic") for c in row.cells)
        style = {"live": "bold #4caf50", "pending": "dim", "cancelled": "dim strike"}.get(row.status, "")
        cells: list[str | Text] = list(row.cells)
        cells[3] = Text(row.status, style=style)
        return tuple(cells)

    @staticmethod
    def _fill(table: DataTable[Any], rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Replace the rows, keeping the cursor on the same line."""
        cursor = table.cursor_row
        table.clear()
        for key, cells in rows:
            table.add_row(*cells, key=key)
        if rows:
            table.move_cursor(row=min(max(cursor, 0), len(rows) - 1), animate=False)

    def on_tournament_failed(self, message: TournamentFailed) -> None:
        self.say(message.words, "bold #ff5252")

    def on_open_screen(self, message: OpenScreen) -> None:
        self.say("")
        self.app.push_screen(message.screen)

    def on_data_table_row_selected(self, message: DataTable.RowSelected) -> None:
        message.stop()
        if message.data_table.id == "schedule":
            self.open_schedule_row(message.cursor_row)
        elif message.data_table.id == "disputes":
            self.open_dispute_row(message.cursor_row)

    # ------------------------------------------------------------ actions

    def open_schedule_row(self, index: int) -> None:
        if not 0 <= index < len(self.schedule):
            return
        row = self.schedule[index]
        if row.watchable and row.match is not None:
            credentials = self.play.credentials
            seat = seat_in(row, credentials.player_id if credentials else None)
            self.play.open_table(row.match, seat, row.names)
        elif row.finished and row.match is not None:
            self.open_replay(row.match, 1, f"{row.cells[0]} {row.names[0]} vs {row.names[1]}")
        elif row.kind == "pairing":
            self.say(f"{row.cells[0]} is {row.status or 'not open'}: nothing to watch yet", "italic")

    def open_dispute_row(self, index: int) -> None:
        if not 0 <= index < len(self.disputes):
            return
        dispute = self.disputes[index]
        finished = any(r.match == dispute.match and r.finished for r in self.schedule)
        if finished:
            self.open_replay(dispute.match, dispute.seq, f"dispute {dispute.id}")
        else:
            self.open_audit_view(dispute)

    def action_open_row(self) -> None:
        focused = self.focused
        if isinstance(focused, DataTable) and focused.id == "disputes":
            self.open_dispute_row(focused.cursor_row)
        else:
            self.open_schedule_row(self.query_one("#schedule", DataTable).cursor_row)

    def action_open_dispute(self) -> None:
        if self.director_token is None:
            self.say("only the director sees disputes (--director-token or UNODUO_DIRECTOR_TOKEN)", "italic")
            return
        if not self.disputes:
            self.say("no open dispute", "italic")
            return
        table = self.query_one("#disputes", DataTable)
        self.open_dispute_row(table.cursor_row)

    def action_refresh(self) -> None:
        self.load()

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()
