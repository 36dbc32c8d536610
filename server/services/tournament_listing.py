"""``GET /api/tournaments``: the tournaments a page at a time, newest first, without folding them all.

Issue 32 (point 6): the listing folded every tournament's stream on every request, one query
each (142 ms of CPU at 408 tournaments: seven requests a second filled a core). Now each process
keeps one line per tournament, made from its fold and tagged with the stream version it was made
at. A request asks the store for the head of every tournament stream in one query
(``EventStore.stream_heads``), folds again only the tournaments whose stream moved since (on
this server or on another sharing the database), and answers one page.

A page is newest first (creation time, then id, both descending); ``before`` (a tournament id,
the last one of the page before) continues after it, so a page never shifts as tournaments are
created. Blocking (reads the store): call it in a thread.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from server.schemas import TournamentListed
from server.store.event_store import EventStore
from server.store.values import format_at
from server.tournaments.model import CREATED, TOURNAMENT_PREFIX, Tournament, fold, tournament_stream

DEFAULT_PAGE: Final = 50
MAX_PAGE: Final = 200


class UnknownCursor(LookupError):
    """``before`` names no tournament."""


@dataclass(frozen=True, slots=True)
class Line:
    """One tournament as the listing shows it, and the stream version it was read at."""

    id: str
    created_at: str
    version: int
    name: str
    status: str
    players: frozenset[str]
    count: int
    rounds: int
    opened: int
    format: str
    open: bool
    check_in_opens: str | None = None
    checked_in: frozenset[str] = frozenset()
    late_entry_until: int | None = None  # running, entries still taken until this round is paired
    not_checked_in: frozenset[str] = frozenset()  # withdrawn at the start for not checking in

    @classmethod
    def of(cls, t: Tournament) -> Line:
        return cls(
            id=t.id,
            created_at=t.created_at,
            version=t.version,
            name=t.name,
            status=t.status,
            players=frozenset(t.players),
            count=len(t.players),
            rounds=t.planned,
            opened=t.opened,
            format=t.format.value,
            open=t.open,
            check_in_opens=format_at(opens) if (opens := t.check_in_opens()) is not None else None,
            checked_in=frozenset(t.checked_in),
            late_entry_until=t.late_entry_rounds if t.status != CREATED and t.entries_open() else None,
            not_checked_in=frozenset(t.not_checked_in),
        )

    def shown(self, player_id: str | None) -> TournamentListed:
        """The line for a caller (``entered``: whether ``player_id`` is in; None without a player)."""
        return TournamentListed(
            id=self.id,
            name=self.name,
            status=cast(Any, self.status),
            players=self.count,
            rounds=self.rounds,
            opened=self.opened,
            format=cast(Any, self.format),
            open=self.open,
            entries=self.count,
            entered=None if player_id is None else player_id in self.players,
            check_in_opens=self.check_in_opens,
            checked_in=len(self.checked_in),
            you_checked_in=None if player_id is None else player_id in self.checked_in,
            late_entry_until=self.late_entry_until,
            you_missed_check_in=None if player_id is None else player_id in self.not_checked_in,
        )

    @property
    def order(self) -> tuple[str, str]:
        return (self.created_at, self.id)


@dataclass(frozen=True)
class Page:
    lines: list[TournamentListed]
    more: bool  # tournaments older than the last line remain


class TournamentListing:
    """The lines of every tournament, kept per process and brought up to date per request."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._lines: dict[str, Line] = {}
        self._lock = threading.Lock()
        self.folds = 0  # tournaments folded so far (tests and the benchmark read it)

    def page(self, player_id: str | None, limit: int = DEFAULT_PAGE, before: str | None = None) -> Page:
        """Up to ``limit`` tournaments, newest first; after the tournament ``before`` if given
        (:class:`UnknownCursor` if there is none such)."""
        lines = self._current()
        ordered = sorted(lines, key=lambda line: line.order, reverse=True)
        start = 0
        if before is not None:
            cursor = next((line for line in lines if line.id == before), None)
            if cursor is None:
                raise UnknownCursor(before)
            start = next((i for i, line in enumerate(ordered) if line.order < cursor.order), len(ordered))
        chosen = ordered[start : start + limit]
        return Page([line.shown(player_id) for line in chosen], start + limit < len(ordered))

    def _current(self) -> Sequence[Line]:
        heads = self.store.stream_heads(TOURNAMENT_PREFIX)
        with self._lock:
            for stream, head in heads.items():
                tournament_id = stream.removeprefix(TOURNAMENT_PREFIX)
                known = self._lines.get(tournament_id)
                if known is None or known.version < head:
                    self._lines[tournament_id] = Line.of(self._fold(tournament_id))
            return [line for tournament_id, line in self._lines.items() if TOURNAMENT_PREFIX + tournament_id in heads]

    def _fold(self, tournament_id: str) -> Tournament:
        self.folds += 1
        events = self.store.read(tournament_stream(tournament_id), 1)
        return fold(tournament_id, ((e.type, e.data, e.at) for e in events))
