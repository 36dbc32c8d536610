"""Accounts: a name is unique among humans, several tokens per player, passwords and sign-in codes.

``players`` gains ``name_key`` (the name as names are compared, ``server.names.name_key``, for
every player), ``unique_key`` (the same key, unique, for the human who holds the name) and
``password_hash``; its ``token_hash`` moves to the new ``player_tokens`` table (one row per
token). ``sign_in_codes`` holds at most one live code per player.

A database from before this revision may hold several humans with one name (three "ann"s):
the oldest (by ``created_at``, then id) keeps the name (its ``unique_key``); the later ones get
none, so nobody can sign in by that name as them, and they stay usable by id: their tokens keep
working, and a director can give one a sign-in code by id. House bots share keys freely
(``greedy-1`` in every tournament): their ``unique_key`` is null.

Downgrading keeps each player's oldest token (the others are lost) and drops passwords and codes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

from server.names import name_key

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEY_LEN = 300

players = sa.table(
    "players",
    sa.column("id", sa.String),
    sa.column("name", sa.String),
    sa.column("kind", sa.String),
    sa.column("created_at", sa.String),
    sa.column("token_hash", sa.String),
    sa.column("name_key", sa.String),
    sa.column("unique_key", sa.String),
)
tokens = sa.table(
    "player_tokens",
    sa.column("token_hash", sa.String),
    sa.column("player_id", sa.String),
    sa.column("created_at", sa.String),
)


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("name_key", sa.String(KEY_LEN), nullable=True))
        batch.add_column(sa.Column("unique_key", sa.String(KEY_LEN), nullable=True))
        batch.add_column(sa.Column("password_hash", sa.String(255), nullable=True))

    if not context.is_offline_mode():  # offline (``--sql``) is for an empty database: no rows to key
        _key_the_names()

    # player_tokens gets its foreign key last: SQLite rebuilds players below (copy, drop, rename),
    # and the drop would break the key of every token already copied.
    op.create_table(
        "player_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_player_tokens_player_id", "player_tokens", ["player_id"])
    op.execute(
        sa.insert(tokens).from_select(
            ["token_hash", "player_id", "created_at"],
            sa.select(players.c.token_hash, players.c.id, players.c.created_at),
        )
    )
    with op.batch_alter_table("players") as batch:
        batch.drop_constraint("uq_players_token_hash", type_="unique")
        batch.drop_column("token_hash")
        batch.alter_column("name_key", existing_type=sa.String(KEY_LEN), nullable=False)
        batch.create_unique_constraint("uq_players_unique_key", ["unique_key"])
        batch.create_index("ix_players_name_key", ["name_key"])
    with op.batch_alter_table("player_tokens") as batch:
        batch.create_foreign_key("fk_player_tokens_player_id", "players", ["player_id"], ["id"])
    op.create_table(
        "sign_in_codes",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("code_hash", sa.String(255), nullable=False),
        sa.Column("expires_at", sa.String(32), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name="fk_sign_in_codes_player_id"),
    )


def _key_the_names() -> None:
    """Each player's ``name_key``; the oldest human of each key takes it as ``unique_key``."""
    conn = op.get_bind()
    rows = conn.execute(
        sa.select(players.c.id, players.c.name, players.c.kind).order_by(players.c.created_at, players.c.id)
    ).all()
    held: set[str] = set()
    for player_id, name, kind in rows:
        key = name_key(name)[:KEY_LEN]
        unique = None
        if kind == "human" and key not in held:
            held.add(key)
            unique = key
        conn.execute(sa.update(players).where(players.c.id == player_id).values(name_key=key, unique_key=unique))


def downgrade() -> None:
    if context.is_offline_mode():
        raise RuntimeError("downgrading 0006 reads the tokens: run it on a database, not as --sql")
    conn = op.get_bind()
    first = sa.select(tokens.c.player_id, tokens.c.token_hash).order_by(
        tokens.c.player_id, tokens.c.created_at.desc(), tokens.c.token_hash.desc()
    )
    oldest: dict[str, str] = {}
    for player_id, token_hash in conn.execute(first):
        oldest[player_id] = token_hash  # the last one seen is the oldest
    op.drop_table("sign_in_codes")
    op.drop_index("ix_player_tokens_player_id", table_name="player_tokens")
    op.drop_table("player_tokens")

    with op.batch_alter_table("players") as batch:
        batch.drop_index("ix_players_name_key")
        batch.drop_constraint("uq_players_unique_key", type_="unique")
        batch.add_column(sa.Column("token_hash", sa.String(64), nullable=True))
    for (player_id,) in conn.execute(sa.select(players.c.id)).all():
        # A player with no token left gets one nobody knows (the column is required and unique).
        kept = oldest.get(player_id) or hashlib.sha256(secrets.token_bytes(32)).hexdigest()
        conn.execute(sa.update(players).where(players.c.id == player_id).values(token_hash=kept))
    with op.batch_alter_table("players") as batch:
        batch.alter_column("token_hash", existing_type=sa.String(64), nullable=False)
        batch.create_unique_constraint("uq_players_token_hash", ["token_hash"])
        batch.drop_column("password_hash")
        batch.drop_column("unique_key")
        batch.drop_column("name_key")
