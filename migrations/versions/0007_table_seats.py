"""Tables of 2 to 10 (issue 21): every seat of a match as a row of ``match_seats`` (player,
score, final place), indexed by player so that a player's matches are found whatever their
seat; and ``match_summaries.creator``, the player a casual match's invitation counts against
(the creator may sit at any seat of a table).

Existing matches have two seats: their rows are copied from ``seat0``/``seat1`` and
``score0``/``score1`` (no places: only ``classic`` matches, new with this revision, end with
places), and a casual match's creator is its seat 0, as it always was. The same rows as
``unoduo db rebuild`` projects from the events.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID_LEN = 64


def upgrade() -> None:
    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.String(ID_LEN), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("player_id", sa.String(ID_LEN), nullable=True),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=True),
    )
    op.create_index("ix_match_seats_player_id", "match_seats", ["player_id"])
    with op.batch_alter_table("match_summaries") as batch:
        batch.add_column(sa.Column("creator", sa.String(ID_LEN), nullable=True))
        batch.create_index("ix_match_summaries_creator", ["creator"])
    op.execute(
        "INSERT INTO match_seats (match_id, seat, player_id, score, place) "
        "SELECT id, 0, seat0, score0, NULL FROM match_summaries"
    )
    op.execute(
        "INSERT INTO match_seats (match_id, seat, player_id, score, place) "
        "SELECT id, 1, seat1, score1, NULL FROM match_summaries"
    )
    op.execute("UPDATE match_summaries SET creator = seat0 WHERE tournament IS NULL")


def downgrade() -> None:
    with op.batch_alter_table("match_summaries") as batch:
        batch.drop_index("ix_match_summaries_creator")
        batch.drop_column("creator")
    op.drop_index("ix_match_seats_player_id", table_name="match_seats")
    op.drop_table("match_seats")
