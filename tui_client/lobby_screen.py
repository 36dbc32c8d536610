"""The lobby of ``unoduo play`` (docs/TUI.md "The lobby"): who you are on this server, your next
tournament pairing, your matches, live matches to watch, and a house bot to play now.

It signs in once (the app keeps the token, ``tui_client.config``), then lists what
``lobby_model`` makes of ``GET /api/me`` and the running tournaments. Every network call runs in
a worker and hands its result back as a message; opening a table or a tournament is the app's
(:class:`tui_client.play_host.PlayHost`).
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from tui_client.api import Api, ApiError
from tui_client.config import Credentials
from tui_client.help_screen import HelpScreen
from tui_client.lobby_model import LobbyEntry, is_member, lobby_entries, next_lines, seat_names
from tui_client.play_host import PlayHost, host_of
from tui_client.play_widgets import ActionButton
from tui_client.signin_screen import EXISTING, NEW, SignedInAs, SignInScreen, accounts_of
from tui_client.tournament_model import TournamentLine, tournament_lines

MAX_TOURNAMENTS = 20  # running tournaments looked into for matches to watch

LOBBY_CSS = """
#lobby-title { height: 1; background: $panel; }
#lobby-body { height: 1fr; padding: 0 1; }
#me, #next { height: auto; margin: 1 0 0 0; }
#matches { height: 1fr; min-height: 4; margin: 1 0 0 0; border: round $primary; }
#lobby-buttons { height: auto; }
#lobby-buttons Button { margin: 0 1 0 0; }
#name { width: 40; }
#lobby-status { height: auto; min-height: 1; }
"""


# ---------------------------------------------------------------- messages from the workers


class SignedIn(Message):
    def __init__(self, credentials: Credentials, note: str) -> None:
        super().__init__()
        self.credentials = credentials
        self.note = note


class NeedName(Message):
    """Nobody is signed in: the sign-in screen, with ``name`` filled in and ``words`` saying why (a
    name that is taken opens it on "existing player")."""

    def __init__(self, name: str = "", mode: str = NEW, words: str = "") -> None:
        super().__init__()
        self.name = name
        self.mode = mode
        self.words = words


class LobbyLoaded(Message):
    def __init__(
        self, me: dict[str, Any], tournaments: list[dict[str, Any]], listed: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__()
        self.me = me
        self.tournaments = tournaments
        self.listed = listed or []  # GET /api/tournaments: every tournament, for the lobby's lines


class LobbyFailed(Message):
    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words


class TableReady(Message):
    """A match to open: the player's seat in it (None: to watch) and the seats' names."""

    def __init__(self, match: str, seat: int | None, names: tuple[str, str]) -> None:
        super().__init__()
        self.match = match
        self.seat = seat
        self.names = names


# ---------------------------------------------------------------- the screen


class LobbyScreen(Screen[None]):
    """Who you are on this server, your next pairing, your matches and matches to watch."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "bot('bot:greedy')", "greedy bot"),
        Binding("n", "bot('bot:random')", "random bot"),
        Binding("t", "tournament", "tournament"),
        Binding("r", "refresh", "refresh"),
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[LobbyEntry] = []
        self.tournament_lines: list[TournamentLine] = []
        self.me: dict[str, Any] | None = None

    @property
    def play(self) -> PlayHost:
        return host_of(self)

    def compose(self) -> ComposeResult:
        yield Static(Text(f"unoduo play · {self.play.server}", style="bold"), id="lobby-title")
        with Vertical(id="lobby-body"):
            yield Static("signing in…", id="me")
            yield Static("", id="next")
            yield OptionList(id="matches")
            with Horizontal(id="lobby-buttons"):
                yield ActionButton(
                    "Play greedy bot (g)", id="bot-greedy", compact=True, action="screen.bot('bot:greedy')"
                )
                yield ActionButton(
                    "Play random bot (n)", id="bot-random", compact=True, action="screen.bot('bot:random')"
                )
                yield ActionButton("Refresh (r)", id="refresh", compact=True, action="screen.refresh")
                yield ActionButton("Quit (q)", id="quit", compact=True, action="app.quit")
            yield Static("", id="lobby-status")
        yield Footer()

    def on_mount(self) -> None:
        self.sign_in(self.play.player_name)

    def on_screen_resume(self) -> None:
        if self.play.credentials is not None:
            self.load()

    def say(self, words: str, style: str = "") -> None:
        self.query_one("#lobby-status", Static).update(Text(words, style=style))

    # ------------------------------------------------------------ workers

    @work(exclusive=True, group="lobby")
    async def sign_in(self, name: str | None) -> None:
        try:
            credentials, note = await self.play.sign_in(name)
        except ApiError as error:
            if error.code == "name_taken" and name:  # never a second account of that name: sign in as it
                words = f"{name} is taken here. If that is you, sign in with your password or a director's code."
                self.post_message(NeedName(name, EXISTING, words))
            elif error.status == 401 and name:  # the --password or --code given was not that player's
                self.post_message(NeedName(name, EXISTING, error.words()))
            else:
                self.post_message(LobbyFailed(error.words()))
            return
        if credentials is None:
            self.post_message(NeedName())
            return
        self.post_message(SignedIn(credentials, note))

    @work(exclusive=True, group="lobby")
    async def load(self) -> None:
        api = self.play.api
        try:
            me = await api.me()
            listed = await api.tournaments()
            tournaments = await self._tournaments(api, listed, str(me.get("id")))
        except ApiError as error:
            self.post_message(LobbyFailed(error.words()))
            return
        self.post_message(LobbyLoaded(me, tournaments, listed))

    async def _tournaments(self, api: Api, listed: list[dict[str, Any]], player_id: str) -> list[dict[str, Any]]:
        running = [t for t in listed if t.get("status") == "running"][:MAX_TOURNAMENTS]
        details = await asyncio.gather(*(api.tournament(str(t.get("id"))) for t in running))
        return [t for t in details if is_member(t, player_id)]

    @work(exclusive=True, group="open")
    async def start_bot(self, opponent: str) -> None:
        api = self.play.api
        try:
            summary = await api.create_match(opponent, self.play.move_seconds)
            await api.join(str(summary["id"]), secrets.token_hex(16))
        except ApiError as error:
            self.post_message(LobbyFailed(f"could not start a match: {error.words()}"))
            return
        self.post_message(TableReady(str(summary["id"]), 0, seat_names(summary)))

    @work(exclusive=True, group="open")
    async def join_and_open(self, entry: LobbyEntry) -> None:
        try:
            await self.play.api.join(entry.match, secrets.token_hex(16))
        except ApiError as error:
            if error.code != "not_now":  # not_now: this seat joined before (from another run)
                self.post_message(LobbyFailed(f"could not join: {error.words()}"))
                return
        self.post_message(TableReady(entry.match, entry.seat, entry.names))

    # ------------------------------------------------------------ results

    def on_need_name(self, message: NeedName) -> None:
        self.query_one("#me", Static).update("not signed in yet")
        screen = SignInScreen(accounts_of(self), self.play.server, message.name, message.mode, message.words)
        self.app.push_screen(screen, self._signed_in)

    def _signed_in(self, result: SignedInAs | None) -> None:
        if result is not None:
            self.play.credentials = result.credentials
            self.post_message(SignedIn(result.credentials, result.note))

    def on_signed_in(self, message: SignedIn) -> None:
        c = message.credentials
        self.query_one("#me", Static).update(Text.assemble("you are ", (c.name, "bold"), (f"  ({c.player_id})", "dim")))
        if message.note:
            self.say(message.note, "italic")
        self.load()

    def on_lobby_loaded(self, message: LobbyLoaded) -> None:
        self.me = message.me
        self.entries = lobby_entries(
            message.me, message.tournaments, {str(t["id"]): str(t["name"]) for t in message.tournaments}
        )
        lines = next_lines(message.me, message.tournaments)
        nxt = self.query_one("#next", Static)
        nxt.update(
            "next: " + "\n      ".join(lines) if lines else Text("no tournament pairing waiting for you", style="dim")
        )
        options = self.query_one("#matches", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        self.tournament_lines = tournament_lines(
            message.listed[:MAX_TOURNAMENTS], (str(t.get("id")) for t in message.tournaments)
        )
        if self.entries:
            options.add_options([Option(e.text, id=e.option_id) for e in self.entries])
        else:
            options.add_option(
                Option(Text("no matches yet: press g to play the greedy bot", style="dim"), disabled=True)
            )
        options.add_options([Option(line.text, id=line.option_id) for line in self.tournament_lines])
        if self.entries or self.tournament_lines:
            first = 0 if self.entries else 1
            options.highlighted = min(max(highlighted or 0, first), options.option_count - 1)
        options.border_title = f"matches ({len(self.entries)})"
        options.focus()

    def on_lobby_failed(self, message: LobbyFailed) -> None:
        self.say(message.words, "bold #ff5252")

    def on_table_ready(self, message: TableReady) -> None:
        self.say("")
        self.play.open_table(message.match, message.seat, message.names)

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        line = next((t for t in self.tournament_lines if t.option_id == message.option.id), None)
        if line is not None:
            self.play.open_tournament(line.tournament)
            return
        entry = next((e for e in self.entries if e.option_id == message.option.id), None)
        if entry is None:
            return
        if entry.kind == "join":
            self.say(f"joining {entry.match}…")
            self.join_and_open(entry)
        else:
            self.play.open_table(entry.match, entry.seat, entry.names)

    # ------------------------------------------------------------ actions

    def action_bot(self, opponent: str) -> None:
        if self.play.credentials is None:
            self.say("register first", "bold #f9c80e")
            return
        self.say(f"starting a match against {opponent}…")
        self.start_bot(opponent)

    def action_refresh(self) -> None:
        if self.play.credentials is not None:
            self.load()

    def action_tournament(self) -> None:
        """The tournament of the highlighted line: a tournament line, or a tournament match's."""
        options = self.query_one("#matches", OptionList)
        index = options.highlighted
        option_id = options.get_option_at_index(index).id if index is not None else None
        line = next((t for t in self.tournament_lines if t.option_id == option_id), None)
        if line is not None:
            self.play.open_tournament(line.tournament)
            return
        entry = next((e for e in self.entries if e.option_id == option_id), None)
        summaries = (self.me or {}).get("matches") or []
        tournament = next(
            (m.get("tournament") for m in summaries if entry is not None and m.get("id") == entry.match), None
        )
        if tournament:
            self.play.open_tournament(str(tournament))
        elif self.tournament_lines:
            self.say("highlight a tournament line (tour …), then press t", "italic")
        else:
            self.say("no tournament on this server yet", "italic")

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())
