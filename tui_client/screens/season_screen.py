"""The season of a tournament in ``unoduo play`` (docs/TUI.md "The season table").

:class:`SeasonScreen` shows one season (``GET /api/seasons/{id}``, public): its settings, its
events (finished or in play), the table by division (the events that count, by number) and, once
finished, who went up and who went down. :class:`SeasonOfTournament` is the tournament screen's
part: a line under its title naming the season and the player's place and points in it, and
``s`` to open the table. The rows and words come from ``season_view``.
"""

from __future__ import annotations

from typing import Any, ClassVar
from urllib.parse import quote

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from tui_client.connection.api import Api, ApiError
from tui_client.models.season_view import (
    EVENT_COLUMNS,
    LEGEND,
    STANDING_COLUMNS,
    divisions_of,
    event_rows,
    heading_lines,
    move_lines,
    player_season_words,
    standing_cells,
)
from tui_client.screens.play_host import PlayHost, host_of
from tui_client.screens.too_small import MinimumSize
from tui_client.widgets.literal import literal_cells

REFRESH_SECONDS = 5.0


async def season_of(api: Api, tournament_id: str) -> dict[str, Any] | None:
    """The season ``tournament_id`` is in (``GET /api/tournaments/{id}/season``, then the season), or None."""
    found = await api.get(f"/api/tournaments/{quote(tournament_id, safe='')}/season")
    listed = found.get("season") if isinstance(found, dict) else None
    if not isinstance(listed, dict) or not isinstance(listed.get("id"), str):
        return None
    season = await api.get(f"/api/seasons/{quote(listed['id'], safe='')}")
    return season if isinstance(season, dict) else None


class SeasonLoaded(Message):
    def __init__(self, season: dict[str, Any] | None, words: str = "") -> None:
        super().__init__()
        self.season = season
        self.words = words  # why it could not be read ("" when it was)


class SeasonOfTournament:
    """Mix into the tournament screen: ``#tour-season`` says the season and the player's place in
    it (hidden for a tournament in none); ``s`` opens the season's table."""

    # Not in the footer (its line says "s: the season table"): the footer keeps its room for the rest.
    SEASON_BINDINGS: ClassVar[list[BindingType]] = [Binding("s", "season", "season", show=False)]
    season: dict[str, Any] | None = None

    def _screen(self) -> Screen[None]:
        assert isinstance(self, Screen), "SeasonOfTournament is a mixin for the tournament screen"
        return self

    def season_line(self) -> Static:
        return Static("", id="tour-season")

    @work(exclusive=True, group="season")
    async def load_season(self, api: Api, tournament_id: str) -> None:
        screen = self._screen()
        try:
            screen.post_message(SeasonLoaded(await season_of(api, tournament_id)))
        except ApiError as error:
            screen.post_message(SeasonLoaded(None, f"season: {error.words()}"))

    def on_season_loaded(self, message: SeasonLoaded) -> None:
        line = self._screen().query_one("#tour-season", Static)
        if message.season is None and message.words:
            return  # a failed read keeps what was shown
        self.season = message.season
        if self.season is None:
            line.set_class(False, "shown")
            return
        credentials = host_of(self._screen()).credentials
        words = player_season_words(self.season, credentials.player_id if credentials else None)
        line.update(Text(f"{words} · s: the season table"))
        line.set_class(True, "shown")

    def action_season(self) -> None:
        if self.season is None:
            self._screen().notify("this tournament is in no season")
            return
        self._screen().app.push_screen(SeasonScreen(str(self.season["id"])))


class SeasonScreen(MinimumSize, Screen[None]):
    """One season's table, refreshed every few seconds; ``q`` goes back."""

    MIN_SIZE: ClassVar[tuple[int, int]] = (60, 16)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "back", "back"),
        Binding("r", "refresh", "refresh"),
    ]

    def __init__(self, season_id: str) -> None:
        super().__init__()
        self.season_id = season_id
        self.season: dict[str, Any] | None = None
        self.loads = 0  # answers received (the tests wait on it)

    @property
    def play(self) -> PlayHost:
        return host_of(self)

    def compose(self) -> ComposeResult:
        yield Static(Text(f"season {self.season_id} · loading…", style="bold"), id="season-head")
        yield DataTable(id="season-events", cursor_type="row")
        yield DataTable(id="season-table", cursor_type="row", zebra_stripes=True)
        yield Static(Text(LEGEND, style="dim"), id="season-foot")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#season-table", DataTable)
        table.border_title = "season table"
        events = self.query_one("#season-events", DataTable)
        events.border_title = "events (counted by number)"
        for label in EVENT_COLUMNS:
            events.add_column(label, key=label)
        table.focus()
        self.load()
        self.set_interval(REFRESH_SECONDS, self.load)

    @work(exclusive=True, group="season")
    async def load(self) -> None:
        try:
            season = await self.play.api.get(f"/api/seasons/{quote(self.season_id, safe='')}")
        except ApiError as error:
            self.post_message(SeasonLoaded(None, f"cannot load season {self.season_id}: {error.words()}"))
            return
        self.post_message(SeasonLoaded(season if isinstance(season, dict) else None))

    def on_season_loaded(self, message: SeasonLoaded) -> None:
        if message.season is None:
            self.query_one("#season-foot", Static).update(Text(message.words, style="bold #ff5252"))
            return
        self.loads += 1
        self.season = season = message.season
        self.query_one("#season-head", Static).update(Text("\n".join(heading_lines(season)), style="bold"))
        events = self.query_one("#season-events", DataTable)
        events.clear()
        for row in event_rows(season):
            events.add_row(*literal_cells(row))
        table = self.query_one("#season-table", DataTable)
        divisions = divisions_of(season)
        labels = (*(("division",) if divisions != [None] else ()), *STANDING_COLUMNS)  # a column only with divisions
        if tuple(str(c.label) for c in table.columns.values()) != labels:
            table.clear(columns=True)
            for label in labels:
                table.add_column(label, key=label)
        table.clear()
        for division in divisions:
            for cells in standing_cells(season, division):
                table.add_row(*literal_cells((division, *cells) if division is not None else cells))
        foot = [*move_lines(season), LEGEND]
        self.query_one("#season-foot", Static).update(Text("\n".join(foot), style="dim"))

    def action_refresh(self) -> None:
        self.load()

    def action_back(self) -> None:
        self.app.pop_screen()
