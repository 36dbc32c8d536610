"""Match summaries by status: an index, so finding the matches being played (a server's look every
2 s) and the open invitations (their limit and expiry) reads only those rows, however many
finished or waiting matches the table holds.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_match_summaries_status", "match_summaries", ["status"])


def downgrade() -> None:
    op.drop_index("ix_match_summaries_status", table_name="match_summaries")
