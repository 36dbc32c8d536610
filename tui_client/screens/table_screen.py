"""The live table of ``unoduo play`` (docs/TUI.md "The table"): one match followed over its
WebSocket, at a seat or as a spectator, the player's commands sent on it.

:class:`PlayScreen` draws a :class:`~tui_client.models.play_model.PlayModel` (``play_widgets``), which
checks every event's hash and the hidden cards' openings as they arrive; the socket is read by a
worker that reconnects from the last ``seq`` whenever it drops, and the receipt is saved in the
config directory.

``!`` disputes an event (the one picked in the log with ↑/↓, else the latest) with a note
(:class:`~tui_client.screens.dispute_note.DisputeNoteScreen`); ``e`` writes the proof of the last
challenge or caught UNO the seat took part in (``tui_client.models.proof_key``). A table the lobby
opened to play (``back_when_over``) goes back to the lobby :data:`RETURN_SECONDS` after the match is over (the
result stays on screen until then; Enter goes at once, ``s`` stays). When the director's ruling
annuls the match the lobby calls :meth:`PlayScreen.annul`: the table says so and offers no more
moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Static
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from engine.protocol.socket_protocol import FINAL, FINAL_WORDS, Close, Reconnect, envelopes_of
from tui_client.connection.api import Api, ApiError
from tui_client.connection.config import ConfigStore
from tui_client.models.play_model import PlayModel, round_deadline_in
from tui_client.models.proof_key import PROOFS_DIR, write_last_proof
from tui_client.screens.dispute_note import DisputeNoteScreen
from tui_client.screens.help_screen import HelpScreen
from tui_client.screens.too_small import MinimumSize
from tui_client.widgets.play_widgets import (
    ActionButton,
    HandView,
    PlayLog,
    check_text,
    is_big_table,
    opponents_text,
    prompt_text,
    status_text,
    table_text,
    title_text,
)

UNANSWERED_SECONDS = 15.0  # a command with no answer by then is given up (the events would have said)
SAVE_AFTER = frozenset({"awaiting", "round_ended", "match_ended", "seed_revealed", "uno_said", "uno_caught"})
RETURN_SECONDS = 10.0  # after the match is over, back to the lobby (a table opened to play)
OTHER_LINES = 19  # the table's lines besides the opponents panel, with five lines of log
SEAT_LINES_MIN = 3  # the opponents panel never gets fewer lines than this (then more columns)
SHORT_HEIGHT = 24  # below this, a big table's prompt loses its margin and the buttons go

TABLE_CSS = """
#table-title { height: auto; max-height: 2; background: $panel; }
#actions { height: auto; }
#actions Button { margin: 0 1 0 0; min-width: 0; width: auto; }
#banner { height: 1; background: #8b1a1a; color: #ffffff; text-style: bold; display: none; }
#banner.shown { display: block; }
#opponent { height: auto; }
#table { height: 2; }
PlayScreen #table { height: auto; max-height: 3; }  /* a round limit's words may wrap */
#prompt { height: auto; max-height: 2; margin: 1 0 0 0; }
#hand { margin: 0 0 0 0; }
#status { height: auto; max-height: 3; }
#after { height: auto; background: $boost; text-style: bold; display: none; }
#after.shown { display: block; }
PlayScreen.big-table.short #prompt { margin: 0; }
PlayScreen.big-table.short #actions { display: none; }
PlayScreen Footer.-compact FooterLabel { margin: 0 1 0 0; }
"""


# ---------------------------------------------------------------- messages from the socket worker


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


# ---------------------------------------------------------------- the screen


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
CARD = Binding.Group("card", compact=True)  # ←→ card: one entry of the footer


class DisputeAnswer(Message):
    """The server's answer to a dispute: the dispute recorded, or the refusal in words."""

    def __init__(self, seq: int, dispute: dict[str, Any] | None, words: str) -> None:
        super().__init__()
        self.seq = seq
        self.dispute = dispute
        self.words = words


class PlayScreen(MinimumSize, Screen[None]):
    """One match live: a seat's table (or a spectator's), its socket, its checks and receipt."""

    AUTO_FOCUS = None
    MIN_SIZE = (60, 20)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "card", key_display="←", group=CARD),
        Binding("right", "move(1)", "card", key_display="→", group=CARD),
        Binding("enter", "act('enter')", "play", key_display="⏎"),
        Binding("k", "act('keep')", "keep", show=False),  # the prompt and the buttons say k and p when they apply
        Binding("p", "act('pass')", "pass", show=False),
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
        Binding("up", "pick(-1)", "event", key_display="↑", show=False),
        Binding("down", "pick(1)", "event", key_display="↓", show=False),
        Binding("exclamation_mark", "dispute", "dispute", key_display="!"),
        Binding("e", "proof", "proof", show=False),
        Binding("s", "stay", "stay", show=False),
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
        self.back_when_over = False  # set by the lobby for a table it opened to play
        self.return_at: float | None = None  # time.monotonic() when it goes back to the lobby
        self.next_words: str | None = None  # the lobby has the next table ready: what it is
        self.disputes: list[dict[str, Any]] = []  # the disputes raised from this table
        self.drafts: dict[int, str] = {}  # notes begun and not sent (Esc), by the event disputed

    def compose(self) -> ComposeResult:
        yield Static(id="table-title")
        yield Static(id="banner")
        yield Static(id="opponent")
        yield Static(id="table")
        yield Static(id="prompt")
        yield Static(id="after")
        yield HandView(self.model, id="hand")
        with Horizontal(id="actions"):
            for button_id, label, action in BUTTONS:
                yield ActionButton(label, id=button_id, compact=True, action=action)
        yield PlayLog(self.model, id="log")
        yield Static(id="status")
        yield Footer(compact=True)  # every key shown fits 60 columns, ? and q with them (issue 33.5)

    async def on_mount(self) -> None:  # MinimumSize's on_mount runs too (Textual calls each class's)
        self.redraw()
        self.set_interval(0.25, self.tick)
        self.follow()  # an annulled match too: its events can still be read
        self.load_round_deadline()

    @work(group="round", exit_on_error=False)
    async def load_round_deadline(self) -> None:
        """A timed tournament round's deadline (RULES.md D26), for the round clock in the title:
        read once, from the match's summary and its tournament. Not found: no round clock."""
        with contextlib.suppress(ApiError):
            summary = (await self.api.match(self.model.match)).get("match") or {}
            tournament, number = summary.get("tournament"), summary.get("round")
            if isinstance(tournament, str) and number is not None:
                self.model.round_deadline = round_deadline_in(await self.api.tournament(tournament), number)
                self.redraw()

    # ------------------------------------------------------------ the socket

    @work(exclusive=True, group="socket")
    async def follow(self) -> None:
        """Read the match's socket; reconnect from the last ``seq`` whenever it drops."""
        pauses = Reconnect()
        while True:
            since = self.received_seq
            try:
                socket = await self.api.open_socket(self.model.match, since)
            except ApiError as error:
                if error.code == "final":
                    self.post_message(SocketEnded(await self._why_refused(error), final=True))
                    return
                self.post_message(SocketDown(since, error.message))
                await asyncio.sleep(pauses.next_delay())
                continue
            self.socket = socket
            self.post_message(SocketUp(since))
            try:
                async for text in socket:
                    try:
                        data = json.loads(text)
                    except ValueError:
                        continue
                    if not isinstance(data, dict):
                        continue
                    pauses.heard()
                    events = envelopes_of(data)  # an event's, or a decision's (the last is the latest)
                    seq = events[-1].get("seq") if events else None
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
            if code == Close.OVER:
                self.post_message(SocketEnded(reason or "the match is over", final=False))
                return
            if code in FINAL:  # the server's refusal: the HTTP view of the match says it best
                closed = ApiError(0, "final", f"{FINAL_WORDS[code]}: {reason}")
                self.post_message(SocketEnded(await self._why_refused(closed), final=True))
                return
            self.post_message(SocketDown(self.received_seq, reason or f"closed ({code})"))
            await asyncio.sleep(pauses.next_delay())

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
        if problems:
            self.save_receipt()
        elif any(event.get("type") in SAVE_AFTER for event in envelopes_of(message.data)):
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
        self._title()
        banner = self.query_one("#banner", Static)
        banner.update(Text(self.banner))  # may quote the server's words, names in them: never markup
        banner.set_class(bool(self.banner), "shown")
        self._seats()
        self.query_one("#table", Static).update(table_text(m))
        self.tick()
        self.query_one(HandView).refresh(layout=True)
        self.query_one(PlayLog).refresh()
        self.query_one("#status", Static).update(status_text(m))
        self.query_one(PlayLog).border_title = self._log_title()
        self._buttons()

    def _seats_room(self) -> tuple[int, int]:
        """The opponents panel's room: the screen's width, and the lines it may take so that the
        hand, the prompt and a few lines of the log still fit (a table of 10 at 80×24: two
        columns of five)."""
        width, height = self.size.width or 80, self.size.height or 24
        return width, max(SEAT_LINES_MIN, height - OTHER_LINES)

    def on_resize(self, event: Resize) -> None:  # MinimumSize's on_resize runs too
        if self.is_mounted:
            self._seats()

    def _seats(self) -> None:
        """The opponents, laid out for the screen's size. A table of more than two below
        :data:`SHORT_HEIGHT` lines (down to 60×20) gives up the blank line above the prompt
        and the buttons (the footer has the same keys) so that the log keeps a few lines."""
        big = is_big_table(self.model)
        self.set_class(big, "big-table")
        self.set_class((self.size.height or SHORT_HEIGHT) < SHORT_HEIGHT, "short")
        self.query_one("#opponent", Static).update(opponents_text(self.model, *self._seats_room()))

    def _log_title(self) -> str:
        target = self.model.dispute_target()
        if target is None:
            return "events"
        return f"events · ↑↓ pick · ! dispute #{target.seq}"

    def tick(self) -> None:
        if self.receipt_due:
            self.save_receipt()
        if self.model.expire(UNANSWERED_SECONDS):
            self.redraw()
            return
        self.query_one("#prompt", Static).update(prompt_text(self.model, self.model.seconds_left()))
        if self.model.round_deadline is not None:  # a timed round's clock counts down in the title
            self._title()
        self._after()

    def _title(self) -> None:
        title = title_text(self.model)
        title.append("  ")
        title.append_text(check_text(self.model))
        self.query_one("#table-title", Static).update(title)

    def _after(self) -> None:
        """The line under the prompt once nothing more is played here: where to go next, and when."""
        m = self.model
        after = self.query_one("#after", Static)
        if not m.finished or (m.watching and m.annulled is None):
            after.set_class(False, "shown")
            return
        if self.back_when_over and self.return_at is None and m.over and m.annulled is None:
            self.return_at = time.monotonic() + RETURN_SECONDS
        nxt = f"next: {self.next_words} — " if self.next_words else ""
        if self.return_at is not None:
            left = self.return_at - time.monotonic()
            if left <= 0 and self.app.screen is self:
                self.go_on()
                return
            where = "opens" if self.next_words else "back to the lobby"
            words = f"{nxt}{where} in {max(0, int(left + 0.999))} s · Enter: now · s: stay here"
        elif m.annulled is not None:
            words = f"{nxt}Enter: {'open it' if self.next_words else 'back to the lobby'}"
        else:
            words = f"{nxt}Enter or q: back to the lobby"
        after.update(Text(words))  # the next table's words name players: never markup
        after.set_class(True, "shown")

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
        if not self.connected and not m.finished:
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
        if action == "enter" and self.model.finished and not self.model.watching:
            self.go_on()
            return
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
        self.return_at = None
        if self.app.screen is self:
            self.app.pop_screen()

    def go_on(self) -> None:
        """Back to the lobby (which opens the next table, if one is ready)."""
        self.action_leave()

    def action_stay(self) -> None:
        if self.return_at is not None:
            self.return_at = None
            self.model.note("staying at this table: q goes back to the lobby")
            self.redraw()

    def action_pick(self, delta: int) -> None:
        self.model.pick_event(delta)
        self.redraw()

    # ------------------------------------------------------------ what the lobby tells the table

    def annul(self, words: str) -> None:
        """The director's ruling annulled this match: say so, offer nothing, stop following it."""
        if self.model.annulled == words:
            return
        self.model.annul(words)
        self.workers.cancel_group(self, "socket")
        self.socket = None
        self.connected = False
        self.banner = ""
        self.save_receipt()
        self.redraw()

    def next_ready(self, words: str) -> None:
        """The lobby has taken the seat of the next match (``words``: which); Enter opens it."""
        self.next_words = words
        if self.model.annulled is not None and self.back_when_over and self.return_at is None:
            self.return_at = time.monotonic() + RETURN_SECONDS
        self.redraw()

    # ------------------------------------------------------------ disputes

    def action_dispute(self) -> None:
        m = self.model
        if m.watching:
            m.note("only a seat of the match can dispute it", "refusal")
            self.redraw()
            return
        target = m.dispute_target()
        if target is None:
            m.note("no event to dispute yet", "refusal")
            self.redraw()
            return
        seq = target.seq
        before = m.picked
        m.picked = seq  # the disputed event stays marked, and on screen, while the note is written
        self.redraw()

        def sent(note: str | None) -> None:
            if note is not None:
                self.drafts.pop(seq, None)
                m.note(f"sending your dispute of #{seq} to the director…")
                self.send_dispute(seq, note)
            elif screen.draft.strip():
                self.drafts[seq] = screen.draft  # moved first: ! finishes the note
                m.note(f"your note on #{seq} is kept: ! finishes it")
            else:
                self.drafts.pop(seq, None)
                m.picked = before
                m.note(f"no dispute of #{seq}")
            self.redraw()

        screen = DisputeNoteScreen(seq, target.text, self.drafts.get(seq, ""), clock=self.my_clock)
        self.app.push_screen(screen, sent)

    def my_clock(self) -> float | None:
        """The seconds left for this seat's own decision (None when it is not its move)."""
        return self.model.seconds_left() if self.model.my_decision else None

    def action_proof(self) -> None:
        """``e``: the proof of the last challenge or caught UNO this seat took part in, to a file."""
        m = self.model
        done = write_last_proof(m.received, m.seat, m.match, self.store.dir / PROOFS_DIR)
        m.note(done.words, "note" if done.path is not None else "refusal")
        self.redraw()

    @work(group="dispute")
    async def send_dispute(self, seq: int, note: str) -> None:
        try:
            dispute = await self.api.open_dispute(self.model.match, seq, note)
        except ApiError as error:
            self.post_message(DisputeAnswer(seq, None, f"the dispute of #{seq} was refused: {error.words()}"))
            return
        self.post_message(
            DisputeAnswer(seq, dispute, f"dispute of #{seq} sent ({dispute.get('id')}): the director will rule on it")
        )

    def on_dispute_answer(self, message: DisputeAnswer) -> None:
        refused = message.dispute is None
        if message.dispute is not None:
            self.disputes.append(message.dispute)
        self.model.note(message.words, "refusal" if refused else "note")
        self.model._add(0, message.words, "refusal" if refused else "note")
        self.model.picked = None
        self.redraw()

    def on_hand_view_picked(self, message: HandView.Picked) -> None:
        m = self.model
        if message.index == m.selected and m.my_decision and m.selected_card in m.playable:
            self.act_on("play")
            return
        m.select(message.index)
        self.redraw()

    def on_unmount(self) -> None:
        self.save_receipt()
