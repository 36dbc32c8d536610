"""The lobby of ``unoduo play`` (docs/TUI.md "The lobby"): who you are on this server, your next
tournament pairing, your matches, live matches to watch, open tournaments to enter, your
disputes and their rulings, and a house bot to play now.

It signs in once (the app keeps the token, ``tui_client.connection.config``), then follows the lobby socket
(``tui_client.connection.lobby_feed``): a round that opens a match for the player shows at once with its
join deadline counting down, and (unless auto-join is off: ``a``) the lobby takes the seat
itself with fresh entropy, rings the bell and opens the table. A table it opened comes back here
when its match is over; the next pairing then opens by itself. Every network call runs in a
worker and hands its result back as a message; opening a table or a tournament is the app's
(:class:`tui_client.screens.play_host.PlayHost`).

The list's cursor is kept on the same match or tournament (by id, never by row) when the list
is drawn again.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from tui_client.connection.api import Api, ApiError
from tui_client.connection.config import Credentials
from tui_client.connection.lobby_feed import FeedDown, FeedMessage, FeedUp, follow_lobby
from tui_client.models.lobby_model import (
    LobbyEntry,
    OpenLine,
    Pairing,
    bye_lines,
    cursor_key,
    dispute_lines,
    dispute_where,
    is_member,
    join_text,
    keep_cursor,
    lobby_lines,
    others_words,
    pairing_of,
    pairing_words,
    seat_names,
    seat_of,
    state_tournaments,
    waiting_lines,
    with_ruling,
)
from tui_client.models.tournament_model import TournamentLine
from tui_client.screens.help_screen import HelpScreen
from tui_client.screens.play_host import PlayHost, host_of
from tui_client.screens.signin_screen import EXISTING, NEW, SignedInAs, SignInScreen, accounts_of
from tui_client.screens.table_screen import PlayScreen
from tui_client.screens.table_setup import TableSetupScreen
from tui_client.screens.too_small import MinimumSize
from tui_client.widgets.literal import literal
from tui_client.widgets.play_widgets import ActionButton

MAX_TOURNAMENTS = 20  # running (and open) tournaments looked into

LOBBY_CSS = """
#lobby-title { height: 1; background: $panel; }
#lobby-body { height: 1fr; padding: 0 1; }
#me { height: auto; }
#next { height: auto; max-height: 4; }
#matches { height: 1fr; min-height: 4; border: round $primary; }
#disputes { height: auto; max-height: 6; border: round $warning; padding: 0 1; display: none; }
LobbyScreen.-short #disputes { max-height: 4; }  /* under 24 lines the matches keep the room; Tab reads the rest */
LobbyScreen.-short #matches { min-height: 5; }
#disputes.shown { display: block; }
#disputes-text { height: auto; }
#lobby-buttons { height: auto; }
#lobby-buttons Button { margin: 0 1 0 0; min-width: 0; width: auto; }
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
        self,
        me: dict[str, Any],
        tournaments: list[dict[str, Any]],
        listed: list[dict[str, Any]] | None = None,
        open_details: dict[str, dict[str, Any]] | None = None,
        disputes: list[dict[str, Any]] | None = None,
        state: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.state = state  # the lobby socket's ``lobby`` state these come from (None: fetched)
        self.me = me
        self.tournaments = tournaments
        self.listed = listed or []  # GET /api/tournaments: the newest page, for the lobby's lines
        self.open_details = open_details or {}  # the open tournaments' details (who has entered)
        self.disputes = disputes  # GET /api/me/disputes (None: the server has none to give)


class SignedOut(Message):
    """The token was signed out on the server and forgotten here (``who``: the player it was)."""

    def __init__(self, who: str) -> None:
        super().__init__()
        self.who = who


class LobbyFailed(Message):
    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words


class TableReady(Message):
    """A match to open: the player's seat in it (None: to watch) and the seats' names; ``auto``:
    the lobby took the seat by itself (a pairing), ``why`` says which in words."""

    def __init__(self, match: str, seat: int | None, names: tuple[str, ...], auto: bool = False, why: str = "") -> None:
        super().__init__()
        self.match = match
        self.seat = seat
        self.names = names
        self.auto = auto
        self.why = why


class EntryDone(Message):
    """Entering or leaving an open tournament: what happened, in words."""

    def __init__(self, words: str, ok: bool) -> None:
        super().__init__()
        self.words = words
        self.ok = ok


# ---------------------------------------------------------------- the screen


class LobbyScreen(MinimumSize, Screen[None]):
    """Who you are on this server, your next pairing, your matches and matches to watch."""

    MIN_SIZE = (60, 20)

    # Textual gives the screen the class of its height (-short under 24 lines): see the CSS above.
    # Screen declares it without ClassVar, so mypy refuses one here and ruff asks for it.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (24, "-tall")]  # noqa: RUF012
    # The footer shows ``?`` and ``q`` first, then the common keys; the rest are in ``?``'s help
    # (at 80 columns the footer was cut to "… t tournament  a aut", hiding ?, q and i).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("q", "app.quit", "quit"),
        Binding("g", "bot('bot:greedy')", "greedy bot"),
        Binding("c", "table", "table of 2-10"),
        Binding("e", "entry", "enter/leave"),
        Binding("k", "check_in", "check in", show=False),
        Binding("t", "tournament", "tournament"),
        Binding("n", "bot('bot:random')", "random bot", show=False),
        Binding("o", "bot('bot:coach-3')", "coach bot", show=False),  # issue 37: the search bot, level 3
        Binding("a", "auto_join", "auto-join", show=False),
        Binding("i", "me", "my page", show=False),
        Binding("x", "sign_out", "sign out", show=False),  # twice: a slip of the finger does not sign out
        Binding("r", "refresh", "refresh", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[LobbyEntry] = []
        self.tournament_lines: list[TournamentLine] = []
        self.open_lines: list[OpenLine] = []
        self.tournaments: list[dict[str, Any]] = []
        self.me: dict[str, Any] | None = None
        self.disputes: list[dict[str, Any]] = []
        self.titles: dict[str, str] = {}  # tournament id -> name, for the disputes' lines
        self.pairings: dict[str, Pairing] = {}  # match → the pairing the socket announced
        self.seat_state: dict[str, str] = {}  # match → what the lobby is doing about its seat
        self.taken: set[str] = set()  # matches whose seat this lobby took (or tried to) by itself
        self.opened: set[str] = set()  # matches whose table this lobby opened by itself
        self.queued: TableReady | None = None  # the next table, once the one on screen is done
        self.replaced: dict[str, str] = {}  # annulled match → the match that replays it
        self.auto_join = True  # the app's ``auto_join`` (if it has one) says otherwise on mount
        self.feed_state = "connecting"
        self.feed_started = False
        self.live: dict[str, Any] | None = None  # the latest ``lobby`` state (a server that sends one)
        self.extra_next: list[str] = []  # byes and rounds not paired yet, from the lobby state
        self.signing_out = False  # x pressed once: the next x signs out

    @property
    def play(self) -> PlayHost:
        return host_of(self)

    @property
    def player_id(self) -> str:
        return str((self.me or {}).get("id") or (self.play.credentials.player_id if self.play.credentials else ""))

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="lobby-title")
        with Vertical(id="lobby-body"):
            yield Static("signing in…", id="me")
            yield Static("", id="next")
            yield OptionList(id="matches")
            with VerticalScroll(id="disputes"):  # focusable (Tab): ↑/↓ scroll a long ruling, which wraps
                yield Static("", id="disputes-text")
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

    async def on_mount(self) -> None:  # MinimumSize's on_mount runs too (Textual calls each class's)
        self.auto_join = bool(getattr(self.app, "auto_join", True))
        self.query_one("#lobby-title", Static).update(self._title())
        self.set_interval(0.5, self.tick)
        self.sign_in(self.play.player_name)

    def on_screen_resume(self) -> None:
        queued, self.queued = self.queued, None
        if queued is not None and not self._open_somewhere(queued.match):
            self._open(queued)
            return
        if self.play.credentials is not None:
            self.load()

    def say(self, words: str, style: str = "") -> None:
        self.query_one("#lobby-status", Static).update(Text(words, style=style))

    def _title(self) -> Text:
        out = Text(f"unoduo play · {self.play.server}", style="bold")
        dot = {"live": ("● live", "bold #4cbb55"), "down": ("○ reconnecting…", "bold #f9c80e")}.get(
            self.feed_state, ("○ connecting…", "dim")
        )
        if self.feed_state == "off":
            dot = ("○ not live: r refreshes", "bold #ff5252")
        out.append("  ")
        out.append(*dot)
        out.append("  auto-join " + ("on" if self.auto_join else "off"), style="dim")
        return out

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

    @staticmethod
    def _from_state(state: dict[str, Any]) -> LobbyLoaded:
        """The lobby socket's ``lobby`` state as what the lobby draws (nothing fetched)."""
        return LobbyLoaded(
            dict(state.get("me") or {}),
            state_tournaments(state),
            list(state.get("tournaments") or []),
            {},
            list(state.get("disputes") or []),
            state=state,
        )

    @work(exclusive=True, group="lobby")
    async def load(self, state: dict[str, Any] | None = None) -> None:
        """What the lobby lists: the socket's latest ``lobby`` state when there is one; else
        ``state`` (the socket's, as GET /api/me says) or GET /api/me, the player's running
        tournaments, the open ones, and the player's disputes."""
        if self.live is not None:
            self.post_message(self._from_state(self.live))
            return
        api = self.play.api
        try:
            me = state if state is not None else await api.me()
            listed = await api.tournaments()
            tournaments = await self._tournaments(api, listed, str(me.get("id")))
            open_details = await self._open_details(api, listed)
            disputes = await self._disputes(api)
        except ApiError as error:
            self.post_message(LobbyFailed(error.words()))
            return
        self.post_message(LobbyLoaded(me, tournaments, listed, open_details, disputes))

    async def _tournaments(self, api: Api, listed: list[dict[str, Any]], player_id: str) -> list[dict[str, Any]]:
        running = [t for t in listed if t.get("status") == "running"][:MAX_TOURNAMENTS]
        details = await asyncio.gather(*(api.tournament(str(t.get("id"))) for t in running))
        return [t for t in details if is_member(t, player_id)]

    async def _open_details(self, api: Api, listed: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        entering = [t for t in listed if t.get("open") and t.get("status") == "created" and t.get("entered") is None][
            :MAX_TOURNAMENTS
        ]  # the list says whether the caller is in; a server that does not: the details
        details = await asyncio.gather(*(api.tournament(str(t.get("id"))) for t in entering))
        return {str(d.get("id")): d for d in details}

    async def _disputes(self, api: Api) -> list[dict[str, Any]] | None:
        try:
            return await api.my_disputes()
        except ApiError as error:
            if error.status in (404, 405):
                return None  # a server without GET /api/me/disputes
            raise

    @work(exclusive=True, group="sign-out")
    async def sign_out(self) -> None:
        """Sign the saved token out on the server and forget it here (``Accounts.sign_out``)."""
        try:
            gone = await accounts_of(self).sign_out()
        except ApiError as error:
            self.post_message(LobbyFailed(f"could not sign out: {error.words()}"))
            return
        self.post_message(SignedOut(gone.name if gone is not None else ""))

    @work(exclusive=True, group="feed")
    async def follow(self) -> None:
        await follow_lobby(self.play.api, self.post_message)

    @work(exclusive=True, group="open")
    async def start_bot(self, opponent: str) -> None:
        await self._start(lambda api: api.create_match(opponent, self.play.move_seconds), "a match")

    @work(exclusive=True, group="open")
    async def start_table(self, opponents: list[str]) -> None:
        await self._start(lambda api: api.create_table(opponents, self.play.move_seconds), "the table")

    async def _start(self, create: Callable[[Api], Awaitable[dict[str, Any]]], what: str) -> None:
        """Make a casual match or table, take seat 0 (fresh entropy) and open it; the other people
        at a table see it in their lobby and join from there."""
        api = self.play.api
        try:
            summary = await create(api)
            await api.join(str(summary["id"]), secrets.token_hex(16))
        except ApiError as error:
            self.post_message(LobbyFailed(f"could not start {what}: {error.words()}"))
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

    @work(group="seat")
    async def take_seat(self, match: str, why: str) -> None:
        """Join ``match`` by itself (fresh entropy), then open its table: a pairing never forfeits."""
        api = self.play.api
        try:
            try:
                summary = (await api.join(match, secrets.token_hex(16))).get("match") or {}
            except ApiError as error:
                if error.code != "not_now":  # not_now: this seat had joined already
                    raise
                summary = (await api.match(match)).get("match") or {}
        except ApiError as error:
            self.seat_state[match] = f"could not take your seat: {error.words()}"
            self.post_message(LobbyFailed(f"{why}: could not take your seat: {error.words()}"))
            return
        seat = seat_of(summary, self.player_id)
        self.seat_state[match] = "joined"
        self.post_message(TableReady(match, seat, seat_names(summary), auto=True, why=why))

    @work(group="entry")
    async def change_entry(self, line: OpenLine) -> None:
        api = self.play.api
        try:
            if line.entered:
                await api.leave_tournament(line.tournament, self.player_id)
                words = f"you left {line.name}: you will not be paired in it"
            else:
                await api.enter_tournament(line.tournament)
                words = f"you entered {line.name}: your pairings will show here once the director starts it"
        except ApiError as error:
            verb = "leave" if line.entered else "enter"
            self.post_message(EntryDone(f"could not {verb} {line.name}: {error.words()}", ok=False))
            return
        self.post_message(EntryDone(words, ok=True))

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
        self.tournaments = message.tournaments
        self.extra_next = bye_lines(message.state) if message.state is not None else []
        self.pairings = {  # a pairing under way or over is the list's to show now
            match: pairing
            for match, pairing in self.pairings.items()
            if (self._summary(match) or {}).get("status", "waiting") == "waiting"
        }
        if message.disputes is not None:
            self.disputes = message.disputes
        if not self.feed_started:
            self.feed_started = True
            self.follow()
        lines = lobby_lines(
            message.me,
            message.tournaments,
            message.listed,
            self.disputes,
            open_details=message.open_details,
            mine=self._mine(message),
            shown=MAX_TOURNAMENTS,
        )
        self.entries = lines.entries
        self.titles = {
            **{str(t.get("id")): str(t.get("name") or t.get("id")) for t in message.listed},
            **{str(t.get("id")): str(t.get("name") or t.get("id")) for t in message.tournaments},
        }
        self.open_lines = lines.open
        self.tournament_lines = lines.tournaments
        self._draw_list()
        self._draw_next()
        self._draw_disputes()
        self._seat_waiting_matches()

    def _mine(self, message: LobbyLoaded) -> list[str]:
        """The tournaments the player plays in (a lobby state says it by ``entered``)."""
        if message.state is not None:
            return [str(t.get("id")) for t in message.listed if t.get("entered")]
        return [str(t.get("id")) for t in message.tournaments]

    def _draw_list(self) -> None:
        options = self.query_one("#matches", OptionList)
        index = options.highlighted
        before = options.get_option_at_index(index).id if index is not None and index < options.option_count else None
        options.clear_options()
        if self.entries:
            options.add_options([Option(literal(self._entry_text(e)), id=e.option_id) for e in self.entries])
        else:
            options.add_option(
                Option(
                    Text("no matches yet: o plays the coach bot, g greedy, c a classic table", style="dim"),
                    disabled=True,
                )
            )
        options.add_options([Option(literal(line.text), id=line.option_id) for line in self.open_lines])
        options.add_options([Option(literal(line.text), id=line.option_id) for line in self.tournament_lines])
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        keys = [cursor_key(x) if x is not None else None for x in ids]
        at = keep_cursor(cursor_key(before) if before else None, keys, index)
        if at is not None:
            options.highlighted = at
        options.border_title = f"matches ({len(self.entries)})"
        options.focus()

    def _entry_text(self, entry: LobbyEntry) -> str:
        pairing = self.pairings.get(entry.match)
        return join_text(entry, pairing.deadline if pairing else None)

    def _draw_next(self) -> None:
        lines = []
        for match, pairing in self.pairings.items():
            summary = self._summary(match)
            if summary is not None and summary.get("status") not in (None, "waiting"):
                continue  # under way (or over): the list says so
            opponent = self._opponent(summary) or pairing.opponent or None
            name = pairing.name or self._tournament_name(pairing.tournament)
            lines.append(pairing_words(pairing, opponent, name, self._doing(match)))
        lines += waiting_lines(self.me or {}, self.tournaments)
        lines += self.extra_next
        nxt = self.query_one("#next", Static)
        if lines:
            nxt.update(literal("next: " + "\n      ".join(lines)))
        else:
            nxt.update(Text("no tournament pairing waiting for you", style="dim"))

    def _doing(self, match: str) -> str:
        state = self.seat_state.get(match)
        if state is not None:
            return state
        return "" if self.auto_join else "Enter joins"

    def _draw_disputes(self) -> None:
        box = self.query_one("#disputes", VerticalScroll)
        lines = dispute_lines(self.disputes, self.player_id, names=self.titles)
        self.query_one("#disputes-text", Static).update(literal("\n".join(line.text for line in lines)))
        box.border_title = f"your disputes ({len(self.disputes)}, newest first)"
        box.border_subtitle = "Tab: read them whole"
        box.set_class(bool(lines), "shown")

    def _summary(self, match: str) -> dict[str, Any] | None:
        for m in (self.me or {}).get("matches") or []:
            if isinstance(m, dict) and m.get("id") == match:
                return m
        return None

    def _opponent(self, summary: dict[str, Any] | None) -> str | None:
        if summary is None:
            return None
        seat = seat_of(summary, self.player_id)
        if seat is None:
            return None
        return others_words(seat_names(summary), seat)

    def _tournament_name(self, tournament: str) -> str:
        for t in self.tournaments:
            if t.get("id") == tournament:
                return str(t.get("name") or tournament)
        return tournament

    def tick(self) -> None:
        """The join deadlines count down."""
        if not self.pairings:
            return
        self._draw_next()
        options = self.query_one("#matches", OptionList)
        for entry in self.entries:
            if entry.kind == "join" and entry.match in self.pairings:
                with contextlib.suppress(OptionDoesNotExist):
                    options.replace_option_prompt(entry.option_id, literal(self._entry_text(entry)))

    def on_lobby_failed(self, message: LobbyFailed) -> None:
        self.say(message.words, "bold #ff5252")

    def on_entry_done(self, message: EntryDone) -> None:
        self.say(message.words, "" if message.ok else "bold #ff5252")
        self.load()

    # ------------------------------------------------------------ the lobby socket

    def on_feed_up(self, _message: FeedUp) -> None:
        self.feed_state = "live"
        self.query_one("#lobby-title", Static).update(self._title())

    def on_feed_down(self, message: FeedDown) -> None:
        self.feed_state = "off" if message.final else "down"
        self.query_one("#lobby-title", Static).update(self._title())
        if message.final:
            self.say(f"the lobby is not live ({message.reason}): press r to refresh it", "bold #f9c80e")

    def on_feed_message(self, message: FeedMessage) -> None:
        data = message.data
        kind = data.get("type")
        if kind == "lobby" and isinstance(data.get("lobby"), dict):
            self.live = data["lobby"]  # everything the lobby draws: nothing fetched any more
            self.post_message(self._from_state(self.live))
        elif kind == "state":
            if self.live is None:
                state = {k: v for k, v in data.items() if k != "type"}
                self.load(state)  # what the server says now replaces what the lobby knew
        elif kind == "pairing":
            self._pairing(data)
        elif kind == "match":
            self._match_changed(data)
        elif kind == "ruling":
            self._ruling(data)
        elif kind == "tournament":
            name = str(data.get("name") or self._tournament_name(str(data.get("tournament"))))
            status = data.get("status")
            if status == "running":
                self.say(f"{name} has started", "bold")
            elif status == "finished":
                self.say(f"{name} is over: t shows the final standings", "bold")
            self.load()

    def _pairing(self, data: dict[str, Any]) -> None:
        pairing = pairing_of(data)
        if pairing is None:
            return
        self.pairings[pairing.match] = pairing
        name = pairing.name or self._tournament_name(pairing.tournament)
        if self.auto_join:
            self._take(pairing.match, f"{name} round {pairing.round}")  # the bell rings as its table is ready
        else:
            self.app.bell()
            self.say(f"{name} round {pairing.round} is open: Enter on its join line takes your seat", "bold")
        self._draw_next()
        self.load()

    def _take(self, match: str, why: str) -> None:
        if match in self.taken or self._open_somewhere(match):
            return
        self.taken.add(match)
        self.seat_state[match] = "taking your seat…"
        self.say(f"{why}: taking your seat…", "bold")
        self.take_seat(match, why)

    def _seat_waiting_matches(self) -> None:
        """A tournament match still waiting for the player (the client was started after its round
        opened, or the socket was down): take the seat too, so the join never forfeits."""
        if not self.auto_join:
            return
        for entry in self.entries:
            summary = self._summary(entry.match) or {}
            if entry.kind == "join" and summary.get("tournament") and entry.match not in self.taken:
                where = f"{self._tournament_name(str(summary.get('tournament')))} round {summary.get('round')}"
                self._take(entry.match, where)

    def _match_changed(self, data: dict[str, Any]) -> None:
        match = str(data.get("match"))
        status = data.get("status")
        replaced = data.get("replaced_by")
        if status == "annulled":
            new = str(replaced) if replaced else None
            if new:
                self.replaced[match] = new
            words = "this match was annulled by the director's ruling" + (f": replayed as match {new}" if new else "")
            table = self._table_of(match)
            if table is not None:
                table.annul(words)
            self.say(words.replace("this match", f"match {match}"), "bold")
            if new and self.auto_join:
                summary = self._summary(match) or {}
                where = (
                    f"{self._tournament_name(str(summary.get('tournament')))} round {summary.get('round')} (replayed)"
                    if summary.get("tournament")
                    else "the replayed match"
                )
                self._take(new, where)
        self.load()

    def _ruling(self, data: dict[str, Any]) -> None:
        self.disputes = with_ruling(self.disputes, data)
        self._draw_disputes()
        decision = data.get("decision")
        note = data.get("note")
        said = f': "{note}"' if note else ""
        where = dispute_where({**data, "slot": self._slot_of(str(data.get("dispute")))}, self.titles)
        words = f"the director ruled on the dispute of #{data.get('seq', '?')} in {where}: {decision}{said}"
        self.say(words, "bold")
        table = self._table_of(str(data.get("match")))
        if table is not None:
            table.model.note(words)
            table.model._add(0, words, "note")
            table.redraw()
        self.app.bell()

    # ------------------------------------------------------------ opening tables

    def _slot_of(self, dispute: str) -> str:
        """The slot (``round.board``) of a dispute the lobby lists, else ""."""
        return next((str(d.get("slot") or "") for d in self.disputes if d.get("id") == dispute), "")

    def _table_of(self, match: str) -> PlayScreen | None:
        for screen in self.app.screen_stack:
            if isinstance(screen, PlayScreen) and screen.model.match == match:
                return screen
        return None

    def _open_somewhere(self, match: str) -> bool:
        return self._table_of(match) is not None

    def _open(self, message: TableReady, back: bool = True) -> PlayScreen | None:
        """Open the table; ``back``: it comes back here once the match is over (a table to play)."""
        screen = self.play.open_table(message.match, message.seat, message.names)
        if not isinstance(screen, PlayScreen):
            return None
        if message.seat is not None:
            screen.back_when_over = back
        old = next((m for m, new in self.replaced.items() if new == message.match), None)
        if old is not None:
            screen.model.note(f"this match replays {old}, annulled by the director's ruling")
        return screen

    def on_table_ready(self, message: TableReady) -> None:
        self.say("")
        if not message.auto:
            self._open(message)
            return
        if message.match in self.opened or self._open_somewhere(message.match):
            return
        self.opened.add(message.match)
        self.app.bell()
        top = self.app.screen
        if isinstance(top, PlayScreen) and top.model.finished:
            # The table on screen is done (its result still showing): the next opens after it.
            self.queued = message
            top.next_ready(f"{message.why} — your seat is taken")
            return
        self._open(message)

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        line = next((t for t in self.tournament_lines if t.option_id == message.option.id), None)
        if line is None:
            line = next(
                (TournamentLine(o.tournament, o.text) for o in self.open_lines if o.option_id == message.option.id),
                None,
            )
        if line is not None:
            self.play.open_tournament(line.tournament)
            return
        entry = next((e for e in self.entries if e.option_id == message.option.id), None)
        if entry is None:
            return
        if entry.kind == "join":
            self.say(f"joining {entry.match}…")
            self.join_and_open(entry)
        elif not self._open_somewhere(entry.match):
            # a finished or annulled match is looked back at: its table stays until q
            screen = self._open(TableReady(entry.match, entry.seat, entry.names), back=entry.kind == "play")
            if screen is not None and entry.kind == "void":  # its events can be read; nothing can be played
                replaced = (self._summary(entry.match) or {}).get("replaced_by") or self.replaced.get(entry.match)
                again = f": replayed as match {replaced}" if replaced else ""
                screen.model.annul(f"this match was annulled by the director's ruling{again}")

    # ------------------------------------------------------------ actions

    def action_bot(self, opponent: str) -> None:
        if self.play.credentials is None:
            self.say("register first", "bold #f9c80e")
            return
        self.say(f"starting a match against {opponent}…")
        self.start_bot(opponent)

    def action_table(self) -> None:
        if self.play.credentials is None:
            self.say("register first", "bold #f9c80e")
            return

        def chosen(guests: list[str] | None) -> None:
            if guests:
                self.say(f"making a classic table of {len(guests) + 1}…")
                self.start_table(guests)

        self.app.push_screen(TableSetupScreen(), chosen)

    def action_refresh(self) -> None:
        if self.play.credentials is not None:
            if self.feed_state == "off":  # refused before: try the lobby socket again too
                self.feed_state = "connecting"
                self.query_one("#lobby-title", Static).update(self._title())
                self.follow()
            self.load()

    def action_auto_join(self) -> None:
        self.auto_join = not self.auto_join
        self.query_one("#lobby-title", Static).update(self._title())
        if self.auto_join:
            self.say("auto-join on: the lobby takes your seat and opens the table when a round opens")
            self._seat_waiting_matches()
        else:
            self.say("auto-join off: a pairing rings the bell; join it yourself (Enter on its line)")
        self._draw_next()

    def _highlighted_id(self) -> str | None:
        options = self.query_one("#matches", OptionList)
        index = options.highlighted
        return options.get_option_at_index(index).id if index is not None else None

    def action_entry(self) -> None:
        """Enter or leave the highlighted open tournament (or the only one there is)."""
        if self.play.credentials is None:
            self.say("register first", "bold #f9c80e")
            return
        option_id = self._highlighted_id()
        line = next((o for o in self.open_lines if o.option_id == option_id), None)
        if line is None and len(self.open_lines) == 1:
            line = self.open_lines[0]
        if line is None:
            self.say(
                "highlight an open tournament (open …), then press e"
                if self.open_lines
                else "no tournament is open for entries now",
                "italic",
            )
            return
        self.say(f"{'leaving' if line.entered else 'entering'} {line.name}…")
        self.change_entry(line)

    def action_check_in(self) -> None:
        """Check in to the highlighted open tournament (or the only one offering it) in its window."""
        if self.play.credentials is None:
            self.say("register first", "bold #f9c80e")
            return
        option_id = self._highlighted_id()
        offered = [o for o in self.open_lines if o.check_in]
        line = next((o for o in offered if o.option_id == option_id), None)
        if line is None and len(offered) == 1:
            line = offered[0]
        if line is None:
            self.say(
                "highlight a tournament showing k: check in, then press k" if offered else "nothing to check in to now",
                "italic",
            )
            return
        self.say(f"checking in to {line.name}…")
        self.check_in(line)

    @work(group="entry")
    async def check_in(self, line: OpenLine) -> None:
        try:
            await self.play.api.check_in(line.tournament)
        except ApiError as error:
            self.post_message(EntryDone(f"could not check in to {line.name}: {error.words()}", ok=False))
            return
        self.post_message(EntryDone(f"checked in to {line.name}: you will be paired when it starts", ok=True))

    def action_tournament(self) -> None:
        """The tournament of the highlighted line: a tournament line, or a tournament match's."""
        option_id = self._highlighted_id()
        line = next((t for t in self.tournament_lines if t.option_id == option_id), None)
        if line is None:
            line = next(
                (TournamentLine(o.tournament, o.text) for o in self.open_lines if o.option_id == option_id), None
            )
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
        self.app.push_screen(HelpScreen("lobby"))

    def action_sign_out(self) -> None:
        """``x`` twice: sign out (in a browser of ``unoduo web``: the browser forgets its player)."""
        if self.play.credentials is None:
            self.say("not signed in", "bold #f9c80e")
            return
        if not self.signing_out:
            self.signing_out = True
            self.say(f"press x again to sign out {self.play.credentials.name} on this device", "bold #f9c80e")
            return
        self.signing_out = False
        self.say("signing out…", "italic")
        self.sign_out()

    def on_key(self, event: events.Key) -> None:
        if event.key != "x":
            self.signing_out = False  # any other key: x asks again

    def on_signed_out(self, message: SignedOut) -> None:
        """A fresh lobby, which opens the sign-in screen (nothing saved now); this one's workers stop with it."""
        self.play.credentials = None
        self.play.player_name = None
        self.app.switch_screen(LobbyScreen())

    def action_me(self) -> None:
        """``i``: the player's own page (ratings, the rating chart, match history, head-to-head)."""
        if not self.player_id:
            self.say("register first", "bold #f9c80e")
            return
        from tui_client.screens.player_screen import PlayerScreen  # when first opened (tui_client.apps.play_app)

        self.app.push_screen(PlayerScreen(self.player_id))
