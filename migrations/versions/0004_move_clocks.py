"""Move clocks: each match summary keeps its per-move limit in seconds (null: no clock).

Projected from ``match_registered``'s ``move_seconds`` (docs/SERVER.md "Move clocks"). Rows
written before this revision have no clock.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("match_summaries") as batch:
        batch.add_column(sa.Column("move_seconds", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_summaries") as batch:
        batch.drop_column("move_seconds")
