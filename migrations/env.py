"""Alembic environment: the target is SQLModel's metadata (server/store/models.py).

The URL is, in order: a connection handed over by server/store/migrate.py (which also holds
the migration lock), ``-x db=URL``, ``sqlalchemy.url`` in the config, the settings
(``UNODUO_DATABASE_URL``). SQLite gets ``render_as_batch`` so ALTERs work there.
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection
from sqlalchemy.pool import NullPool
from sqlmodel import SQLModel

import server.store.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from server.db import make_engine, normalize_url
from server.settings import Settings

config = context.config
target_metadata = SQLModel.metadata


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("db") or config.get_main_option("sqlalchemy.url")
    return url or Settings().database_url


def _configure(**kwargs: object) -> None:
    context.configure(target_metadata=target_metadata, compare_type=True, **kwargs)  # type: ignore[arg-type]


def _run(connection: Connection) -> None:
    _configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


def run_offline() -> None:
    url = normalize_url(_url())
    _configure(url=url, literal_binds=True, render_as_batch=url.get_backend_name() == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    given = config.attributes.get("connection")
    if given is not None:
        _run(given)
        return
    engine = make_engine(_url(), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


if config.config_file_name is not None and "connection" not in config.attributes:
    fileConfig(config.config_file_name, disable_existing_loggers=False)

if context.is_offline_mode():
    run_offline()
else:
    run_online()
