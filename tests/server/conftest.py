"""Server tests run on SQLite and PostgreSQL, on the per-test databases of tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from server.app import make_app
from server.settings import Settings

DIRECTOR_TOKEN = "director-token-for-tests-0123456789"


@pytest.fixture
def client(url: str) -> Iterator[TestClient]:
    settings = Settings(
        database_url=url,
        director_token=DIRECTOR_TOKEN,
        snapshot_every=25,
        sqlite_synchronous="NORMAL",
        bot_think_seconds=0,
    )
    with TestClient(make_app(settings), raise_server_exceptions=False) as test_client:
        yield test_client
