"""``GET /api/tournaments`` a page at a time (issue 32, point 6), on SQLite and PostgreSQL.

The listing folded every tournament on every request (142 ms of CPU at 408 tournaments). Now it
pages, newest first (``limit``, ``before`` and a ``Link`` to the next page), and folds a
tournament again only when its stream moved: a request on an unchanged server folds nothing.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

from fastapi.testclient import TestClient

from server.services.tournament_listing import DEFAULT_PAGE, MAX_PAGE, TournamentListing
from tests.server.conftest import app_client
from tests.server.helpers import ok, register
from tests.server.test_tournaments import DIRECTOR, QUICK


def make(client: TestClient, name: str, **options: Any) -> str:
    body = {"name": name, "players": ["bot:random", "bot:greedy"], "rules": QUICK, **options}
    made: str = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)["id"]
    return made


def listing(client: TestClient) -> TournamentListing:
    found: TournamentListing = client.app.state.tournament_listing  # type: ignore[attr-defined]
    return found


def next_page(answer: Any) -> dict[str, str] | None:
    """The query of the ``Link: <…>; rel="next"`` header (None: the last page)."""
    link = answer.headers.get("link")
    if link is None:
        return None
    assert link.endswith('>; rel="next"') and link.startswith("</api/tournaments?"), link
    query = parse_qs(urlparse(link[1 : link.index(">")]).query)
    return {name: values[0] for name, values in query.items()}


def test_the_listing_pages_newest_first_and_the_pages_add_up_to_every_tournament(client: TestClient) -> None:
    made = [make(client, f"club {i}") for i in range(7)]
    first = client.get("/api/tournaments", params={"limit": 3})
    assert [t["id"] for t in ok(first)] == made[::-1][:3]  # newest first
    params = next_page(first)
    assert params == {"limit": "3", "before": made[4]}
    seen = [t["id"] for t in ok(first)]
    while params is not None:
        answer = client.get("/api/tournaments", params=params)
        seen += [t["id"] for t in ok(answer)]
        params = next_page(answer)
    assert seen == made[::-1]  # every one once, in order; the last page has no Link
    assert [t["id"] for t in ok(client.get("/api/tournaments"))] == made[::-1]  # under the default page
    assert ok(client.get("/api/tournaments", params={"before": made[0]})) == []


def test_the_default_page_is_bounded_and_bad_paging_is_refused(client: TestClient) -> None:
    made = [make(client, f"night {i}") for i in range(DEFAULT_PAGE + 2)]
    page = client.get("/api/tournaments")
    assert len(ok(page)) == DEFAULT_PAGE and next_page(page) == {"limit": str(DEFAULT_PAGE), "before": made[2]}
    for params in ({"limit": 0}, {"limit": MAX_PAGE + 1}, {"limit": "ten"}, {"before": "not an id!"}):
        answer = client.get("/api/tournaments", params=params)
        assert answer.status_code == 400 and answer.json()["code"] == "malformed", (params, answer.text)
    unknown = client.get("/api/tournaments", params={"before": "t_0000000000000000"})
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"


def test_a_listing_folds_only_what_moved_and_shows_it(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    quiet = [make(client, f"quiet {i}") for i in range(5)]
    entering = make(client, "open evening", open=True, players=[])
    counter = listing(client)
    ok(client.get("/api/tournaments"))
    folded = counter.folds
    for _ in range(3):
        rows = {t["id"]: t for t in ok(client.get("/api/tournaments", headers=headers))}
    assert counter.folds == folded, "a listing with nothing changed folded tournaments again"
    assert rows[entering]["entries"] == 0 and rows[entering]["entered"] is False and set(quiet) < set(rows)

    ok(client.post(f"/api/tournaments/{entering}/entries", headers=headers), 201)
    rows = {t["id"]: t for t in ok(client.get("/api/tournaments", headers=headers))}
    assert counter.folds == folded + 1  # the one whose stream moved
    assert rows[entering]["entries"] == 1 and rows[entering]["entered"] is True
    assert all(rows[t]["entered"] is False for t in quiet)
    assert all(t["entered"] is None for t in ok(client.get("/api/tournaments")))  # no player's token
    assert ada in {p["id"] for p in ok(client.get(f"/api/tournaments/{entering}"))["players"]}


def test_what_another_server_changes_is_listed(client: TestClient, url: str) -> None:
    with app_client(url) as other:
        listed = {t["id"]: t for t in ok(other.get("/api/tournaments"))}
        made = make(client, "elsewhere", players=["bot:random", "bot:greedy", "bot:random"])
        ok(client.post(f"/api/tournaments/{made}/entries", headers=DIRECTOR, json={"player": "bot:greedy"}), 201)
        listed = {t["id"]: t for t in ok(other.get("/api/tournaments"))}
        assert listed[made]["entries"] == 4 and listed[made]["status"] == "created"
