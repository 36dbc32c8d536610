"""Ratings (issue 23): the ratings read model, folded from the finished matches by
``server.services.ratings`` and rebuildable at any time (``unoduo ratings rebuild``). The tables
start empty: the first read of a rating folds every finished match already in the log.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID_LEN = 64
AT_LEN = 32


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("identity", sa.String(ID_LEN), primary_key=True),
        sa.Column("family", sa.String(16), primary_key=True),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=True),
        sa.Column("sigma", sa.Float(), nullable=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.String(AT_LEN), nullable=True),
    )
    op.create_table(
        "rating_changes",
        sa.Column("match_id", sa.String(ID_LEN), primary_key=True),
        sa.Column("identity", sa.String(ID_LEN), primary_key=True),
        sa.Column("family", sa.String(16), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.Column("at", sa.String(AT_LEN), nullable=False),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
    )
    op.create_index("ix_rating_changes_identity", "rating_changes", ["identity", "family", "position"])
    op.create_table(
        "rated_matches",
        sa.Column("match_id", sa.String(ID_LEN), primary_key=True),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.Column("unrated", sa.String(32), nullable=True),
    )
    op.create_index("ix_rated_matches_position", "rated_matches", ["position"])
    state = op.create_table(
        "ratings_state",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("settings", sa.String(64), nullable=False),
        sa.Column("stale", sa.Boolean(), nullable=False),
    )
    # The one row, there from the start, so that a fold always has a row to lock (PostgreSQL: FOR UPDATE).
    op.bulk_insert(state, [{"id": 1, "settings": "", "stale": True}])


def downgrade() -> None:
    op.drop_table("ratings_state")
    op.drop_index("ix_rated_matches_position", table_name="rated_matches")
    op.drop_table("rated_matches")
    op.drop_index("ix_rating_changes_identity", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_table("ratings")
