"""Learning of tournament streams as they appear, for whoever follows tournaments (the lobby, the
tournaments' process manager): told at once of every append to a tournament stream it does not
know (``LocalNotifier.on_prefix``: this process's appends, and other processes' through
LISTEN/NOTIFY on PostgreSQL), and, where other processes append, by a sweep every
``follow_poll_seconds`` that lists the tournament streams, for a notification lost while the
listener reconnected. On SQLite one process owns the file: nothing appears unseen, nothing sweeps.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from server.store.errors import UNAVAILABLE
from server.store.event_store import EventStore
from server.tournaments.model import TOURNAMENT_PREFIX


class TournamentStreams:
    """Calls ``found(tournament_id)`` on the event loop for a tournament stream that grew while
    ``known(tournament_id)`` is False (``found`` decides what to do; it may be told twice)."""

    def __init__(self, store: EventStore, found: Callable[[str], None], known: Callable[[str], bool]) -> None:
        self.store = store
        self.found = found
        self.known = known
        self._undo: Callable[[], None] | None = None
        self._sweep: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Listen (on the running loop) and, on a shared database, sweep."""
        loop = asyncio.get_running_loop()

        def grew(stream: str) -> None:  # any thread: a tournament stream grew, here or elsewhere
            tournament_id = stream.removeprefix(TOURNAMENT_PREFIX)
            if not self.known(tournament_id):
                with contextlib.suppress(RuntimeError):  # the loop has closed: the server has stopped
                    loop.call_soon_threadsafe(self.found, tournament_id)

        self._undo = self.store.notifier.on_prefix(TOURNAMENT_PREFIX, grew)
        if self.store.shared:
            self._sweep = asyncio.ensure_future(self._sweeping())

    async def _sweeping(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            while True:
                await asyncio.sleep(self.store.follow_poll_seconds)
                try:
                    heads = await asyncio.to_thread(self.store.stream_heads, TOURNAMENT_PREFIX)
                except UNAVAILABLE:
                    continue
                for stream in heads:
                    self.found(stream.removeprefix(TOURNAMENT_PREFIX))

    def stop(self) -> asyncio.Task[None] | None:
        """Stop listening and sweeping; the sweep's task, if any, to wait for."""
        if self._undo is not None:
            self._undo()
            self._undo = None
        if self._sweep is not None:
            self._sweep.cancel()
        return self._sweep
