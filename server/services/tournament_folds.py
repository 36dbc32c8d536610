"""Each tournament's fold, kept between reads: a read brings it up to its stream's head by reading
only what was appended since (one query that finds nothing, when nothing was), instead of folding
the whole stream again at every look (a withdrawal looked five times).

A fold handed out is never changed afterwards: new events are folded into a copy, which replaces
it here, so a caller may hold a fold across an ``await`` while another request moves the
tournament on. Reads run in worker threads (``asyncio.to_thread``); a slower thread never puts
back an older fold than the one kept. At most :data:`KEPT` tournaments are kept, the least
recently read going first (a club's running ones fit many times over).
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Final

from engine.game.errors import shown
from server.domain_errors import NotFound
from server.store.event_store import EventStore
from server.tournaments.model import EVENT_CLASSES, Tournament, evolve, parse_event, tournament_stream

KEPT: Final = 256


class TournamentNotFound(NotFound):
    def __init__(self, tournament_id: str) -> None:
        super().__init__(f"no tournament {shown(tournament_id)}")


class TournamentFolds:
    def __init__(self, store: EventStore, kept: int = KEPT) -> None:
        self.store = store
        self.kept = kept
        self._folds: OrderedDict[str, Tournament] = OrderedDict()
        self._lock = threading.Lock()

    def load(self, tournament_id: str) -> Tournament:
        """The tournament as its stream stands now (TournamentNotFound if it has no events). Blocking."""
        with self._lock:
            kept = self._folds.get(tournament_id)
        after = kept.version if kept is not None else 0
        events = self.store.read(tournament_stream(tournament_id), after + 1)
        if not events:
            if kept is None:
                raise TournamentNotFound(tournament_id)
            with self._lock:
                self._keep(tournament_id, kept)
            return kept
        # Speed: a deep copy of the kept fold and the new events only, not the whole stream again.
        t = copy.deepcopy(kept) if kept is not None else Tournament(tournament_id)
        for stored in events:
            if stored.type in EVENT_CLASSES:
                evolve(t, parse_event(stored.type, stored.data), stored.at)
            else:  # a type this code does not know (a newer server's): it changes nothing here
                t.version += 1
        with self._lock:
            newest = self._folds.get(tournament_id)
            self._keep(tournament_id, t if newest is None or newest.version <= t.version else newest)
        return t

    def find(self, tournament_id: str) -> Tournament | None:
        """:meth:`load`, answering None for a tournament nobody made (the ratings' loader). Blocking."""
        try:
            return self.load(tournament_id)
        except TournamentNotFound:
            return None

    def _keep(self, tournament_id: str, t: Tournament) -> None:
        self._folds[tournament_id] = t
        self._folds.move_to_end(tournament_id)
        while len(self._folds) > self.kept:
            self._folds.popitem(last=False)
