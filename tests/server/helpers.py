"""Playing matches over HTTP in tests: any client with httpx's request methods will do."""

from __future__ import annotations

import random
from typing import Any, Protocol

import httpx

from engine.game.events import SCHEMAS
from engine.record.chain import envelope_hash
from engine.record.sealing import may_open, opening_problem

COLORS = ("red", "yellow", "green", "blue")
WILDS = ("W", "W+4")


class Http(Protocol):
    def get(self, url: str, **kwargs: Any) -> httpx.Response: ...

    def post(self, url: str, **kwargs: Any) -> httpx.Response: ...


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.text)
    return response.json()


def register(client: Http, name: str) -> tuple[str, dict[str, str]]:
    body = ok(client.post("/api/players", json={"name": name}), 201)
    assert body["kind"] == "human" and body["name"] == name and len(body["token"]) >= 32
    return body["id"], {"Authorization": f"Bearer {body['token']}"}


def with_color(command: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = dict(command)
    if out["type"] == "color" or (out["type"] == "play" and out.get("card") in WILDS):
        out["color"] = rng.choice(COLORS)
    return out


def check_seat_response(body: dict[str, Any], seat: int) -> None:
    """Nothing the seat could not see at the table is in a seat's response, and what it got checks out.

    Every envelope's hash is recomputed over its public data and sealed commitments (as a client
    checks it); every opening opens its commitment; while the match is live, the seat is opened
    only the fields the schema opens to it, and no hidden field is in ``data``.
    """
    seen = body["view"]
    assert seen["viewer"] == seat or seen["phase"] == "match_over"
    live = seen["phase"] != "match_over"
    if live:
        assert "hands" not in seen and "draw_order" not in seen and seen["server_seed"] is None
    for envelope in body["events"]:
        data, sealed, opened = envelope["data"], envelope["sealed"], envelope["open"]
        assert envelope["hash"] == envelope_hash(
            envelope["stream"], envelope["seq"], envelope["type"], data, sealed, envelope["at"], envelope["prev"]
        )
        schema = SCHEMAS.get(envelope["type"])
        hidden = set(schema.sealed) if schema else set()
        assert not hidden & set(data), f"{envelope['type']}: a hidden field is in the clear"
        assert set(sealed) <= hidden
        for name, opening in opened.items():
            assert opening_problem(envelope, name, opening) is None
            if live:
                assert may_open(envelope["type"], data, name, seat), f"{envelope['type']}.{name} opened to seat {seat}"


def shedding(legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The legal commands that shed cards, if there are any (random play that mostly draws is slow)."""
    plays = [c for c in legal if c["type"] in ("play", "dump")]
    return plays or legal


def play_to_end(
    client: Http,
    match_id: str,
    headers: dict[str, str],
    seat: int,
    rng: random.Random,
    max_steps: int = 5000,
    audit_headers: dict[str, str] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Send random legal commands until the match is over; every answer must be 200.

    With ``audit_headers`` (the director's), every 10th view is compared with the audit view:
    the seat's hand is its own hand, and nothing of the opponent's hand or the pile is in it.
    """
    seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    bodies: list[dict[str, Any]] = []
    for step in range(max_steps):
        if seen["phase"] == "match_over":
            return seen, bodies
        assert seen["legal"], f"the human has nothing to do at version {seen['version']}: {seen['pending']}"
        command = with_color(rng.choice(shedding(seen["legal"])), rng)
        body = ok(
            client.post(
                f"/api/matches/{match_id}/commands",
                headers=headers,
                json={"command_id": f"c-{step}", "expected_version": seen["version"], "command": command},
            )
        )
        check_seat_response(body, seat)
        bodies.append(body)
        seen = body["view"]
        if audit_headers is not None and step % 10 == 0 and seen["phase"] != "match_over":
            audit = ok(client.get(f"/api/matches/{match_id}", headers=audit_headers))["view"]
            assert audit["version"] == seen["version"] and seen["hand"] == audit["hands"][seat]
            assert len(seen["hand"]) == seen["hand_counts"][seat]
            assert "hands" not in seen and "draw_order" not in seen
    raise AssertionError("the match did not end")
