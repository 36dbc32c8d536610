"""Who owns each live match, on PostgreSQL (issue 24): every query on ``servers`` and ``match_leases``.

A server registers itself (its id and the URL its peers forward to) and renews, in one
transaction, its own row and every lease it holds, each until now + the lease's length. A
lease is claimed by an insert that overwrites only a row that is the claimant's own or has
run out, so two servers never both get one. All times are the database's (``now()``): servers
on several hosts need no agreement between their clocks. A lease is an optimisation of who does
the work, never what keeps the log right: appends are fenced by the store's unique
``(stream, seq)``, so a server that lost its lease without knowing it cannot append over the
new owner's events.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from sqlalchemy import Engine, Table, and_, delete, func, or_, select, update

from server.store.models import match_leases_table, match_summaries_table, servers_table

if TYPE_CHECKING:
    from sqlalchemy.dialects.postgresql import Insert

LIVE = "live"
ORPHANS_AT_ONCE = 500  # unowned live matches one look returns (the next look finds the rest)

leases = match_leases_table
servers = servers_table


@dataclass(frozen=True)
class Owner:
    """The server holding a live lease on a match, and where to forward to it."""

    server_id: str
    peer_url: str


def _insert(table: Table) -> Insert:
    """PostgreSQL's ``INSERT … ON CONFLICT`` into ``table``.

    Speed: its dialect is imported at the first use, as only PostgreSQL has leases: a server on
    SQLite never needs it, and importing it was 3% of `unoduo serve`'s start (instructions, callgrind)."""
    from sqlalchemy.dialects.postgresql import insert as postgresql_insert

    return postgresql_insert(table)


def _until(seconds: float) -> object:
    return func.now() + timedelta(seconds=seconds)


def register_server(engine: Engine, server_id: str, peer_url: str, seconds: float) -> None:
    """Say this server is alive (until now + ``seconds``) and where its peers reach it."""
    statement = _insert(servers).values(id=server_id, peer_url=peer_url, expires_at=_until(seconds))
    statement = statement.on_conflict_do_update(
        index_elements=[servers.c.id],
        set_={"peer_url": statement.excluded.peer_url, "expires_at": statement.excluded.expires_at},
    )
    with engine.begin() as conn:
        conn.execute(statement)


def renew(engine: Engine, server_id: str, seconds: float) -> set[str]:
    """Extend this server's row and each lease it still holds; the matches it still owns.

    A lease another server took over meanwhile (this one did not renew in time) is not among
    them: the caller lets those matches go."""
    with engine.begin() as conn:
        conn.execute(update(servers).where(servers.c.id == server_id).values(expires_at=_until(seconds)))
        rows = conn.execute(
            update(leases)
            .where(leases.c.owner == server_id)
            .values(expires_at=_until(seconds))
            .returning(leases.c.match_id)
        )
        return {row.match_id for row in rows}


def claim(engine: Engine, match_id: str, server_id: str, seconds: float) -> bool:
    """Take the lease of ``match_id`` for ``server_id`` if nobody holds it, it ran out, or it is
    this server's already; whether this server holds it now."""
    statement = _insert(leases).values(match_id=match_id, owner=server_id, expires_at=_until(seconds))
    upsert = statement.on_conflict_do_update(
        index_elements=[leases.c.match_id],
        set_={"owner": statement.excluded.owner, "expires_at": statement.excluded.expires_at},
        where=or_(leases.c.owner == statement.excluded.owner, leases.c.expires_at < func.now()),
    ).returning(leases.c.owner)
    with engine.begin() as conn:
        return conn.execute(upsert).first() is not None


def owner_of(engine: Engine, match_id: str) -> Owner | None:
    """The server whose lease on ``match_id`` has not run out, with its peer URL (None: nobody's)."""
    query = (
        select(leases.c.owner, servers.c.peer_url)
        .join(servers, servers.c.id == leases.c.owner)
        .where(leases.c.match_id == match_id, leases.c.expires_at > func.now())
    )
    with engine.connect() as conn:
        row = conn.execute(query).first()
    return None if row is None else Owner(row.owner, row.peer_url)


def release(engine: Engine, match_id: str, server_id: str) -> None:
    """Give up this server's lease of ``match_id`` (the match is over, or this server lets it go)."""
    with engine.begin() as conn:
        conn.execute(delete(leases).where(leases.c.match_id == match_id, leases.c.owner == server_id))


def leave(engine: Engine, server_id: str) -> None:
    """This server stops: its leases and its row go, so the others take its matches over at once."""
    with engine.begin() as conn:
        conn.execute(delete(leases).where(leases.c.owner == server_id))
        conn.execute(delete(servers).where(servers.c.id == server_id))


def orphans(engine: Engine, limit: int = ORPHANS_AT_ONCE) -> list[str]:
    """Live matches nobody holds a running lease on (never claimed, or their owner died)."""
    held = and_(leases.c.match_id == match_summaries_table.c.id, leases.c.expires_at > func.now())
    query = (
        select(match_summaries_table.c.id)
        .outerjoin(leases, held)
        .where(match_summaries_table.c.status == LIVE, leases.c.match_id.is_(None))
        .order_by(match_summaries_table.c.id)
        .limit(limit)
    )
    with engine.connect() as conn:
        return [row.id for row in conn.execute(query)]


def owned_counts(engine: Engine) -> dict[str, int]:
    """How many running leases each live server holds (servers with none count 0)."""
    counts = (
        select(leases.c.owner, func.count().label("n"))
        .where(leases.c.expires_at > func.now())
        .group_by(leases.c.owner)
        .subquery()
    )
    query = (
        select(servers.c.id, func.coalesce(counts.c.n, 0).label("n"))
        .outerjoin(counts, counts.c.owner == servers.c.id)
        .where(servers.c.expires_at > func.now())
    )
    with engine.connect() as conn:
        return {row.id: int(row.n) for row in conn.execute(query)}
