"""Migrated PostgreSQL schemas for the tests, made once per worker and emptied between tests.

Speed: running the migrations' DDL in a new schema cost 80 ms a test on a quiet machine (0.44 s
at load 9), emptying a used one 5 ms (docs/BENCHMARKS.md, "Test tiers"). A schema a test gave
back is renamed first (a connection the test left open no longer finds its tables under the old
name), then compared with a template of the same DDL made at the start (tables, columns in order,
defaults, constraints, indexes, triggers, functions) and only reused when nothing differs: its rows
deleted, the template's seeded rows (alembic_version and the like) copied back, its sequences
restarted, so each test starts on what a fresh schema would give it. A schema that differs, or
that a test still holds locked, is left aside and dropped with the rest when the session ends.
"""

from __future__ import annotations

import os
import secrets
from graphlib import TopologicalSorter

import psycopg
from psycopg import sql

from tests.server.store.helpers import create_pg_schema, drop_pg_schemas, pg_conninfo

LOCK_WAIT = "2s"  # a test that still holds the schema's rows after this gets its schema left aside

# Everything about a schema's shape that a test could change, without the schema's own name.
SHAPE = """
WITH rels AS MATERIALIZED (SELECT oid, relname, relkind FROM pg_class WHERE relnamespace = %(oid)s)
SELECT md5(coalesce(string_agg(item, E'\\n' ORDER BY item), '')) FROM (
    SELECT 'rel ' || c.relname || ' ' || c.relkind::text AS item FROM rels c
    UNION ALL
    SELECT 'col ' || c.relname || ' ' || lpad(a.attnum::text, 4, '0') || ' ' || a.attname || ' '
           || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' '
           || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
      FROM rels c
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
    UNION ALL
    SELECT 'con ' || c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid, false)
      FROM rels c JOIN pg_constraint k ON k.conrelid = c.oid
    UNION ALL
    SELECT 'idx ' || c.relname || ' ' || i.indisunique || ' ' || i.indkey::text || ' '
           || coalesce(pg_get_expr(i.indpred, i.indrelid), '')
      FROM rels c JOIN pg_index i ON i.indexrelid = c.oid
    UNION ALL
    SELECT 'trg ' || c.relname || ' ' || t.tgname || ' ' || t.tgenabled::text
      FROM rels c JOIN pg_trigger t ON t.tgrelid = c.oid AND NOT t.tgisinternal
    UNION ALL
    SELECT 'fn ' || p.proname || ' ' || md5(coalesce(p.prosrc, ''))
      FROM pg_proc p WHERE p.pronamespace = %(oid)s
) AS shape
"""

TABLES = "SELECT c.oid, c.relname FROM pg_class c WHERE c.relnamespace = %s AND c.relkind IN ('r', 'p')"
REFERENCES = "SELECT conrelid, confrelid FROM pg_constraint WHERE contype = 'f' AND connamespace = %s"
SEQUENCES = "SELECT c.relname FROM pg_class c WHERE c.relnamespace = %s AND c.relkind = 'S'"


def _oid(conn: psycopg.Connection[tuple[object, ...]], schema: str) -> int:
    row = conn.execute("SELECT oid FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone()
    assert row is not None, f"no schema {schema}"
    oid = row[0]
    assert isinstance(oid, int)
    return oid


def _shape(conn: psycopg.Connection[tuple[object, ...]], schema: str) -> str:
    """The shape of ``schema``, which must be on the search path (a definition names the tables
    of a schema that is not with the schema's name)."""
    row = conn.execute(SHAPE, {"oid": _oid(conn, schema)}).fetchone()
    assert row is not None and isinstance(row[0], str)
    return row[0]


def _search_path(conn: psycopg.Connection[tuple[object, ...]], schema: str) -> None:
    conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))


def _fresh_name() -> str:
    return f"t_{os.getpid()}_{secrets.token_hex(4)}"


class MigratedSchemas:
    """One worker's migrated schemas: :meth:`take` one for a test, :meth:`give_back` it after."""

    def __init__(self, ddl: str) -> None:
        self._ddl = ddl
        self._template = create_pg_schema(ddl)
        self._made = [self._template]  # every name this worker's schemas have now, for the drop
        self._free: list[str] = []
        self._conn = psycopg.connect(pg_conninfo(), autocommit=True, connect_timeout=5)
        with self._conn.transaction():
            _search_path(self._conn, self._template)
            self._shape = _shape(self._conn, self._template)
        self._reset = self._reset_statement(_oid(self._conn, self._template))

    def _reset_statement(self, template_oid: int) -> bytes:
        """Delete every row (children before parents), copy back the template's rows, restart the
        sequences: in the schema the search path names."""
        names: dict[object, object] = dict(self._conn.execute(TABLES, (template_oid,)).fetchall())
        after: dict[object, set[object]] = {oid: set() for oid in names}
        for child, parent in self._conn.execute(REFERENCES, (template_oid,)):
            if child != parent:
                after[child].add(parent)  # the parent's rows go after the child's
        parents_first = list(TopologicalSorter(after).static_order())
        template = sql.Identifier(self._template)
        steps = [sql.SQL("DELETE FROM {t}").format(t=sql.Identifier(str(names[o]))) for o in parents_first[::-1]]
        for oid in parents_first:
            table = sql.Identifier(str(names[oid]))
            count = self._conn.execute(sql.SQL("SELECT count(*) FROM {}.{}").format(template, table)).fetchone()
            if count and count[0]:
                steps.append(sql.SQL("INSERT INTO {t} SELECT * FROM {tpl}.{t}").format(t=table, tpl=template))
        for (sequence,) in self._conn.execute(SEQUENCES, (template_oid,)):
            steps.append(sql.SQL("ALTER SEQUENCE {s} RESTART").format(s=sql.Identifier(str(sequence))))
        return sql.SQL("; ").join(steps).as_string(self._conn).encode()

    def take(self) -> str:
        """A schema at the latest revision with only the migrations' own rows in it."""
        if self._free:
            return self._free.pop()
        schema = create_pg_schema(self._ddl)
        self._made.append(schema)
        return schema

    def give_back(self, schema: str) -> None:
        """Rename, check and empty ``schema`` for another test; left aside when it cannot be."""
        renamed = _fresh_name()
        try:
            with self._conn.transaction():
                self._conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(LOCK_WAIT)))
                self._conn.execute(
                    sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(sql.Identifier(schema), sql.Identifier(renamed))
                )
                _search_path(self._conn, renamed)
                if _shape(self._conn, renamed) != self._shape:
                    raise _Changed
                self._conn.execute(self._reset)
        except (_Changed, psycopg.errors.LockNotAvailable, psycopg.errors.DeadlockDetected):
            return  # rolled back: the schema keeps its name, in the list to drop
        self._made[self._made.index(schema)] = renamed
        self._free.append(renamed)

    def close(self) -> None:
        self._conn.close()
        drop_pg_schemas(self._made)


class _Changed(Exception):
    """The test changed the schema's shape: it is not reused."""
