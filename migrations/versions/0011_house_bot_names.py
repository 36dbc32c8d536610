"""House bots are named by their engine (issue 33.2): ``bot-greedy-1`` is ``greedy`` (it was
``greedy-1``), ``bot-greedy-2`` is ``greedy-2``, and the bot players older tournaments made for
themselves (``bot-greedy-<tournament>-<n>``, every first one also called ``greedy-1``) get the
same names (``greedy``, ``greedy-<n>``): a tournament's page, standings and exports name its bots
as a new tournament does, and the ratings list (one row per engine, under ``bot-greedy-1``'s name)
says ``greedy``. The name ``greedy`` finds ``bot-greedy-1`` by its id
(``server.services.players.house_bot_named``), so the older tournaments' players that share it do
not make it ambiguous.

Only the players table changes (``name`` and ``name_key``): events are never rewritten, so an
older match's ``match_created`` still records the names its seats had (``greedy-1``), its replay
and hash chain verify as before, and house bots are still recognised by their ids
(``engine.fairness.house_bots``). Downgrading gives back the ``<engine>-<n>`` names.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-09
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import context, op

from engine.fairness.house_bots import HOUSE_BOT_ID, house_bot_name_of_id
from server.names import name_key
from server.store.models import NAME_KEY_LEN, players_table

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _old_name(player_id: str) -> str | None:
    """The name a house bot had before 0011: ``<engine>-<n>``."""
    found = HOUSE_BOT_ID.fullmatch(player_id)
    return None if found is None else f"{found.group(1)}-{player_id.rsplit('-', 1)[1]}"


def _rename(name_of: Callable[[str], str | None]) -> None:
    if context.is_offline_mode():  # ``--sql`` is for an empty database: no house bot to rename
        return
    conn = op.get_bind()
    c = players_table.c
    for (player_id,) in conn.execute(sa.select(c.id).where(c.kind == "bot")).all():
        name = name_of(player_id)
        if name is not None:
            key = name_key(name)[:NAME_KEY_LEN]
            conn.execute(sa.update(players_table).where(c.id == player_id).values(name=name, name_key=key))


def upgrade() -> None:
    _rename(house_bot_name_of_id)


def downgrade() -> None:
    _rename(_old_name)
