"""The event store: events, processed commands, snapshots, players, read models.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column(
            "position", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True
        ),
        sa.Column("stream", sa.String(200), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("prev", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.UniqueConstraint("stream", "seq", name="uq_events_stream_seq"),
    )
    op.create_table(
        "processed_commands",
        sa.Column("stream", sa.String(200), primary_key=True),
        sa.Column("command_id", sa.String(200), primary_key=True),
        sa.Column("first_seq", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_table(
        "snapshots",
        sa.Column("stream", sa.String(200), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("format", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("token_hash", name="uq_players_token_hash"),
    )
    op.create_table(
        "match_summaries",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("seat0", sa.String(64), nullable=True),
        sa.Column("seat1", sa.String(64), nullable=True),
        sa.Column("player1", sa.Integer(), nullable=True),
        sa.Column("score0", sa.Integer(), nullable=False),
        sa.Column("score1", sa.Integer(), nullable=False),
        sa.Column("winner", sa.String(64), nullable=True),
        sa.Column("winner_seat", sa.Integer(), nullable=True),
        sa.Column("tournament", sa.String(64), nullable=True),
        sa.Column("round", sa.Integer(), nullable=True),
        sa.Column("ruleset", sa.String(64), nullable=True),
    )
    op.create_index("ix_match_summaries_seat0", "match_summaries", ["seat0"])
    op.create_index("ix_match_summaries_seat1", "match_summaries", ["seat1"])
    op.create_index("ix_match_summaries_tournament", "match_summaries", ["tournament"])
    op.create_table(
        "standings",
        sa.Column("scope", sa.String(64), primary_key=True),
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("lost", sa.Integer(), nullable=False),
        sa.Column("points_for", sa.Integer(), nullable=False),
        sa.Column("points_against", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("standings")
    op.drop_index("ix_match_summaries_tournament", table_name="match_summaries")
    op.drop_index("ix_match_summaries_seat1", table_name="match_summaries")
    op.drop_index("ix_match_summaries_seat0", table_name="match_summaries")
    op.drop_table("match_summaries")
    op.drop_table("players")
    op.drop_table("snapshots")
    op.drop_table("processed_commands")
    op.drop_table("events")
