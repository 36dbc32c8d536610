"""The one query behind ``server.services.secrecy``: a tournament stream's events that say whether
its rounds are secret — its creation (``duplicate`` or not) and each round's ``duplicate_revealed``
— with their seq and global position. Only those rows are read: a tournament's results, entries
and disputes never are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Engine, and_, select

from server.store.models import events_table

CREATED: Final = "tournament_created"
REVEALED: Final = "duplicate_revealed"


@dataclass(frozen=True)
class RoundFact:
    seq: int
    position: int
    type: str
    data: dict[str, Any]


def round_facts(engine: Engine, stream: str, after_seq: int) -> list[RoundFact]:
    """The creation and the reveals of ``stream`` after seq ``after_seq``, in seq order (a stream's
    seqs commit in order, so reading past the last one seen misses nothing)."""
    e = events_table.c
    query = (
        select(e.seq, e.position, e.type, e.data)
        .where(and_(e.stream == stream, e.seq > after_seq, e.type.in_((CREATED, REVEALED))))
        .order_by(e.seq)
    )
    with engine.connect() as conn:
        return [RoundFact(r.seq, r.position, r.type, r.data) for r in conn.execute(query)]
