"""Server tests run on SQLite and PostgreSQL, on the per-test databases of tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import make_app
from server.services.clock import Clock
from server.settings import Settings

DIRECTOR_TOKEN = "director-token-for-tests-0123456789"


@contextmanager
def app_client(url: str, clock: Clock | None = None, **settings: Any) -> Iterator[TestClient]:
    """An in-process app on ``url`` with the tests' settings (``settings`` override them)."""
    base: dict[str, Any] = {
        "database_url": url,
        "director_token": DIRECTOR_TOKEN,
        "snapshot_every": 25,
        "sqlite_synchronous": "NORMAL",
        "bot_think_seconds": 0,
    }
    with TestClient(make_app(Settings(**{**base, **settings}), clock), raise_server_exceptions=False) as client:
        yield client


@pytest.fixture
def client(url: str) -> Iterator[TestClient]:
    with app_client(url) as made:
        yield made
