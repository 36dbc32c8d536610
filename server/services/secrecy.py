"""Which tournament rounds are still secret: the facts behind the one read gate of a match
(``MatchRegistry.reader``; docs/FAIRNESS.md and docs/TOURNAMENTS.md "Duplicate rounds").

Every match of a duplicate tournament's round is dealt the same cards, so anything one of them
shows — the draft pile, the starter, the cards played, how it ended — tells the seats of every
other match of the round what they hold. Until the round is **revealed** (the tournament's
``duplicate_revealed`` for it, appended once every pairing of the round is decided) each of its
matches is read by its own seats and the director only, and its result counts nowhere.

A round is **secret** while its tournament is a duplicate one and no ``duplicate_revealed``
names it; every other round (casual matches, tournaments without ``duplicate``) never was. A
reveal is never undone, so what is known public stays public: a tournament without duplicate
rounds, or a revealed round, is answered from memory for good. A round still secret is looked
up again each time (one indexed query for the tournament's reveals since it was last read:
``server.store.reveals``, which reads nothing else of the stream), so a reveal made by any
process is seen at once. At most :data:`TOURNAMENTS_KEPT` tournaments are remembered, the least
recently asked about going first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Final

from server.store.event_store import EventStore
from server.store.reveals import CREATED, REVEALED, round_facts
from server.tournaments.model import tournament_stream

TOURNAMENTS_KEPT: Final = 4096
NEVER_SECRET: Final = 0
""":meth:`RoundSecrecy.public_from` of a round that was never secret (no duplicate rounds)."""


@dataclass
class _Known:
    """What one tournament's stream says about its rounds, up to its fact of seq ``version``."""

    version: int = 0
    duplicate: bool = False
    revealed: dict[int, int] = field(default_factory=dict)  # round -> the position of its duplicate_revealed

    def public_from(self, number: int) -> int | None:
        if not self.duplicate:
            return NEVER_SECRET
        return self.revealed.get(number)


class RoundSecrecy:
    """The secret rounds of duplicate tournaments, read from their streams (thread-safe; blocking
    where it reads the store)."""

    def __init__(self, store: EventStore, kept: int = TOURNAMENTS_KEPT) -> None:
        self.store = store
        self.kept = kept
        self._known: OrderedDict[str, _Known] = OrderedDict()
        self._lock = threading.Lock()

    def known_public(self, tournament: str | None, number: int | None) -> bool:
        """Whether the round is known to be public without reading anything (never blocks): a
        casual match's, or a round remembered as public. False says nothing: ask :meth:`secret`."""
        if tournament is None or number is None:
            return True
        with self._lock:
            known = self._known.get(tournament)
            return known is not None and known.public_from(number) is not None

    def secret(self, tournament: str | None, number: int | None) -> bool:
        """Whether round ``number`` of ``tournament`` is a duplicate round not revealed yet (blocking)."""
        if tournament is None or number is None:
            return False
        return self.public_from(tournament, number) is None

    def public_from(self, tournament: str, number: int) -> int | None:
        """From which global position round ``number``'s matches are public: :data:`NEVER_SECRET`
        for a round that never was secret, the position of its ``duplicate_revealed`` once revealed,
        None while it is secret (blocking: it may read the tournament's new events)."""
        with self._lock:
            known = self._known.get(tournament)
            if known is not None:
                self._known.move_to_end(tournament)
                found = known.public_from(number)
                if found is not None:
                    return found
            after = known.version if known is not None else 0
        fresh = round_facts(self.store.engine, tournament_stream(tournament), after)
        with self._lock:
            known = self._known.get(tournament) or _Known()
            for fact in fresh:
                if fact.seq <= known.version:
                    continue  # another thread took it meanwhile
                known.version = fact.seq
                if fact.type == CREATED:
                    known.duplicate = fact.data.get("duplicate") is True
                elif fact.type == REVEALED:
                    known.revealed[int(fact.data["round"])] = fact.position
            if known.version == 0:
                return NEVER_SECRET  # no such tournament: no round of it can be secret (nothing kept)
            self._known[tournament] = known
            self._known.move_to_end(tournament)
            while len(self._known) > self.kept:
                self._known.popitem(last=False)
            return known.public_from(number)
