"""A tournament's page reads its matches' summaries at once, however many matches it has."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event

from bench.progress import wait_for
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}


def finished_round_robin(client: TestClient, players: int) -> str:
    """A round robin of ``players`` house bots to a low target, played to its end: its id."""
    body = {"name": "reads", "players": ["bot:random"] * players, "rules": {"target": 20}}
    tournament_id = str(ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)["id"])
    ok(client.post(f"/api/tournaments/{tournament_id}/start", headers=DIRECTOR))
    wait_for(
        lambda: ok(client.get(f"/api/tournaments/{tournament_id}")),
        "the tournament stopped moving",
        until=lambda t: t["status"] == "finished",
        moving=lambda t: repr(t["rounds"]),
    )
    return tournament_id


@contextmanager
def statements(client: TestClient) -> Iterator[list[str]]:
    """The SQL statements the app's database runs meanwhile."""
    engine: Any = client.app.state.store.engine  # type: ignore[attr-defined]
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_a_tournament_page_reads_the_same_few_statements_for_6_matches_as_for_15(client: TestClient) -> None:
    small, big = finished_round_robin(client, 4), finished_round_robin(client, 6)
    reads = []
    for tournament_id, matches in ((small, 6), (big, 15)):
        ok(client.get(f"/api/tournaments/{tournament_id}"))  # the players are cached after a first read
        counts = []
        for _ in range(3):  # the server's background work (ratings, followers) may add a statement
            with statements(client) as seen:  # to a count, never take one away: the fewest is the page's
                page = ok(client.get(f"/api/tournaments/{tournament_id}"))
            assert sum(len(r["matches"]) for r in page["rounds"]) == matches
            counts.append(len(seen))
        reads.append(min(counts))
    assert reads[0] == reads[1], reads  # one read of all the summaries, not two statements a match
