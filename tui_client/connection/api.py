"""The play client's side of the server: HTTP for the lobby (docs/API.md), a WebSocket per table
(docs/SERVER.md "The live socket"). HTTP and WebSocket only: no server code.

Every refusal becomes an :class:`ApiError` holding the server's ``{code, message, rule}`` (or,
for a server that cannot be reached, a sentence saying so), so the screens can show it in
words and never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidHandshake, InvalidStatus

from tui_client.connection.config import normalise_server

USER_AGENT = "unoduo-play"


class ApiError(Exception):
    """A refusal (``status``, ``code``, ``message``, ``rule``) or a server that could not be reached (status 0)."""

    def __init__(self, status: int, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.rule = rule

    def words(self) -> str:
        return refusal_words({"code": self.code, "message": self.message, "rule": self.rule})


def refusal_words(error: Mapping[str, Any]) -> str:
    """A refusal's ``{code, message, rule}`` as one sentence: the message, the rule it rests on, the code."""
    message = str(error.get("message") or error.get("code") or "refused")
    rule = error.get("rule")
    code = error.get("code")
    words = message[0].upper() + message[1:] if message else message
    if not words.endswith((".", "!", "?")):
        words += "."
    if rule:
        words += f" (rule {rule})"
    if code:
        words += f" [{code}]"
    return words


def ws_url(server: str, path: str) -> str:
    """``ws://host/PATH`` on ``server`` (``wss://`` for an https server)."""
    scheme, rest = normalise_server(server).split("://", 1)
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest}{path}"


def socket_url(server: str, match_id: str, since: int) -> str:
    """``ws://…/api/matches/{id}/ws?since=SEQ&frames=decision`` (``wss://`` for an https server):
    one message per decision, its events and the view after them (docs/PROTOCOL.md)."""
    query = urlencode({"since": since, "frames": "decision"})
    return ws_url(server, f"/api/matches/{quote(match_id, safe='')}/ws?{query}")


class Api:
    """The HTTP calls of the lobby. ``token`` is the player's (None before registering)."""

    def __init__(
        self,
        server: str,
        token: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 15.0,
    ) -> None:
        self.server = normalise_server(server)
        self.token = token
        self.client = httpx.AsyncClient(
            base_url=self.server, transport=transport, timeout=timeout, headers={"User-Agent": USER_AGENT}
        )

    async def aclose(self) -> None:
        await self.client.aclose()

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def _call(self, method: str, path: str, body: Any = None) -> Any:
        try:
            response = await self.client.request(method, path, json=body, headers=self.auth_headers())
        except httpx.HTTPError as exc:
            raise ApiError(0, "unreachable", f"cannot reach {self.server}: {exc or type(exc).__name__}") from None
        try:
            data = response.json()
        except ValueError:
            data = None
        if response.status_code >= 400:
            if isinstance(data, dict) and data.get("message"):
                raise ApiError(response.status_code, str(data.get("code")), str(data["message"]), data.get("rule"))
            raise ApiError(response.status_code, "http_error", f"{method} {path} answered {response.status_code}")
        if response.status_code == 204:
            return None
        if data is None:
            raise ApiError(response.status_code, "not_json", f"{method} {path} did not answer JSON")
        return data

    async def register(self, name: str, password: str | None = None) -> dict[str, Any]:
        """``POST /api/players {name, password?}``: ``{id, name, kind, token}``; the token is shown this
        once. A name someone has is ``ApiError`` 409 ``name_taken``."""
        body = {"name": name} if password is None else {"name": name, "password": password}
        data: dict[str, Any] = await self._call("POST", "/api/players", body)
        return data

    async def sign_in(self, name: str, *, password: str | None = None, code: str | None = None) -> dict[str, Any]:
        """``POST /api/sessions {name, password | code}``: ``{id, name, kind, token}``, a new token for
        an existing player (their other tokens keep working). A wrong one is ``ApiError`` 401."""
        body: dict[str, str] = {"name": name}
        if password is not None:
            body["password"] = password
        if code is not None:
            body["code"] = code
        data: dict[str, Any] = await self._call("POST", "/api/sessions", body)
        return data

    async def sign_out(self) -> None:
        """``DELETE /api/sessions/current``: this client's token stops working."""
        await self._call("DELETE", "/api/sessions/current")

    async def find_players(self, prefix: str) -> list[dict[str, Any]]:
        """``GET /api/players?name=PREFIX``: players (``{id, name, kind}``) whose name starts so, at most 50."""
        data = await self._call("GET", f"/api/players?{urlencode({'name': prefix})}")
        return [p for p in data if isinstance(p, dict)] if isinstance(data, list) else []

    async def player(self, entry: str) -> dict[str, Any]:
        """``GET /api/players/{id or name}``: ``{id, name, kind}``."""
        data: dict[str, Any] = await self._call("GET", f"/api/players/{quote(entry, safe='')}")
        return data

    async def me(self) -> dict[str, Any]:
        """``GET /api/me``: the player, ``matches`` (summaries) and ``next`` (tournament pairings)."""
        data: dict[str, Any] = await self._call("GET", "/api/me")
        return data

    async def create_match(self, opponent: str, move_seconds: int | None = None) -> dict[str, Any]:
        """``POST /api/matches``: a casual match, the caller in seat 0; a match summary."""
        return await self._create({"opponent": opponent}, move_seconds)

    async def create_table(self, opponents: list[str], move_seconds: int | None = None) -> dict[str, Any]:
        """``POST /api/matches`` with ``opponents``: a classic table of 2 to 10, the caller in seat 0
        and the others clockwise in the order given; a match summary."""
        return await self._create({"opponents": opponents, "ruleset": "classic"}, move_seconds)

    async def _create(self, body: dict[str, Any], move_seconds: int | None) -> dict[str, Any]:
        if move_seconds is not None:
            body["move_seconds"] = move_seconds
        data: dict[str, Any] = await self._call("POST", "/api/matches", body)
        return data

    async def join(self, match_id: str, entropy: str) -> dict[str, Any]:
        data: dict[str, Any] = await self._call(
            "POST", f"/api/matches/{quote(match_id, safe='')}/join", {"entropy": entropy}
        )
        return data

    async def match(self, match_id: str) -> dict[str, Any]:
        """``GET /api/matches/{id}``: ``{match, view}`` as this caller may see it."""
        data: dict[str, Any] = await self._call("GET", f"/api/matches/{quote(match_id, safe='')}")
        return data

    async def tournaments(self) -> list[dict[str, Any]]:
        """``GET /api/tournaments``: its first page, the newest tournaments (the lobby shows a few)."""
        data = await self._call("GET", "/api/tournaments")
        return [t for t in data if isinstance(t, dict)] if isinstance(data, list) else []

    async def tournament(self, tournament_id: str) -> dict[str, Any]:
        data: dict[str, Any] = await self._call("GET", f"/api/tournaments/{quote(tournament_id, safe='')}")
        return data

    async def disputes(self, status: str = "open") -> list[dict[str, Any]]:
        """``GET /api/disputes?status=…`` (the director's token): every tournament's disputes."""
        data = await self._call("GET", f"/api/disputes?{urlencode({'status': status})}")
        return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []

    async def get(self, path: str) -> Any:
        """``GET path`` on this server (a path the server handed out, e.g. a dispute's ``audit_view``)."""
        if not path.startswith("/"):
            raise ApiError(0, "bad_path", f"not a path on this server: {path!r}")
        return await self._call("GET", path)

    async def open_socket(self, match_id: str, since: int) -> ClientConnection:
        """The match's live socket from ``since``, the token in the upgrade request's header.

        ApiError (status 0) if it cannot be opened; its ``code`` is ``final`` when the server
        refused for good (no such match, a bad token), ``unreachable`` when trying again may help.
        """
        return await self._connect(socket_url(self.server, match_id, since), "the socket", (401, 403, 404))

    async def _connect(self, url: str, what: str, final: tuple[int, ...]) -> ClientConnection:
        """A socket to ``url`` with the token in the upgrade request; ApiError (status 0) ``final``
        when the server refused with one of ``final``, ``unreachable`` when trying again may help."""
        try:
            return await connect(
                url,
                additional_headers=self.auth_headers(),
                user_agent_header=USER_AGENT,
                open_timeout=10,
                ping_interval=20,
                ping_timeout=20,
                max_size=2**22,
            )
        except InvalidStatus as exc:
            status = exc.response.status_code
            code = "final" if status in final else "unreachable"
            raise ApiError(0, code, f"{what} was refused ({status})") from None
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            raise ApiError(0, "unreachable", f"cannot reach {self.server}: {exc or type(exc).__name__}") from None

    # ---------------------------------------------------------------- the lobby (issue 20; helper C)

    async def open_lobby_socket(self) -> ClientConnection:
        """``WS /api/me/ws``: the player's lobby, live (docs/SERVER.md "The lobby socket"). ApiError
        (status 0) as :meth:`open_socket`: ``final`` for a refused token, ``unreachable`` otherwise."""
        return await self._connect(ws_url(self.server, "/api/me/ws?lobby=1"), "the lobby socket", (401, 403))

    async def enter_tournament(self, tournament_id: str) -> dict[str, Any]:
        """``POST /api/tournaments/{id}/entries`` with no body: the caller enters an open tournament."""
        data: dict[str, Any] = await self._call("POST", f"/api/tournaments/{quote(tournament_id, safe='')}/entries")
        return data

    async def check_in(self, tournament_id: str) -> dict[str, Any]:
        """``POST /api/tournaments/{id}/check-in``: the caller confirms in the check-in window."""
        data: dict[str, Any] = await self._call("POST", f"/api/tournaments/{quote(tournament_id, safe='')}/check-in")
        return data

    async def leave_tournament(self, tournament_id: str, player_id: str) -> Any:
        """``DELETE /api/tournaments/{id}/entries/{player}``: leave before the start."""
        path = f"/api/tournaments/{quote(tournament_id, safe='')}/entries/{quote(player_id, safe='')}"
        try:
            return await self._call("DELETE", path)
        except ApiError as error:
            if error.code == "not_json" and error.status < 400:
                return None  # 204: left, nothing to say
            raise

    async def my_disputes(self) -> list[dict[str, Any]]:
        """``GET /api/me/disputes``: the disputes the player raised or whose match they played."""
        data = await self._call("GET", "/api/me/disputes")
        return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []

    async def open_dispute(self, match_id: str, seq: int, note: str) -> dict[str, Any]:
        """``POST /api/matches/{id}/disputes {seq, note}``: the dispute as the server recorded it."""
        body = {"seq": seq, "note": note}
        data: dict[str, Any] = await self._call("POST", f"/api/matches/{quote(match_id, safe='')}/disputes", body)
        return data
