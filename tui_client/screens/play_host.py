"""What the screens of ``unoduo play`` need of the app they run in.

The lobby (``lobby_screen``), the table (``table_screen``) and the tournament screen
(``tournament_screen``) each reach the app for its connection and to open one another's screens.
They name it by this protocol, not by :class:`tui_client.apps.play_app.PlayApp`: the app imports the
screens, and no screen imports the app.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from textual.screen import Screen

from tui_client.connection.api import Api
from tui_client.connection.config import Credentials


@runtime_checkable
class PlayHost(Protocol):
    """The app as the screens see it (``PlayApp`` is the one there is)."""

    server: str
    api: Api
    credentials: Credentials | None
    player_name: str | None
    move_seconds: int | None

    async def sign_in(self, name: str | None) -> tuple[Credentials | None, str]: ...

    def open_table(self, match: str, seat: int | None, names: Sequence[str]) -> Screen[None]: ...

    def open_tournament(self, tournament: str) -> Screen[None]: ...


def host_of(screen: Screen[Any]) -> PlayHost:
    """The app ``screen`` runs in, as a :class:`PlayHost`."""
    app = screen.app
    assert isinstance(app, PlayHost), f"{type(screen).__name__} runs inside unoduo play's app"
    return app
