"""A match, live: the messages of its WebSocket (docs/API.md ``WS /api/matches/{id}/ws``).

One message per event after ``since``, in ``seq`` order: the envelope every viewer receives
alike, ``open`` with the openings this viewer may see (docs/FAIRNESS.md "Sealed fields"), and
the viewer's view right after that event, so a client never has to fold anything to draw the
table. A client that reconnects with the last ``seq`` it saw misses nothing and gets nothing
twice. The feed ends after the match's last event (``seed_revealed``); from the moment the
match is over every viewer is an auditor, as over HTTP.

Commands sent on the socket go through :meth:`MatchService.command`, exactly as the POST
route does (same ``command_id`` and ``expected_version`` rules), and are answered by a
``result`` message; the events they cause reach the socket through the feed like anyone's.
No HTTP here: the route turns domain errors into close codes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from engine.errors import CommandRefused, shown
from server.services.errors import DomainError
from server.services.matches import MatchService
from server.services.players import Caller
from server.store.errors import ConcurrencyError
from server.store.models import MAX_SEQ

MAX_COMMAND_ID = 190
MESSAGE_KEYS = frozenset({"type", "command_id", "expected_version", "command"})


class LiveFeed:
    """The messages of one viewer's socket on one match."""

    def __init__(self, matches: MatchService, match_id: str, caller: Caller) -> None:
        self.matches = matches
        self.match_id = match_id
        self.caller = caller

    async def check(self) -> None:
        """Raise the domain error (unknown match) before the socket is accepted."""
        await self.matches.open(self.match_id)

    async def messages(self, since: int) -> AsyncIterator[str]:
        """One message (JSON text) per event after ``since``, encoded once for every viewer of the same kind."""
        live = await self.matches.open(self.match_id)
        base = self.matches.base_viewer(live.summary, self.caller)
        async for item in self.matches.watch(self.match_id, self.caller, since):
            yield item.text(base)

    async def command(self, message: Any) -> dict[str, Any]:
        """Apply a ``command`` message; the ``result`` message that answers it."""
        if not isinstance(message, dict) or message.get("type") != "command":
            return _error(None, "malformed", 'send {"type": "command", "command_id", "expected_version"?, "command"}')
        command_id = message.get("command_id")
        expected = message.get("expected_version")
        command = message.get("command")
        if not isinstance(command_id, str) or not 0 < len(command_id) <= MAX_COMMAND_ID or not command_id.isprintable():
            return _error(None, "malformed", f"command_id must be 1-{MAX_COMMAND_ID} printable characters")
        unknown = sorted(str(key) for key in message if key not in MESSAGE_KEYS)
        if unknown:  # as over HTTP: a field the protocol does not know is refused, not dropped
            return _error(command_id, "malformed", f"{shown(unknown[0])}: not a field of a command message")
        if expected is not None and (
            not isinstance(expected, int) or isinstance(expected, bool) or not 0 <= expected <= MAX_SEQ
        ):
            return _error(command_id, "malformed", f"expected_version must be a whole number from 0 to {MAX_SEQ}")
        if not isinstance(command, dict):
            return _error(command_id, "malformed", "command must be a JSON object (docs/PROTOCOL.md)")
        try:
            version = await self.matches.command_version(self.match_id, self.caller, command_id, expected, command)
        except CommandRefused as refusal:
            return {"type": "result", "command_id": command_id, "ok": False, "error": refusal.to_dict()}
        except ConcurrencyError as race:
            return _error(command_id, "stale_version", f"the match moved on (now at {race.actual}); read it again")
        except DomainError as error:
            return _error(command_id, error.code, error.message)
        return {"type": "result", "command_id": command_id, "ok": True, "version": version}


def _error(command_id: str | None, code: str, message: str) -> dict[str, Any]:
    return {
        "type": "result",
        "command_id": command_id,
        "ok": False,
        "error": {"code": code, "message": message, "rule": None},
    }
