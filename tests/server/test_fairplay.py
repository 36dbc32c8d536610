"""``GET /api/tournaments/{id}/fairplay`` (docs/TOURNAMENTS.md "Fair-play signals"), on SQLite and PostgreSQL.

A human plays a house bot (which answers at once) in a two-player round robin on a clock the test
moves by hand: the human takes 2, 3, 4 and 5 seconds over its first four decisions, then lets its
clock run out three times in a row and forfeits. Every figure of the report is checked against
the events' ``at`` stamps, read back through the director's event stream. Then a tables
tournament of house bots (each seat's answers go to its own player), the director-only rule and 404.
"""

from __future__ import annotations

import json
import random
import statistics
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bench.progress import wait_for
from engine.record.jsonfmt import AT_FORMAT
from tests.server.conftest import DIRECTOR_TOKEN, app_client
from tests.server.helpers import ok, register, with_color
from tests.server.manual_clock import ManualClock

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
MOVE_SECONDS = 10
THINKING = (2.0, 3.0, 4.0, 5.0)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
FIGURES = ("mean_seconds", "stdev_seconds", "median_seconds", "p90_seconds", "fastest_seconds", "slowest_seconds")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def client(url: str, clock: ManualClock) -> Iterator[TestClient]:
    with app_client(url, clock) as made:
        yield made


def events(client: TestClient, match_id: str) -> list[dict[str, Any]]:
    response = client.get(f"/api/matches/{match_id}/events", headers=DIRECTOR)
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines()]


def micros(at: str) -> int:
    return (datetime.strptime(at, AT_FORMAT).replace(tzinfo=UTC) - EPOCH) // timedelta(microseconds=1)


def answer_times(log: list[dict[str, Any]], seat: int) -> list[float]:
    """Each command of ``seat`` timed from the last ``awaiting`` before it (this match has no uno calls)."""
    out: list[float] = []
    opened: str | None = None
    for envelope in log:
        if envelope["type"] == "awaiting":
            opened = envelope["at"]
        elif envelope["type"] == "command" and envelope["data"]["seat"] == seat:
            assert opened is not None and envelope["data"]["command"]["type"] != "uno"
            out.append((micros(envelope["at"]) - micros(opened)) / 1e6)
    return out


def timed_out(client: TestClient, match_id: str) -> int:
    return sum(1 for e in events(client, match_id) if e["type"] == "timed_out")


def fairplay(client: TestClient, tournament_id: str, headers: dict[str, str] | None = None) -> Any:
    return client.get(f"/api/tournaments/{tournament_id}/fairplay", headers=DIRECTOR if headers is None else headers)


REVIEW_FIGURES = ("reviewed_matches", "reviewed_decisions", "agreement", "average_loss")


def times_only(row: dict[str, Any]) -> dict[str, Any]:
    """A row without its Game Review figures, which fill in as reviews are computed in the background."""
    return {k: v for k, v in row.items() if k not in REVIEW_FIGURES}


def check_row(row: dict[str, Any], taken: list[float]) -> None:
    assert row["moves"] == len(taken)
    ordered = sorted(taken)
    expected = {
        "mean_seconds": statistics.fmean(taken),
        "stdev_seconds": statistics.pstdev(taken),
        "median_seconds": statistics.median(taken),
        "p90_seconds": ordered[-(-9 * len(taken) // 10) - 1],
        "fastest_seconds": ordered[0],
        "slowest_seconds": ordered[-1],
    }
    for name, value in expected.items():
        assert row[name] == pytest.approx(value, abs=2e-6), name


def test_the_director_sees_each_players_move_times_and_timeouts(client: TestClient, clock: ManualClock) -> None:
    ada, headers = register(client, "ada")
    body: dict[str, Any] = {"name": "Fair play", "players": [ada, "bot:greedy"], "rules": {"target": 30}}
    body |= {"move_seconds": MOVE_SECONDS, "join_seconds": 3600}
    t = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    before = ok(fairplay(client, t["id"]))
    assert before["matches"] == 0 and [r["moves"] for r in before["players"]] == [0, 0]
    assert all(r[name] is None for r in before["players"] for name in FIGURES)
    ok(client.post(f"/api/tournaments/{t['id']}/start", headers=DIRECTOR))
    shown = ok(client.get(f"/api/tournaments/{t['id']}"))
    pairing = shown["rounds"][0]["pairings"][0]
    match_id = pairing["match"]
    seat = 0 if pairing["white"]["id"] == ada else 1
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "ada"}))

    def my_view() -> dict[str, Any] | None:
        seen: dict[str, Any] = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
        return seen if seen["turn"] == seat and seen["legal"] else None

    for step, seconds in enumerate(THINKING):
        seen = wait_for(my_view, "ada's turn")
        clock.advance(seconds)
        command = with_color(next(c for c in seen["legal"] if c["type"] != "uno"), random.Random(step))
        sent = {"command_id": f"c-{step}", "expected_version": seen["version"], "command": command}
        ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=sent))

    live = ok(fairplay(client, t["id"]))
    mine = next(r for r in live["players"] if r["player"]["id"] == ada)
    assert mine["moves"] == len(THINKING) and mine["timeouts"] == 0 and live["status"] == "running"
    assert client.app.state.fairplay.kept() == 0  # type: ignore[attr-defined]  # a live match is read again

    # Three timeouts in a row. After a timeout the bot answers on a task of its own (the timer's
    # path does not answer for it inline): the clock moves only on ada's turn, once the bot has
    # answered, or a loaded loop would stamp the bot's answer seconds late.
    for count in range(1, 4):
        wait_for(my_view, "ada's turn")
        clock.advance(MOVE_SECONDS)
        wait_for(lambda n=count: timed_out(client, match_id) == n, f"timeout {count}")
    wait_for(lambda: any(e["type"] == "match_forfeited" for e in events(client, match_id)), "the forfeit")
    wait_for(lambda: ok(client.get(f"/api/tournaments/{t['id']}"))["status"] == "finished", "the tournament's end")
    log = events(client, match_id)
    report = ok(fairplay(client, t["id"]))
    again = ok(fairplay(client, t["id"]))  # the second answer from the kept times (Game Reviews may fill in meanwhile)
    assert [times_only(r) for r in report["players"]] == [times_only(r) for r in again["players"]]
    assert client.app.state.fairplay.kept() == 1  # type: ignore[attr-defined]
    assert (report["tournament"], report["status"], report["matches"]) == (t["id"], "finished", 1)
    assert report["move_seconds"] == MOVE_SECONDS
    human, bot = (next(r for r in report["players"] if (r["player"]["id"] == ada) == is_ada) for is_ada in (1, 0))
    assert [r["player"]["id"] for r in report["players"]] == [p["id"] for p in shown["players"]]
    assert (human["player"]["kind"], bot["player"]["kind"]) == ("human", "bot")

    taken = answer_times(log, seat)
    assert len(taken) == len(THINKING)
    assert all(s <= got < s + 0.01 for s, got in zip(THINKING, taken, strict=True))  # the clock's ticks: µs
    check_row(human, taken)
    forfeits = [e for e in log if e["type"] == "match_forfeited"]
    assert [(e["data"]["seat"], e["data"]["reason"]) for e in forfeits] == [(seat, "timeouts")]
    timeouts = [e for e in log if e["type"] == "timed_out"]
    assert len(timeouts) == 3 and all(e["data"]["seat"] == seat for e in timeouts)
    assert (human["timeouts"], human["timeout_forfeits"], human["matches"]) == (3, 1, 1)

    bot_taken = answer_times(log, 1 - seat)
    assert bot_taken and all(0 <= s < 0.01 for s in bot_taken)  # no clock moved while it chose
    check_row(bot, bot_taken)
    assert (bot["timeouts"], bot["timeout_forfeits"], bot["matches"]) == (0, 0, 1)


def test_only_the_director_may_read_it_and_an_unknown_tournament_is_404(client: TestClient) -> None:
    _, headers = register(client, "ben")
    body = {"name": "Closed", "players": ["bot:random", "bot:greedy"]}
    t = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    path = f"/api/tournaments/{t['id']}/fairplay"
    assert client.get(path).status_code == 401
    assert client.get(path, headers=headers).status_code == 401
    assert client.get(path, headers={"Authorization": "Bearer nobody-has-this-token-0123"}).status_code == 401
    assert ok(client.get(path, headers=DIRECTOR))["tournament"] == t["id"]
    missing = client.get("/api/tournaments/t_nobody/fairplay", headers=DIRECTOR)
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert client.get("/api/tournaments/t_nobody/fairplay", headers=headers).status_code == 401
    assert client.get("/api/tournaments/no%20such/fairplay", headers=DIRECTOR).status_code == 400


def test_at_tables_each_seats_answers_are_its_own_players_moves(client: TestClient) -> None:
    rules = {"target": 500, "round_limit": 1}
    body: dict[str, Any] = {"name": "Tables", "players": ["bot:greedy", "bot:random"] * 3, "rules": rules}
    body |= {"format": "tables", "ruleset": "classic", "rounds": 2, "table_size": 3}
    t = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)
    ok(client.post(f"/api/tournaments/{t['id']}/start", headers=DIRECTOR))
    t = wait_for(
        lambda: (found := ok(client.get(f"/api/tournaments/{t['id']}")))["status"] == "finished" and found, "the end"
    )
    answers: dict[str, int] = {p["id"]: 0 for p in t["players"]}
    tables = [p for r in t["rounds"] for p in r["pairings"]]
    assert len(tables) == 4 and all(len(p["seats"]) == 3 for p in tables)
    for table in tables:
        seated = [s["id"] for s in ok(client.get(f"/api/matches/{table['match']}"))["match"]["seats"]]
        for e in events(client, table["match"]):
            if e["type"] == "command" and e["data"]["command"]["type"] != "uno":
                answers[seated[e["data"]["seat"]]] += 1
    report = ok(fairplay(client, t["id"]))
    assert report["matches"] == 4
    assert {r["player"]["id"]: r["moves"] for r in report["players"]} == answers
    assert all(r["matches"] == 2 and r["timeouts"] == 0 and r["player"]["kind"] == "bot" for r in report["players"])
