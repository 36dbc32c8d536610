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

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from engine.errors import CommandRefused
from engine.events import EventType
from engine.evolve import evolve
from engine.state import Phase
from engine.views import view
from server.services.errors import DomainError
from server.services.matches import MatchService
from server.services.players import Caller
from server.store.errors import ConcurrencyError
from server.store.streams import match_stream

MAX_COMMAND_ID = 190


class LiveFeed:
    """The messages of one viewer's socket on one match."""

    def __init__(self, matches: MatchService, match_id: str, caller: Caller) -> None:
        self.matches = matches
        self.match_id = match_id
        self.caller = caller

    async def check(self) -> None:
        """Raise the domain error (unknown match) before the socket is accepted."""
        await asyncio.to_thread(self.matches.summary, self.match_id)

    async def messages(self, since: int) -> AsyncIterator[dict[str, Any]]:
        matches = self.matches
        summary = await asyncio.to_thread(matches.summary, self.match_id)
        state = await asyncio.to_thread(matches.state_at, self.match_id, since)
        if state.phase is Phase.MATCH_OVER and since >= state.version:
            return  # the last event is behind us: nothing more will ever come
        since = min(since, state.version)
        async for stored in matches.store.follow(match_stream(self.match_id), since):
            state = evolve(state, stored.event())
            viewer = matches.viewer_for(summary, self.caller, state)
            yield {"type": "event", "event": stored.for_viewer(viewer), "view": view(state, viewer)}
            if stored.type == EventType.SEED_REVEALED:
                return

    async def command(self, message: Any) -> dict[str, Any]:
        """Apply a ``command`` message; the ``result`` message that answers it."""
        if not isinstance(message, dict) or message.get("type") != "command":
            return _error(None, "malformed", 'send {"type": "command", "command_id", "expected_version"?, "command"}')
        command_id = message.get("command_id")
        expected = message.get("expected_version")
        command = message.get("command")
        if not isinstance(command_id, str) or not 0 < len(command_id) <= MAX_COMMAND_ID or not command_id.isprintable():
            return _error(None, "malformed", f"command_id must be 1-{MAX_COMMAND_ID} printable characters")
        if expected is not None and (not isinstance(expected, int) or isinstance(expected, bool) or expected < 0):
            return _error(command_id, "malformed", "expected_version must be a whole number >= 0")
        if not isinstance(command, dict):
            return _error(command_id, "malformed", "command must be a JSON object (docs/PROTOCOL.md)")
        try:
            outcome = await asyncio.to_thread(
                self.matches.command, self.match_id, self.caller, command_id, expected, command
            )
        except CommandRefused as refusal:
            return {"type": "result", "command_id": command_id, "ok": False, "error": refusal.to_dict()}
        except ConcurrencyError as race:
            return _error(command_id, "stale_version", f"the match moved on (now at {race.actual}); read it again")
        except DomainError as error:
            return _error(command_id, error.code, error.message)
        return {"type": "result", "command_id": command_id, "ok": True, "version": outcome.view.version}


def _error(command_id: str | None, code: str, message: str) -> dict[str, Any]:
    return {
        "type": "result",
        "command_id": command_id,
        "ok": False,
        "error": {"code": code, "message": message, "rule": None},
    }
