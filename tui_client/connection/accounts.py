"""Who this client is on one server: the saved credentials, registering, signing in and out.

The server has one account per name (docs/SERVER.md "Accounts"): a client that finds its name
taken never makes a second account, it signs in as that player, with their password or with a
one-time code from the director, and gets a token of its own (the player's other devices keep
theirs). Whatever the client gets is saved per server (``tui_client.connection.config``).
"""

from __future__ import annotations

from typing import Any

from tui_client.connection.api import Api, ApiError
from tui_client.connection.config import ConfigStore, Credentials


class Accounts:
    def __init__(self, api: Api, store: ConfigStore) -> None:
        self.api = api
        self.store = store

    def saved(self) -> Credentials | None:
        return self.store.load_credentials()

    def _keep(self, player: dict[str, Any]) -> Credentials:
        credentials = Credentials(self.store.server, str(player["id"]), str(player["name"]), str(player["token"]))
        self.store.save_credentials(credentials)
        self.api.token = credentials.token
        return credentials

    async def register(self, name: str, password: str | None = None) -> Credentials:
        """A new player ``name`` (``ApiError`` 409 ``name_taken`` if someone has the name: nothing is made)."""
        self.api.token = None
        return self._keep(await self.api.register(name, password or None))

    async def sign_in(self, name: str, *, password: str | None = None, code: str | None = None) -> Credentials:
        """A new token for the existing player ``name`` (``ApiError`` 401 if the password or code is not theirs)."""
        self.api.token = None
        return self._keep(await self.api.sign_in(name, password=password, code=code))

    async def sign_out(self) -> Credentials | None:
        """Sign the saved token out on the server and forget it here; what was saved (None: nothing).

        A token the server no longer knows (401) is forgotten all the same."""
        saved = self.saved()
        if saved is None:
            return None
        self.api.token = saved.token
        try:
            await self.api.sign_out()
        except ApiError as error:
            if error.status != 401:
                raise
        self.store.forget_credentials()
        self.api.token = None
        return saved
