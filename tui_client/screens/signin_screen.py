"""The sign-in screen of ``unoduo play`` (docs/TUI.md "Playing"): a new player, or an existing one.

- **New player**: a name, and a password if you want one (8 characters or more; it lets you sign
  in on another device). A name the server already has is never made twice: the screen turns to
  "existing player" with the name filled in, and says so.
- **Existing player**: the name, and the password, or a one-time code the director gives you
  (``XXXX-XXXX``, any case). The server answers a wrong one in words; too many wrong ones from
  one address wait a minute.

It dismisses with the credentials (saved by ``tui_client.connection.accounts``) and a note for the lobby.
Network calls run in a worker; nothing blocks the screen. Fits 60×20.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Static

from tui_client.connection.accounts import Accounts
from tui_client.connection.api import ApiError
from tui_client.connection.config import Credentials

NEW, EXISTING = "new", "existing"
MIN_PASSWORD = 8
ERROR_STYLE = "bold #ff5252"

SIGNIN_CSS = """
#signin-title { height: 1; background: $panel; }
#signin-body { height: 1fr; padding: 0 1; }
#signin-modes { height: 1; margin: 1 0 0 0; }
#signin-modes Button { margin: 0 1 0 0; }
#signin-help { height: auto; margin: 1 0 1 0; }
.signin-row { height: 1; margin: 0 0 1 0; }
.signin-label { width: 10; }
.signin-row Input { width: 1fr; max-width: 48; background: $boost; }
#signin-submit { margin: 0 0 0 10; }
#signin-status { height: auto; min-height: 1; margin: 1 0 0 0; }
"""


@runtime_checkable
class HasAccounts(Protocol):
    """An app that keeps this client's accounts (``PlayApp``)."""

    accounts: Accounts


def accounts_of(screen: Screen[Any]) -> Accounts:
    """The accounts of the app ``screen`` runs in."""
    app = screen.app
    assert isinstance(app, HasAccounts), f"{type(screen).__name__} runs inside unoduo play's app"
    return app.accounts


class SignedInAs:
    """What the screen dismisses with: the credentials and a sentence for the lobby."""

    def __init__(self, credentials: Credentials, note: str) -> None:
        self.credentials = credentials
        self.note = note


class SignInScreen(Screen[SignedInAs]):
    """New player or existing player; Enter in any field sends the form."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+t", "switch", "new / existing player"),
        Binding("escape", "app.quit", "quit"),
    ]

    def __init__(self, accounts: Accounts, server: str, name: str = "", mode: str = NEW, words: str = "") -> None:
        super().__init__()
        self.accounts = accounts
        self.server = server
        self.initial_name = name
        self.mode = mode
        self.initial_words = words
        self.ready = False  # set once the form is drawn in its mode

    def compose(self) -> ComposeResult:
        yield Static(Text(f"unoduo play · {self.server}", style="bold"), id="signin-title")
        with Vertical(id="signin-body"):
            with Horizontal(id="signin-modes"):
                yield Button("New player", id="mode-new", compact=True)
                yield Button("I have an account", id="mode-existing", compact=True)
            yield Static("", id="signin-help")
            with Horizontal(classes="signin-row"):
                yield Static("Name", classes="signin-label")
                yield Input(
                    self.initial_name,
                    placeholder="your name on this server",
                    id="signin-name",
                    max_length=100,
                    compact=True,
                )
            with Horizontal(classes="signin-row"):
                yield Static("Password", classes="signin-label")
                yield Input(id="signin-password", password=True, max_length=256, compact=True)
            with Horizontal(classes="signin-row", id="code-row"):
                yield Static("or code", classes="signin-label")
                yield Input(placeholder="XXXX-XXXX, from the director", id="signin-code", max_length=12, compact=True)
            yield Button("", id="signin-submit", variant="primary", compact=True)
            yield Static("", id="signin-status")
        yield Footer()

    def on_mount(self) -> None:
        self.show_mode(self.mode)
        if self.initial_words:
            self.say(self.initial_words, ERROR_STYLE)
        self.query_one("#signin-password" if self.initial_name else "#signin-name", Input).focus()
        self.ready = True

    def say(self, words: str, style: str = "") -> None:
        self.query_one("#signin-status", Static).update(Text(words, style=style))

    def show_mode(self, mode: str) -> None:
        self.mode = mode
        existing = mode == EXISTING
        self.query_one("#signin-help", Static).update(
            "Sign in as a player you already are on this server: your password, or a one-time code "
            "the director gives you."
            if existing
            else "Choose the name you will play under. A password is optional: it lets you sign in on another device."
        )
        password = self.query_one("#signin-password", Input)
        password.placeholder = "your password" if existing else "optional, 8 characters or more"
        self.query_one("#code-row").display = existing
        self.query_one("#signin-submit", Button).label = "Sign in" if existing else "Register"
        self.query_one("#mode-new", Button).variant = "default" if existing else "primary"
        self.query_one("#mode-existing", Button).variant = "primary" if existing else "default"

    # ------------------------------------------------------------ input

    def action_switch(self) -> None:
        self.show_mode(NEW if self.mode == EXISTING else EXISTING)
        self.say("")

    @on(Button.Pressed, "#mode-new")
    def _new(self) -> None:
        self.show_mode(NEW)

    @on(Button.Pressed, "#mode-existing")
    def _existing(self) -> None:
        self.show_mode(EXISTING)

    @on(Button.Pressed, "#signin-submit")
    def _pressed(self) -> None:
        self.submit()

    @on(Input.Submitted)
    def _entered(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()

    def submit(self) -> None:
        name = self.query_one("#signin-name", Input).value.strip()
        password = self.query_one("#signin-password", Input).value
        code = self.query_one("#signin-code", Input).value.strip() if self.mode == EXISTING else ""
        problem = self.problem(name, password, code)
        if problem:
            self.say(problem, ERROR_STYLE)
            return
        self.say("registering…" if self.mode == NEW else "signing in…", "italic")
        self.send(self.mode, name, password, code)

    def problem(self, name: str, password: str, code: str) -> str:
        """What is missing or wrong in the form, before asking the server ("" if nothing)."""
        if not name:
            return "Type your name first."
        if self.mode == NEW:
            if password and len(password) < MIN_PASSWORD:
                return f"A password needs at least {MIN_PASSWORD} characters (or leave it empty)."
            return ""
        if password and code:
            return "Use the password or the code, not both."
        if not password and not code:
            return "Type your password, or the code the director gave you."
        return ""

    # ------------------------------------------------------------ the server

    @work(exclusive=True, group="signin")
    async def send(self, mode: str, name: str, password: str, code: str) -> None:
        try:
            if mode == NEW:
                credentials = await self.accounts.register(name, password or None)
                kept = (
                    "kept for this browser" if self.app.is_web else f"saved in {self.accounts.store.credentials_path}"
                )
                note = f"registered as {credentials.name}; your token is {kept}"
            else:
                credentials = await self.accounts.sign_in(name, password=password or None, code=code or None)
                note = f"signed in as {credentials.name} (this device has a token of its own)"
        except ApiError as error:
            self.refused(mode, name, error)
            return
        self.dismiss(SignedInAs(credentials, note))

    def refused(self, mode: str, name: str, error: ApiError) -> None:
        if mode == NEW and error.code == "name_taken":
            self.show_mode(EXISTING)
            self.query_one("#signin-password", Input).focus()
            self.say(
                f"{name} is taken on this server. If that is you, sign in with your password or a code "
                "from the director; if not, press ctrl+t and choose another name.",
                ERROR_STYLE,
            )
            return
        self.say(error.words(), ERROR_STYLE)
