"""Seasons through the HTTP API (docs/TOURNAMENTS.md "Seasons"), on SQLite and PostgreSQL: two
small bot round robins make one table; every refusal is a clear 4xx that changes nothing."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.domain_errors import NotNow
from server.tournaments.season_model import SeasonClaimed, claim_stream
from tests.server.helpers import ok, register
from tests.server.test_auth_matrix import ANYONE, CALLERS, _world
from tests.server.test_auth_matrix import DIRECTOR as ONLY_DIRECTOR
from tests.server.test_tournaments import DIRECTOR, create, finished, start, tournament_when


def new_season(client: TestClient, **body: Any) -> dict[str, Any]:
    return ok(client.post("/api/seasons", headers=DIRECTOR, json={"name": "Winter", **body}), 201)


def add(client: TestClient, season_id: str, tournament_id: str, status: int = 200) -> dict[str, Any]:
    answer = client.post(f"/api/seasons/{season_id}/tournaments", headers=DIRECTOR, json={"tournament": tournament_id})
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    return body


def played(client: TestClient, players: list[str]) -> dict[str, Any]:
    t = create(client, players)
    start(client, t["id"])
    return tournament_when(client, t["id"], finished)


def test_a_season_of_two_bot_nights_makes_one_table(client: TestClient) -> None:
    season = new_season(client, best_of=1, points_by_place=[10, 6, 3])
    assert season["standings"] == [] and season["points_by_place"] == [10, 6, 3] and season["best_of"] == 1
    first = create(client, ["bot:random", "bot:greedy", "bot:random"])
    shown = add(client, season["id"], first["id"])
    assert shown["tournaments"][0]["in_play"] and shown["standings"] == []  # not finished: counts nothing yet
    start(client, first["id"])
    tournament_when(client, first["id"], finished)
    second = played(client, ["bot:greedy", "bot:random"])
    table = add(client, season["id"], second["id"])
    assert [t["in_play"] for t in table["tournaments"]] == [False, False]
    rows = table["standings"]
    assert len(rows) == 3 and sorted(r["rank"] for r in rows) == [r["rank"] for r in rows]
    for r in rows:
        assert len(r["counted"]) == min(1, r["events"]) == 1
        assert r["points"] == max(x["points"] for x in r["results"])
    of = ok(client.get(f"/api/tournaments/{second['id']}/season"))
    assert of["season"]["id"] == season["id"]
    assert ok(client.get(f"/api/tournaments/{first['id']}/season"))["season"]["id"] == season["id"]
    listed = ok(client.get("/api/seasons"))
    assert [s["id"] for s in listed] == [season["id"]] and listed[0]["tournaments"] == 2
    ended = ok(client.post(f"/api/seasons/{season['id']}/finish", headers=DIRECTOR))
    assert ended["status"] == "finished" and ended["server_seed"] and ended["moves"] == []
    assert ended["standings"] == rows


def test_refusals_change_nothing(client: TestClient) -> None:
    season = new_season(client)
    other = new_season(client, name="Other")
    t = create(client, ["bot:random", "bot:greedy"])
    _ann, token = register(client, "ann")
    url = f"/api/seasons/{season['id']}"
    assert client.post("/api/seasons", json={"name": "x"}).status_code == 401
    assert client.post("/api/seasons", headers=token, json={"name": "x"}).status_code == 401
    assert client.post(f"{url}/tournaments", headers=token, json={"tournament": t["id"]}).status_code == 401
    for bad in (
        {"best_of": 0},
        {"best_of": 53},
        {"points_by_place": []},
        {"points_by_place": [1, 2]},
        {"points_by_place": [0]},
        {"points_by_place": [-1]},
        {"divisions": 1},
        {"divisions": 9},
        {"promote": 1},
        {"divisions": [{"name": "A"}, {"name": "A"}]},
        {"divisions": [{"name": "A", "players": ["ann"]}, {"name": "B", "players": ["ann"]}]},
        {"divisions": 2, "promote": 17},
        {"name": ""},
    ):
        answer = client.post("/api/seasons", headers=DIRECTOR, json={"name": "x", **bad})
        assert answer.status_code == 400, (bad, answer.text)
    assert (
        client.post(
            "/api/seasons",
            headers=DIRECTOR,
            json={"name": "x", "divisions": [{"name": "A", "players": ["nobody"]}, {"name": "B"}]},
        ).status_code
        == 404
    )
    assert client.post("/api/seasons", headers=DIRECTOR, json={"name": "x", "follows": "s_nope"}).status_code == 404
    assert client.post("/api/seasons", headers=DIRECTOR, json={"name": "x", "follows": season["id"]}).status_code == 409
    add(client, season["id"], "t_nope", 404)
    add(client, "s_nope", t["id"], 404)
    add(client, season["id"], t["id"])
    add(client, season["id"], t["id"], 409)  # twice
    add(client, other["id"], t["id"], 409)  # in another season
    assert client.get("/api/seasons/s_nope").status_code == 404
    assert client.post(f"{url}/finish", headers=token).status_code == 401
    assert client.post(f"{url}/finish", headers=DIRECTOR).status_code == 409  # t not finished: in play
    assert ok(client.get(url))["status"] == "open"
    ok(client.post(f"/api/seasons/{other['id']}/finish", headers=DIRECTOR))
    assert client.post(f"/api/seasons/{other['id']}/finish", headers=DIRECTOR).status_code == 409
    later = create(client, ["bot:random", "bot:greedy"])
    add(client, other["id"], later["id"], 409)  # a finished season takes no more
    assert ok(client.get(f"/api/tournaments/{later['id']}/season"))["season"] is None
    assert ok(
        client.post(f"/api/seasons/{season['id']}/tournaments", headers=DIRECTOR, json={"tournament": later["id"]})
    )
    assert len(ok(client.get("/api/seasons"))) == 2
    assert ok(client.get(f"/api/seasons/{other['id']}"))["tournaments"] == []
    assert ok(client.get(f"/api/tournaments/{t['id']}/season"))["season"]["id"] == season["id"]


def test_two_seasons_racing_for_one_tournament_get_it_once(client: TestClient) -> None:
    """The claim stream is appended on the version read: of two seasons adding the same
    tournament at once, one has it and the other is refused (409), every time."""
    first, second = new_season(client, name="First"), new_season(client, name="Second")
    tournaments = [create(client, ["bot:random", "bot:greedy"])["id"] for _ in range(4)]

    def race(tournament_id: str) -> list[int]:
        with ThreadPoolExecutor(2) as pool:
            answers = pool.map(
                lambda s: (
                    client.post(
                        f"/api/seasons/{s}/tournaments", headers=DIRECTOR, json={"tournament": tournament_id}
                    ).status_code
                ),
                (first["id"], second["id"]),
            )
            return sorted(answers)

    for tournament_id in tournaments:
        assert race(tournament_id) == [200, 409]
    held = (
        ok(client.get(f"/api/seasons/{first['id']}"))["tournaments"]
        + ok(client.get(f"/api/seasons/{second['id']}"))["tournaments"]
    )
    assert sorted(t["id"] for t in held) == sorted(tournaments)


def test_a_claim_whose_adding_never_finished_is_said_and_completed_by_adding_again(client: TestClient) -> None:
    """A server stopped between the claim and the season's append: the tournament stays with the
    season that claimed it, the refusal says so, and adding it there again completes it."""
    held, other = new_season(client, name="Held"), new_season(client, name="Other")
    t = create(client, ["bot:random", "bot:greedy"])
    store = client.app.state.store  # type: ignore[attr-defined]
    store.append(claim_stream(t["id"]), [SeasonClaimed(held["id"]).event()], expected_seq=0)
    assert ok(client.get(f"/api/tournaments/{t['id']}/season"))["season"] is None
    refused = add(client, other["id"], t["id"], 409)
    assert "did not finish" in refused["message"] and held["id"] in refused["message"]
    assert [x["id"] for x in add(client, held["id"], t["id"])["tournaments"]] == [t["id"]]
    assert ok(client.get(f"/api/tournaments/{t['id']}/season"))["season"]["id"] == held["id"]


def test_the_season_paths_allow_and_refuse_each_kind_of_caller_as_api_md_says(client: TestClient) -> None:
    """The auth matrix of docs/API.md for the season paths (tests/server/test_auth_matrix.py's
    callers and rules; apart from it, which is at the wrong-token limit's edge)."""
    w = _world(client)
    t = w["t"]
    cases = [
        ("POST", "/api/seasons", {"name": "x", "best_of": 0}, ONLY_DIRECTOR),  # 400: past auth
        ("GET", "/api/seasons", None, ANYONE),
        ("GET", "/api/seasons/s_nobody", None, ANYONE),  # 404: past auth
        ("POST", "/api/seasons/s_nobody/tournaments", {"tournament": t}, ONLY_DIRECTOR),  # 404
        ("POST", "/api/seasons/s_nobody/finish", None, ONLY_DIRECTOR),  # 404
        ("GET", f"/api/tournaments/{t}/season", None, ANYONE),
    ]
    for method, path, body, expected in cases:
        for caller in CALLERS:
            response = client.request(method, path, headers=w["headers"][caller], json=body)
            where = f"{method} {path} as {caller}: {response.status_code} {response.text[:200]}"
            assert response.status_code < 500, where
            if expected[caller] == "ok":
                assert response.status_code not in (401, 403), where
            else:
                assert response.status_code == expected[caller], where


def test_a_knockout_counts_by_its_published_places_ties_shared(client: TestClient) -> None:
    """A single elimination of four: the two semi-final losers share 3rd (the bracket's places),
    so each scores third place's points and they share a rank in the season."""
    season = new_season(client, points_by_place=[10, 6, 3, 1])
    t = create(client, ["bot:random", "bot:greedy", "bot:random", "bot:greedy"], format="single_elimination")
    start(client, t["id"])
    ended = tournament_when(client, t["id"], finished)
    rows = add(client, season["id"], t["id"])["standings"]
    published = {p["player"]: p["place"] for p in ended["places"]}
    assert sorted(published.values()) == [1, 2, 3, 3]
    assert {r["player"]: r["results"][0]["place"] for r in rows} == published
    assert [(r["rank"], r["points"]) for r in rows] == [(1, 10), (2, 6), (3, 3), (3, 3)]


def test_a_claim_is_let_go_when_the_season_refuses_after_it(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The season refuses between the claim and its own append (it finished or filled meanwhile,
    made to happen here): the claim is released, so another season may take the tournament."""
    season, other = new_season(client, name="Refusing"), new_season(client, name="Taking")
    t = create(client, ["bot:random", "bot:greedy"])
    service = client.app.state.seasons  # type: ignore[attr-defined]

    async def refused_meanwhile(_season_id: str, _deciding: object) -> None:
        raise NotNow("the season finished meanwhile")

    monkeypatch.setattr(service, "_decide", refused_meanwhile)
    assert add(client, season["id"], t["id"], 409)["message"] == "the season finished meanwhile"
    monkeypatch.undo()
    assert ok(client.get(f"/api/seasons/{season['id']}"))["tournaments"] == []
    assert [x["id"] for x in add(client, other["id"], t["id"])["tournaments"]] == [t["id"]]
