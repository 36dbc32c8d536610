"""A match, live: the messages of its WebSocket (docs/API.md ``WS /api/matches/{id}/ws``).

One message per event after ``since``, in ``seq`` order: the envelope every viewer receives
alike, ``open`` with the openings this viewer may see (docs/FAIRNESS.md "Sealed fields"), and
the viewer's view right after that event, so a client never has to fold anything to draw the
table. With ``?frames=decision``, one message per decision instead: the events one append
produced, each as above, and the view after the last one (``server.services.frames``). A
client that reconnects with the last ``seq`` it saw misses nothing and gets nothing twice.
The feed ends after the match's last event (``seed_revealed``); from the moment the match is
over every viewer is an auditor, as over HTTP.

Commands sent on the socket are validated by the POST route's own model and go through
:meth:`MatchService.command_version`, exactly as the POST route does (same ``command_id`` and
``expected_version`` rules), and are answered by a ``result`` message; the events they cause
reach the socket through the feed like anyone's. No HTTP here: the route maps what is raised
(``server.errors.refusal_of``) to ``result`` errors and close codes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from server.services.frames import Frames, run_text
from server.services.matches import MatchService
from server.services.players import Caller


class LiveFeed:
    """The messages of one viewer's socket on one match."""

    def __init__(self, matches: MatchService, match_id: str, caller: Caller) -> None:
        self.matches = matches
        self.match_id = match_id
        self.caller = caller

    async def check(self) -> None:
        """Raise the domain error (unknown match; a duplicate round's match not revealed yet to
        someone without a seat in it) before the socket is accepted."""
        live = await self.matches.open(self.match_id)
        await self.matches.registry.gate(live.summary, self.caller)

    async def messages(self, since: int, frames: Frames = Frames.EVENT) -> AsyncIterator[str]:
        """One message (JSON text) per event after ``since``, or per decision (``server.services.frames``),
        encoded once for every viewer of the same kind."""
        live = await self.matches.open(self.match_id)
        base = self.matches.base_viewer(live.summary, self.caller)
        by_decision = frames is Frames.DECISION
        async for run in self.matches.watch(self.match_id, self.caller, since, by_decision=by_decision):
            yield run_text(run, base, frames)

    async def command(self, command_id: str, expected_version: int | None, command: dict[str, Any]) -> int:
        """Apply a seat's command (validated by the route, as over HTTP); the version after it.

        Raises what :meth:`MatchService.command` raises; the route maps it (``server.errors``).
        """
        return await self.matches.command_version(self.match_id, self.caller, command_id, expected_version, command)
