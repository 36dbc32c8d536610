"""Look-alike names are one name (issue 32): every player's ``name_key`` and ``unique_key`` become
the UTS #39 confusable skeleton of the folded name (``server.names.name_key``), and the new table
``name_key_version`` records what the keys were made with (``server.names.KEY_VERSION``), so
that a server with another Unicode or ICU recomputes them at start (``server.store.name_keys``).

Two players whose names now have one key (``admin`` and ``adrnin``, say) are both kept: the older
keeps the name; the later one's ``unique_key`` becomes null (as 0006 did for duplicate names): it
keeps its tokens and its history, and signs in, is found and gets sign-in codes by its id. Each is
logged as a warning. Nothing is refused and no row is lost.

Downgrading recomputes the keys as they were before (NFKC, case-folded): look-alikes that were one
name stay as they are (one holds the name), which the older rule allows.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

from server.names import KEY_VERSION
from server.store.name_keys import fold_only_key, record_version, rekey_players

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

VERSION_LEN = 100


def upgrade() -> None:
    op.create_table("name_key_version", sa.Column("version", sa.String(VERSION_LEN), primary_key=True))
    if context.is_offline_mode():  # ``--sql`` is for an empty database: no rows to key
        op.execute(sa.text("INSERT INTO name_key_version (version) VALUES (:v)").bindparams(v=KEY_VERSION))
        return
    conn = op.get_bind()
    rekey_players(conn)
    record_version(conn)


def downgrade() -> None:
    if not context.is_offline_mode():
        rekey_players(op.get_bind(), fold_only_key)
    op.drop_table("name_key_version")
