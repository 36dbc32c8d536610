"""The players' name keys, recomputed when the way names compare changes.

``players.name_key`` (every player) and ``players.unique_key`` (the one who holds the name) are
``server.names.name_key`` of the player's name, which rests on Unicode's confusables data as the
installed ICU has it (``server.names.KEY_VERSION``). The table ``name_key_version`` records the
version the stored keys were made with; :func:`ensure_current_keys` (run by every upgrade of the
database, so by every server start, under the migration lock) recomputes them all when it
differs: after migration 0010 (keys became UTS #39 skeletons, issue 32) and after an ICU update.

Two players who held names that now have one key (``admin`` and ``adrnin``, both registered
before look-alikes were one name) are both kept: the older (by ``created_at``, then id) keeps the
name; the later one's ``unique_key`` becomes null, as migration 0006 did for duplicate names,
so it is no longer found by its name when signing in (the name finds the older player) but keeps
its tokens, its history and its id, by which it can sign in, be found and be given a sign-in code.
Each such player is logged as a warning, so an operator can tell them. A player who held no name
(a duplicate from before 0006) gains none.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy import Connection

from server.names import KEY_VERSION, folded, name_key
from server.store.models import NAME_KEY_LEN, name_key_version_table, players_table

log = logging.getLogger("unoduo.names")


@dataclass(frozen=True)
class LostName:
    """A player whose name now has the key an older player's has: they keep everything but the name's hold."""

    player_id: str
    name: str
    held_by: str  # the older player's id


def rekey_players(conn: Connection, key: Callable[[str], str] = name_key) -> list[LostName]:
    """Recompute every player's ``name_key`` and ``unique_key`` with ``key`` (a function of a name);
    the players who lose their hold on a name, oldest holder first (see the module's docstring)."""
    c = players_table.c
    rows = conn.execute(sa.select(c.id, c.name, c.unique_key).order_by(c.created_at, c.id)).all()
    holders: dict[str, str] = {}
    lost: list[LostName] = []
    wanted: dict[str, tuple[str, str | None]] = {}
    for player_id, name, unique_key in rows:
        new = key(name)[:NAME_KEY_LEN]
        unique = None
        if unique_key is not None:  # held a name: keeps it unless an older player's has this key
            if new in holders:
                lost.append(LostName(player_id, name, holders[new]))
            else:
                holders[new] = player_id
                unique = new
        wanted[player_id] = (new, unique)
    held_before = {player_id: unique_key for player_id, _, unique_key in rows}
    moving = [p for p, (_, unique) in wanted.items() if held_before[p] != unique]
    for player_id in moving:  # free the changing holds first: no two rows ever hold one key
        conn.execute(sa.update(players_table).where(c.id == player_id).values(unique_key=None))
    for player_id, (new, unique) in wanted.items():
        conn.execute(sa.update(players_table).where(c.id == player_id).values(name_key=new, unique_key=unique))
    for gone in lost:
        log.warning(
            "player %s (%r) no longer holds its name: it looks like the name of the older player %s; "
            "it keeps its tokens and is found by its id",
            gone.player_id,
            gone.name,
            gone.held_by,
        )
    return lost


def stored_version(conn: Connection) -> str | None:
    version: str | None = conn.execute(sa.select(name_key_version_table.c.version)).scalar()
    return version


def record_version(conn: Connection, version: str = KEY_VERSION) -> None:
    conn.execute(sa.delete(name_key_version_table))
    conn.execute(sa.insert(name_key_version_table).values(version=version))


def ensure_current_keys(conn: Connection) -> list[LostName]:
    """Recompute the keys if they were made with another :data:`server.names.KEY_VERSION` (run
    inside the upgrade's transaction and lock; a database without the table yet is left alone)."""
    if not sa.inspect(conn).has_table(name_key_version_table.name):
        return []
    if stored_version(conn) == KEY_VERSION:
        return []
    lost = rekey_players(conn)
    record_version(conn)
    log.info("players' name keys recomputed for %s", KEY_VERSION)
    return lost


def fold_only_key(name: str) -> str:
    """The key before migration 0010 (NFKC, case-folded, spaces collapsed): what a downgrade restores."""
    return folded(name)
