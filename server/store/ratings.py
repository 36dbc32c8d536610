"""The ratings read model's tables: every query on ``ratings``, ``rating_changes``,
``rated_matches`` and ``ratings_state`` is in this module (``server.services.ratings`` decides
what to fold; this reads and writes rows).

A finished match is read once: it gets a ``rated_matches`` row (with why it went unrated, if it
did) and, if rated, one ``rating_changes`` row per seat it moved. Matches are folded in the
order their ``match_ended`` events have in the log (their global ``position``), but a duplicate
round's match, which the ratings take only once its round is revealed, at the position of the
reveal (``server.services.ratings``): the ``position`` stored is the one the fold used.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Connection, Engine, and_, case, delete, func, insert, literal, select, update

from server.ratings.book import Book, Change, PlayerRating
from server.ratings.glicko2 import PROVISIONAL_DEVIATION
from server.store.models import (
    events_table,
    match_seats_table,
    match_summaries_table,
    players_table,
    rated_matches_table,
    rating_changes_table,
    ratings_state_table,
    ratings_table,
)
from server.store.streams import MATCH_PREFIX

STATE_ID: Final = 1
FINISHED: Final = "finished"
MATCH_ENDED: Final = "match_ended"


@dataclass(frozen=True)
class EndedMatch:
    """A finished match as the ratings read it (its summary and seats, and its end in the log)."""

    id: str
    position: int  # of its match_ended; the ratings may fold it later (a duplicate round's match)
    at: str
    ruleset: str | None
    tournament: str | None
    round: int | None
    dealt: bool  # a round was dealt: every seat joined and play began
    seats: tuple[str | None, ...]
    places: tuple[int, ...] | None  # each seat's place, if the match ended with places
    winner_seat: int | None


@dataclass(frozen=True)
class HistoryPoint:
    match: str
    at: str
    rating: float
    deviation: float


def writing(engine: Engine) -> Connection:
    """A connection whose transaction takes SQLite's write lock at BEGIN (as the store's do)."""
    return engine.connect().execution_options(sqlite_begin="IMMEDIATE")


# ------------------------------------------------------------------ state


def state(conn: Connection, lock: bool = False) -> tuple[str, bool] | None:
    """The state row ``(settings, stale)``; ``lock``: held until the transaction ends (PostgreSQL:
    FOR UPDATE; SQLite: the transaction already holds the write lock). None before the first fold."""
    s = ratings_state_table.c
    query = select(s.settings, s.stale).where(s.id == STATE_ID)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return None if row is None else (row.settings, bool(row.stale))


def set_state(conn: Connection, settings: str, stale: bool = False) -> None:
    s = ratings_state_table.c
    done = conn.execute(update(ratings_state_table).where(s.id == STATE_ID).values(settings=settings, stale=stale))
    if not done.rowcount:
        conn.execute(insert(ratings_state_table), [{"id": STATE_ID, "settings": settings, "stale": stale}])


def mark_stale(engine: Engine) -> None:
    """A result changed under the ratings (a ruling): the next read folds every match again."""
    with writing(engine) as conn, conn.begin():
        conn.execute(update(ratings_state_table).where(ratings_state_table.c.id == STATE_ID).values(stale=True))


def clear(conn: Connection) -> None:
    for table in (ratings_table, rating_changes_table, rated_matches_table):
        conn.execute(delete(table))


# ------------------------------------------------------------------ reading matches


def _ended_query(unread_only: bool) -> Any:
    m, e, r = match_summaries_table.c, events_table.c, rated_matches_table.c
    query = (
        select(m.id, m.ruleset, m.tournament, m.round, m.player1, m.winner_seat, e.position, e.at)
        .select_from(
            match_summaries_table.join(
                events_table, and_(e.stream == literal(MATCH_PREFIX) + m.id, e.type == MATCH_ENDED)
            )
        )
        .where(m.status == FINISHED)
    )
    if unread_only:
        query = query.where(~select(r.match_id).where(r.match_id == m.id).exists())
    return query.order_by(e.position)


def ended_matches(conn: Connection, unread_only: bool, chunk: int = 1000) -> Iterator[EndedMatch]:
    """Finished matches in the order they ended (``unread_only``: those the ratings have not read)."""
    rows = conn.execute(_ended_query(unread_only)).all()
    for start in range(0, len(rows), chunk):
        part = rows[start : start + chunk]
        seats = _seats(conn, [row.id for row in part])
        for row in part:
            seat_rows = seats.get(row.id, [])
            known = [s[1] for s in seat_rows if s[1] is not None]
            places = tuple(known) if seat_rows and len(known) == len(seat_rows) else None
            yield EndedMatch(
                id=row.id,
                position=row.position,
                at=row.at,
                ruleset=row.ruleset,
                tournament=row.tournament,
                round=row.round,
                dealt=row.player1 is not None,
                seats=tuple(s[0] for s in seat_rows),
                places=places,
                winner_seat=row.winner_seat,
            )


def _seats(conn: Connection, match_ids: list[str]) -> dict[str, list[tuple[str | None, int | None]]]:
    s = match_seats_table.c
    out: dict[str, list[tuple[str | None, int | None]]] = {}
    query = select(s.match_id, s.player_id, s.place).where(s.match_id.in_(match_ids)).order_by(s.match_id, s.seat)
    for row in conn.execute(query):
        out.setdefault(row.match_id, []).append((row.player_id, row.place))
    return out


def unread_rounds(conn: Connection) -> set[tuple[str | None, int | None]]:
    """The (tournament, round) of every finished match not read yet ((None, None): a casual one)."""
    query = _ended_query(unread_only=True).order_by(None).subquery()
    return {(row.tournament, row.round) for row in conn.execute(select(query.c.tournament, query.c.round).distinct())}


def last_read_position(conn: Connection) -> int:
    found = conn.execute(select(func.max(rated_matches_table.c.position))).scalar_one()
    return int(found or 0)


def read_but_no_longer_finished(conn: Connection) -> bool:
    """Whether a match the ratings read has since been annulled (a ruling replays it)."""
    r, m = rated_matches_table.c, match_summaries_table.c
    query = (
        select(r.match_id)
        .select_from(rated_matches_table.join(match_summaries_table, m.id == r.match_id))
        .where(m.status != FINISHED)
        .limit(1)
    )
    return conn.execute(query).first() is not None


# ------------------------------------------------------------------ ratings rows


def _rating_of(row: Any) -> PlayerRating:
    return PlayerRating(row.rating, row.deviation, row.volatility, row.mu, row.sigma, row.games, row.last_at)


def load_book(conn: Connection, keys: Iterable[tuple[str, str]]) -> Book:
    """A book holding the stored ratings of ``keys`` (identity, family)."""
    wanted = sorted(set(keys))
    book = Book()
    t = ratings_table.c
    for identity in sorted({k[0] for k in wanted}):
        for row in conn.execute(select(ratings_table).where(t.identity == identity)):
            if (row.identity, row.family) in wanted:
                book.ratings[(row.identity, row.family)] = _rating_of(row)
    return book


def ratings_of(conn: Connection, identities: Sequence[str]) -> dict[tuple[str, str], PlayerRating]:
    t = ratings_table.c
    rows = conn.execute(select(ratings_table).where(t.identity.in_(list(identities)))).all()
    return {(row.identity, row.family): _rating_of(row) for row in rows}


def save(
    conn: Connection,
    match: EndedMatch,
    unrated: str | None,
    changes: Sequence[Change],
    book: Book,
) -> None:
    """Record one read match: its ``rated_matches`` row, its changes, the ratings they made."""
    conn.execute(insert(rated_matches_table), [{"match_id": match.id, "position": match.position, "unrated": unrated}])
    if not changes:
        return
    conn.execute(
        insert(rating_changes_table),
        [
            {
                "match_id": c.match,
                "identity": c.identity,
                "family": c.family,
                "position": match.position,
                "at": c.at,
                "before": c.before,
                "after": c.after,
                "deviation": c.deviation,
            }
            for c in changes
        ],
    )
    t = ratings_table.c
    for c in changes:
        r = book.of(c.identity, c.family)
        values = {
            "rating": r.rating,
            "deviation": r.deviation,
            "volatility": r.volatility,
            "mu": r.mu,
            "sigma": r.sigma,
            "games": r.games,
            "last_at": r.last_at,
        }
        done = conn.execute(
            update(ratings_table).where(t.identity == c.identity, t.family == c.family).values(**values)
        )
        if not done.rowcount:
            conn.execute(insert(ratings_table), [{"identity": c.identity, "family": c.family, **values}])


# ------------------------------------------------------------------ a player's page


def history_of(conn: Connection, identity: str, family: str, limit: int) -> list[HistoryPoint]:
    """The last ``limit`` rated matches of ``identity`` in ``family``, oldest first."""
    c = rating_changes_table.c
    query = (
        select(c.match_id, c.at, c.after, c.deviation)
        .where(c.identity == identity, c.family == family)
        .order_by(c.position.desc())
        .limit(limit)
    )
    rows = conn.execute(query).all()
    return [HistoryPoint(r.match_id, r.at, r.after, r.deviation) for r in reversed(rows)]


def changes_in(conn: Connection, identity: str, match_ids: Sequence[str]) -> dict[str, float]:
    """The rating change ``identity`` had from each of ``match_ids`` that rated them."""
    c = rating_changes_table.c
    query = select(c.match_id, c.before, c.after).where(c.identity == identity, c.match_id.in_(list(match_ids)))
    return {r.match_id: r.after - r.before for r in conn.execute(query)}


def unrated_reasons(conn: Connection, match_ids: Sequence[str]) -> dict[str, str | None]:
    """For each read match of ``match_ids``: None if it was rated, else why not."""
    r = rated_matches_table.c
    query = select(r.match_id, r.unrated).where(r.match_id.in_(list(match_ids)))
    return {row.match_id: row.unrated for row in conn.execute(query)}


@dataclass(frozen=True)
class Listed:
    identity: str
    name: str
    kind: str
    rating: float
    deviation: float
    games: int

    @property
    def provisional(self) -> bool:
        return self.deviation >= PROVISIONAL_DEVIATION


def rating_list(engine: Engine, family: str, limit: int) -> list[Listed]:
    """The ``limit`` highest ratings of ``family`` (a house bot under its first player's name)."""
    t, p = ratings_table.c, players_table.c
    name = func.coalesce(p.name, t.identity)
    query = (
        select(
            t.identity, name.label("name"), func.coalesce(p.kind, "bot").label("kind"), t.rating, t.deviation, t.games
        )
        .select_from(
            ratings_table.outerjoin(
                players_table,
                p.id
                == case(
                    (t.identity.like("bot:%"), literal("bot-") + func.substr(t.identity, 5) + literal("-1")),
                    else_=t.identity,
                ),
            )
        )
        .where(t.family == family)
        .order_by(t.rating.desc(), t.identity)
        .limit(limit)
    )
    with engine.connect() as conn:
        return [Listed(r.identity, r.name, r.kind, r.rating, r.deviation, r.games) for r in conn.execute(query)]


def all_rows(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    """Every row of the ratings tables in a fixed order (to compare a rebuild with the live fold)."""
    out = {}
    with engine.connect() as conn:
        for table, order in (
            (ratings_table, ("identity", "family")),
            (rating_changes_table, ("match_id", "identity")),
            (rated_matches_table, ("match_id",)),
        ):
            query = select(table).order_by(*(table.c[name] for name in order))
            out[table.name] = [dict(row._mapping) for row in conn.execute(query)]
    return out
