"""Timed rounds (RULES.md D26, docs/TOURNAMENTS.md "Timed rounds") through the HTTP API, on SQLite
and PostgreSQL, on a clock the test moves: ``round_minutes`` checked at creation, time called in
a match mid-hand when its round's deadline passes (and after a restart, from the fold), the
director's call, and what the tournament, the match summaries and the views show."""

# ruff: noqa: F811 - the tests take test_clocks' fixtures (app_client, clock), imported below, as arguments
from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.fairness.verify import verify_replay
from server.store.values import format_at
from server.tournaments.model import stored_time
from tests.server.helpers import ok, play_to_end, register
from tests.server.manual_clock import ManualClock
from tests.server.test_clocks import (  # noqa: F401 - app_client and clock are the tests' fixtures
    advance_until,
    app_client,
    clock,
    events,
    of_type,
)
from tests.server.test_tournaments import DIRECTOR, QUICK, tournament_when

LONG_MOVES = 86_400  # no move clock runs out while the test moves the round's clock on
FAR = {"target": 5000}  # no hand reaches it: only time called ends the match
NAMES = itertools.count(1)


def timed_swiss(client: TestClient, minutes: float | None = 15) -> tuple[dict[str, Any], str, dict[str, str]]:
    """A one-round Swiss of a registered player (who joins and waits) and a house bot, started."""
    ada, ada_h = register(client, f"ada-{next(NAMES)}")
    body: dict[str, Any] = {
        "name": "Timed night",
        "players": [ada, "bot:greedy"],
        "rules": FAR,
        "format": "swiss",
        "rounds": 1,
        "move_seconds": LONG_MOVES,
    }
    if minutes is not None:
        body["round_minutes"] = minutes
    t = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    assert t["round_minutes"] == minutes
    t = ok(client.post(f"/api/tournaments/{t['id']}/start", headers=DIRECTOR))
    return t, ada, ada_h


def join(client: TestClient, t: dict[str, Any], headers: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """The player's match of round 1, joined: a hand is in play (the bot answers at once)."""
    match_id = t["rounds"][0]["pairings"][0]["match"]
    view = ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "ada"}))["view"]
    assert view["phase"] in ("draft", "play") and view["time_called"] is None
    return match_id, view


def show(client: TestClient, tournament_id: str) -> dict[str, Any]:
    return ok(client.get(f"/api/tournaments/{tournament_id}"))  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("minutes", "says"),
    [(0, "greater than 0"), (-1, "greater than 0"), (601, "less than or equal to 600"), ("15", "round_minutes"),
     (True, "round_minutes"), (1e300, "less than or equal to 600")],
)  # fmt: skip
def test_a_bad_round_minutes_is_refused_and_nothing_is_created(
    app_client: Callable[[], TestClient], minutes: Any, says: str
) -> None:
    client = app_client()
    body = {"name": "Refused timed", "players": ["bot:random", "bot:greedy"], "rules": QUICK, "round_minutes": minutes}
    reply = client.post("/api/tournaments", headers=DIRECTOR, json=body)
    assert reply.status_code == 400, reply.text
    assert "round_minutes" in reply.text and says in reply.text, reply.text
    assert not [x for x in ok(client.get("/api/tournaments")) if x["name"] == "Refused timed"]


def test_time_is_called_mid_hand_at_the_deadline_and_the_match_ends_on_its_totals(
    app_client: Callable[[], TestClient], clock: ManualClock
) -> None:
    client = app_client()
    t, _ada, ada_h = timed_swiss(client, minutes=15)
    match_id, view = join(client, t, ada_h)
    t = show(client, t["id"])
    deadline = t["rounds"][0]["deadline"]
    assert deadline is not None and t["rounds"][0]["time_called"] is None
    summary = t["rounds"][0]["matches"][0]
    assert summary["round_deadline"] == deadline and summary["time_called"] is None
    mine = ok(client.get("/api/me", headers=ada_h))["matches"][0]  # the lobby's line reads it too
    assert mine["round_deadline"] == deadline and mine["time_called"] is None
    round_at_call = view["round"]

    clock.advance(15 * 60 - 1)  # not yet
    assert not of_type(events(client, match_id), "time_called")
    advance_until(clock, lambda: bool(of_type(events(client, match_id), "time_called")))
    called = of_type(events(client, match_id), "time_called")
    assert len(called) == 1 and called[0]["data"] == {"moment": deadline}  # the deadline is the moment
    for headers in (ada_h, None):  # the seat and a spectator
        seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
        assert seen["time_called"] == deadline and seen["phase"] in ("draft", "play")  # the hand goes on
    t = tournament_when(client, t["id"], lambda x: x["rounds"][0]["time_called"] is not None)  # recorded after
    assert t["rounds"][0]["time_called"] == deadline and t["rounds"][0]["matches"][0]["time_called"] == deadline
    assert ok(client.get("/api/me", headers=ada_h))["matches"][0]["time_called"] == deadline

    final, _ = play_to_end(client, match_id, ada_h, 0 if view["viewer"] == 0 else 1, random.Random(5))
    ended = of_type(events(client, match_id), "match_ended")[0]["data"]
    scores = ended["scores"]
    assert max(scores) < FAR["target"]  # the totals decided it, not the target
    assert scores.count(min(scores)) == 1 and ended["winner"] == scores.index(min(scores))  # uno-duo: lowest wins
    rounds_ended = of_type(events(client, match_id), "round_ended")
    for hand in rounds_ended[round_at_call - 1 : -1]:  # a hand after the call that did not end it: a tie
        assert len(set(hand["data"]["scores"])) == 1
    t = tournament_when(client, t["id"], lambda x: x["status"] == "finished")
    assert t["rounds"][0]["matches"][0]["time_called"] == deadline  # its result remembers the call
    assert ok(client.get("/api/me", headers=ada_h))["matches"][0]["ended"]["how"] == "time_called"
    assert t["rounds"][0]["pairings"][0]["result"]["reason"] == "played"
    replay = client.get(f"/api/matches/{match_id}/replay")
    assert replay.status_code == 200 and verify_replay(replay.text).ok
    assert final["phase"] == "match_over"


def test_a_deadline_passed_while_the_server_was_down_calls_time_when_it_comes_back(
    app_client: Callable[[], TestClient], clock: ManualClock
) -> None:
    first = app_client()
    t, _ada, ada_h = timed_swiss(first, minutes=0.5)
    match_id, _view = join(first, t, ada_h)
    first.__exit__(None, None, None)  # the server stops before the round runs out
    clock.advance(31)
    second = app_client()  # and comes back after it has: the deadline is re-armed from the fold
    advance_until(clock, lambda: bool(of_type(events(second, match_id), "time_called")), step=0.001)
    t = tournament_when(second, t["id"], lambda x: x["rounds"][0]["time_called"] is not None)
    assert t["rounds"][0]["time_called"] == t["rounds"][0]["deadline"]


def test_the_director_calls_time_in_the_round_being_played_once(
    app_client: Callable[[], TestClient], clock: ManualClock
) -> None:
    client = app_client()
    t, _ada, ada_h = timed_swiss(client, minutes=None)  # untimed: the director may still call time
    assert t["rounds"][0]["deadline"] is None
    match_id, _view = join(client, t, ada_h)
    refused = client.post(f"/api/tournaments/{t['id']}/call-time", headers=ada_h)
    assert refused.status_code in (401, 403)
    first = ok(client.post(f"/api/tournaments/{t['id']}/call-time", headers=DIRECTOR))
    moment = first["rounds"][0]["time_called"]
    assert moment is not None and first["rounds"][0]["matches"][0]["time_called"] == moment
    clock.advance(60)
    again = ok(client.post(f"/api/tournaments/{t['id']}/call-time", headers=DIRECTOR))
    assert again["rounds"][0]["time_called"] == moment  # the first call stands
    assert [e["data"]["moment"] for e in of_type(events(client, match_id), "time_called")] == [moment]


def test_calling_time_with_no_round_open_is_refused(app_client: Callable[[], TestClient]) -> None:
    client = app_client()
    body = {"name": "Not yet", "players": ["bot:random", "bot:greedy"], "rules": QUICK, "round_minutes": 10}
    t = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    reply = client.post(f"/api/tournaments/{t['id']}/call-time", headers=DIRECTOR)
    assert reply.status_code == 409, reply.text
    assert show(client, t["id"])["rounds"][0]["time_called"] is None


def test_the_deadline_is_the_opening_plus_the_round_minutes(app_client: Callable[[], TestClient]) -> None:
    client = app_client()
    t, _ada, _ada_h = timed_swiss(client, minutes=12.5)
    fold = client.app.state.tournaments.load(t["id"])  # type: ignore[attr-defined]
    opened = stored_time(fold.opened_at[1])
    assert opened is not None and t["rounds"][0]["deadline"] == format_at(opened + timedelta(minutes=12.5))


def test_a_match_replayed_after_its_round_was_called_is_called_at_once(
    app_client: Callable[[], TestClient], clock: ManualClock
) -> None:
    client = app_client()
    t, _ada, ada_h = timed_swiss(client, minutes=15)
    match_id, _view = join(client, t, ada_h)
    clock.advance(15 * 60 + 1)
    t = tournament_when(client, t["id"], lambda x: x["rounds"][0]["time_called"] is not None)
    moment = t["rounds"][0]["time_called"]
    dispute = ok(client.post(f"/api/matches/{match_id}/disputes", headers=ada_h, json={"seq": 1, "note": "odd"}), 201)
    ruling = {"decision": "replay", "note": "played again"}
    ok(client.post(f"/api/disputes/{dispute['id']}/ruling", headers=DIRECTOR, json=ruling))
    pairing = show(client, t["id"])["rounds"][0]["pairings"][0]
    assert pairing["annulled"] == [match_id] and pairing["match"] != match_id
    called = of_type(events(client, pairing["match"]), "time_called")
    assert [e["data"]["moment"] for e in called] == [moment]  # decided on its first hand


def test_a_round_over_before_its_deadline_has_no_time_called(app_client: Callable[[], TestClient]) -> None:
    client = app_client()
    body = {"name": "Quick bots", "players": ["bot:random", "bot:greedy"], "rules": QUICK, "round_minutes": 5}
    t = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    ok(client.post(f"/api/tournaments/{t['id']}/start", headers=DIRECTOR))
    t = tournament_when(client, t["id"], lambda x: x["status"] == "finished")  # before the clock moved at all
    service = client.app.state.tournaments  # type: ignore[attr-defined]
    moment = t["rounds"][0]["deadline"]
    client.portal.call(service.call_time, t["id"], 1, moment, "deadline")  # type: ignore[union-attr]  # its timer: no error
    after = show(client, t["id"])
    assert after["rounds"][0]["time_called"] is None and after["rounds"][0]["matches"][0]["time_called"] is None
