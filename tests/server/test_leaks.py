"""The leak test, as an attacker: a seat that keeps everything the server sends it tries to name
hidden cards. It must learn nothing an honest player at the table would not know.

Through the real API, whole matches in both rulesets: seat 0 is the attacker. It keeps every
envelope, hash, commitment, opening, view and error message it receives while the match is
live, then attacks:

- **guessing**: every commitment it was not opened is tried against every card id, card code
  and one-card list, without the salt (the only way it has); every envelope hash is recomputed
  from what it holds, so a hash says nothing beyond ``data`` and ``sealed``;
- **ids**: no physical card id in any public field (which copy of a face was played would say
  something about the copies left in a hand);
- **openings**: the values it was opened are only its own cards (its deals, draws, drafts and
  the hand it challenged), each checked against its commitment;
- **errors**: it sends ``play`` for every face on its turns; no refusal names a card it cannot see.

Afterwards the director's replay supplies the truth, so the test also checks the attacker's
collection really did contain hidden information to attack (a test that cannot fail is no test).

The house bots' chance has an attacker of its own, who knows the bots' code and tries to predict
their moves from public data: tests/server/test_bot_chance_leak.py.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.cards import canonical_deck
from engine.chain import canonical, envelope_hash
from engine.sealing import opening_problem
from tests.server.helpers import ok, register, shedding, with_color

ID_FIELDS = {"card", "cards", "deck", "set_aside", "hand_card", "pile_card"}
CODE = re.compile(r"(?<![A-Za-z0-9+])(?:[RYGB](?:[0-9]|S|R|\+2)|W\+4|W)(?![A-Za-z0-9+])")
FACES = sorted({card.code for card in canonical_deck(8)})


def guesses() -> dict[str, Any]:
    """sha256(canonical(value)) of every value an attacker would try: ids, codes, one-card lists."""
    values: list[Any] = list(range(112)) + FACES + [[i] for i in range(112)] + [[c] for c in FACES]
    values += ["", "entropy"]
    return {hashlib.sha256(canonical(v)).hexdigest(): v for v in values}


GUESSES = guesses()


@dataclass
class Attacker:
    """Seat 0's whole collection, as a cheating client keeps it."""

    headers: dict[str, str]
    envelopes: list[dict[str, Any]] = field(default_factory=list)
    views: list[dict[str, Any]] = field(default_factory=list)
    errors: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    seen: int = 0

    def keep(self, body: dict[str, Any]) -> None:
        if body["view"]["phase"] == "match_over":
            return  # everything is public from here on; only what it got while live counts
        self.views.append(body["view"])
        self.envelopes.extend(body.get("events", []))


def poll(client: TestClient, match_id: str, attacker: Attacker) -> dict[str, Any]:
    """Seat 0 reads its view and the events it has not seen yet (as a live client would)."""
    body = ok(client.get(f"/api/matches/{match_id}", headers=attacker.headers))
    lines = client.get(f"/api/matches/{match_id}/events?since={attacker.seen}", headers=attacker.headers).text
    events = [json.loads(line) for line in lines.splitlines() if line.strip()]
    if events:
        attacker.seen = events[-1]["seq"]
    attacker.keep({"view": body["view"], "events": events})
    return body["view"]


def probe_errors(client: TestClient, match_id: str, attacker: Attacker, view: dict[str, Any]) -> None:
    """Ask to play every face: the refusals may name only cards this seat can see."""
    legal_cards = {c.get("card") for c in view["legal"] if c["type"] == "play"}
    for face in FACES:
        if face in legal_cards:
            continue  # this one would be played
        command = with_color({"type": "play", "card": face}, random.Random(0))
        answer = client.post(
            f"/api/matches/{match_id}/commands",
            headers=attacker.headers,
            json={
                "command_id": f"probe-{view['version']}-{face}",
                "expected_version": view["version"],
                "command": command,
            },
        )
        assert answer.status_code in (409, 422), answer.text
        attacker.errors.append((view, answer.json()["message"]))


def play_match(client: TestClient, ruleset: str, seed: int) -> tuple[str, Attacker]:
    rng = random.Random(seed)
    _, ada_h = register(client, f"ada{seed}")
    bob, bob_h = register(client, f"bob{seed}")
    match_id = ok(client.post("/api/matches", headers=ada_h, json={"opponent": bob, "ruleset": ruleset}), 201)["id"]
    attacker = Attacker(ada_h)
    attacker.keep(ok(client.post(f"/api/matches/{match_id}/join", headers=ada_h, json={"entropy": f"a{seed}"})))
    ok(client.post(f"/api/matches/{match_id}/join", headers=bob_h, json={"entropy": f"b{seed}"}))
    probes = 0
    for step in range(6000):
        view = poll(client, match_id, attacker)
        if view["phase"] == "match_over":
            return match_id, attacker
        seat = view["turn"] if view["turn"] is not None else 0
        headers = ada_h if seat == 0 else bob_h
        seat_view = view if seat == 0 else ok(client.get(f"/api/matches/{match_id}", headers=bob_h))["view"]
        if seat == 0 and probes < 6 and view["pending"]["kind"] == "turn" and step % 7 == 0:
            probe_errors(client, match_id, attacker, view)
            probes += 1
        command = with_color(rng.choice(shedding(seat_view["legal"])), rng)
        body = ok(
            client.post(
                f"/api/matches/{match_id}/commands",
                headers=headers,
                json={"command_id": f"c{step}", "expected_version": seat_view["version"], "command": command},
            )
        )
        if seat == 0:
            attacker.keep(body)
    raise AssertionError("the match did not finish")


def visible_codes(view: dict[str, Any]) -> set[str]:
    codes = set(view["hand"] or []) | set(view["draft_pile"])
    for key in ("top",):
        if view.get(key):
            codes.add(view[key])
    card = view["pending"].get("card")
    if card:
        codes.add(card)
    if view.get("last_round"):
        codes |= set(view["last_round"].get("loser_hand", []))
    return codes


@pytest.mark.parametrize(("ruleset", "seed"), [("uno-duo", 1), ("classic-2p", 3)])
def test_a_seat_that_keeps_everything_recovers_no_hidden_card(client: TestClient, ruleset: str, seed: int) -> None:
    match_id, attacker = play_match(client, ruleset, seed)
    received = {env["seq"]: env for env in attacker.envelopes}
    assert received, "the attacker received nothing to attack"

    unopened = 0
    hits: list[tuple[int, str, Any]] = []
    for env in received.values():
        assert env["hash"] == envelope_hash(
            env["stream"], env["seq"], env["type"], env["data"], env["sealed"], env["at"], env["prev"]
        ), "an envelope hash must be a function of what every viewer holds"
        assert not ID_FIELDS & set(env["data"]), f"{env['type']} names a physical card in public data"
        for name, digest in env["sealed"].items():
            if name in env["open"]:
                assert opening_problem(env, name, env["open"][name]) is None
                continue
            unopened += 1
            if digest in GUESSES:
                hits.append((env["seq"], name, GUESSES[digest]))
    assert hits == [], f"commitments opened by guessing: {hits[:5]}"

    # The truth, from the finished match's replay: the attack had hidden cards to go after.
    replay = [json.loads(line) for line in client.get(f"/api/matches/{match_id}/replay").text.splitlines()[1:]]
    opponent_draws = [
        e for e in replay if e["type"] == "cards_drawn" and e["data"]["seat"] == 1 and e["seq"] in received
    ]
    assert opponent_draws and unopened > 100, "no hidden opponent card reached the attacker: nothing was tested"
    for event in opponent_draws:  # each such card reached the attacker only as a commitment
        assert "codes" not in received[event["seq"]]["open"] and "cards" not in received[event["seq"]]["open"]

    # What it was opened is its own: every opened code was in one of its views at the time or after.
    own: set[str] = set()
    for view in attacker.views:
        own |= visible_codes(view)
    for env in received.values():
        for name, opening in env["open"].items():
            value = opening["value"]
            values = value if isinstance(value, list) else [value]
            codes = {v for v in values if isinstance(v, str) and CODE.fullmatch(v)}
            assert codes <= own | set(FACES) and not isinstance(value, int), f"{env['type']}.{name} opened an id"
            assert env["type"] != "cards_drawn" or env["data"]["seat"] == 0

    # Refusals name only the card asked for and cards the seat can see.
    assert attacker.errors, "no refusal was probed"
    for view, message in attacker.errors:
        named = set(CODE.findall(message))
        assert len(named - visible_codes(view)) <= 1, f"{message!r} names a card the seat cannot see"


def test_every_commitment_of_a_match_resists_all_guesses_without_the_salt() -> None:
    """Unit form: all 112 ids and every card code (alone, as a list, and as a code or id string)
    against every commitment of a sample match's replay: not one matches."""
    from engine.replay import replay_text
    from engine.rulesets import UNO_DUO
    from engine.selfplay import play_match as self_play

    result = self_play(["greedy", "random"], UNO_DUO, 5, 0)
    lines = [
        json.loads(line)
        for line in replay_text(result.match_id, "uno-duo", result.players, result.events).splitlines()[1:]
    ]
    values: list[Any] = (
        list(range(112)) + FACES + [str(i) for i in range(112)] + [[i] for i in range(112)] + [[c] for c in FACES]
    )
    tried = {hashlib.sha256(canonical(v)).hexdigest() for v in values}
    tried |= {hashlib.sha256(str(v).encode()).hexdigest() for v in values}
    commitments = [d for line in lines for d in line["sealed"].values()]
    assert len(commitments) > 200
    assert not tried & set(commitments)
    # ...while every commitment opens with its value and the salt the revealed seed gives.
    assert all(
        opening_problem(line, name, {"value": line["open"][name], "salt": _salt(lines, line, name)}) is None
        for line in lines[:200]
        for name in line["sealed"]
    )


def _salt(lines: list[dict[str, Any]], line: dict[str, Any], name: str) -> str:
    from engine.sealing import seal_salt

    seed = bytes.fromhex(lines[-1]["data"]["server_seed"])
    return seal_salt(seed, line["stream"], line["seq"], name).hex()
