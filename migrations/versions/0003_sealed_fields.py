"""Sealed fields (docs/FAIRNESS.md): each event's commitments and, beside them, their openings.

``sealed`` is part of the envelope and of its hash; ``openings`` ({name: {value, salt}}) is
never hashed and never sent whole: each viewer gets the openings it may see. Rows written
before this revision get ``{}`` for both; their hashes were computed by the version-1 rule
(without ``sealed``), so ``unoduo db verify`` reports such a stream as broken at seq 1: a
database from before this revision should be started afresh (replays of version 1 are refused
by ``unoduo verify`` for the same reason).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("sealed", sa.JSON(), nullable=False, server_default="{}"))
        batch.add_column(sa.Column("openings", sa.JSON(), nullable=False, server_default="{}"))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("openings")
        batch.drop_column("sealed")
