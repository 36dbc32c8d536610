"""Match ownership (issue 24): the servers sharing one PostgreSQL database and the lease each
live match's owner holds. Only PostgreSQL uses them (SQLite is one process); both tables start
empty and hold only what is alive: a server's row and its leases go when it stops, and an
expired lease is taken over by another server.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID_LEN = 64
SERVER_ID_LEN = 32
URL_LEN = 200


def upgrade() -> None:
    op.create_table(
        "servers",
        sa.Column("id", sa.String(SERVER_ID_LEN), primary_key=True),
        sa.Column("peer_url", sa.String(URL_LEN), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "match_leases",
        sa.Column("match_id", sa.String(ID_LEN), primary_key=True),
        sa.Column("owner", sa.String(SERVER_ID_LEN), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_match_leases_owner", "match_leases", ["owner"])


def downgrade() -> None:
    op.drop_index("ix_match_leases_owner", table_name="match_leases")
    op.drop_table("match_leases")
    op.drop_table("servers")
