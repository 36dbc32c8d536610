"""Rate limits on registration and on wrong tokens: 429 with Retry-After, per client address."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from server.app import make_app
from server.domain_errors import TooManyRequests
from server.services.rate_limits import RateLimit
from server.settings import Settings


@pytest.fixture
def strict(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'limits.sqlite3'}",
        director_token="director-token-for-tests-0123456789",
        sqlite_synchronous="NORMAL",
        register_per_minute=3,
        bad_tokens_per_minute=2,
    )
    with TestClient(make_app(settings), raise_server_exceptions=False) as client:
        yield client


def test_registrations_over_the_limit_get_429_with_retry_after_and_register_nobody(strict: TestClient) -> None:
    for n in range(3):
        assert strict.post("/api/players", json={"name": f"p{n}"}).status_code == 201
    refused = strict.post("/api/players", json={"name": "one-too-many"})
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_requests"
    assert int(refused.headers["Retry-After"]) >= 1 and "a minute" in refused.json()["message"]


def test_wrong_tokens_over_the_limit_lock_the_address_out_even_with_a_good_token(strict: TestClient) -> None:
    good = strict.post("/api/players", json={"name": "ada"}).json()["token"]
    for _ in range(2):
        assert strict.get("/api/me", headers={"Authorization": "Bearer guess-0123456789"}).status_code == 401
    locked = strict.get("/api/me", headers={"Authorization": "Bearer guess-0123456789"})
    assert locked.status_code == 429 and "wrong tokens" in locked.json()["message"]
    assert strict.get("/api/me", headers={"Authorization": f"Bearer {good}"}).status_code == 429
    assert strict.get("/api/tournaments").status_code == 200  # no token: a spectator is not limited


def test_a_bucket_refills_with_time_and_zero_turns_the_limit_off() -> None:
    now = [0.0]
    limit = RateLimit("tries", per_minute=2, clock=lambda: now[0])
    limit.take("a")
    limit.take("a")
    with pytest.raises(TooManyRequests) as refused:
        limit.take("a")
    assert refused.value.retry_after == 30
    limit.take("b")  # another address has its own bucket
    now[0] = 30.0
    limit.take("a")
    off = RateLimit("tries", per_minute=0)
    for _ in range(1000):
        off.take("a")


def test_the_socket_counts_wrong_tokens_in_the_same_bucket_as_http(strict: TestClient) -> None:
    """One way in: wrong tokens on the socket's upgrade are limited like HTTP's, and lock both out."""
    good = strict.post("/api/players", json={"name": "ada"}).json()["token"]
    codes = []
    for _ in range(3):
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            strict.websocket_connect("/api/matches/m_x/ws?token=guess-0123456789") as ws,
        ):
            ws.receive_json()
        codes.append(closed.value.code)
    assert codes == [4401, 4401, 4429]
    assert strict.get("/api/me", headers={"Authorization": f"Bearer {good}"}).status_code == 429
