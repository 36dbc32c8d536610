"""Move clocks on a server (docs/SERVER.md "Move clocks"), on SQLite and PostgreSQL.

The server runs on a :class:`ManualClock` that the tests move on by hand: a deadline passes
when a test says so, never by sleeping. The tests then poll what was recorded (with a generous
cap whose expiry is a failure), and assert what was recorded, never how fast.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.fairness.verify import verify_replay
from engine.record.jsonfmt import AT_FORMAT
from engine.record.replay import parse_replay
from server.app import make_app
from server.services.matches import MatchService
from server.settings import Settings
from server.store.errors import StoreUnavailableError
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok, register
from tests.server.manual_clock import ManualClock, ManualTimer

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}


def settings_for(url: str) -> Settings:
    return Settings(database_url=url, director_token=DIRECTOR_TOKEN, sqlite_synchronous="NORMAL", bot_think_seconds=0)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def app_client(url: str, clock: ManualClock) -> Iterator[Callable[[], TestClient]]:
    """Start (and restart) a server on the test's database and clock: each call is a fresh server process's app."""
    opened: list[TestClient] = []

    def start() -> TestClient:
        client = TestClient(make_app(settings_for(url), clock), raise_server_exceptions=False)
        client.__enter__()
        opened.append(client)
        return client

    yield start
    for client in opened:
        client.__exit__(None, None, None)


PAIRS = itertools.count(1)


def human_match(client: TestClient, move_seconds: int = 1) -> tuple[str, dict[str, str], dict[str, str]]:
    """A match of two new players (new names each call: names are unique on a server)."""
    n = next(PAIRS)
    _, ada = register(client, f"ada-{n}")
    _, bob_headers = register(client, f"bob-{n}")
    bob = ok(client.get("/api/me", headers=bob_headers))["id"]
    body = {"opponent": bob, "move_seconds": move_seconds}
    match_id = ok(client.post("/api/matches", headers=ada, json=body), 201)["id"]
    return match_id, ada, bob_headers


def events(client: TestClient, match_id: str, since: int = 0) -> list[dict[str, Any]]:
    response = client.get(f"/api/matches/{match_id}/events", params={"since": since}, headers=DIRECTOR)
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines()]


def advance_until(clock: ManualClock, check: Callable[[], bool], step: float = 1.0, tries: int = 400) -> None:
    """Move the clock on by ``step`` and look again, until ``check()`` holds (a clock the server arms
    after a look is reached by the next step); ``tries`` looks in all, then the test fails."""
    for _ in range(tries):
        clock.advance(step)
        if check():
            return
        time.sleep(0.02)  # let the server's loop run what came due (polling, not a time budget)
    raise AssertionError("the clock did not fire")


def of_type(found: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in found if e["type"] == kind]


def test_views_show_the_deadline_the_awaiting_event_set(app_client: Callable[[], TestClient]) -> None:
    client = app_client()
    match_id, ada, bob = human_match(client, move_seconds=30)
    ok(client.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "a"}))
    seen = ok(client.post(f"/api/matches/{match_id}/join", headers=bob, json={"entropy": "b"}))["view"]
    assert seen["move_seconds"] == 30 and seen["phase"] == "draft"
    awaiting = of_type(events(client, match_id), "awaiting")[-1]
    started = datetime.strptime(awaiting["at"], AT_FORMAT)
    assert datetime.strptime(seen["deadline"], AT_FORMAT) == started + timedelta(seconds=30)
    spectator = ok(client.get(f"/api/matches/{match_id}"))
    assert spectator["view"]["deadline"] == seen["deadline"] and spectator["match"]["move_seconds"] == 30


def test_a_decision_that_runs_out_gets_its_default_action_recorded(
    app_client: Callable[[], TestClient], clock: ManualClock
) -> None:
    client = app_client()
    match_id, ada, bob = human_match(client)
    ok(client.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "a"}))
    joined = ok(client.post(f"/api/matches/{match_id}/join", headers=bob, json={"entropy": "b"}))["view"]
    advance_until(clock, lambda: bool(of_type(events(client, match_id), "timed_out")))
    found = events(client, match_id, since=joined["version"])
    first = of_type(found, "timed_out")[0]
    assert first["data"]["kind"] == "draft" and first["data"]["action"] == {"type": "draft", "keep": True}
    assert first["data"]["count"] == 1 and first["seq"] == joined["version"] + 1
    drafted = found[found.index(first) + 1]
    assert drafted["type"] == "drafted" and drafted["data"]["keep"] is True


def test_three_timeouts_in_a_row_forfeit_the_match_and_it_verifies(
    app_client: Callable[[], TestClient], clock: ManualClock
) -> None:
    client = app_client()
    match_id, ada, bob = human_match(client)
    ok(client.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "a"}))
    ok(client.post(f"/api/matches/{match_id}/join", headers=bob, json={"entropy": "b"}))
    advance_until(clock, lambda: bool(of_type(events(client, match_id), "match_forfeited")))
    found = events(client, match_id)
    forfeit = of_type(found, "match_forfeited")[0]
    ended = of_type(found, "match_ended")[0]
    assert ended["data"]["winner"] == 1 - forfeit["data"]["seat"]
    timeouts = of_type(found, "timed_out")
    by_seat = [t for t in timeouts if t["data"]["seat"] == forfeit["data"]["seat"]]
    assert [t["data"]["count"] for t in by_seat] == [1, 2, 3] and by_seat[-1]["data"]["action"] is None
    assert len({t["seq"] for t in timeouts}) == len(timeouts)
    summary = ok(client.get(f"/api/matches/{match_id}"))["match"]
    assert summary["status"] == "finished"
    replay = client.get(f"/api/matches/{match_id}/replay")
    assert replay.status_code == 200
    report = verify_replay(replay.text)
    assert report.ok, report.failure
    assert parse_replay(replay.text)[1][-1]["type"] == "seed_revealed"


def test_a_clock_that_ran_out_while_the_server_was_down_is_applied_at_start(
    app_client: Callable[[], TestClient], clock: ManualClock
) -> None:
    first = app_client()
    match_id, ada, bob = human_match(first, move_seconds=1)
    ok(first.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "a"}))
    joined = ok(first.post(f"/api/matches/{match_id}/join", headers=bob, json={"entropy": "b"}))["view"]
    first.__exit__(None, None, None)  # the server stops before the clock runs out
    clock.advance(1.5)
    second = app_client()  # and comes back after it has
    found = events(second, match_id, since=joined["version"])
    assert found and found[0]["type"] == "timed_out" and found[0]["data"]["count"] == 1


def test_clocks_that_ran_out_while_the_server_was_down_are_applied_in_deadline_order(
    app_client: Callable[[], TestClient], clock: ManualClock
) -> None:
    first = app_client()
    later, ada, bob = human_match(first, move_seconds=3)  # opened first, but its deadline is later
    sooner, ann, ben = human_match(first, move_seconds=1)
    for match_id, seats in ((later, (ada, bob)), (sooner, (ann, ben))):
        for headers in seats:
            ok(first.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "e"}))
    first.__exit__(None, None, None)
    clock.advance(3.5)
    second = app_client()
    applied = {m: of_type(events(second, m), "timed_out")[0] for m in (later, sooner)}
    assert applied[sooner]["data"]["count"] == applied[later]["data"]["count"] == 1
    assert datetime.strptime(applied[sooner]["at"], AT_FORMAT) < datetime.strptime(applied[later]["at"], AT_FORMAT)


def test_a_seat_that_moves_resets_its_count_and_its_clock(
    app_client: Callable[[], TestClient], clock: ManualClock
) -> None:
    client = app_client()
    match_id, ada, bob = human_match(client, move_seconds=1)
    ok(client.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "a"}))
    seen = ok(client.post(f"/api/matches/{match_id}/join", headers=bob, json={"entropy": "b"}))["view"]
    advance_until(clock, lambda: bool(of_type(events(client, match_id), "timed_out")))
    timed_out = of_type(events(client, match_id), "timed_out")[0]["data"]["seat"]
    headers = ada if timed_out == 0 else bob
    for _ in range(400):  # the seat that timed out drafts by itself as soon as it is its turn
        seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
        if seen["turn"] == timed_out and seen["legal"]:
            body = {"command_id": "mine", "expected_version": seen["version"], "command": seen["legal"][0]}
            answer = client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body)
            if answer.status_code == 200:
                assert answer.json()["view"]["timeouts"][timed_out] == 0
                return
        else:
            clock.advance(1.0)  # the other seat's clock runs out: its default action passes the turn
        time.sleep(0.02)
    raise AssertionError("the seat never had its turn back")


def test_a_clock_that_fires_early_waits_for_the_rest_and_does_not_time_out(
    app_client: Callable[[], TestClient], clock: ManualClock
) -> None:
    """The loop's timer is another clock than the events' ``at``: fired before the deadline, the
    clock applies nothing and arms itself again for what is left (plus a small margin)."""
    client = app_client()
    match_id, ada, bob = human_match(client, move_seconds=30)
    ok(client.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "a"}))
    ok(client.post(f"/api/matches/{match_id}/join", headers=bob, json={"entropy": "b"}))
    matches: MatchService = client.app.state.matches  # type: ignore[attr-defined]
    live = matches.registry.live[match_id]
    deadline = live.deadline
    assert deadline is not None
    clock.advance(10)
    assert client.portal.call(matches.clocks.time_out, live) is False  # type: ignore[union-attr]
    assert not of_type(events(client, match_id), "timed_out")
    margin = [t.due - deadline for t in clock.pending()]  # the first timer, at the deadline, is pending too
    assert any(timedelta(milliseconds=1) < m < timedelta(milliseconds=10) for m in margin), margin
    advance_until(clock, lambda: bool(of_type(events(client, match_id), "timed_out")), step=5.0)
    assert of_type(events(client, match_id), "timed_out")[0]["data"]["count"] == 1


def test_a_move_that_puts_the_deadline_later_sets_no_timer_and_the_next_deadline_still_times_out_once(
    app_client: Callable[[], TestClient], clock: ManualClock
) -> None:
    """Timers are lazy: the timer set for the first decision stays as it is when a seat moves
    (the next deadline is later); when it fires it finds the deadline moved on and waits for the
    new one, where the decision pending then times out, once."""
    client = app_client()
    match_id, ada, bob = human_match(client, move_seconds=30)
    ok(client.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "a"}))
    ok(client.post(f"/api/matches/{match_id}/join", headers=bob, json={"entropy": "b"}))
    first = of_type(events(client, match_id), "awaiting")[-1]
    armed = timers_due(clock, datetime.fromisoformat(first["at"]) + timedelta(seconds=30))
    assert len(armed) == 1
    clock.advance(20)
    moved = move_once(client, match_id, (ada, bob))
    opened = of_type(events(client, match_id), "awaiting")[-1]  # the decision the move opened
    deadline = datetime.fromisoformat(opened["at"]) + timedelta(seconds=30)
    assert opened["seq"] == moved
    assert not armed[0].cancelled and not timers_due(clock, deadline)  # the timer stays, none is set
    clock.advance(10.5)  # the first deadline passes: its timer fires and is set for the new one
    poll_until(lambda: bool(timers_due(clock, deadline)))
    assert not of_type(events(client, match_id), "timed_out")
    advance_until(clock, lambda: bool(of_type(events(client, match_id), "timed_out")), step=5.0)
    found = events(client, match_id)
    timed_out = of_type(found, "timed_out")
    assert len(timed_out) == 1 and timed_out[0]["seq"] == moved + 1
    assert datetime.fromisoformat(timed_out[0]["at"]) >= deadline


def timers_due(clock: ManualClock, due: datetime) -> list[ManualTimer]:
    """The pending timers due at ``due`` or up to 10 ms after it."""
    return [t for t in clock.pending() if timedelta(0) <= t.due - due < timedelta(milliseconds=10)]


def move_once(client: TestClient, match_id: str, seats: tuple[dict[str, str], dict[str, str]]) -> int:
    """The first seat with a legal command makes it; the version the match is at after it."""
    for headers in seats:
        seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
        if seen["legal"]:
            body = {"command_id": "move", "expected_version": seen["version"], "command": seen["legal"][0]}
            version: int = ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body))["view"][
                "version"
            ]
            return version
    raise AssertionError("no seat could move")


def test_a_clock_that_finds_the_database_away_tries_again(
    app_client: Callable[[], TestClient], clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the deadline passes while the database is away, the timeout is not lost: the clock
    arms itself again (a second later) and applies it once the database answers."""
    client = app_client()
    match_id, ada, bob = human_match(client, move_seconds=5)
    ok(client.post(f"/api/matches/{match_id}/join", headers=ada, json={"entropy": "a"}))
    ok(client.post(f"/api/matches/{match_id}/join", headers=bob, json={"entropy": "b"}))
    matches: MatchService = client.app.state.matches  # type: ignore[attr-defined]
    real_append = matches.store.append_chain_async
    failed: list[str] = []

    async def away_once(stream: str, steps: Any) -> Any:
        if not failed:
            failed.append(stream)
            raise StoreUnavailableError("the database is away (test)")
        return await real_append(stream, steps)

    monkeypatch.setattr(matches.store, "append_chain_async", away_once)
    clock.advance(5)
    poll_until(lambda: bool(failed))
    assert not of_type(events(client, match_id), "timed_out")
    advance_until(clock, lambda: bool(of_type(events(client, match_id), "timed_out")))
    assert of_type(events(client, match_id), "timed_out")[0]["data"]["count"] == 1


def poll_until(check: Callable[[], bool], tries: int = 500) -> None:
    for _ in range(tries):
        if check():
            return
        time.sleep(0.02)
    raise AssertionError("the condition never held")
