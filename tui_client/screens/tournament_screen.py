"""The tournament screen of ``unoduo play`` (docs/TUI.md "The tournament screen").

:class:`TournamentScreen` shows one tournament: the standings with every tie-break column and
"decided by", the schedule by round (each pairing's status and result, the bye), refreshed by a
worker every few seconds. Enter on a live pairing opens the live table (``PlayScreen``) as a
spectator (as a seat, if it is the player's own); Enter on a finished one opens its replay in
the scrubber. With the director's token it also lists the open disputes (``GET
/api/disputes``); ``o`` (or Enter) opens one: a finished match's replay at the disputed event,
otherwise the audit view just after it (the dispute's ``audit_view``).

It runs inside ``unoduo play``'s app (:class:`tui_client.screens.play_host.PlayHost`), reached from the lobby (``t``) or directly
(``unoduo play --tournament ID``). The rows and words come from ``tournament_model``.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import httpx
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from engine.game.errors import ReplayUnreadable
from tui_client.apps.replay_app import failure_lines
from tui_client.connection.api import Api, ApiError
from tui_client.connection.remote import FetchFailed, fetch_replay
from tui_client.models.bracket_model import draw, is_knockout, nodes_of, path_of
from tui_client.models.replay_model import ReplayModel
from tui_client.models.tournament_model import (
    COMPACT_UP_TO,
    DISPUTE_COLUMNS,
    DisputeRow,
    ScheduleRow,
    dispute_rows,
    format_of,
    is_duplicate,
    is_table_tournament,
    schedule_columns,
    schedule_rows,
    seat_in,
    standing_keys,
    standings_cells,
    standings_columns,
    standings_legend,
    title_words,
    tournament_rule,
    with_labels,
)
from tui_client.screens.help_screen import HelpScreen
from tui_client.screens.play_host import PlayHost, host_of
from tui_client.screens.player_screen import PlayerScreen
from tui_client.screens.replay_screens import MatchScrubber, TextScreen
from tui_client.screens.season_screen import SeasonOfTournament
from tui_client.screens.too_small import MinimumSize
from tui_client.widgets.bracket_widget import BracketView
from tui_client.widgets.literal import literal
from tui_client.widgets.replay_widgets import row_key_at

REFRESH_SECONDS = 3.0


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


async def director_events(api: Api, match: str) -> list[dict[str, Any]]:
    """Every event of ``match`` as the director reads it (``GET /api/matches/{id}/events``:
    NDJSON, each envelope with every opening)."""
    try:
        response = await api.client.get(f"/api/matches/{match}/events", params={"since": 0}, headers=api.auth_headers())
    except httpx.HTTPError as exc:
        raise ApiError(0, "unreachable", f"cannot reach {api.server}: {exc or type(exc).__name__}") from None
    if response.status_code != 200:
        try:
            body = response.json()
        except ValueError:
            body = {}
        message = body.get("message") if isinstance(body, dict) else None
        code = str(body.get("code")) if isinstance(body, dict) else "http_error"
        raise ApiError(response.status_code, code, str(message or f"answered {response.status_code}"))
    envelopes: list[dict[str, Any]] = []
    for line in response.text.splitlines():
        if line.strip():
            try:
                envelopes.append(json.loads(line))
            except json.JSONDecodeError:
                raise ReplayUnreadable("an event line is not JSON") from None
    return envelopes


def seat_lines(parts: tuple[str, ...], room: int) -> list[str]:
    """A table's seats joined by ", " in lines of at most ``room`` characters, broken between
    seats (a seat wider than the room alone keeps its line)."""
    lines: list[str] = []
    line = ""
    for index, part in enumerate(parts):
        piece = part + ("," if index < len(parts) - 1 else "")
        if line and len(line) + 1 + len(piece) > room:
            lines.append(line)
            line = piece
        else:
            line = f"{line} {piece}" if line else piece
    return [*lines, line] if line else lines


def _columns(table: DataTable[Any], columns: tuple[tuple[str, str], ...]) -> None:
    for key, label in columns:
        table.add_column(label, key=key)


class TournamentScreen(SeasonOfTournament, MinimumSize, Screen[None]):
    """One tournament: standings, schedule, and (for the director) open disputes.

    The standings are compact up to 100 columns (the deciding tie-break abbreviated, the
    legend in the border title) and whole when wider; ``f`` switches. Every table keeps its
    cursor on the same item (keyed by player, pairing or dispute) when a refresh reorders it.
    Below 60×16 the screen says how big the terminal must be (``too_small``)."""

    MIN_SIZE: ClassVar[tuple[int, int]] = (60, 16)
    # The footer draws these in order and cuts what does not fit: ``?`` (which lists every key)
    # and ``q`` come first, so that at 60 columns they are still there.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("q", "back", "back"),
        Binding("enter", "open_row", "watch/replay", key_display="⏎", show=True, priority=False),
        Binding("b", "bracket", "bracket/schedule"),  # a knockout's: the bracket, or the standings and schedule
        Binding("m", "my_match", "my match"),  # a knockout's bracket: the player's own match in view
        Binding("p", "player", "player"),
        Binding("f", "full_standings", "tie-breaks"),
        Binding("o", "open_dispute", "dispute"),
        Binding("r", "refresh", "refresh", show=False),  # it refreshes by itself every few seconds
        Binding("tab", "app.focus_next", "next table", show=False),
        *SeasonOfTournament.SEASON_BINDINGS,  # s: the season table, for a tournament in a season
    ]

    def __init__(self, tournament: str, director_token: str | None = None) -> None:
        super().__init__()
        self.tournament_id = tournament
        self.director_token = director_token or None
        self.tournament: dict[str, Any] | None = None
        self.schedule: list[ScheduleRow] = []
        self.disputes: list[DisputeRow] = []
        self.loads = 0  # answers received (the tests wait on it)
        self.full: bool | None = None  # the standings' columns shown: every tie-break, or compact
        self.full_asked: bool | None = None  # ``f``: the user's choice, over the width's
        self.standings_layout: tuple[bool, str, bool] | None = None  # (full, format, duplicate): the columns' layout
        self.schedule_layout: tuple[tuple[str, str], ...] | None = None  # the schedule's columns
        self.bracket_shown: bool | None = None  # a knockout: the bracket (True) or the tables; None: not drawn yet

    @property
    def play(self) -> PlayHost:
        return host_of(self)

    def compose(self) -> ComposeResult:
        yield Static(Text(f"tournament {self.tournament_id} · loading…", style="bold"), id="tour-title")
        yield self.season_line()
        yield BracketView(id="bracket")
        yield DataTable(id="standings", cursor_type="row", zebra_stripes=True)
        yield DataTable(id="schedule", cursor_type="row")
        yield DataTable(id="disputes", cursor_type="row")
        yield Static("", id="tour-status")
        yield Footer()

    def on_mount(self) -> None:
        standings = self.query_one("#standings", DataTable)
        standings.border_title = "standings"
        self._standing_columns()
        schedule = self.query_one("#schedule", DataTable)
        schedule.border_title = "schedule · Enter: watch a live match, replay a finished one"
        self._schedule_columns({})
        disputes = self.query_one("#disputes", DataTable)
        disputes.border_title = "open disputes (o: open at the event)"
        _columns(disputes, DISPUTE_COLUMNS)
        shown = self.director_token is not None
        disputes.set_class(shown, "shown")
        disputes.can_focus = shown  # hidden, it must not take the focus (Tab)
        schedule.focus()
        self.load()
        self.set_interval(REFRESH_SECONDS, self.load)

    # ------------------------------------------------------------ the standings' width

    def wants_full(self) -> bool:
        if self.full_asked is not None:
            return self.full_asked
        return self.size.width > COMPACT_UP_TO

    def _standing_columns(self) -> None:
        """(Re)build the standings' columns for the width (or ``f``) and the tournament's format
        (its chain: a Swiss's Score Bch SB W PD PC, a tables tournament's Pts MP 1st), if they change."""
        full = self.wants_full()
        layout = (full, format_of(self.tournament or {}), is_duplicate(self.tournament or {}))
        if layout == self.standings_layout:
            return
        self.full, self.standings_layout = full, layout
        standings = self.query_one("#standings", DataTable)
        standings.clear(columns=True)
        _columns(standings, standings_columns(self.tournament or {}, full))
        if self.tournament is not None:
            self._fill_standings(self.tournament)

    def _fill_standings(self, t: dict[str, Any]) -> None:
        standings = self.query_one("#standings", DataTable)
        cells = standings_cells(t, bool(self.full))
        self._fill(standings, list(zip(standing_keys(t), cells, strict=False)))
        compact_words = "standings · decided by" if format_of(t) == "round_robin" else "standings · by: decided by"
        standings.border_title = "standings" if self.full else compact_words
        standings.border_subtitle = "" if self.full else standings_legend(t)  # the abbreviations

    def _schedule_columns(self, t: dict[str, Any]) -> None:
        """(Re)build the schedule's columns for the format (a tables tournament's seats in one cell)."""
        columns = schedule_columns(t)
        if columns == self.schedule_layout:
            return
        self.schedule_layout = columns
        schedule = self.query_one("#schedule", DataTable)
        schedule.clear(columns=True)
        _columns(schedule, columns)

    def _fill_schedule(self) -> None:
        schedule = self.query_one("#schedule", DataTable)
        room = self.table_room()
        self._fill(schedule, [(row.key, self._schedule_cells(row, room)) for row in self.schedule])

    def table_room(self) -> int:
        """How wide a table's seats may be in the schedule before they wrap: the width less the
        slot and status columns, the borders and the cell padding."""
        return max(24, self.size.width - 30)

    def on_resize(self, event: Resize) -> None:
        self._standing_columns()
        if self.tournament is not None and is_table_tournament(self.tournament):
            self._fill_schedule()  # the seats wrap to the new width

    def action_full_standings(self) -> None:
        self.full_asked = not self.wants_full()
        self._standing_columns()

    def say(self, words: str, style: str = "") -> None:
        """A line under the tables; none (and no room taken from the schedule) when ``words`` is empty."""
        status = self.query_one("#tour-status", Static)
        status.update(Text(words, style=style))
        status.set_class(bool(words), "shown")

    # ------------------------------------------------------------ workers

    def director_api(self) -> Api:
        assert self.director_token is not None
        return Api(self.play.server, self.director_token)

    @work(exclusive=True, group="tournament")
    async def load(self) -> None:
        try:
            tournament = with_labels(await self.play.api.tournament(self.tournament_id))  # "[bot]" on bot accounts
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
        self.load_season(self.play.api, self.tournament_id)

    @work(exclusive=True, group="open")
    async def open_replay(self, match: str, seq: int, title: str, dispute: DisputeRow | None = None) -> None:
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
        self.post_message(OpenScreen(MatchScrubber(model, seq, dispute)))

    @work(exclusive=True, group="open")
    async def open_live_match(self, dispute: DisputeRow) -> None:
        """A live match's dispute: the director's events so far (every opening) in the scrubber,
        at the disputed event, in the audit perspective."""
        self.say(f"fetching the events of {dispute.match} (live) for the dispute at #{dispute.seq}…")
        api = self.director_api()
        try:
            envelopes = await director_events(api, dispute.match)
            model = ReplayModel.from_live(dispute.match, envelopes, self._players_of(dispute.match), api.server)
        except ApiError as error:
            self.post_message(TournamentFailed(f"cannot read the events of {dispute.match}: {error.words()}"))
            return
        except ReplayUnreadable as exc:
            self.post_message(TournamentFailed(f"the events of {dispute.match} are not readable: {exc}"))
            return
        finally:
            await api.aclose()
        if not model.ok:
            title = f"NOT VERIFIED · dispute {dispute.id} · {dispute.match}"
            self.post_message(OpenScreen(TextScreen(title, "\n".join(failure_lines(model)))))
            return
        self.post_message(OpenScreen(MatchScrubber(model, dispute.seq, dispute)))

    def _players_of(self, match: str) -> list[str]:
        """The seats' ids of ``match`` from the schedule (a replay header's ``players``)."""
        row = next((r for r in self.schedule if r.match == match), None)
        return list(row.seats) if row is not None else ["", ""]

    # ------------------------------------------------------------ results

    def on_tournament_loaded(self, message: TournamentLoaded) -> None:
        self.loads += 1
        t = message.tournament
        self.tournament = t
        self.query_one("#tour-title", Static).update(Text(title_words(t), style="bold"))
        if is_knockout(t):
            self._draw_bracket(t)
        self._standing_columns()  # the format's columns (a no-op once they are built)
        self._fill_standings(t)
        self.schedule = schedule_rows(t)
        self._schedule_columns(t)
        self._fill_schedule()
        schedule = self.query_one("#schedule", DataTable)
        if is_table_tournament(t):
            schedule.border_title = "schedule · tables by place (totals) · Enter: watch live, replay finished"
        else:
            schedule.border_title = (
                f"schedule · results winner first ({tournament_rule(t) or 'see the ruleset'})"
                " · Enter: watch live, replay finished"
            )
        if message.disputes is not None:
            self.disputes = dispute_rows(message.disputes, t)
            disputes = self.query_one("#disputes", DataTable)
            self._fill(disputes, [(row.id, row.cells) for row in self.disputes])
            disputes.border_title = f"open disputes ({len(self.disputes)}) · o: open at the event"
        if message.note:
            self.say(message.note, "bold #ff5252")

    # ------------------------------------------------------------ a knockout's bracket

    def me(self) -> str | None:
        credentials = self.play.credentials
        return credentials.player_id if credentials else None

    def my_nodes(self, t: dict[str, Any]) -> frozenset[str]:
        """The bracket's matches the signed-in player sits at (none for a spectator)."""
        return path_of(nodes_of(t), self.me()).mine

    def _draw_bracket(self, t: dict[str, Any]) -> None:
        """Draw the bracket (again: a refresh keeps the scroll); the first time, show it in
        place of the standings and the schedule, the player's own match in view."""
        bracket = self.query_one("#bracket", BracketView)
        bracket.show(draw(t, self.me()))
        mine = " · m: my match" if self.my_nodes(t) else ""  # a spectator or a director has none
        bracket.border_title = f"bracket · arrows/PgUp/PgDn scroll{mine} · b: schedule"
        if self.bracket_shown is None:
            self._show_bracket(True)
            self.refresh_bindings()
            if t.get("status") != "finished":  # once finished, the places at the top come first
                self.call_after_refresh(self.action_my_match, quiet=True)

    def _show_bracket(self, shown: bool) -> None:
        self.bracket_shown = shown
        bracket = self.query_one("#bracket", BracketView)
        bracket.set_class(shown, "shown")
        for other in ("#standings", "#schedule"):
            self.query_one(other, DataTable).set_class(shown, "hidden")
        (bracket if shown else self.query_one("#schedule", DataTable)).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A knockout's keys only on a knockout (the footer shows them first there); the
        standings' and the schedule's keys not while the bracket hides them."""
        knockout = self.tournament is not None and is_knockout(self.tournament)
        if action == "bracket":
            return knockout
        if action == "my_match":
            return knockout and bool(self.bracket_shown) and bool(self.my_nodes(self.tournament or {}))
        if action in ("full_standings", "player", "open_row") and self.bracket_shown:
            return False
        return True

    def action_bracket(self) -> None:
        """``b``: a knockout's bracket, or its standings and schedule (to watch or replay a match)."""
        if self.tournament is None or not is_knockout(self.tournament):
            self.say("this tournament has no bracket (not a knockout)", "italic")
            return
        self._show_bracket(not self.bracket_shown)
        self.refresh_bindings()

    def action_my_match(self, quiet: bool = False) -> None:
        """``m``: the player's match now (or the last they played) into view."""
        if self.tournament is None or not self.bracket_shown:
            return
        nodes = nodes_of(self.tournament)
        path = path_of(nodes, self.me())
        mine = [n for n in nodes if n.id in path.mine]
        target = path.current or (max(mine, key=lambda n: n.round).id if mine else None)
        if target is None:
            if not quiet:
                self.say("you have no match in this bracket", "italic")
            return
        self.query_one("#bracket", BracketView).scroll_to_node(target)

    @staticmethod
    def _schedule_cells(row: ScheduleRow, room: int = 80) -> tuple[str | Text, ...]:
        """A schedule row's cells, styled; a table's seats wrapped (between seats) to ``room``."""
        if row.kind == "round":
            return tuple(Text(c, style="bold") for c in row.cells)
        if row.kind in ("bye", "note"):
            return tuple(Text(c, style="dim italic") for c in row.cells)
        style = {"live": "bold #4caf50", "pending": "dim", "cancelled": "dim strike"}.get(row.status, "")
        cells: list[str | Text] = list(row.cells)
        if row.parts:  # a table: its seats, then its status
            cells[1] = Text("\n".join(seat_lines(row.parts, room)))
            cells[2] = Text(row.cells[2], style=style)
        else:
            cells[3] = Text(row.status, style=style)
        return tuple(cells)

    @staticmethod
    def _fill(table: DataTable[Any], rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Replace the rows, keeping the cursor on the same item (its key), wherever it moved;
        on the same line only if that item is gone. A cell of several lines (a table's seats)
        makes its row that tall."""
        cursor = table.cursor_row
        key = row_key_at(table, cursor)
        table.clear()
        for row_key, cells in rows:
            drawn = [literal(c) for c in cells]  # a str cell is read as markup: names are shown as written
            height = max([1, *(len(c.plain.split("\n")) for c in drawn)])
            table.add_row(*drawn, key=row_key, height=height)
        if not rows:
            return
        keys = [row_key for row_key, _cells in rows]
        row = keys.index(key) if key in keys else min(max(cursor, 0), len(rows) - 1)
        table.move_cursor(row=row, animate=False)

    def on_tournament_failed(self, message: TournamentFailed) -> None:
        self.say(message.words, "bold #ff5252")

    def on_open_screen(self, message: OpenScreen) -> None:
        self.say("")
        self.app.push_screen(message.screen)

    def on_data_table_row_selected(self, message: DataTable.RowSelected) -> None:
        message.stop()
        key = message.row_key.value
        if message.data_table.id == "schedule":
            self.open_schedule_row(next((i for i, r in enumerate(self.schedule) if r.key == key), -1))
        elif message.data_table.id == "disputes":
            self.open_dispute_row(next((i for i, d in enumerate(self.disputes) if d.id == key), -1))

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
            self.open_replay(dispute.match, dispute.seq, f"dispute {dispute.id}", dispute)
        else:
            self.open_live_match(dispute)

    def action_open_row(self) -> None:
        focused = self.focused
        if isinstance(focused, DataTable) and focused.id == "disputes":
            self.open_dispute_row(self._index_of_cursor(focused, [d.id for d in self.disputes]))
        else:
            schedule = self.query_one("#schedule", DataTable)
            self.open_schedule_row(self._index_of_cursor(schedule, [r.key for r in self.schedule]))

    @staticmethod
    def _index_of_cursor(table: DataTable[Any], keys: list[str]) -> int:
        """The item under the table's cursor, found by its key (not by the row's number)."""
        key = row_key_at(table, table.cursor_row)
        return keys.index(key) if key in keys else -1

    def action_open_dispute(self) -> None:
        if self.director_token is None:
            self.say("only the director sees disputes (--director-token or UNODUO_DIRECTOR_TOKEN)", "italic")
            return
        if not self.disputes:
            self.say("no open dispute", "italic")
            return
        table = self.query_one("#disputes", DataTable)
        self.open_dispute_row(max(0, self._index_of_cursor(table, [d.id for d in self.disputes])))

    def action_refresh(self) -> None:
        self.load()

    def action_player(self) -> None:
        """``p``: the page of the player highlighted in the standings (ratings, history)."""
        standings = self.query_one("#standings", DataTable)
        player = row_key_at(standings, standings.cursor_row)
        if player is None:
            self.say("no standings yet: nobody to show", "italic")
            return
        self.app.push_screen(PlayerScreen(player))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen("tournament"))

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()
