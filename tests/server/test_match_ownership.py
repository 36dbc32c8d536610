"""Match ownership on PostgreSQL (issue 24): one owner per live match, the others hold nothing.

Two apps on one database, in one process (no peer URL, so nothing is forwarded here: the
forwarding itself is tested with real servers in tests/cli/test_match_ownership_e2e.py). The
server whose join started a match owns it: it holds it, arms its clock and moves its bots; the
other holds no copy and arms nothing, yet a command sent to it is still applied (once: the
store fences appends). When the owner stops, the other takes the match over: it claims the
lease, and its clock runs from the decision's start.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from bench.progress import wait_for
from server.app import make_app
from server.services import ownership as ownership_module
from server.services.matches import MatchService
from server.services.ownership import LeasedOwnership
from server.settings import Settings
from server.store import leases
from server.store.models import match_leases_table
from tests.server.helpers import ok, register
from tests.server.test_lobby_socket import DIRECTOR_TOKEN, ON_POSTGRES


def settings(url: str, **more: Any) -> Settings:
    return Settings(
        database_url=url,
        director_token=DIRECTOR_TOKEN,
        bot_think_seconds=0,
        follow_poll_seconds=60,
        lease_seconds=1.0,
        **more,
    )


@pytest.fixture
def two_apps(url: str, db_kind: str) -> Iterator[tuple[TestClient, TestClient]]:
    assert db_kind == "postgres"
    with TestClient(make_app(settings(url)), raise_server_exceptions=False) as one:
        with TestClient(make_app(settings(url)), raise_server_exceptions=False) as two:
            yield one, two


def service(client: TestClient) -> MatchService:
    matches: MatchService = client.app.state.matches  # type: ignore[attr-defined]
    return matches


def owner_id(client: TestClient, match_id: str) -> str | None:
    with service(client).store.engine.connect() as conn:
        row = conn.execute(select(match_leases_table.c.owner).where(match_leases_table.c.match_id == match_id)).first()
    return None if row is None else str(row.owner)


def started_match(
    here: TestClient, there: TestClient, move_seconds: int = 60
) -> tuple[str, dict[str, str], dict[str, str]]:
    """A match of ada and bob made and started (both joins) on ``here``."""
    _ada, ada = register(here, "ada")
    bob, bob_h = register(there, "bob")
    body = {"opponent": bob, "move_seconds": move_seconds}
    match_id = ok(here.post("/api/matches", headers=ada, json=body), 201)["id"]
    ok(here.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "a"}))
    ok(here.post(f"/api/matches/{match_id}/join", headers=bob_h, json={"entropy": "b"}))
    return match_id, ada, bob_h


@ON_POSTGRES
def test_the_server_that_starts_a_match_owns_it_and_the_other_holds_nothing(
    two_apps: tuple[TestClient, TestClient],
) -> None:
    here, there = two_apps
    match_id, _ada, bob = started_match(here, there)
    mine, other = service(here), service(there)
    assert isinstance(mine.ownership, LeasedOwnership) and isinstance(other.ownership, LeasedOwnership)
    assert owner_id(here, match_id) == mine.ownership.server_id
    assert match_id in mine.registry.live and mine.clocks.armed() == 1
    assert mine.ownership.owns(match_id) and not other.ownership.owns(match_id)

    # The other server reads and even applies a command (no peer URL here: nothing to forward to),
    # but holds no copy and arms no clock: the owner's follower takes the move and arms its clock.
    view = ok(there.get(f"/api/matches/{match_id}", headers=bob))["view"]
    assert match_id not in other.registry.live and other.clocks.armed() == 0
    if view["legal"]:
        command = dict(view["legal"][0])
        if command.get("card") in ("W", "W+4") or command["type"] == "color":
            command["color"] = "red"
        body = {"command_id": "b1", "expected_version": view["version"], "command": command}
        moved = ok(there.post(f"/api/matches/{match_id}/commands", headers=bob, json=body))["view"]["version"]
        wait_for(lambda: mine.registry.live[match_id].state.version >= moved, "the owner never read the move")
    assert match_id not in other.registry.live and other.clocks.armed() == 0
    assert mine.clocks.armed() == 1


@ON_POSTGRES
def test_a_stopped_owners_matches_are_taken_over_with_their_clocks(url: str, db_kind: str) -> None:
    assert db_kind == "postgres"
    with TestClient(make_app(settings(url)), raise_server_exceptions=False) as there:
        first = TestClient(make_app(settings(url)), raise_server_exceptions=False)
        first.__enter__()
        try:
            match_id, _ada, _bob = started_match(first, there, move_seconds=2)
            version = service(first).registry.live[match_id].state.version
        finally:
            first.__exit__(None, None, None)  # its leases go with it
        other = service(there)
        wait_for(lambda: match_id in other.registry.live, "the match was never taken over")
        assert owner_id(there, match_id) == other.ownership.server_id
        assert match_id in other.registry.live and other.clocks.armed() == 1

        def timed_out() -> bool:
            events = there.get(f"/api/matches/{match_id}/events", params={"since": version}).text
            return '"timed_out"' in events

        wait_for(timed_out, "the new owner's clock never fired")


@ON_POSTGRES
def test_a_finished_match_gives_its_lease_up(two_apps: tuple[TestClient, TestClient]) -> None:
    here, _there = two_apps
    _ada, ada = register(here, "ada")
    body = {"opponent": "bot:random", "move_seconds": 1}
    match_id = ok(here.post("/api/matches", headers=ada, json=body), 201)["id"]
    ok(here.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "a"}))
    assert owner_id(here, match_id) == service(here).ownership.server_id
    # Ada never moves: her third timeout forfeits the match, and its lease goes.
    wait_for(lambda: owner_id(here, match_id) is None, "the finished match kept its lease")
    assert ok(here.get(f"/api/matches/{match_id}"))["match"]["status"] == "finished"
    assert not service(here).ownership.owns(match_id)


@ON_POSTGRES
def test_what_a_server_remembers_of_other_servers_matches_is_bounded(
    two_apps: tuple[TestClient, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Per match owned elsewhere a server remembers a failed claim and the owner's URL, for a beat:
    at most ``MISSES_KEPT`` of each, however many matches it is asked about; a seat socket's count
    goes when the socket does."""
    here, there = two_apps
    ownership = service(there).ownership
    assert isinstance(ownership, LeasedOwnership)
    monkeypatch.setattr(ownership_module, "MISSES_KEPT", 5)
    first = service(here).ownership
    assert isinstance(first, LeasedOwnership)
    first.peer_url = "http://127.0.0.1:9"  # registered again with the next claim: the others look it up
    first._registered = False
    ids = [f"m_bound{n:04d}" for n in range(12)]

    async def look() -> None:
        await first.claim("unused")  # registers the first server (its peer URL) like any claim
        for match_id in ids:
            assert await first.claim(match_id)
            assert not await ownership.claim(match_id)
            assert await ownership.owner_url(match_id) == "http://127.0.0.1:9"

    there.portal.call(look)  # type: ignore[union-attr]
    assert len(ownership._misses) == 5 and len(ownership._owners) == 5
    matches = service(there)
    with matches.seat_socket("m_x"), matches.seat_socket("m_x"):
        assert matches._seat_sockets["m_x"] == 2
    assert "m_x" not in matches._seat_sockets


@ON_POSTGRES
def test_a_claim_the_database_could_not_take_leaves_an_orphan_that_the_next_beat_claims(
    url: str, db_kind: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The join that starts a match claims it; with the database away at that moment the claim
    fails (found by the chaos test: the failed claim's task ended in a traceback). The join still
    answers, the match has no owner for a moment, and a beat claims it as an orphan."""
    assert db_kind == "postgres"
    real_claim = leases.claim
    failed: list[str] = []

    def claim_once_unavailable(engine: Any, match_id: str, *args: Any) -> bool:
        if not failed:
            failed.append(match_id)
            raise OperationalError("claim", {}, ConnectionRefusedError("the database is away"))
        return bool(real_claim(engine, match_id, *args))

    with TestClient(make_app(settings(url)), raise_server_exceptions=False) as here:
        monkeypatch.setattr(leases, "claim", claim_once_unavailable)
        with caplog.at_level(logging.WARNING, logger="server.services.match_registry"):
            match_id, _ada, _bob = started_match(here, here)
        assert failed == [match_id]
        assert any("not claimed, the database is unavailable" in r.getMessage() for r in caplog.records)
        mine = service(here)
        assert isinstance(mine.ownership, LeasedOwnership)
        wait_for(lambda: owner_id(here, match_id) == mine.ownership.server_id, "no beat claimed the orphan")
        wait_for(lambda: match_id in mine.registry.live and mine.clocks.armed() == 1, "the claimed match was not held")


@ON_POSTGRES
def test_time_called_from_either_server_lands_once_and_the_owner_plays_on(
    two_apps: tuple[TestClient, TestClient],
) -> None:
    """RULES.md D26: every server's timer for a timed round fires; the call lands once (its
    command id), whichever server appends it, and the match's owner reads it and plays on."""
    one, two = two_apps
    match_id, ada, _bob = started_match(one, two)
    moment = "2026-12-07T20:00:00.000000Z"
    calls = [c.portal.call(service(c).commands.call_time, match_id, moment) for c in (two, one)]  # type: ignore[union-attr]
    assert calls == [True, False]  # the other server appended it; the owner's call finds it made
    director = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
    found = one.get(f"/api/matches/{match_id}/events", params={"since": 0}, headers=director).text.splitlines()
    assert [moment in line for line in found if '"type":"time_called"' in line] == [True]  # once
    seen = wait_for(
        lambda: ok(one.get(f"/api/matches/{match_id}", headers=ada))["view"],
        "the owner's copy to read the call",
        until=lambda view: view["time_called"] == moment,
    )
    assert owner_id(one, match_id) == service(one).ownership.server_id
    if seen["legal"]:  # the owner takes the next command on the state after the call
        body = {"command_id": "after-call", "expected_version": seen["version"], "command": seen["legal"][0]}
        ok(one.post(f"/api/matches/{match_id}/commands", headers=ada, json=body))
