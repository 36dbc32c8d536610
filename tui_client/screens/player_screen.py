"""The player screen of ``unoduo play`` (docs/TUI.md "The player screen").

:class:`PlayerScreen` shows one player's page (``GET /api/players/{id}``, public): the rating in
each family (``1523 ± 87``; ``1500?`` while provisional), a chart of the rating over the rated
matches of one family (``f`` switches), the match history (newest first) and, beside the chart,
head-to-head (``t`` shows the player's tournaments there instead). Enter on a match watches it
live or opens its replay; Enter on a head-to-head row opens that opponent's page.

Reached from the lobby (``i``: your own page), from a tournament's standings (``p`` on the
highlighted player) and with ``unoduo play --player NAME``. The rows and words come from
``player_model``; the page is fetched in a worker, and a refusal is said in the status line.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Static

from engine.game.errors import ReplayUnreadable
from tui_client.apps.replay_app import failure_lines
from tui_client.connection.api import ApiError
from tui_client.connection.remote import FetchFailed, fetch_replay
from tui_client.models.player_model import (
    HEAD_TO_HEAD_COLUMNS,
    HISTORY_COLUMNS,
    TOURNAMENT_COLUMNS,
    ChartSeries,
    HeadToHeadRow,
    HistoryRow,
    TournamentRow,
    chart_rows,
    chart_series,
    default_family,
    family_words,
    head_to_head_rows,
    history_rows,
    next_family,
    ratings,
    review_words,
    title_words,
    tournament_rows,
)
from tui_client.models.replay_model import ReplayModel
from tui_client.screens.play_host import PlayHost, host_of
from tui_client.screens.replay_screens import MatchScrubber, TextScreen
from tui_client.screens.too_small import MinimumSize
from tui_client.widgets.replay_widgets import row_key_at

SHORT_DATES_BELOW = 76  # narrower than this, the history's dates lose their year


class PlayerLoaded(Message):
    def __init__(self, page: dict[str, Any]) -> None:
        super().__init__()
        self.page = page


class PlayerFailed(Message):
    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words


class OpenReplay(Message):
    def __init__(self, screen: Screen[None]) -> None:
        super().__init__()
        self.screen = screen


class RatingChart(Widget):
    """A family's rating as a braille line: the y-axis on the left (high, middle, low), the
    first and last match's dates below. Draws :func:`player_model.chart_rows` at its size."""

    DEFAULT_CSS = """
    RatingChart { height: 1fr; width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.series: ChartSeries | None = None

    def show(self, series: ChartSeries) -> None:
        self.series = series
        self.refresh()

    def render(self) -> Text:
        series = self.series
        if series is None:
            return Text("loading…", style="dim")
        if not series.values:
            return Text(series.summary, style="dim italic")
        width, height = self.size.width, self.size.height
        rows = chart_rows(series, width, max(1, height - 1))
        out = Text(no_wrap=True, overflow="crop")
        for index, (axis, line) in enumerate(rows):
            if index:
                out.append("\n")
            out.append(axis, style="dim")
            out.append(line, style="bold")
        if height > 1 and rows:
            pad = len(rows[0][0]) - 1
            first, _, last = series.span.partition(" … ")
            room = width - pad - 1
            foot = first if not last else first + last.rjust(max(1, room - len(first)))
            out.append("\n" + " " * pad + "└", style="dim")
            out.append(foot[:room], style="dim")
        return out


PLAYER_CSS = """
PlayerScreen #player-title { height: 1; background: $panel; }
PlayerScreen #player-ratings { height: auto; padding: 0 1; }
PlayerScreen #player-top { height: 42%; min-height: 6; }
PlayerScreen #chart { border: round $primary; padding: 0 1 0 0; }
PlayerScreen #side { width: 40%; min-width: 24; max-width: 44; height: 1fr; border: round $primary; }
PlayerScreen #history { height: 1fr; min-height: 4; border: round $primary; }
PlayerScreen #player-status { height: auto; min-height: 1; }
"""


class PlayerScreen(MinimumSize, Screen[None]):
    """One player's page: ratings, the rating chart, match history, head-to-head."""

    DEFAULT_CSS = PLAYER_CSS
    MIN_SIZE: ClassVar[tuple[int, int]] = (60, 18)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_row", "open", key_display="⏎"),
        Binding("f", "family", "family"),
        Binding("t", "side", "h2h / tournaments"),
        Binding("tab", "app.focus_next", "next table", show=False),
        Binding("r", "refresh", "refresh"),
        Binding("q", "back", "back"),
        Binding("escape", "back", "back", show=False),
    ]

    def __init__(self, player: str) -> None:
        super().__init__()
        self.entry = player  # the id or name asked for
        self.page: dict[str, Any] | None = None
        self.family: str | None = None  # the chart's family (None: the page's default)
        self.side = "head_to_head"  # or "tournaments"
        self.history: list[HistoryRow] = []
        self.h2h: list[HeadToHeadRow] = []
        self.tournaments: list[TournamentRow] = []
        self.loads = 0  # pages received (the tests wait on it)
        self.failures = 0

    @property
    def play(self) -> PlayHost:
        return host_of(self)

    def compose(self) -> ComposeResult:
        yield Static(Text(f"player {self.entry} · loading…", style="bold"), id="player-title")
        yield Static("", id="player-ratings")
        with Horizontal(id="player-top"):
            yield RatingChart(id="chart")
            yield DataTable(id="side", cursor_type="row")
        yield DataTable(id="history", cursor_type="row", zebra_stripes=True)
        yield Static("", id="player-status")
        yield Footer()

    def on_mount(self) -> None:
        history = self.query_one("#history", DataTable)
        history.border_title = "matches"
        for key, label in HISTORY_COLUMNS:
            history.add_column(label, key=key)
        self.query_one("#chart", RatingChart).border_title = "rating"
        self._side_columns()
        history.focus()
        self.load()

    # ------------------------------------------------------------ the worker

    @work(exclusive=True, group="player")
    async def load(self) -> None:
        try:
            page = await self.play.api.player(self.entry)
        except ApiError as error:
            self.post_message(PlayerFailed(f"cannot load the player {self.entry}: {error.words()}"))
            return
        self.post_message(PlayerLoaded(page))

    @work(exclusive=True, group="open")
    async def open_replay(self, match: str, title: str) -> None:
        self.say(f"fetching the replay of {match}…")
        try:
            text = await fetch_replay(self.play.server, match)
            model = ReplayModel(text, source=f"{self.play.server} {match}")
        except (FetchFailed, ReplayUnreadable) as exc:
            self.post_message(PlayerFailed(f"cannot open the replay of {match}: {exc}"))
            return
        if not model.ok:
            self.post_message(OpenReplay(TextScreen(f"NOT VERIFIED · {title}", "\n".join(failure_lines(model)))))
            return
        self.post_message(OpenReplay(MatchScrubber(model)))

    # ------------------------------------------------------------ drawing

    def say(self, words: str, style: str = "") -> None:
        self.query_one("#player-status", Static).update(Text(words, style=style))

    def on_player_loaded(self, message: PlayerLoaded) -> None:
        self.loads += 1
        page = message.page
        self.page = page
        self.query_one("#player-title", Static).update(Text(title_words(page), style="bold"))
        if "ratings" not in page:
            self.say("this server has no ratings or match history for its players yet", "italic")
        else:
            self.say("")
        if self.family is None:
            self.family = default_family(page)
        self.draw()

    def on_player_failed(self, message: PlayerFailed) -> None:
        self.failures += 1
        self.say(message.words, "bold #ff5252")

    def on_open_replay(self, message: OpenReplay) -> None:
        self.say("")
        self.app.push_screen(message.screen)

    def draw(self) -> None:
        if self.page is None:
            return
        self._draw_ratings()
        self._draw_chart()
        self._draw_history()
        self._draw_side()

    def _draw_ratings(self) -> None:
        assert self.page is not None
        out = Text()
        for index, rating in enumerate(ratings(self.page)):
            if index:
                out.append("   ")
            chosen = rating.family == self.family
            out.append(family_words(rating.family) + " ", style="bold" if chosen else "dim")
            out.append(rating.text, style="bold reverse" if chosen else "bold")
            games = f" · {rating.games_words}" if self.size.width >= SHORT_DATES_BELOW else f" ({rating.games})"
            out.append(games, style="" if chosen else "dim")
        if any(r.provisional for r in ratings(self.page)) and self.size.width >= SHORT_DATES_BELOW:
            out.append("   ? provisional", style="dim italic")
        reviewed = review_words(self.page)
        if reviewed:
            out.append("\n" + reviewed[: self.size.width], style="dim")
        self.query_one("#player-ratings", Static).update(out)

    def _draw_chart(self) -> None:
        assert self.page is not None and self.family is not None
        series = chart_series(self.page, self.family)
        chart = self.query_one("#chart", RatingChart)
        chart.show(series)
        other = next_family(self.page, self.family)
        switch = f" · f: {family_words(other)}" if other != self.family else ""
        chart.border_title = f"rating · {family_words(self.family)}{switch}"
        chart.border_subtitle = series.summary if series.values else ""

    def history_widths(self) -> tuple[tuple[int, int], bool]:
        """How wide the opponent and event cells may be at this width, and whether the dates
        lose their year: the fixed columns (date, result, score, change), the cell padding and
        the border take the rest."""
        short = self.size.width < SHORT_DATES_BELOW
        fixed = (5 if short else 10) + 8 + 7 + 4 + 2 * len(HISTORY_COLUMNS) + 3
        room = max(12, self.size.width - fixed)
        opponent = max(8, room * 11 // 20)
        return (opponent, max(6, room - opponent)), short

    def _draw_history(self) -> None:
        assert self.page is not None
        widths, short = self.history_widths()
        self.history = history_rows(self.page.get("history"), widths, short)
        table = self.query_one("#history", DataTable)
        cells: list[tuple[str, tuple[Text, ...]]] = []
        for row in self.history:
            styled = [Text(c) for c in row.cells]  # Text: a name's "[bot]" is not markup
            styled[4] = Text(row.cells[4], justify="right")
            if row.status == "live":
                styled[2] = Text(row.cells[2], style="bold")
            elif row.status in ("annulled", "waiting"):
                styled[2] = Text(row.cells[2], style="dim italic")
            cells.append((row.key, tuple(styled)))
        fill(table, HISTORY_COLUMNS, cells)
        count = len(self.history)
        table.border_title = (
            f"matches ({count}, newest first) · Enter: watch / replay" if count else "matches: none yet"
        )

    def _side_columns(self) -> None:
        side = self.query_one("#side", DataTable)
        side.clear(columns=True)
        columns = HEAD_TO_HEAD_COLUMNS if self.side == "head_to_head" else TOURNAMENT_COLUMNS
        for key, label in columns:
            side.add_column(label, key=key)

    def _draw_side(self) -> None:
        assert self.page is not None
        side = self.query_one("#side", DataTable)
        # the opponent's column: the panel less the played and W–L–D columns and the cell padding
        room = max(8, side.size.width - 14) if side.size.width else 14
        if self.side == "head_to_head":
            self.h2h = head_to_head_rows(self.page, width=room)
            fill(side, HEAD_TO_HEAD_COLUMNS, [(row.key, tuple(Text(c) for c in row.cells)) for row in self.h2h])
            side.border_title = "head-to-head · t: tournaments" if self.h2h else "head-to-head: none yet"
        else:
            # the name's column: the panel less the status (4) and place (8) columns and the padding
            self.tournaments = tournament_rows(self.page, width=max(8, side.size.width - 18), short=True)
            rows = [(row.tournament, tuple(Text(c) for c in row.cells)) for row in self.tournaments]
            fill(side, TOURNAMENT_COLUMNS, rows)
            side.border_title = "tournaments · t: head-to-head" if self.tournaments else "tournaments: none"

    def on_resize(self, event: Resize) -> None:
        if self.page is not None:
            self._draw_ratings()
            self._draw_history()
            self._draw_side()

    # ------------------------------------------------------------ actions

    def action_family(self) -> None:
        if self.page is None or self.family is None:
            return
        self.family = next_family(self.page, self.family)
        self._draw_ratings()
        self._draw_chart()

    def action_side(self) -> None:
        self.side = "tournaments" if self.side == "head_to_head" else "head_to_head"
        self._side_columns()
        if self.page is not None:
            self._draw_side()

    def action_refresh(self) -> None:
        self.load()

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()

    def action_open_row(self) -> None:
        focused = self.focused
        if isinstance(focused, DataTable) and focused.id == "side":
            self.open_side_row(row_key_at(focused, focused.cursor_row))
        else:
            history = self.query_one("#history", DataTable)
            self.open_history_row(row_key_at(history, history.cursor_row))

    def on_data_table_row_selected(self, message: DataTable.RowSelected) -> None:
        message.stop()
        key = message.row_key.value
        if message.data_table.id == "history":
            self.open_history_row(None if key is None else str(key))
        elif message.data_table.id == "side":
            self.open_side_row(None if key is None else str(key))

    def is_me(self) -> bool:
        credentials = self.play.credentials
        return credentials is not None and self.page is not None and credentials.player_id == self.page.get("id")

    def open_history_row(self, key: str | None) -> None:
        row = next((r for r in self.history if r.key == key), None)
        if row is None:
            return
        if row.status == "live":
            self.play.open_table(row.match, row.seat if self.is_me() else None, row.names)
        elif row.status == "finished":
            self.open_replay(row.match, f"{row.match} · {row.cells[1]}")
        else:
            self.say(f"{row.match} is {row.status}: nothing to watch", "italic")

    def open_side_row(self, key: str | None) -> None:
        if key is None:
            return
        if self.side == "head_to_head":
            self.app.push_screen(PlayerScreen(key))
        else:
            self.play.open_tournament(key)


def fill(table: DataTable[Any], columns: tuple[tuple[str, str], ...], rows: list[tuple[str, tuple[Text, ...]]]) -> None:
    """Replace the columns and rows, each column as wide as its widest cell, set here rather than
    measured by the table (under textual-serve the table measured its first cells on a console not
    yet sized and kept the labels' widths); the cursor stays on the same item (its key)."""
    key = row_key_at(table, table.cursor_row)
    table.clear(columns=True)
    for index, (column_key, label) in enumerate(columns):
        width = max([len(label), *(cell_width(cells[index]) for _key, cells in rows)])
        table.add_column(label, key=column_key, width=width)
    for row_key, cells in rows:
        table.add_row(*cells, key=row_key)
    keys = [row_key for row_key, _cells in rows]
    if key in keys:
        table.move_cursor(row=keys.index(key), animate=False)


def cell_width(cell: Text) -> int:
    return max((cell_len(line) for line in cell.plain.split("\n")), default=0)
