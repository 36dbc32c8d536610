"""Read models: match summaries (docs/API.md) and standings, projected from the events.

:func:`project` is the whole projection: a small function from one event envelope to changes
in a :class:`Projection`, with no I/O of its own. The store calls it inside every append
transaction, on a projection that loads the rows it touches from the database (and locks them
on PostgreSQL); :func:`rebuild` empties the tables and calls it on every event from the first,
in an empty in-memory projection. Both must give the same rows (tested).

Standings: one row per (scope, player) over finished matches, ``scope`` a tournament id or ''
for casual matches; points are the engine's match scores (``points_for`` the player's own).
An annulled match counts for nobody. A match whose seats are unknown when it ends (the server
always registers a match before creating it) is counted when it is registered.

The projection runs inside the append transaction and writes with SQLAlchemy Core; the
server's reads (:func:`match_summary`, :func:`matches_of`) go through SQLModel sessions on
``MatchSummaryRow``. Every query on these tables is in this module.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import sqlmodel
from sqlalchemy import Connection, Engine, and_, case, delete, func, insert, literal, or_, select, text, update

from engine.fairness.house_bots import house_bot_of_id
from engine.game.events import EventType
from engine.game.rulesets import MAX_SEATS, MIN_SEATS
from server.store.errors import InvalidAppendError
from server.store.models import (
    MatchStatus,
    MatchSummaryPublic,
    MatchSummaryRow,
    PlayerPublic,
    events_table,
    match_seats_table,
    match_summaries_table,
    standings_table,
)
from server.store.server_events import MatchRegistered
from server.store.streams import MATCH_PREFIX, MATCHES_STREAM, ServerEventType, match_id_of

WAITING: Final = "waiting"
LIVE: Final = "live"
FINISHED: Final = "finished"
ANNULLED: Final = "annulled"

# Event types that change a read model; every other event is skipped without loading a row.
MATCH_EVENT_TYPES = frozenset(
    {EventType.MATCH_CREATED, EventType.ROUND_STARTED, EventType.ROUND_ENDED, EventType.MATCH_ENDED}
)
REGISTRY_EVENT_TYPES = frozenset({ServerEventType.MATCH_REGISTERED, ServerEventType.MATCH_ANNULLED})


@dataclass
class MatchSummary:
    """A match summary as the projection works on it (``MatchSummaryRow`` and one ``MatchSeatRow``
    per seat are its stored form). ``seats``, ``scores`` and ``places`` have one entry per seat."""

    id: str
    status: MatchStatus = WAITING
    seats: list[str | None] = field(default_factory=lambda: [None, None])
    player1: int | None = None
    scores: list[int] = field(default_factory=lambda: [0, 0])
    winner: str | None = None
    winner_seat: int | None = None
    tournament: str | None = None
    round: int | None = None
    ruleset: str | None = None
    move_seconds: int | None = None
    places: list[int] | None = None
    creator: str | None = None

    def to_row(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "seat0": self.seats[0],
            "seat1": self.seats[1],
            "player1": self.player1,
            "score0": self.scores[0],
            "score1": self.scores[1],
            "winner": self.winner,
            "winner_seat": self.winner_seat,
            "tournament": self.tournament,
            "round": self.round,
            "ruleset": self.ruleset,
            "move_seconds": self.move_seconds,
            "creator": self.creator,
        }

    def seat_rows(self) -> list[dict[str, Any]]:
        return [
            {
                "match_id": self.id,
                "seat": seat,
                "player_id": player,
                "score": self.scores[seat],
                "place": None if self.places is None else self.places[seat],
            }
            for seat, player in enumerate(self.seats)
        ]

    @classmethod
    def from_row(cls, row: Mapping[Any, Any], seat_rows: list[Mapping[Any, Any]] | None = None) -> MatchSummary:
        """From its row and its seats' rows (in seat order; none: the row's two seats)."""
        places: list[int] | None = None
        if seat_rows:
            seats = [r["player_id"] for r in seat_rows]
            scores = [r["score"] for r in seat_rows]
            if all(r["place"] is not None for r in seat_rows):
                places = [r["place"] for r in seat_rows]
        else:
            seats, scores = [row["seat0"], row["seat1"]], [row["score0"], row["score1"]]
        return cls(
            id=row["id"],
            status=row["status"],
            seats=seats,
            player1=row["player1"],
            scores=scores,
            winner=row["winner"],
            winner_seat=row["winner_seat"],
            tournament=row["tournament"],
            round=row["round"],
            ruleset=row["ruleset"],
            move_seconds=row["move_seconds"],
            places=places,
            creator=row["creator"],
        )

    def public(self, seats: list[PlayerPublic | None]) -> MatchSummaryPublic:
        """docs/API.md's match summary, with ``seats`` the players of ``self.seats`` (looked up by the caller)."""
        return MatchSummaryPublic(
            id=self.id,
            status=self.status,
            seats=seats,
            player1=self.player1,
            scores=list(self.scores),
            places=None if self.places is None else list(self.places),
            winner=self.winner,
            tournament=self.tournament,
            round=self.round,
            ruleset=self.ruleset,
            move_seconds=self.move_seconds,
        )

    def sized(self, seats: int) -> None:
        """Give every per-seat list ``seats`` entries (a table registered, or created, with that many)."""
        if len(self.seats) != seats:
            self.seats = (self.seats + [None] * seats)[:seats]
        if len(self.scores) != seats:
            self.scores = (self.scores + [0] * seats)[:seats]


@dataclass
class Standing:
    """A standing as the projection works on it (``StandingRow`` is its stored form)."""

    scope: str
    player: str
    played: int = 0
    won: int = 0
    lost: int = 0
    points_for: int = 0
    points_against: int = 0

    def to_row(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "player": self.player,
            "played": self.played,
            "won": self.won,
            "lost": self.lost,
            "points_for": self.points_for,
            "points_against": self.points_against,
        }

    @classmethod
    def from_row(cls, row: Mapping[Any, Any]) -> Standing:
        return cls(**{k: row[k] for k in ("scope", "player", "played", "won", "lost", "points_for", "points_against")})


class Loader(Protocol):
    def load_match(self, match_id: str) -> MatchSummary | None: ...

    def load_standing(self, scope: str, player: str) -> Standing | None: ...


class Projection:
    """The rows a projection run has touched; missing rows come from ``loader`` (None: empty)."""

    def __init__(self, loader: Loader | None = None) -> None:
        self._loader = loader
        self.matches: dict[str, MatchSummary] = {}
        self.standings: dict[tuple[str, str], Standing] = {}
        self._stored_matches: set[str] = set()
        self._stored_standings: set[tuple[str, str]] = set()
        self._dirty_matches: set[str] = set()
        self._dirty_standings: set[tuple[str, str]] = set()

    def match(self, match_id: str) -> MatchSummary:
        found = self.matches.get(match_id)
        if found is None:
            found = self._loader.load_match(match_id) if self._loader else None
            if found is not None:
                self._stored_matches.add(match_id)
            else:
                found = MatchSummary(id=match_id)
            self.matches[match_id] = found
        self._dirty_matches.add(match_id)
        return found

    def standing(self, scope: str, player: str) -> Standing:
        key = (scope, player)
        found = self.standings.get(key)
        if found is None:
            found = self._loader.load_standing(scope, player) if self._loader else None
            if found is not None:
                self._stored_standings.add(key)
            else:
                found = Standing(scope=scope, player=player)
            self.standings[key] = found
        self._dirty_standings.add(key)
        return found

    def flush(self, conn: Connection) -> None:
        """Write every touched row (UPDATE if it was loaded, else INSERT)."""
        new = [self.matches[k].to_row() for k in sorted(self._dirty_matches - self._stored_matches)]
        old = [self.matches[k].to_row() for k in sorted(self._dirty_matches & self._stored_matches)]
        if new:
            conn.execute(insert(match_summaries_table), new)
        for row in old:
            conn.execute(update(match_summaries_table).where(match_summaries_table.c.id == row["id"]).values(row))
        seated = sorted(self._dirty_matches & self._stored_matches)
        if seated:  # a match's seats are written whole: at most ten rows, only when the match moved
            conn.execute(delete(match_seats_table).where(match_seats_table.c.match_id.in_(seated)))
        seat_rows = [r for k in sorted(self._dirty_matches) for r in self.matches[k].seat_rows()]
        if seat_rows:
            conn.execute(insert(match_seats_table), seat_rows)
        # a standing whose every match was taken back (annulled) is no row at all
        empty = {k for k in self._dirty_standings if self.standings[k].played == 0}
        snew = [self.standings[k].to_row() for k in sorted(self._dirty_standings - self._stored_standings - empty)]
        sold = [self.standings[k].to_row() for k in sorted((self._dirty_standings & self._stored_standings) - empty)]
        if snew:
            conn.execute(insert(standings_table), snew)
        for row in sold:
            conn.execute(update(standings_table).where(_standing_key(row["scope"], row["player"])).values(row))
        for scope, player in sorted(empty & self._stored_standings):
            conn.execute(delete(standings_table).where(_standing_key(scope, player)))
        self._stored_matches |= self._dirty_matches
        self._stored_standings = (self._stored_standings | self._dirty_standings) - empty
        self._dirty_matches.clear()
        self._dirty_standings.clear()


def _seat_rows(conn: Connection, match_ids: list[str]) -> dict[str, list[Mapping[Any, Any]]]:
    """The seats' rows of each of ``match_ids``, in seat order (the row lock is the summary's)."""
    seats = match_seats_table.c
    found: dict[str, list[Mapping[Any, Any]]] = {m: [] for m in match_ids}
    if match_ids:
        query = select(match_seats_table).where(seats.match_id.in_(match_ids)).order_by(seats.match_id, seats.seat)
        for row in conn.execute(query).mappings():
            found[row["match_id"]].append(row)
    return found


def _standing_key(scope: str, player: str) -> Any:
    return and_(standings_table.c.scope == scope, standings_table.c.player == player)


class DbLoader:
    """Loads rows through the append transaction's connection, locking them on PostgreSQL."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._lock = conn.dialect.name == "postgresql"

    def load_match(self, match_id: str) -> MatchSummary | None:
        query = select(match_summaries_table).where(match_summaries_table.c.id == match_id)
        row = self._conn.execute(query.with_for_update() if self._lock else query).mappings().first()
        return None if row is None else MatchSummary.from_row(row, _seat_rows(self._conn, [match_id])[match_id])

    def load_standing(self, scope: str, player: str) -> Standing | None:
        query = select(standings_table).where(_standing_key(scope, player))
        row = self._conn.execute(query.with_for_update() if self._lock else query).mappings().first()
        return None if row is None else Standing.from_row(row)


# ---------------------------------------------------------------- the projection itself


def is_projected(stream: str, type_: str) -> bool:
    if stream == MATCHES_STREAM:
        return type_ in REGISTRY_EVENT_TYPES
    return type_ in MATCH_EVENT_TYPES and match_id_of(stream) is not None


def _count(view: Projection, m: MatchSummary, sign: int) -> None:
    """Add (sign=1) or take back (sign=-1) a finished match in its players' standings."""
    if m.winner_seat is None or None in m.seats:
        return
    scope = m.tournament or ""
    total = sum(m.scores)
    for seat, player in enumerate(m.seats):
        assert player is not None
        s = view.standing(scope, player)
        s.played += sign
        if seat == m.winner_seat:
            s.won += sign
        else:
            s.lost += sign
        s.points_for += sign * m.scores[seat]
        s.points_against += sign * (total - m.scores[seat])  # every other seat's total


def project(view: Projection, envelope: Mapping[str, Any]) -> None:
    """Apply one stored event to the read models held by ``view``."""
    stream, type_, data = envelope["stream"], envelope["type"], envelope["data"]
    if not is_projected(stream, type_):
        return
    if stream == MATCHES_STREAM:
        m = view.match(data["match"])
        if type_ == ServerEventType.MATCH_REGISTERED:
            registered = MatchRegistered.from_payload(data)
            counted = m.status == FINISHED
            if counted:
                _count(view, m, -1)
            m.sized(len(registered.seats))
            m.seats = list(registered.seats)
            m.creator = registered.creator
            m.tournament = registered.tournament
            m.round = registered.round
            m.ruleset = registered.ruleset or m.ruleset
            m.move_seconds = registered.move_seconds
            if m.winner_seat is not None:
                m.winner = m.seats[m.winner_seat]
            if counted:
                _count(view, m, 1)
        elif type_ == ServerEventType.MATCH_ANNULLED:
            if m.status == FINISHED:
                _count(view, m, -1)
            m.status = ANNULLED
        return
    match_id = match_id_of(stream)
    assert match_id is not None
    m = view.match(match_id)
    if type_ == EventType.MATCH_CREATED:
        if m.ruleset is None:
            m.ruleset = data["ruleset"]["name"]
        seats = data.get("seats")
        if _is_int(seats) and MIN_SEATS <= seats <= MAX_SEATS:
            m.sized(seats)
    elif type_ == EventType.ROUND_STARTED:
        if m.status == WAITING:
            m.status = LIVE
        m.player1 = data["player1"]
    elif type_ == EventType.ROUND_ENDED:
        m.sized(len(data["scores"]))
        m.scores = list(data["scores"])
    elif type_ == EventType.MATCH_ENDED and m.status != ANNULLED:
        m.status = FINISHED
        m.sized(len(data["scores"]))
        m.scores = list(data["scores"])
        places = data.get("places")
        m.places = list(places) if isinstance(places, list) else None
        m.winner_seat = data["winner"]
        m.winner = m.seats[data["winner"]]
        _count(view, m, 1)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_opt_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


def check_event(stream: str, type_: str, data: Mapping[str, Any]) -> None:
    """Refuse (InvalidAppendError) an event the projection could not apply; nothing is written."""
    if not is_projected(stream, type_):
        return

    def need(ok: bool, what: str) -> None:
        if not ok:
            raise InvalidAppendError(f"{type_} event on {stream!r}: {what}")

    def per_seat(value: Any) -> bool:
        return isinstance(value, list) and MIN_SEATS <= len(value) <= MAX_SEATS and all(_is_int(v) for v in value)

    def a_seat(value: Any) -> bool:
        return _is_int(value) and 0 <= value < MAX_SEATS

    if type_ in REGISTRY_EVENT_TYPES:
        need(isinstance(data.get("match"), str) and bool(data.get("match")), "needs a match id")
    if type_ == ServerEventType.MATCH_REGISTERED:
        seats = data.get("seats")
        need(
            isinstance(seats, list) and MIN_SEATS <= len(seats) <= MAX_SEATS and all(_is_opt_str(s) for s in seats),
            f"seats must be {MIN_SEATS} to {MAX_SEATS} player ids (or null)",
        )
        need(_is_opt_str(data.get("creator")), "creator must be a player id or null")
        need(_is_opt_str(data.get("tournament")), "tournament must be an id or null")
        need(data.get("round") is None or _is_int(data.get("round")), "round must be a number or null")
        need(_is_opt_str(data.get("ruleset")), "ruleset must be a name or null")
        move = data.get("move_seconds")
        need(move is None or (_is_int(move) and move > 0), "move_seconds must be a positive number or null")
    elif type_ == EventType.MATCH_CREATED:
        ruleset = data.get("ruleset")
        need(isinstance(ruleset, Mapping) and isinstance(ruleset.get("name"), str), "needs ruleset.name")
    elif type_ == EventType.ROUND_STARTED:
        need(a_seat(data.get("player1")), "player1 must be a seat number")
    elif type_ == EventType.ROUND_ENDED:
        need(per_seat(data.get("scores")), "scores must be one number per seat")
    elif type_ == EventType.MATCH_ENDED:
        need(per_seat(data.get("scores")), "scores must be one number per seat")
        seats = len(data["scores"])
        need(a_seat(data.get("winner")) and data["winner"] < seats, "winner must be a seat of the match")
        places = data.get("places")
        need(places is None or (per_seat(places) and len(places) == seats), "places must be one per seat")


# ---------------------------------------------------------------- rebuild


@dataclass(frozen=True)
class RebuildReport:
    events: int
    matches: int
    standings: int


def _projected_events(conn: Connection, chunk: int = 2000) -> Iterator[dict[str, Any]]:
    events = events_table.c
    relevant = or_(events.stream == MATCHES_STREAM, events.stream.like(f"{MATCH_PREFIX}%"))
    after = 0
    while True:
        rows = (
            conn.execute(
                select(events.position, events.stream, events.type, events.data)
                .where(and_(events.position > after, relevant))
                .order_by(events.position)
                .limit(chunk)
            )
            .mappings()
            .all()
        )
        if not rows:
            return
        for row in rows:
            yield dict(row)
        after = rows[-1]["position"]


def rebuild(engine: Engine) -> RebuildReport:
    """Empty the read-model tables and project every event again, in one transaction.

    Appends wait while it runs (SQLite: the write lock; PostgreSQL: a SHARE lock on events).
    """
    with engine.connect().execution_options(sqlite_begin="IMMEDIATE") as conn, conn.begin():
        if conn.dialect.name == "postgresql":
            conn.execute(text("LOCK TABLE events IN SHARE MODE"))
        conn.execute(delete(match_summaries_table))
        conn.execute(delete(match_seats_table))
        conn.execute(delete(standings_table))
        view = Projection()
        count = 0
        for envelope in _projected_events(conn):
            project(view, envelope)
            count += 1
        view.flush(conn)
        standings = sum(1 for s in view.standings.values() if s.played)
        return RebuildReport(events=count, matches=len(view.matches), standings=standings)


def read_rows(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    """Every read-model row, in key order (for comparisons and the CLI)."""
    summaries, seats, standings = match_summaries_table, match_seats_table, standings_table
    with engine.connect() as conn:
        return {
            "match_summaries": [dict(r) for r in conn.execute(select(summaries).order_by(summaries.c.id)).mappings()],
            "match_seats": [
                dict(r) for r in conn.execute(select(seats).order_by(seats.c.match_id, seats.c.seat)).mappings()
            ],
            "standings": [
                dict(r)
                for r in conn.execute(select(standings).order_by(standings.c.scope, standings.c.player)).mappings()
            ],
        }


# ---------------------------------------------------------------- queries (outside the append path)


def match_summary(engine: Engine, match_id: str) -> MatchSummary | None:
    return match_summaries(engine, [match_id]).get(match_id)


SUMMARIES_AT_ONCE: Final = 500  # ids in one query's IN list (well under SQLite's bound on parameters)


def match_summaries(engine: Engine, match_ids: Sequence[str]) -> dict[str, MatchSummary]:
    """The summaries of ``match_ids`` that exist, by id, read in one session (a few queries, not
    two a match: a tournament's page shows up to thousands)."""
    found: dict[str, MatchSummary] = {}
    ids = list(dict.fromkeys(match_ids))
    with sqlmodel.Session(engine) as session:
        for start in range(0, len(ids), SUMMARIES_AT_ONCE):
            chunk = ids[start : start + SUMMARIES_AT_ONCE]
            query = sqlmodel.select(MatchSummaryRow).where(sqlmodel.col(MatchSummaryRow.id).in_(chunk))
            rows = [row.model_dump() for row in session.exec(query)]
            seats = _seat_rows(session.connection(), [row["id"] for row in rows])
            found.update((row["id"], MatchSummary.from_row(row, seats[row["id"]])) for row in rows)
    return found


def matches_of(engine: Engine, player_id: str, limit: int | None = None) -> list[MatchSummary]:
    """The matches ``player_id`` has a seat in (any seat of a table): live ones first, then waiting,
    then the rest, each by match id; at most ``limit`` of them (None: all)."""
    status = sqlmodel.col(MatchSummaryRow.status)
    first = case((status == LIVE, 0), (status == WAITING, 1), else_=2)
    seated = select(match_seats_table.c.match_id).where(match_seats_table.c.player_id == player_id)
    query = (
        sqlmodel.select(MatchSummaryRow)
        .where(sqlmodel.col(MatchSummaryRow.id).in_(seated))
        .order_by(first, sqlmodel.col(MatchSummaryRow.id))
        .limit(limit)
    )
    with sqlmodel.Session(engine) as session:
        rows = [row.model_dump() for row in session.exec(query)]
        seats = _seat_rows(session.connection(), [row["id"] for row in rows])
        return [MatchSummary.from_row(row, seats[row["id"]]) for row in rows]


# An open invitation: a casual match (no tournament) that has not started (status waiting); its
# creator is ``creator``, and its creation time is the ``at`` of its stream's first event.
def _invitations() -> Any:
    summaries, events = match_summaries_table.c, events_table.c
    created = and_(events.stream == literal(MATCH_PREFIX).concat(summaries.id), events.seq == 1)
    return (
        select(summaries.id, events.at)
        .select_from(match_summaries_table.join(events_table, created))
        .where(and_(summaries.status == WAITING, summaries.tournament.is_(None)))
    )


def open_invitations(engine: Engine, player_id: str) -> int:
    """How many open invitations ``player_id`` has made (casual matches created, not started yet)."""
    summaries = match_summaries_table.c
    query = (
        select(func.count())
        .select_from(match_summaries_table)
        .where(and_(summaries.status == WAITING, summaries.tournament.is_(None), summaries.creator == player_id))
    )
    with engine.connect() as conn:
        return int(conn.execute(query).scalar_one())


def invitations_created_before(engine: Engine, cutoff: str, limit: int) -> list[str]:
    """Open invitations created at or before ``cutoff`` (a stored ``at``), oldest first, at most ``limit``."""
    events = events_table.c
    query = _invitations().where(events.at <= cutoff).order_by(events.at, match_summaries_table.c.id).limit(limit)
    with engine.connect() as conn:
        return [row.id for row in conn.execute(query)]


def earliest_invitation(engine: Engine) -> str | None:
    """The creation time (``at``) of the oldest open invitation, None if there is none."""
    query = _invitations().order_by(events_table.c.at).limit(1)
    with engine.connect() as conn:
        row = conn.execute(query).first()
        return None if row is None else str(row.at)


def live_match_ids(engine: Engine) -> list[str]:
    """The matches being played (status ``live``), by match id: what a starting server holds live."""
    query = (
        sqlmodel.select(MatchSummaryRow.id)
        .where(sqlmodel.col(MatchSummaryRow.status) == LIVE)
        .order_by(sqlmodel.col(MatchSummaryRow.id))
    )
    with sqlmodel.Session(engine) as session:
        return list(session.exec(query))


# ---------------------------------------------------------------- a player's page (issue 23)


@dataclass(frozen=True)
class Meeting:
    """One other seat of a finished match ``player`` sat at: who, and both seats' places."""

    match_id: str
    tournament: str | None
    seat: int
    player: str
    other: str
    other_seat: int
    place: int | None
    other_place: int | None
    winner_seat: int | None
    round: int | None = None  # the tournament's round (a duplicate round's result counts once revealed)


def seated_as(column: Any, player_id: str) -> Any:
    """A condition on a seat's player column: ``player_id``'s seat, or for a house bot the seat of
    any player its engine plays for (``bot-greedy-1`` and every tournament's ``greedy-N``: one
    bot, one rating, one page)."""
    bot = house_bot_of_id(player_id)
    if bot is None:
        return column == player_id
    return column.like("bot-" + bot.replace("_", "\\_") + "-%", escape="\\")


def recent_matches_of(engine: Engine, player_id: str, limit: int) -> list[tuple[MatchSummary, str]]:
    """The last ``limit`` matches ``player_id`` has a seat in (:func:`seated_as`), newest first,
    each with the time it was made (its stream's first event)."""
    s, e = match_seats_table.c, events_table.c
    query = (
        select(s.match_id, e.at, e.position)
        .select_from(
            match_seats_table.join(events_table, and_(e.stream == literal(MATCH_PREFIX) + s.match_id, e.seq == 1))
        )
        .where(seated_as(s.player_id, player_id))
        .distinct()
        .order_by(e.position.desc())
        .limit(limit)
    )
    with sqlmodel.Session(engine) as session:
        found = session.connection().execute(query).all()
        ids = [row.match_id for row in found]
        rows = {
            row.id: row.model_dump()
            for row in session.exec(sqlmodel.select(MatchSummaryRow).where(sqlmodel.col(MatchSummaryRow.id).in_(ids)))
        }
        seats = _seat_rows(session.connection(), ids)
        return [(MatchSummary.from_row(rows[r.match_id], seats[r.match_id]), r.at) for r in found if r.match_id in rows]


def meetings_of(engine: Engine, player_id: str, limit: int) -> list[Meeting]:
    """The other seats of the finished matches ``player_id`` sat at (:func:`seated_as`; at most
    ``limit`` rows)."""
    mine = match_seats_table.alias("mine")
    other = match_seats_table.alias("other")
    m = match_summaries_table.c
    query = (
        select(
            mine.c.match_id,
            m.tournament,
            mine.c.seat,
            mine.c.player_id.label("player"),
            other.c.player_id,
            other.c.seat.label("other_seat"),
            mine.c.place,
            other.c.place.label("other_place"),
            m.winner_seat,
            m.round,
        )
        .select_from(
            mine.join(other, and_(other.c.match_id == mine.c.match_id, other.c.seat != mine.c.seat)).join(
                match_summaries_table, m.id == mine.c.match_id
            )
        )
        .where(seated_as(mine.c.player_id, player_id), m.status == FINISHED, other.c.player_id.is_not(None))
        .order_by(mine.c.match_id, other.c.seat)
        .limit(limit)
    )
    with engine.connect() as conn:
        return [
            Meeting(
                r.match_id,
                r.tournament,
                r.seat,
                r.player,
                r.player_id,
                r.other_seat,
                r.place,
                r.other_place,
                r.winner_seat,
                r.round,
            )
            for r in conn.execute(query)
        ]


def tournaments_played_by(engine: Engine, player_id: str, limit: int) -> list[str]:
    """The last ``limit`` tournaments ``player_id`` has had a match in, the latest first (by
    when their last match of it was made)."""
    s, m, e = match_seats_table.c, match_summaries_table.c, events_table.c
    latest = func.max(e.position)
    query = (
        select(m.tournament, latest)
        .select_from(
            match_seats_table.join(match_summaries_table, m.id == s.match_id).join(
                events_table, and_(e.stream == literal(MATCH_PREFIX) + m.id, e.seq == 1)
            )
        )
        .where(seated_as(s.player_id, player_id), m.tournament.is_not(None))
        .group_by(m.tournament)
        .order_by(latest.desc())
        .limit(limit)
    )
    with engine.connect() as conn:
        return [str(row[0]) for row in conn.execute(query)]
