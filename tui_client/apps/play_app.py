"""``unoduo play``: the terminal client's app (docs/TUI.md "Playing").

:func:`make_play_app` builds it. The app holds what the screens share (the server, the API
connection, the saved credentials) and opens them: the lobby (``lobby_screen``), a live table per
match (``table_screen``), a tournament (``tournament_screen``); they reach it through
:class:`tui_client.screens.play_host.PlayHost` and never import this module. Every network call runs in
a Textual worker and hands its result back as a message; nothing blocks the screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App

from tui_client.connection.accounts import Accounts
from tui_client.connection.api import Api, ApiError
from tui_client.connection.config import ConfigStore, Credentials
from tui_client.models.play_model import PlayModel
from tui_client.screens.help_screen import HELP_CSS
from tui_client.screens.lobby_screen import LOBBY_CSS, LobbyScreen
from tui_client.screens.signin_screen import SIGNIN_CSS
from tui_client.screens.table_screen import TABLE_CSS, PlayScreen
from tui_client.screens.tournament_css import TOURNAMENT_CSS

if TYPE_CHECKING:
    from tui_client.screens.tournament_screen import TournamentScreen

CSS = LOBBY_CSS + TABLE_CSS + HELP_CSS + TOURNAMENT_CSS + SIGNIN_CSS


class PlayApp(App[None]):
    """``unoduo play`` for one server: the lobby first, a table per match opened."""

    CSS = CSS
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
        password: str | None = None,
        code: str | None = None,
        auto_join: bool = True,
        player: str | None = None,
    ) -> None:
        super().__init__()
        self.player = player  # open this player's page (``--player``) instead of the lobby
        self.auto_join = auto_join  # the lobby takes a pairing's seat by itself (``a`` toggles it there)
        self.store = ConfigStore(server, config_dir)
        self.server = self.store.server
        self.player_name = name.strip() if name else None
        self.move_seconds = move_seconds
        self.api = api if api is not None else Api(self.server)
        self.accounts = Accounts(self.api, self.store)
        self.password = password or None
        self.code = code or None
        self.credentials: Credentials | None = None
        self.tournament = tournament
        self.director_token = director_token or None

    def on_mount(self) -> None:
        if self.player is not None:  # a page anyone may read: a saved token is used if there is one
            saved = self.store.load_credentials()
            if saved is not None:
                self.api.token = saved.token
                self.credentials = saved
            from tui_client.screens.player_screen import PlayerScreen  # see open_tournament

            self.push_screen(PlayerScreen(self.player))
            return
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
        """The saved credentials for this server, checked with ``GET /api/me``; or ``name``'s:
        signed in with the code or the password given on the command line, else registered.
        (None, "") when nothing is saved and no name is given (the lobby then asks).

        A name the server has is never registered twice: without a password or code that is
        ``ApiError`` 409 ``name_taken`` (the lobby then offers to sign in as that player)."""
        saved = self.accounts.saved()
        note = ""
        if saved is not None:
            self.api.token = saved.token
            try:
                await self.api.me()
            except ApiError as error:
                if error.status != 401:
                    raise
                self.store.forget_credentials()
                self.api.token = None
                name = name or saved.name
                note = "this server no longer knows your saved token (signed out, or its database reset): "
            else:
                self.credentials = saved
                note = (
                    "" if name in (None, saved.name) else f"already signed in here as {saved.name}: --name is not used"
                )
                return saved, note
        if not name:
            return None, ""
        credentials, how = await self.sign_in_as(name)
        self.credentials = credentials
        return credentials, note + how

    async def sign_in_as(self, name: str) -> tuple[Credentials, str]:
        """``name`` by the command line's code or password, or a new player of that name."""
        if self.code is not None:
            credentials = await self.accounts.sign_in(name, code=self.code)
            return credentials, f"signed in as {credentials.name} with the director's code"
        try:
            credentials = await self.accounts.register(name, self.password)
        except ApiError as error:
            if error.code != "name_taken" or self.password is None:
                raise
            credentials = await self.accounts.sign_in(name, password=self.password)
            return credentials, f"signed in as {credentials.name} with your password"
        return credentials, f"registered as {credentials.name}; your token is saved in {self.store.credentials_path}"

    def open_tournament(self, tournament: str) -> TournamentScreen:
        # Speed: tournament, player and replay screens load when first opened (measured: client import 0.62 -> 0.53 s CPU)
        from tui_client.screens.tournament_screen import TournamentScreen

        screen = TournamentScreen(tournament, self.director_token)
        self.push_screen(screen)
        return screen

    def open_table(self, match: str, seat: int | None, names: Sequence[str]) -> PlayScreen:
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
    password: str | None = None,
    code: str | None = None,
    auto_join: bool = True,
    player: str | None = None,
) -> PlayApp:
    """The client for ``server_url``: signs in as ``name`` the first time (the token is kept in
    ``config_dir``, by default the user's config directory); ``move_seconds`` is the clock of the
    house-bot matches it starts (the server's default if None). With ``tournament`` it opens on
    that tournament's screen; ``director_token`` shows its open disputes there. ``api`` is the
    connection to use instead of a new ``Api(server_url)`` (tests hand in one on a fake transport).
    ``password`` (registering, or signing in when ``name`` is taken) and ``code`` (a director's
    one-time code) sign in as an existing player without the sign-in screen. ``auto_join``
    False: the lobby shows a pairing and its countdown but waits for Enter to take the seat.
    ``player`` (an id or a name): it opens on that player's page."""
    return PlayApp(
        server_url,
        name,
        config_dir=config_dir,
        move_seconds=move_seconds,
        tournament=tournament,
        director_token=director_token,
        api=api,
        password=password,
        code=code,
        auto_join=auto_join,
        player=player,
    )
