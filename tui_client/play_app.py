"""``unoduo play``: the lobby and the table of the terminal client (docs/TUI.md "Playing").

:func:`make_play_app` builds the app. The lobby registers once (the token is kept in the config
directory, ``tui_client.config``), lists the player's matches, their next tournament pairing and
live matches to watch, and starts a match against a house bot. The table follows one match over
its WebSocket and sends the player's commands on it. Every network call runs in a Textual worker
and hands its result back as a message; nothing here blocks the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, OptionList, Static
from textual.widgets.option_list import Option
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from tui_client.api import CLOSE_MATCH_OVER, FINAL_CLOSE_CODES, Api, ApiError
from tui_client.config import ConfigStore, Credentials
from tui_client.lobby_model import LobbyEntry, is_member, lobby_entries, next_lines, seat_names
from tui_client.play_model import PlayModel
from tui_client.play_widgets import (
    HandView,
    PlayLog,
    check_text,
    opponent_text,
    prompt_text,
    status_text,
    table_text,
    title_text,
)
from tui_client.tournament_model import TournamentLine, tournament_lines
from tui_client.tournament_screen import TOURNAMENT_CSS, TournamentScreen

HOUSE_BOTS = ("bot:greedy", "bot:random")
MAX_TOURNAMENTS = 20  # running tournaments looked into for matches to watch
RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0)  # then every 2 s
UNANSWERED_SECONDS = 15.0  # a command with no answer by then is given up (the events would have said)
SAVE_AFTER = frozenset({"awaiting", "round_ended", "match_ended", "seed_revealed", "uno_said", "uno_caught"})

CSS = """
#lobby-title, #table-title { height: 1; background: $panel; }
#lobby-body { height: 1fr; padding: 0 1; }
#me, #next { height: auto; margin: 1 0 0 0; }
#matches { height: 1fr; min-height: 4; margin: 1 0 0 0; border: round $primary; }
#lobby-buttons, #actions { height: auto; }
#actions Button, #lobby-buttons Button { margin: 0 1 0 0; }
#name { width: 40; }
#lobby-status { height: auto; min-height: 1; }
#banner { height: 1; background: #8b1a1a; color: #ffffff; text-style: bold; display: none; }
#banner.shown { display: block; }
#opponent { height: auto; }
#table { height: 2; }
#prompt { height: 1; margin: 1 0 0 0; }
#hand { margin: 0 0 0 0; }
#status { height: auto; max-height: 3; }
#help-body { width: 74; height: auto; border: round $primary; padding: 1 2; background: $panel; }
HelpScreen { align: center middle; }
"""


# ---------------------------------------------------------------- messages from the workers


class SignedIn(Message):
    def __init__(self, credentials: Credentials, note: str) -> None:
        super().__init__()
        self.credentials = credentials
        self.note = note


class NeedName(Message):
    pass


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


class SocketMessage(Message):
    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__()
        self.data = data


class SocketUp(Message):
    def __init__(self, since: int) -> None:
        super().__init__()
        self.since = since


class SocketDown(Message):
    def __init__(self, since: int, reason: str) -> None:
        super().__init__()
        self.since = since
        self.reason = reason


class SocketEnded(Message):
    """The socket closed for good: the match is over (``final`` False) or it cannot be followed."""

    def __init__(self, reason: str, final: bool) -> None:
        super().__init__()
        self.reason = reason
        self.final = final


class ActionButton(Button, can_focus=False):
    """A button that never takes the focus: the screen's keys stay the screen's (Enter plays)."""


# ---------------------------------------------------------------- help


HELP = """[b]The table[/b]

  ← →      choose a card
  Enter    play it (in the draft: keep the card looked at)
  k        keep the card looked at (draft) · keep the drawn card
  p        pass it (draft) · keep the drawn card · do not dump
  d        draw (facing a volley: take the whole total)
  u        UNO: say it (with 2 cards: with your next play), or catch
  c  a     challenge · accept a Wild Draw Four played on you
  x        dump every card of the colour
  r y g b  name a colour (for a Wild, or a Wild starter)
  Esc      choose another card instead of naming a colour
  ?        this help
  q        back to the lobby

Click a card to select it, click it again to play it; every action
has a button too. Only what the server lists as legal is offered.

[b]The lobby[/b]
  Enter open · t tournament · g greedy bot · n random bot
  r refresh · q quit

[b]A tournament[/b]
  Enter watch a live pairing / replay a finished one
  o open a dispute (director) · Tab next table · r refresh · q back

(press any key to close)"""


class HelpScreen(ModalScreen[None]):
    def compose(self) -> ComposeResult:
        yield Static(HELP, id="help-body")

    def on_key(self, event: Any) -> None:
        event.stop()
        self.dismiss()

    def on_click(self) -> None:
        self.dismiss()


# ---------------------------------------------------------------- the lobby


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
    def play(self) -> PlayApp:
        app = self.app
        assert isinstance(app, PlayApp)
        return app

    def compose(self) -> ComposeResult:
        yield Static(Text(f"unoduo play · {self.play.server}", style="bold"), id="lobby-title")
        with Vertical(id="lobby-body"):
            yield Static("signing in…", id="me")
            yield Input(placeholder="your name on this server, then Enter", id="name", max_length=100)
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
        self.query_one("#name", Input).display = False
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

    def on_need_name(self, _message: NeedName) -> None:
        self.query_one("#me", Static).update("Welcome! Choose the name you will play under on this server:")
        field = self.query_one("#name", Input)
        field.display = True
        field.focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        name = message.value.strip()
        if name:
            self.query_one("#name", Input).display = False
            self.query_one("#me", Static).update(f"registering {name}…")
            self.sign_in(name)

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
        if not self.query_one("#name", Input).display:
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


# ---------------------------------------------------------------- the table


BUTTONS: tuple[tuple[str, str, str], ...] = (
    # (id, label, action)
    ("b-play", "Play (⏎)", "screen.act('play')"),
    ("b-keep", "Keep (k)", "screen.act('keep')"),
    ("b-draft_pass", "Pass (p)", "screen.act('draft_pass')"),
    ("b-draw", "Draw (d)", "screen.act('draw')"),
    ("b-pass", "Keep it (p)", "screen.act('pass')"),
    ("b-dump", "Dump (x)", "screen.act('dump')"),
    ("b-accept", "Accept (a)", "screen.act('accept')"),
    ("b-challenge", "Challenge (c)", "screen.act('challenge')"),
    ("b-uno", "UNO! (u)", "screen.act('uno')"),
    ("b-red", "red (r)", "screen.colour('red')"),
    ("b-yellow", "yellow (y)", "screen.colour('yellow')"),
    ("b-green", "green (g)", "screen.colour('green')"),
    ("b-blue", "blue (b)", "screen.colour('blue')"),
    ("b-help", "Help (?)", "screen.help"),
    ("b-leave", "Leave (q)", "screen.leave"),
)
COLOUR_BUTTONS = ("b-red", "b-yellow", "b-green", "b-blue")


class PlayScreen(Screen[None]):
    """One match live: a seat's table (or a spectator's), its socket, its checks and receipt."""

    AUTO_FOCUS = None

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "card", key_display="←"),
        Binding("right", "move(1)", "card", key_display="→"),
        Binding("enter", "act('enter')", "play", key_display="⏎"),
        Binding("k", "act('keep')", "keep"),
        Binding("p", "act('pass')", "pass"),
        Binding("d", "act('draw')", "draw"),
        Binding("u", "act('uno')", "UNO"),
        Binding("c", "act('challenge')", "challenge", show=False),
        Binding("a", "act('accept')", "accept", show=False),
        Binding("x", "act('dump')", "dump", show=False),
        Binding("r", "colour('red')", "red", show=False),
        Binding("y", "colour('yellow')", "yellow", show=False),
        Binding("g", "colour('green')", "green", show=False),
        Binding("b", "colour('blue')", "blue", show=False),
        Binding("escape", "cancel", "cancel", show=False),
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("q", "leave", "leave"),
    ]

    def __init__(self, api: Api, store: ConfigStore, model: PlayModel) -> None:
        super().__init__()
        self.api = api
        self.store = store
        self.model = model
        self.socket: ClientConnection | None = None
        self.connected = False
        self.ended: str | None = None  # why the socket closed for good
        self.banner = ""
        self.received_seq = model.last_seq  # the socket worker's own count, for since=
        self.receipt_due = False

    def compose(self) -> ComposeResult:
        yield Static(id="table-title")
        yield Static(id="banner")
        yield Static(id="opponent")
        yield Static(id="table")
        yield Static(id="prompt")
        yield HandView(self.model, id="hand")
        with Horizontal(id="actions"):
            for button_id, label, action in BUTTONS:
                yield ActionButton(label, id=button_id, compact=True, action=action)
        yield PlayLog(self.model, id="log")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.redraw()
        self.set_interval(0.25, self.tick)
        self.follow()

    # ------------------------------------------------------------ the socket

    @work(exclusive=True, group="socket")
    async def follow(self) -> None:
        """Read the match's socket; reconnect from the last ``seq`` whenever it drops."""
        failures = 0
        while True:
            since = self.received_seq
            try:
                socket = await self.api.open_socket(self.model.match, since)
            except ApiError as error:
                if error.code == "final":
                    self.post_message(SocketEnded(await self._why_refused(error), final=True))
                    return
                self.post_message(SocketDown(since, error.message))
                await asyncio.sleep(RECONNECT_DELAYS[min(failures, len(RECONNECT_DELAYS) - 1)])
                failures += 1
                continue
            self.socket = socket
            self.post_message(SocketUp(since))
            failures = 0
            try:
                async for text in socket:
                    try:
                        data = json.loads(text)
                    except ValueError:
                        continue
                    if not isinstance(data, dict):
                        continue
                    if data.get("type") == "event" and isinstance(data.get("event"), dict):
                        seq = data["event"].get("seq")
                        if isinstance(seq, int):
                            self.received_seq = seq
                    self.post_message(SocketMessage(data))
            except ConnectionClosed:
                pass
            finally:
                self.socket = None
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(socket.close(), 1.0)
            code, reason = socket.close_code, socket.close_reason or ""
            if code == CLOSE_MATCH_OVER:
                self.post_message(SocketEnded(reason or "the match is over", final=False))
                return
            if code in FINAL_CLOSE_CODES:
                self.post_message(SocketEnded(f"{FINAL_CLOSE_CODES[code]}: {reason}", final=True))
                return
            self.post_message(SocketDown(self.received_seq, reason or f"closed ({code})"))
            await asyncio.sleep(RECONNECT_DELAYS[0])

    async def _why_refused(self, error: ApiError) -> str:
        """A socket refused before it opened says only 403: the HTTP view of the match says why."""
        try:
            await self.api.match(self.model.match)
        except ApiError as refusal:
            return refusal.words()
        return error.message

    @work(group="send")
    async def send(self, envelope: dict[str, Any]) -> None:
        socket = self.socket
        try:
            if socket is None:
                raise ConnectionError("not connected")
            await socket.send(json.dumps(envelope))
        except (ConnectionError, ConnectionClosed):
            self.model.lost_connection()
            self.model.note("not connected: the command was not sent; try again once reconnected", "refusal")
            self.redraw()

    def on_socket_message(self, message: SocketMessage) -> None:
        problems = self.model.apply(message.data)
        event = message.data.get("event") or {}
        if problems:
            self.save_receipt()
        elif event.get("type") in SAVE_AFTER:
            self.receipt_due = True  # written by the next tick: one write for a burst of events
        self.redraw()

    def on_socket_up(self, message: SocketUp) -> None:
        was_down = bool(self.banner)
        self.connected = True
        self.banner = ""
        if was_down:
            self.model.note(f"reconnected: resumed after #{message.since}")
        self.redraw()

    def on_socket_down(self, message: SocketDown) -> None:
        self.connected = False
        self.model.lost_connection()
        reason = message.reason if len(message.reason) <= 48 else message.reason[:47] + "…"
        self.banner = f"connection lost — reconnecting… resuming from #{message.since} · {reason}"
        self.save_receipt()
        self.redraw()

    def on_socket_ended(self, message: SocketEnded) -> None:
        self.connected = False
        self.ended = message.reason
        if not message.final:
            self.model.check.finished()
        self.banner = f"cannot follow this match: {message.reason}" if message.final else ""
        if not message.final:
            self.model.note(f"the socket closed: {message.reason}")
        self.save_receipt()
        self.redraw()

    def save_receipt(self) -> None:
        self.receipt_due = False
        if self.model.last_seq:
            with contextlib.suppress(OSError):
                self.store.save_receipt(self.model.receipt())

    # ------------------------------------------------------------ drawing

    def redraw(self) -> None:
        m = self.model
        title = title_text(m)
        title.append("  ")
        title.append_text(check_text(m))
        self.query_one("#table-title", Static).update(title)
        banner = self.query_one("#banner", Static)
        banner.update(self.banner)
        banner.set_class(bool(self.banner), "shown")
        self.query_one("#opponent", Static).update(opponent_text(m))
        self.query_one("#table", Static).update(table_text(m))
        self.tick()
        self.query_one(HandView).refresh(layout=True)
        self.query_one(PlayLog).refresh()
        self.query_one("#status", Static).update(status_text(m))
        self._buttons()

    def tick(self) -> None:
        if self.receipt_due:
            self.save_receipt()
        if self.model.expire(UNANSWERED_SECONDS):
            self.redraw()
            return
        self.query_one("#prompt", Static).update(prompt_text(self.model, self.model.seconds_left()))

    def _buttons(self) -> None:
        m = self.model
        offers = {o.action: o for o in m.offers()} if self.connected and m.outstanding is None else {}
        colours = m.choosing_color is not None or "color" in offers
        for button_id, _label, _action in BUTTONS:
            button = self.query_one(f"#{button_id}", Button)
            action = button_id.removeprefix("b-")
            if button_id in COLOUR_BUTTONS:
                button.display = colours
            elif action in ("help", "leave"):
                button.display = True
            else:
                offer = offers.get(action)
                button.display = offer is not None and not (action == "play" and m.choosing_color is not None)
                if offer is not None:
                    key = "⏎" if offer.key == "enter" else offer.key
                    button.label = f"{offer.label} ({key})"

    # ------------------------------------------------------------ actions

    def act_on(self, action: str, color: str | None = None) -> None:
        m = self.model
        if not self.connected and not m.over:
            m.note("not connected: wait for the connection to come back", "refusal")
            self.redraw()
            return
        decision = m.decide(action, color)
        if decision.command is not None:
            self.send_command(decision.command)
        elif decision.note is not None:
            m.note(decision.note, "note")
        self.redraw()

    def send_command(self, command: dict[str, Any]) -> dict[str, Any]:
        """Send ``command`` as it is (with a fresh command_id and the current version): the server judges it."""
        envelope = self.model.envelope(command)
        self.model.note("")
        self.send(envelope)
        return envelope

    def action_act(self, action: str) -> None:
        self.act_on(action)

    def action_colour(self, color: str) -> None:
        self.act_on("color", color)

    def action_move(self, delta: int) -> None:
        self.model.move(delta)
        self.redraw()

    def action_cancel(self) -> None:
        self.model.cancel()
        self.redraw()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_leave(self) -> None:
        self.save_receipt()
        self.workers.cancel_group(self, "socket")
        self.app.pop_screen()

    def on_hand_view_picked(self, message: HandView.Picked) -> None:
        m = self.model
        if message.index == m.selected and m.my_decision and m.selected_card in m.playable:
            self.act_on("play")
            return
        m.select(message.index)
        self.redraw()

    def on_unmount(self) -> None:
        self.save_receipt()


# ---------------------------------------------------------------- the app


class PlayApp(App[None]):
    """``unoduo play`` for one server: the lobby first, a table per match opened."""

    CSS = CSS + TOURNAMENT_CSS
    TITLE = "unoduo play"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        server: str,
        name: str | None = None,
        *,
        config_dir: Path | str | None = None,
        move_seconds: int | None = None,
        tournament: str | None = None,
        director_token: str | None = None,
        api: Api | None = None,
    ) -> None:
        super().__init__()
        self.store = ConfigStore(server, config_dir)
        self.server = self.store.server
        self.player_name = name.strip() if name else None
        self.move_seconds = move_seconds
        self.api = api if api is not None else Api(self.server)
        self.credentials: Credentials | None = None
        self.tournament = tournament
        self.director_token = director_token or None

    def on_mount(self) -> None:
        if self.tournament is not None:
            # Straight to the tournament: no sign-in needed to watch; a saved token is used if
            # there is one (so the player's own pairing opens at their seat).
            saved = self.store.load_credentials()
            if saved is not None:
                self.api.token = saved.token
                self.credentials = saved
            self.open_tournament(self.tournament)
            return
        self.push_screen(LobbyScreen())

    async def on_unmount(self) -> None:
        await self.api.aclose()

    async def sign_in(self, name: str | None) -> tuple[Credentials | None, str]:
        """The saved credentials for this server, checked with ``GET /api/me``; or a new
        registration under ``name``. (None, "") when nothing is saved and no name is given."""
        saved = self.store.load_credentials()
        if saved is not None:
            self.api.token = saved.token
            try:
                await self.api.me()
            except ApiError as error:
                if error.status != 401:
                    raise
                self.store.forget_credentials()
                self.api.token = None
                again = name or saved.name
                credentials = await self.register_player(again)
                note = f"this server no longer knows your saved token (was its database reset?): registered again as {again}"
                return credentials, note
            self.credentials = saved
            note = "" if name in (None, saved.name) else f"already registered here as {saved.name}: --name is not used"
            return saved, note
        if not name:
            return None, ""
        return await self.register_player(
            name
        ), f"registered as {name}; your token is saved in {self.store.credentials_path}"

    async def register_player(self, name: str) -> Credentials:
        self.api.token = None
        player = await self.api.register(name)
        credentials = Credentials(self.server, str(player["id"]), str(player["name"]), str(player["token"]))
        self.store.save_credentials(credentials)
        self.api.token = credentials.token
        self.credentials = credentials
        return credentials

    def open_tournament(self, tournament: str) -> TournamentScreen:
        screen = TournamentScreen(tournament, self.director_token)
        self.push_screen(screen)
        return screen

    def open_table(self, match: str, seat: int | None, names: tuple[str, str]) -> PlayScreen:
        model = PlayModel(match, seat, list(names), earlier=self.store.receipt(match))
        screen = PlayScreen(self.api, self.store, model)
        self.push_screen(screen)
        return screen


def make_play_app(
    server_url: str,
    name: str | None = None,
    *,
    config_dir: Path | str | None = None,
    move_seconds: int | None = None,
    tournament: str | None = None,
    director_token: str | None = None,
    api: Api | None = None,
) -> PlayApp:
    """The client for ``server_url``: registers as ``name`` the first time (the token is kept in
    ``config_dir``, by default the user's config directory); ``move_seconds`` is the clock of the
    house-bot matches it starts (the server's default if None). With ``tournament`` it opens on
    that tournament's screen; ``director_token`` shows its open disputes there. ``api`` is the
    connection to use instead of a new ``Api(server_url)`` (tests hand in one on a fake transport)."""
    return PlayApp(
        server_url,
        name,
        config_dir=config_dir,
        move_seconds=move_seconds,
        tournament=tournament,
        director_token=director_token,
        api=api,
    )
