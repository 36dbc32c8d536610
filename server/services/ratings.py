"""Ratings as a read model (docs/RATINGS.md): folded from the finished matches in the event log,
in the order they ended, by the pure ``server.ratings.book``.

:meth:`Ratings.catch_up` reads the finished matches it has not read yet and rates them; it folds
everything again from the first match (as ``unoduo ratings rebuild`` does) when what was read no
longer holds: a match it rated was annulled (a ``replay`` ruling), a director's ruling changed a
result (:meth:`Ratings.result_changed`, subscribed to the tournament service's rulings), a match
ended out of order (two server processes), or the ratings setting changed. So the stored ratings
are always those a rebuild gives (tested on both databases).

What a match counts as: its places (a table's D23 places; two seats: the winner first), or,
after an ``award`` ruling, the awarded seat first and the others behind in their order. A
match is not rated when no round was dealt (a seat never came), when it is casual and the
server does not rate casual matches (``UNODUO_RATE_CASUAL``, off by default, as lichess's
casual games are unrated), when its ruleset belongs to no family, or when fewer than two
identities sit at it. House bots are rated by engine: every ``greedy-N`` plays for
``bot:greedy`` and shares its rating.

A duplicate round's match is not read until its round is revealed (``RoundSecrecy``: its result
is nobody's business before, docs/TOURNAMENTS.md "Duplicate rounds"); it is then folded at the
position of the reveal (after what ended before the reveal, in the order its round's matches
ended), so a rebuild folds it at the same place.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from engine.fairness.house_bots import house_bot_of_id
from server.ratings.book import FAMILIES, UNO_DUO, Book, PlayerRating, Result, family_of, newcomer_in
from server.services.secrecy import RoundSecrecy
from server.store import ratings as rows
from server.store.event_store import EventStore
from server.tournaments.model import Tournament

# Bump when the fold's rules change: stored ratings are then folded again (2: duplicate rounds wait for their reveal).
SETTINGS_VERSION = "2"

TournamentLoader = Callable[[str], Tournament | None]


def identity_of(player_id: str) -> str:
    """Whose rating a seat's player plays for: a house bot's engine (``bot:greedy``), else the player."""
    bot = house_bot_of_id(player_id)
    return f"bot:{bot}" if bot is not None else player_id


@dataclass(frozen=True)
class CatchUp:
    read: int  # matches read this time
    rated: int  # of which rated
    rebuilt: bool  # everything was folded again from the first match


@dataclass
class _Reading:
    """One catch-up's working set: the ratings loaded so far and each tournament's awards."""

    book: Book
    loaded: set[tuple[str, str]] = field(default_factory=set)
    awards: dict[str, dict[str, int]] = field(default_factory=dict)


class Ratings:
    def __init__(
        self,
        store: EventStore,
        rate_casual: bool,
        tournament_of: TournamentLoader,
        secrecy: RoundSecrecy | None = None,
    ) -> None:
        self.store = store
        self.rate_casual = rate_casual
        self.tournament_of = tournament_of
        self.secrecy = secrecy or RoundSecrecy(store)  # which duplicate rounds are still secret
        self._lock = threading.Lock()  # one catch-up at a time in this process (the database orders processes)

    @property
    def settings_key(self) -> str:
        return f"v{SETTINGS_VERSION} casual={int(self.rate_casual)}"

    # ------------------------------------------------------------ folding

    def result_changed(self, _tournament_id: str) -> None:
        """A ruling may have changed a result the ratings read: fold again at the next read."""
        rows.mark_stale(self.store.engine)

    def catch_up(self, rebuild: bool = False) -> CatchUp:
        """Bring the stored ratings up to the log (``rebuild``: fold everything from the first match)."""
        if not rebuild and not self._behind():
            return CatchUp(0, 0, False)
        try:
            return self._fold(rebuild)
        except IntegrityError:
            # Another process folded the same matches first (its rows are committed now): fold again.
            return self._fold(rebuild)

    def _fold(self, rebuild: bool) -> CatchUp:
        with self._lock, rows.writing(self.store.engine) as conn, conn.begin():
            state = rows.state(conn, lock=True)
            again = (
                rebuild
                or state is None
                or state != (self.settings_key, False)
                or rows.read_but_no_longer_finished(conn)
            )
            if not again:
                unread = self._in_order(rows.ended_matches(conn, unread_only=True))
                if unread and unread[0].position < rows.last_read_position(conn):
                    again = True  # a match ended (committed) behind one already read, or a round revealed
            if again:
                rows.clear(conn)
                unread = self._in_order(rows.ended_matches(conn, unread_only=False))
            reading = _Reading(Book())
            rated = 0
            for match in unread:
                rated += self._read(conn, reading, match)
            if again or state is None:
                rows.set_state(conn, self.settings_key)
        return CatchUp(len(unread), rated, again)

    def _behind(self) -> bool:
        """Whether there is anything to fold (read without the write lock: most reads find nothing)."""
        with self.store.engine.connect() as conn:
            return (
                rows.state(conn) != (self.settings_key, False)
                or any(self._revealed(t, r) is not None for t, r in rows.unread_rounds(conn))
                or rows.read_but_no_longer_finished(conn)
            )

    def _revealed(self, tournament: str | None, number: int | None) -> int | None:
        """From which position a match of this round may be read: 0 (casual, or a round that was
        never secret), the reveal's position (a duplicate round), None while the round is secret."""
        if tournament is None or number is None:
            return 0
        return self.secrecy.public_from(tournament, number)

    def _in_order(self, ended: Iterable[rows.EndedMatch]) -> list[rows.EndedMatch]:
        """The finished matches the fold may take now, in the order it takes them: each at the
        position its match ended, but a duplicate round's only once the round is revealed, at the
        reveal's position (the round's matches among themselves in the order they ended)."""
        out = []
        for match in ended:  # in the order they ended
            since = self._revealed(match.tournament, match.round)
            if since is None:
                continue  # its round is secret: read once revealed
            out.append(replace(match, position=since) if since > match.position else match)
        out.sort(key=lambda m: m.position)  # stable: ties keep the order they ended in
        return out

    async def catch_up_async(self) -> CatchUp:
        return await asyncio.to_thread(self.catch_up)

    def _read(self, conn: Connection, reading: _Reading, match: rows.EndedMatch) -> int:
        result, unrated = self._result(reading, match)
        changes = []
        if result is not None:
            keys = [(identity, result.family) for identity in result.seats]
            missing = [k for k in keys if k not in reading.loaded]
            if missing:
                reading.book.ratings.update(rows.load_book(conn, missing).ratings)
                reading.loaded.update(missing)
            changes = reading.book.rate(result)
        rows.save(conn, match, unrated, changes, reading.book)
        return 1 if changes else 0

    def _result(self, reading: _Reading, m: rows.EndedMatch) -> tuple[Result | None, str | None]:
        family = family_of(m.ruleset)
        if family is None:
            return None, "no rating family"
        if m.tournament is None and not self.rate_casual:
            return None, "casual"
        if not m.dealt:
            return None, "not played"
        if any(seat is None for seat in m.seats) or len(m.seats) < 2:
            return None, "empty seat"
        identities = tuple(identity_of(p) for p in m.seats if p is not None)
        if len(set(identities)) < 2:
            return None, "one player"
        places = self._places(reading, m)
        if places is None:
            return None, "no result"
        if family == UNO_DUO and len(places) != 2:
            return None, "no rating family"
        return Result(m.id, family, m.at, identities, places), None

    def _places(self, reading: _Reading, m: rows.EndedMatch) -> tuple[int, ...] | None:
        if m.places is not None:
            places = m.places
        elif m.winner_seat is not None and len(m.seats) == 2:
            places = tuple(1 if seat == m.winner_seat else 2 for seat in range(2))
        else:
            return None
        award = self._award(reading, m)
        if award is None or not 0 <= award < len(places):
            return places
        behind = sorted({place for seat, place in enumerate(places) if seat != award})
        return tuple(1 if seat == award else 2 + behind.index(place) for seat, place in enumerate(places))

    def _award(self, reading: _Reading, m: rows.EndedMatch) -> int | None:
        if m.tournament is None:
            return None
        if m.tournament not in reading.awards:
            t = self.tournament_of(m.tournament)
            reading.awards[m.tournament] = (
                {}
                if t is None
                else {
                    d.match: d.award_to for d in t.disputes.values() if d.decision == "award" and d.award_to is not None
                }
            )
        return reading.awards[m.tournament].get(m.id)

    # ------------------------------------------------------------ reading

    def current(self, player_ids: Iterable[str]) -> dict[str, dict[str, PlayerRating]]:
        """Each player's rating in every family (a newcomer's where they have none), caught up first."""
        self.catch_up()
        ids = list(dict.fromkeys(player_ids))
        with self.store.engine.connect() as conn:
            stored = rows.ratings_of(conn, [identity_of(p) for p in ids])
        return {p: {f: stored.get((identity_of(p), f)) or newcomer_in(f) for f in FAMILIES} for p in ids}

    def seeding(self, player_ids: list[str], family: str) -> dict[str, float]:
        """The number to seed ``player_ids`` by in ``family``: the rating (a newcomer's 1500)."""
        return {p: r[family].rating for p, r in self.current(player_ids).items()}


def family_ratings(ratings: Mapping[str, PlayerRating]) -> dict[str, dict[str, object]]:
    """docs/API.md's ``ratings``: ``{FAMILY: {rating, deviation, provisional, games}}``."""
    return {
        family: {
            "rating": round(r.rating, 1),
            "deviation": round(r.deviation, 1),
            "provisional": r.provisional,
            "games": r.games,
        }
        for family, r in ratings.items()
    }
