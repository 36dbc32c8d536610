"""The HTTP API against SQLite and PostgreSQL: whole matches, idempotency, races, hidden cards, bad input."""

from __future__ import annotations

import json
import random
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from fastapi.testclient import TestClient
from pydantic import BaseModel

from engine.fairness.verify import verify_replay
from server.api.routes_players import SignInCode
from server.errors import ErrorBody
from server.schemas import (
    DisputePublic,
    FairPlayReport,
    KnockoutExport,
    LobbyState,
    MatchDetail,
    MatchOutcome,
    Me,
    PlayerPage,
    PlayerWithToken,
    ServerInfo,
    TournamentListed,
    TournamentPublic,
    Versus,
)
from server.schemas_reviews import GameReview
from server.schemas_seasons import SeasonListed, SeasonOfTournament, SeasonPublic
from server.store.models import EventPublic, MatchSummaryPublic, PlayerPublic
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import check_seat_response, ok, play_to_end, register, with_color

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}


def new_bot_match(client: TestClient, bot: str = "bot:greedy") -> tuple[str, str, dict[str, str]]:
    player_id, headers = register(client, "ada")
    summary = ok(client.post("/api/matches", headers=headers, json={"opponent": bot}), 201)
    return summary["id"], player_id, headers


def test_a_whole_match_against_the_greedy_bot(client: TestClient) -> None:
    player_id, headers = register(client, "ada")
    summary = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)
    assert summary["status"] == "waiting" and summary["winner"] is None and summary["tournament"] is None
    assert summary["seats"][0] == {"id": player_id, "name": "ada", "kind": "human"}
    assert summary["seats"][1]["kind"] == "bot" and summary["seats"][1]["name"] == "greedy"
    match_id = summary["id"]

    joined = ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "ada's dice"}))
    check_seat_response(joined, 0)
    assert joined["match"]["status"] == "live" and joined["view"]["phase"] in ("draft", "play")
    assert joined["events"][0]["type"] == "seat_joined"

    final, bodies = play_to_end(client, match_id, headers, 0, random.Random(7), audit_headers=DIRECTOR)
    assert final["phase"] == "match_over" and final["winner"] in (0, 1)
    assert "hands" in final and final["server_seed"] is not None  # everyone audits a finished match
    assert any(e["data"].get("seat") == 1 for b in bodies for e in b["events"] if e["type"] == "command")

    me = ok(client.get("/api/me", headers=headers))
    assert me["id"] == player_id and me["kind"] == "human"
    [mine] = me["matches"]
    assert mine["id"] == match_id and mine["status"] == "finished"
    assert mine["winner"] == summary["seats"][final["winner"]]["id"]

    replay = client.get(f"/api/matches/{match_id}/replay")
    assert replay.status_code == 200
    report = verify_replay(replay.text)
    assert report.ok, report.failure
    header, *lines = [json.loads(line) for line in replay.text.splitlines()]
    assert header["match"] == match_id and header["players"] == [s["id"] for s in summary["seats"]]
    assert len(lines) == final["version"]

    # Every receipt a seat was given is in the final log.
    receipts = {(e["seq"], e["hash"]) for b in bodies for e in b["events"]}
    assert receipts <= {(e["seq"], e["hash"]) for e in lines}

    events = client.get(f"/api/matches/{match_id}/events", params={"since": 10})
    assert events.status_code == 200 and events.headers["content-type"].startswith("application/x-ndjson")
    assert [json.loads(x)["seq"] for x in events.text.splitlines()] == list(range(11, final["version"] + 1))
    followed = client.get(f"/api/matches/{match_id}/events", params={"since": 0, "follow": 1})
    assert followed.status_code == 200 and len(followed.text.splitlines()) == final["version"]


def test_a_retried_command_returns_its_first_result_and_appends_nothing(client: TestClient) -> None:
    match_id, _, headers = new_bot_match(client)
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers))
    seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    command = {
        "command_id": "once",
        "expected_version": seen["version"],
        "command": with_color(seen["legal"][0], random.Random(0)),
    }
    first = ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=command))
    again = ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=command))
    assert again == first
    after = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    assert after["version"] == first["view"]["version"]

    # The same command id with another command is still that first command.
    other = {**command, "command": {"type": "draw"}, "expected_version": 0}
    assert ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=other)) == first


def test_a_stale_expected_version_is_refused_with_409(client: TestClient) -> None:
    match_id, _, headers = new_bot_match(client)
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers))
    seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    response = client.post(
        f"/api/matches/{match_id}/commands",
        headers=headers,
        json={"command_id": "late", "expected_version": seen["version"] - 1, "command": seen["legal"][0]},
    )
    assert response.status_code == 409
    assert response.json()["code"] == "stale_version"
    assert ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]["version"] == seen["version"]


def test_two_humans_see_only_their_own_cards(client: TestClient) -> None:
    _, ada_h = register(client, "ada")
    bob, bob_h = register(client, "bob")
    _, eve_h = register(client, "eve")
    match_id = ok(client.post("/api/matches", headers=ada_h, json={"opponent": bob, "ruleset": "classic-2p"}), 201)[
        "id"
    ]
    waiting = ok(client.post(f"/api/matches/{match_id}/join", headers=ada_h, json={"entropy": "a"}))
    assert waiting["match"]["status"] == "waiting" and waiting["view"]["phase"] == "waiting"
    again = client.post(f"/api/matches/{match_id}/join", headers=ada_h, json={"entropy": "a"})
    assert again.status_code == 200 and again.json() == waiting  # a retried join is the same join
    other = client.post(f"/api/matches/{match_id}/join", headers=ada_h, json={"entropy": "b"})
    assert other.status_code == 409 and other.json()["code"] == "not_now"  # a seat joins once
    started = ok(client.post(f"/api/matches/{match_id}/join", headers=bob_h))
    assert started["match"]["status"] == "live" and started["match"]["ruleset"] == "classic-2p"

    audit = ok(client.get(f"/api/matches/{match_id}", headers=DIRECTOR))["view"]
    # seven each, and two more for Player 2 when the starter is a Draw Two (D4)
    assert audit["viewer"] == "auditor" and sorted(len(h) for h in audit["hands"]) in ([7, 7], [7, 9])
    assert "draw_order" in audit
    for seat, headers in ((0, ada_h), (1, bob_h)):
        body = ok(client.get(f"/api/matches/{match_id}", headers=headers))
        assert body["view"]["viewer"] == seat and body["view"]["hand"] == audit["hands"][seat]
        assert "hands" not in body["view"] and "draw_order" not in body["view"]
        events = [
            json.loads(x) for x in client.get(f"/api/matches/{match_id}/events", headers=headers).text.splitlines()
        ]
        check_seat_response({"view": body["view"], "events": events}, seat)
        dealt = next(e for e in events if e["type"] == "cards_dealt")
        assert set(dealt["open"]) == {f"hand{seat}"} and len(dealt["open"][f"hand{seat}"]["value"]) == 7
        assert set(dealt["sealed"]) == {"cards", "hand0", "hand1"} and dealt["data"] == {"counts": [7, 7]}
    for headers in (eve_h, {}):
        body = ok(client.get(f"/api/matches/{match_id}", headers=headers))
        assert body["view"]["viewer"] == "spectator" and body["view"]["hand"] is None and body["view"]["legal"] == []
        assert "hands" not in body["view"]

    turn = audit["turn"]
    waiting_h = ada_h if turn == 1 else bob_h
    turn_h = bob_h if turn == 1 else ada_h
    legal = ok(client.get(f"/api/matches/{match_id}", headers=turn_h))["view"]["legal"]
    command = {"command_id": "same", "command": with_color(legal[0], random.Random(0))}
    first = ok(client.post(f"/api/matches/{match_id}/commands", headers=turn_h, json=command))
    # The other seat's command ids are its own: the same id is not the first seat's command.
    other = client.post(
        f"/api/matches/{match_id}/commands", headers=waiting_h, json={"command_id": "same", "command": {"type": "uno"}}
    )
    assert other.status_code in (200, 422) and other.json() != first
    if other.status_code == 422:
        assert other.json()["code"] in ("uno_not_open", "not_your_turn")
    audit = ok(client.get(f"/api/matches/{match_id}", headers=DIRECTOR))["view"]
    turn = audit["turn"]
    waiting_h = ada_h if turn == 1 else bob_h
    refused = client.post(
        f"/api/matches/{match_id}/commands", headers=waiting_h, json={"command_id": "x", "command": {"type": "draw"}}
    )
    assert refused.status_code == 422 and refused.json()["code"] == "not_your_turn"
    outsider = client.post(
        f"/api/matches/{match_id}/commands", headers=eve_h, json={"command_id": "x", "command": {"type": "draw"}}
    )
    assert outsider.status_code == 403 and outsider.json()["code"] == "not_a_player"
    assert client.get(f"/api/matches/{match_id}/replay").status_code == 409
    assert ok(client.get(f"/api/matches/{match_id}", headers=DIRECTOR))["view"]["version"] == audit["version"]


def test_bad_requests_are_answered_in_protocol_shape_never_500(client: TestClient) -> None:
    match_id, _, headers = new_bot_match(client)
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers))
    url = f"/api/matches/{match_id}/commands"
    cases: list[tuple[str, str, dict[str, object], int, str]] = [
        ("POST", "/api/players", {"json": {}}, 400, "malformed"),
        ("POST", "/api/players", {"json": {"name": 5}}, 400, "malformed"),
        ("POST", "/api/players", {"json": {"name": "   "}}, 400, "malformed"),
        (
            "POST",
            "/api/players",
            {"content": b"{not json", "headers": {"Content-Type": "application/json"}},
            400,
            "malformed",
        ),
        ("POST", "/api/players", {"json": ["a", "list"]}, 400, "malformed"),
        ("GET", "/api/me", {}, 401, "unauthorized"),
        ("GET", "/api/me", {"headers": {"Authorization": "Bearer nobody-has-this-token"}}, 401, "unauthorized"),
        ("GET", "/api/me", {"headers": {"Authorization": "Basic abc"}}, 401, "unauthorized"),
        ("POST", "/api/matches", {"json": {"opponent": "bot:greedy"}}, 401, "unauthorized"),
        ("POST", "/api/matches", {"json": {"opponent": "bot:nobody"}, "headers": headers}, 404, "not_found"),
        ("POST", "/api/matches", {"json": {"opponent": "p_0000"}, "headers": headers}, 404, "not_found"),
        (
            "POST",
            "/api/matches",
            {"json": {"opponent": "bot:random", "ruleset": "poker"}, "headers": headers},
            400,
            "malformed",
        ),
        ("POST", "/api/matches", {"json": {"opponent": 3}, "headers": headers}, 400, "malformed"),
        ("GET", "/api/matches/m_nope", {}, 404, "not_found"),
        ("GET", "/api/matches/bad%20id!", {}, 400, "malformed"),
        ("GET", "/api/matches/m_nope/events", {}, 404, "not_found"),
        ("GET", "/api/matches/m_nope/replay", {}, 404, "not_found"),
        ("GET", f"/api/matches/{match_id}/events?since=-1", {}, 400, "malformed"),
        ("GET", f"/api/matches/{match_id}/events?since=abc", {}, 400, "malformed"),
        ("POST", "/api/matches/m_nope/join", {"headers": headers}, 404, "not_found"),
        ("POST", f"/api/matches/{match_id}/join", {"json": {"entropy": 7}, "headers": headers}, 400, "malformed"),
        (
            "POST",
            f"/api/matches/{match_id}/join",
            {"json": {"entropy": "x" * 300}, "headers": headers},
            400,
            "malformed",
        ),
        (
            "POST",
            "/api/matches/m_nope/commands",
            {"json": {"command_id": "a", "command": {"type": "draw"}}, "headers": headers},
            404,
            "not_found",
        ),
        ("POST", url, {"json": {"command": {"type": "draw"}}, "headers": headers}, 400, "malformed"),
        ("POST", url, {"json": {"command_id": "a"}, "headers": headers}, 400, "malformed"),
        ("POST", url, {"json": {"command_id": "", "command": {"type": "draw"}}, "headers": headers}, 400, "malformed"),
        ("POST", url, {"json": {"command_id": "a", "command": "draw"}, "headers": headers}, 400, "malformed"),
        (
            "POST",
            url,
            {"json": {"command_id": "a", "expected_version": "3", "command": {"type": "draw"}}, "headers": headers},
            400,
            "malformed",
        ),
        (
            "POST",
            url,
            {"json": {"command_id": "a", "expected_version": -1, "command": {"type": "draw"}}, "headers": headers},
            400,
            "malformed",
        ),
        (
            "POST",
            url,
            {"json": {"command_id": "a", "command": {"type": "teleport"}}, "headers": headers},
            400,
            "unknown_command",
        ),
        ("POST", url, {"json": {"command_id": "a", "command": {"type": "play"}}, "headers": headers}, 400, "malformed"),
        (
            "POST",
            url,
            {"json": {"command_id": "a", "command": {"type": "play", "card": "Q9"}}, "headers": headers},
            400,
            "malformed",
        ),
        (
            "POST",
            url,
            {"json": {"command_id": "a", "command": {"type": "draft", "keep": "yes"}}, "headers": headers},
            400,
            "malformed",
        ),
        ("POST", url, {"json": {"command_id": "a", "command": {"type": "draw"}}}, 403, "not_a_player"),
        ("DELETE", f"/api/matches/{match_id}", {}, 405, "method_not_allowed"),
        ("GET", "/api/nothing-here", {}, 404, "not_found"),
    ]
    for method, path, kwargs, status, code in cases:
        response = client.request(method, path, **kwargs)  # type: ignore[arg-type]
        assert response.status_code == status, (method, path, kwargs, response.status_code, response.text)
        body = response.json()
        assert set(body) == {"code", "message", "rule"} and body["code"] == code, (path, kwargs, body)
    # Nothing above changed the match.
    assert ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]["version"] >= 4


def test_the_director_sees_the_audit_view_and_bots_exist(client: TestClient) -> None:
    match_id, _, headers = new_bot_match(client, "bot:random")
    assert client.post(f"/api/matches/{match_id}/join", headers=DIRECTOR).status_code == 403
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers))
    audit = ok(client.get(f"/api/matches/{match_id}", headers=DIRECTOR))
    assert audit["view"]["viewer"] == "auditor" and audit["match"]["seats"][1]["name"] == "random"
    seat = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    assert seat["hand"] == audit["view"]["hands"][0] and seat["legal"]
    assert client.get("/api/me", headers=DIRECTOR).status_code == 401


def test_two_commands_racing_on_one_version_give_one_200_and_one_409(client: TestClient) -> None:
    match_id, _, headers = new_bot_match(client)
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers))
    for round_ in range(5):
        seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
        if seen["phase"] == "match_over":
            break
        command = with_color(seen["legal"][0], random.Random(round_))
        bodies = [
            {"command_id": f"race-{round_}-{i}", "expected_version": seen["version"], "command": command}
            for i in range(2)
        ]
        with ThreadPoolExecutor(2) as pool:
            responses = list(
                pool.map(lambda b: client.post(f"/api/matches/{match_id}/commands", headers=headers, json=b), bodies)
            )
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200, 409], [r.text for r in responses]
        loser = next(r for r in responses if r.status_code == 409)
        assert loser.json()["code"] == "stale_version"


def test_a_body_that_is_not_json_is_named_as_such(client: TestClient) -> None:
    response = client.post("/api/players", content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["message"] == "the request body is not valid JSON"


SEAT_ERRORS = {"400", "401", "403", "404", "409", "413", "422", "503"}
OPERATIONS = {
    ("GET", "/"): (200, ServerInfo, set()),
    ("GET", "/api"): (200, ServerInfo, set()),
    ("POST", "/api/players"): (201, PlayerWithToken, {"400", "409", "413", "429", "503"}),
    ("GET", "/api/players"): (200, [PlayerPublic], {"400", "503"}),
    ("GET", "/api/players/{player}"): (200, PlayerPage, {"400", "404", "409", "503"}),
    ("GET", "/api/players/{player}/versus/{other}"): (200, Versus, {"400", "404", "409", "503"}),
    ("POST", "/api/players/{player}/codes"): (201, SignInCode, {"400", "401", "404", "409", "429", "503"}),
    ("POST", "/api/sessions"): (201, PlayerWithToken, {"400", "401", "413", "429", "503"}),
    ("DELETE", "/api/sessions/current"): (204, None, {"401", "429", "503"}),
    ("GET", "/api/me"): (200, Me, {"401", "429", "503"}),
    ("POST", "/api/matches"): (201, MatchSummaryPublic, {"400", "401", "404", "413", "503"}),
    ("POST", "/api/matches/{match_id}/join"): (200, MatchOutcome, SEAT_ERRORS),
    ("GET", "/api/matches/{match_id}"): (200, MatchDetail, {"400", "401", "404", "503"}),
    ("POST", "/api/matches/{match_id}/commands"): (200, MatchOutcome, SEAT_ERRORS),
    ("GET", "/api/matches/{match_id}/events"): (200, None, {"400", "401", "404", "503"}),
    ("GET", "/api/matches/{match_id}/replay"): (200, None, {"400", "401", "404", "409", "503"}),
    ("GET", "/api/matches/{match_id}/review"): (200, GameReview, {"400", "401", "403", "404", "409", "503"}),
    ("POST", "/api/tournaments"): (201, TournamentPublic, {"400", "401", "404", "413", "503"}),
    ("GET", "/api/tournaments"): (200, [TournamentListed], {"401", "503"}),
    ("POST", "/api/tournaments/{tournament_id}/start"): (200, TournamentPublic, {"400", "401", "404", "409", "503"}),
    ("POST", "/api/tournaments/{tournament_id}/call-time"): (
        200,
        TournamentPublic,
        {"400", "401", "404", "409", "503"},
    ),
    ("GET", "/api/tournaments/{tournament_id}"): (200, TournamentPublic, {"400", "401", "404", "503"}),
    ("GET", "/api/tournaments/{tournament_id}/trf"): (200, None, {"400", "401", "404", "409", "503"}),
    ("GET", "/api/tournaments/{tournament_id}/export.json"): (200, KnockoutExport, {"400", "401", "404", "409", "503"}),
    ("GET", "/api/tournaments/{tournament_id}/season"): (200, SeasonOfTournament, {"400", "401", "503"}),
    ("POST", "/api/seasons"): (201, SeasonPublic, {"400", "401", "404", "409", "413", "503"}),
    ("GET", "/api/seasons"): (200, [SeasonListed], {"400", "401", "503"}),
    ("GET", "/api/seasons/{season_id}"): (200, SeasonPublic, {"400", "401", "404", "503"}),
    ("POST", "/api/seasons/{season_id}/tournaments"): (200, SeasonPublic, {"400", "401", "404", "409", "413", "503"}),
    ("POST", "/api/seasons/{season_id}/finish"): (200, SeasonPublic, {"400", "401", "404", "409", "503"}),
    ("GET", "/api/tournaments/{tournament_id}/fairplay"): (200, FairPlayReport, {"400", "401", "404", "503"}),
    ("POST", "/api/tournaments/{tournament_id}/withdraw"): (
        200,
        TournamentPublic,
        {"400", "401", "404", "409", "413", "503"},
    ),
    ("POST", "/api/matches/{match_id}/disputes"): (
        201,
        DisputePublic,
        {"400", "401", "403", "404", "409", "413", "503"},
    ),
    ("GET", "/api/disputes"): (200, [DisputePublic], {"400", "401", "503"}),
    ("POST", "/api/tournaments/{tournament_id}/entries"): (
        201,
        TournamentPublic,
        {"400", "401", "403", "404", "409", "413", "503"},
    ),
    ("POST", "/api/tournaments/{tournament_id}/check-in"): (
        200,
        TournamentPublic,
        {"400", "401", "403", "404", "409", "503"},
    ),
    ("POST", "/api/tournaments/{tournament_id}/byes"): (
        201,
        TournamentPublic,
        {"400", "401", "403", "404", "409", "503"},
    ),
    ("DELETE", "/api/tournaments/{tournament_id}/entries/{player}"): (
        200,
        TournamentPublic,
        {"400", "401", "403", "404", "409", "503"},
    ),
    ("GET", "/api/me/disputes"): (200, [DisputePublic], {"401", "503"}),
    ("GET", "/api/me/lobby"): (200, LobbyState, {"401", "503"}),
    ("POST", "/api/disputes/{dispute_id}/ruling"): (200, DisputePublic, {"400", "401", "404", "409", "413", "503"}),
}
ERROR_SCHEMA = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}


def same_after_validation(model: type[BaseModel], body: Any) -> None:
    """``body`` validates against ``model``, and the model gives it back unchanged (no key lost or added)."""
    assert model.model_validate(body).model_dump(mode="json") == body, model.__name__


def test_openapi_documents_every_answer_and_the_answers_fit_it(client: TestClient) -> None:
    spec = ok(client.get("/openapi.json"))
    schemas = spec["components"]["schemas"]
    assert "HTTPValidationError" not in schemas  # bad input is a 400 ErrorBody, never FastAPI's 422 shape
    operations = {(m.upper(), path): op for path, ops in spec["paths"].items() for m, op in ops.items()}
    assert set(operations) == set(OPERATIONS)
    for key, op in operations.items():
        status, model, errors = OPERATIONS[key]
        answers = op["responses"]
        assert [s for s in answers if s.startswith("2")] == [str(status)], key
        for media, content in answers[str(status)].get("content", {}).items():
            assert content["schema"], (key, media)
        if isinstance(model, list):  # a JSON array of the model
            schema = answers[str(status)]["content"]["application/json"]["schema"]
            assert schema["items"] == {"$ref": f"#/components/schemas/{model[0].__name__}"}, key
        elif status == 204:
            assert "content" not in answers["204"], key  # no body
        elif model is not None:
            assert answers[str(status)]["content"] == {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}
            }, key
        elif key[1].endswith("/trf"):
            assert set(answers["200"]["content"]) == {"text/plain"}, key  # FIDE's TRF-16
        else:
            assert set(answers["200"]["content"]) == {"application/x-ndjson"}, key
        assert errors | {"4XX"} <= set(answers), (key, sorted(answers))
        for code, answer in answers.items():
            if not code.startswith("2"):
                assert answer["content"] == ERROR_SCHEMA and answer["description"], (key, code)
    assert set(schemas["ErrorBody"]["required"]) == {"code", "message", "rule"}
    assert {"HTTPBearer"} == set(spec["components"]["securitySchemes"])

    def route_of(method: str, url: str) -> tuple[str, str]:
        path = httpx.URL(url).path
        for m, template in OPERATIONS:
            if m == method and re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", template), path):
                return m, template
        raise AssertionError(f"no route for {method} {path}")

    def answer(method: str, url: str, status: int, **kwargs: Any) -> Any:
        """The answer to a request: its status as expected, documented for the route, its body fitting the model."""
        response = client.request(method, url, **kwargs)
        assert response.status_code == status, (method, url, response.status_code, response.text)
        route = route_of(method, url)
        documented = operations[route]["responses"]
        assert str(status) in documented, (route, status, sorted(documented))
        if status >= 400:
            same_after_validation(ErrorBody, response.json())
            return response.json()
        model = OPERATIONS[route][1]
        if model is None:
            return response.text
        if isinstance(model, list):
            for item in response.json():
                same_after_validation(model[0], item)
        else:
            same_after_validation(model, response.json())
        return response.json()

    body = answer("POST", "/api/players", 201, json={"name": "ada"})
    headers = {"Authorization": f"Bearer {body['token']}"}
    answer("POST", "/api/players", 400, json={"name": " "})
    answer("POST", "/api/players", 409, json={"name": "ADA"})
    answer("GET", "/api/players?name=a", 200)
    answer("GET", f"/api/players/{body['id']}", 200)
    answer("GET", "/api/players/nobody", 404)
    answer("POST", "/api/sessions", 401, json={"name": "ada", "password": "wrong password"})
    answer("POST", "/api/sessions", 400, json={"name": "ada"})
    answer("POST", "/api/players/nobody/codes", 404, headers=DIRECTOR)
    code = answer("POST", "/api/players/ada/codes", 201, headers=DIRECTOR)["code"]
    second = answer("POST", "/api/sessions", 201, json={"name": "ada", "code": code})
    answer("DELETE", "/api/sessions/current", 204, headers={"Authorization": f"Bearer {second['token']}"})
    answer("DELETE", "/api/sessions/current", 401)
    answer("GET", "/api/me", 401)
    answer("GET", "/api/me", 401, headers={"Authorization": "Basic abc"})
    match_id = answer("POST", "/api/matches", 201, headers=headers, json={"opponent": "bot:greedy"})["id"]
    answer("POST", "/api/matches", 401, json={"opponent": "bot:greedy"})
    answer("POST", "/api/matches", 404, headers=headers, json={"opponent": "bot:nobody"})
    answer("POST", "/api/matches", 400, headers=headers, json={"opponent": "bot:greedy", "ruleset": "poker"})
    answer("GET", f"/api/matches/{match_id}/replay", 409)
    answer("POST", f"/api/matches/{match_id}/join", 403, headers=DIRECTOR)
    answer("POST", "/api/matches/m_nope/join", 404, headers=headers)
    joined = answer("POST", f"/api/matches/{match_id}/join", 200, headers=headers, json={"entropy": "dice"})
    assert joined["events"]
    for who in (headers, DIRECTOR, {}):
        seen = answer("GET", f"/api/matches/{match_id}", 200, headers=who)["view"]
        assert ("hands" in seen) == (who is DIRECTOR)
    answer("GET", f"/api/matches/{match_id}", 401, headers={"Authorization": "Bearer nobody-has-this"})
    answer("GET", "/api/matches/m_nope", 404)
    answer("GET", "/api/matches/bad%20id!", 400)
    seen = answer("GET", f"/api/matches/{match_id}", 200, headers=headers)["view"]
    url = f"/api/matches/{match_id}/commands"
    answer("POST", url, 403, json={"command_id": "a", "command": {"type": "draw"}})
    answer("POST", url, 400, headers=headers, json={"command_id": "a"})
    answer("POST", url, 422, headers=headers, json={"command_id": "u", "command": {"type": "uno"}})
    answer(
        "POST",
        url,
        409,
        headers=headers,
        json={"command_id": "old", "expected_version": seen["version"] - 1, "command": seen["legal"][0]},
    )
    command = with_color(seen["legal"][0], random.Random(0))
    answer(
        "POST",
        url,
        200,
        headers=headers,
        json={"command_id": "c", "expected_version": seen["version"], "command": command},
    )
    lines = answer("GET", f"/api/matches/{match_id}/events", 200, headers=headers).splitlines()
    assert lines
    for line in lines:
        same_after_validation(EventPublic, json.loads(line))
    answer("GET", f"/api/matches/{match_id}/events?since=-1", 400)
    answer("GET", "/api/matches/m_nope/events", 404)
    answer("GET", "/api/matches/m_nope/replay", 404)
    answer("GET", "/", 200)
    answer("GET", "/api", 200)
    too_large = b'{"name": "' + b"x" * (64 * 1024) + b'"}'
    answer("POST", "/api/players", 413, content=too_large, headers={"Content-Type": "application/json"})
    answer("POST", url, 413, content=too_large, headers={**headers, "Content-Type": "application/json"})
    me = answer("GET", "/api/me", 200, headers=headers)
    assert [m["id"] for m in me["matches"]] == [match_id]

    ada = me["id"]
    players = [ada, "bot:greedy", "bot:random"]
    answer("POST", "/api/tournaments", 401, headers=headers, json={"name": "club", "players": players})
    answer("POST", "/api/tournaments", 400, headers=DIRECTOR, json={"name": "club", "players": [ada]})
    answer("POST", "/api/tournaments", 404, headers=DIRECTOR, json={"name": "club", "players": [ada, "p_nobody"]})
    created = answer("POST", "/api/tournaments", 201, headers=DIRECTOR, json={"name": "club", "players": players})
    tournament = created["id"]
    answer("GET", "/api/tournaments", 200)
    answer("GET", f"/api/tournaments/{tournament}", 200)
    answer("GET", "/api/tournaments/t_nope", 404)
    answer("GET", "/api/tournaments/bad%20id!", 400)
    answer("GET", f"/api/tournaments/{tournament}/fairplay", 200, headers=DIRECTOR)
    answer("POST", f"/api/tournaments/{tournament}/withdraw", 409, headers=DIRECTOR, json={"player": ada})
    answer("POST", f"/api/tournaments/{tournament}/start", 200, headers=DIRECTOR)
    answer("POST", f"/api/tournaments/{tournament}/start", 409, headers=DIRECTOR)
    answer("POST", f"/api/tournaments/{tournament}/withdraw", 404, headers=DIRECTOR, json={"player": "p_nobody"})
    mine = answer("GET", "/api/me", 200, headers=headers)
    lobby = answer("GET", "/api/me/lobby", 200, headers=headers)
    assert lobby["me"]["id"] == ada and tournament in lobby["names"]
    answer("GET", "/api/me/lobby", 401)
    assert mine["next"] or any(m["tournament"] == tournament for m in mine["matches"])
    answer("POST", f"/api/matches/{match_id}/disputes", 400, headers=headers, json={"seq": 1, "note": "casual"})
    answer("GET", "/api/disputes", 401, headers=headers)
    assert answer("GET", "/api/disputes", 200, headers=DIRECTOR) == []
    answer(
        "POST", f"/api/disputes/{tournament}-d1/ruling", 404, headers=DIRECTOR, json={"decision": "stands", "note": "x"}
    )
    answer("POST", f"/api/tournaments/{tournament}/withdraw", 200, headers=DIRECTOR, json={"player": ada})


def test_a_token_is_read_from_a_bearer_header_only(client: TestClient) -> None:
    _, headers = register(client, "ada")
    token = headers["Authorization"].removeprefix("Bearer ")
    assert ok(client.get("/api/me", headers={"Authorization": f"bearer   {token}"}))["name"] == "ada"
    for value in (token, f"Token {token}", "Bearer", "Bearer ", ""):
        response = client.get("/api/me", headers={"Authorization": value})
        assert response.status_code == 401, value
        assert response.headers["WWW-Authenticate"] == "Bearer"
        assert response.json() == {"code": "unauthorized", "message": "use 'Authorization: Bearer TOKEN'", "rule": None}
    unknown = client.get("/api/me", headers={"Authorization": "Bearer nobody-has-this-token"})
    assert unknown.status_code == 401 and unknown.headers["WWW-Authenticate"] == "Bearer"
    assert unknown.json()["message"] == "this token belongs to nobody"
    anonymous = client.get("/api/me")
    assert anonymous.status_code == 401 and anonymous.headers["WWW-Authenticate"] == "Bearer"
    assert anonymous.json()["code"] == "unauthorized"
