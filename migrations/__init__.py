"""Alembic migrations of the event store's schema (see docs/STORE.md)."""
