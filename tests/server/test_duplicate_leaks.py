"""The leak test of duplicate rounds, as an attacker who knows the deal is shared (issue 32).

Every match of a duplicate round is dealt the same cards, so whatever one table shows — its draft
pile, its starter, the cards played, how it ended, even whether it has ended — tells every other
table of the round something of its own cards. An outside probe read 9 of 14 draft-pile cards and
the starter of a table off another table's public events while its own match was live, 5 of 7 of
the opponent's hidden cards and 6 of 7 of its own from a finished table's plays, and a finished
table's scores, winner, standings line, player-page place and rating change before the reveal.

Here a duplicate round robin of four human entrants (Ada–Ben and Cleo–Dan in round 1) plays
Cleo–Dan to the end while Ada–Ben is live, and three attackers — anonymous, a registered player
who did not enter, and Ada (an entrant playing the other table of the round) — try every read of
the server: views now and at past events, events, follow streams, sockets, replays, the
tournament, its TRF, the listing, player pages and head-to-heads (results, places, ratings, rating
changes), the fair-play report. Every read of a match of the round is refused with one answer
(403 ``withheld``), the same for a match waiting, live or over; every other read answers exactly
as it did before Cleo–Dan began. The seats read their own match as they did while it was played,
the director everything. Once Ada–Ben ends the round is revealed and everything shows, and the
revealed events prove the attack had something to find: both tables opened the same deck.
On SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import random
from typing import Any

from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from engine.record.sealing import may_open
from tests.server.helpers import ok, register, shedding, with_color
from tests.server.test_tournaments import DIRECTOR, create, start, tournament_when

Headers = dict[str, str]
ANONYMOUS: Headers = {}


def play_both(
    client: TestClient, match_id: str, seats: list[Headers], rng: random.Random, commands: int | None = None
) -> dict[str, Any]:
    """Both seats send random legal commands until the match is over (or ``commands`` were sent);
    the last view read."""
    sent = 0
    for _ in range(20_000):
        moved = False
        for headers in seats:
            view = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
            if view["phase"] == "match_over" or (commands is not None and sent >= commands):
                return dict(view)
            if not view["legal"]:
                continue
            command = with_color(rng.choice(shedding(view["legal"])), rng)
            body = {"command_id": f"c{sent}", "expected_version": view["version"], "command": command}
            ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body))
            sent += 1
            moved = True
        assert moved, "neither seat had anything to do"
    raise AssertionError("the match did not end")


def token_of(headers: Headers) -> str:
    return headers["Authorization"].removeprefix("Bearer ")


def socket_path(match_id: str, headers: Headers, frames: str = "event") -> str:
    query = f"since=0&frames={frames}" + (f"&token={token_of(headers)}" if headers else "")
    return f"/api/matches/{match_id}/ws?{query}"


def match_reads(client: TestClient, match_id: str, headers: Headers, version: int) -> list[tuple[str, int, Any]]:
    """Every read of one match as ``headers``: (what, status, body); a socket's close code as its status."""
    out: list[tuple[str, int, Any]] = []
    paths = [
        f"/api/matches/{match_id}",
        *(f"/api/matches/{match_id}?at={at}" for at in sorted({1, max(1, version // 2), max(1, version)})),
        f"/api/matches/{match_id}/events?since=0",
        f"/api/matches/{match_id}/events?since=3",
        f"/api/matches/{match_id}/events?since=0&follow=1",
        f"/api/matches/{match_id}/replay",
        f"/api/matches/{match_id}/review?seat=0&samples=1",
    ]
    for path in paths:
        reply = client.get(path, headers=headers)
        body = reply.json() if reply.headers.get("content-type", "").startswith("application/json") else reply.text
        out.append((path, reply.status_code, body))
    for frames in ("event", "decision"):
        path = socket_path(match_id, headers, frames)
        try:
            with client.websocket_connect(path) as ws:
                out.append((path, 200, ws.receive_json()))
        except WebSocketDisconnect as closed:
            out.append((path, closed.code, closed.reason))
    return out


def assert_withheld(reads: list[tuple[str, int, Any]], match_id: str) -> set[str]:
    """Every read refused as withheld; the answers (the match id left out), to compare matches by."""
    bodies = set()
    for path, status, body in reads:
        if "/ws?" in path:
            assert status == 4403, (path, status, body)
            assert str(body).startswith("withheld: "), (path, body)
            bodies.add(str(body).replace(match_id, "M"))
        else:
            assert status == 403, (path, status, body)
            assert body["code"] == "withheld" and body["rule"] is None, (path, body)
            bodies.add(body["message"].replace(match_id, "M"))
    return bodies


def public_reads(client: TestClient, tournament_id: str, players: list[str], headers: Headers) -> dict[str, Any]:
    """Every read that is not one match's: the tournament, its TRF, the listing, the fair-play
    report, each entrant's page, a head-to-head; what a caller gets of them."""
    out: dict[str, Any] = {}
    paths = [
        f"/api/tournaments/{tournament_id}",
        f"/api/tournaments/{tournament_id}/trf",
        f"/api/tournaments/{tournament_id}/fairplay",
        "/api/tournaments",
        "/api/me/lobby",  # the caller's lobby state (issue 33): its watch lines, next, standings' words
        *(f"/api/players/{p}" for p in players),
        f"/api/players/{players[1]}/versus/{players[2]}",
        f"/api/players/{players[0]}/versus/{players[3]}",
    ]
    for path in paths:
        reply = client.get(path, headers=headers)
        is_json = reply.headers.get("content-type", "").startswith("application/json")
        out[path] = (reply.status_code, reply.json() if is_json else reply.text)
    return out


def wait_for_reveal(client: TestClient, tournament_id: str, number: int) -> dict[str, Any]:
    return tournament_when(client, tournament_id, lambda t: str(number) in t["deal_keys"])


def wait_for_result(client: TestClient, tournament_id: str, match_id: str) -> dict[str, Any]:
    """The director's tournament once ``match_id``'s result is recorded."""

    def recorded(t: dict[str, Any]) -> bool:
        pairing = next(p for r in t["rounds"] for p in r["pairings"] if p["match"] == match_id)
        return bool(pairing["status"] == "decided" and pairing["result"] is not None)

    return tournament_when(client, tournament_id, recorded, DIRECTOR)


def first_deck(client: TestClient, match_id: str) -> list[int]:
    lines = [json.loads(line) for line in client.get(f"/api/matches/{match_id}/events?since=0").text.splitlines()]
    return list(next(e["open"]["deck"] for e in lines if e["type"] == "round_started"))


def test_nothing_of_a_duplicate_round_shows_to_anyone_but_its_seats_until_it_is_revealed(client: TestClient) -> None:
    ada, ada_h = register(client, "Ada")
    ben, ben_h = register(client, "Ben")
    cleo, cleo_h = register(client, "Cleo")
    dan, dan_h = register(client, "Dan")
    _olga, olga_h = register(client, "Olga")  # registered, not entered
    entrants = [ada, cleo, dan, ben]  # Berger round 1: Ada–Ben and Cleo–Dan, white first
    t = create(client, entrants, duplicate=True)
    t = start(client, t["id"])
    tid = t["id"]
    board = {tuple(p["seats"][i]["id"] for i in (0, 1)): p["match"] for p in t["rounds"][0]["pairings"]}
    ab, cd = board[(ada, ben)], board[(cleo, dan)]
    attackers = {"anonymous": ANONYMOUS, "outsider": olga_h, "entrant at the other table": ada_h}

    # Ada–Ben is live; Cleo–Dan waits for its seats. The attackers' reads of everything else now:
    ok(client.post(f"/api/matches/{ab}/join", headers=ada_h, json={"entropy": "a"}))
    ok(client.post(f"/api/matches/{ab}/join", headers=ben_h, json={"entropy": "b"}))
    live = play_both(client, ab, [ada_h, ben_h], random.Random(1), commands=6)
    assert live["phase"] != "match_over"
    before = {who: public_reads(client, tid, entrants, h) for who, h in attackers.items()}
    waiting = {who: assert_withheld(match_reads(client, cd, h, 1), cd) for who, h in attackers.items()}

    # Cleo–Dan is played to the end while Ada–Ben is live.
    ok(client.post(f"/api/matches/{cd}/join", headers=cleo_h, json={"entropy": "c"}))
    ok(client.post(f"/api/matches/{cd}/join", headers=dan_h, json={"entropy": "d"}))
    over = play_both(client, cd, [cleo_h, dan_h], random.Random(2))
    assert over["phase"] == "match_over"
    audit = ok(client.get(f"/api/matches/{cd}", headers=DIRECTOR))
    assert audit["match"]["status"] == "finished" and "hands" in audit["view"]  # the director audits all along
    full = wait_for_result(client, tid, cd)  # the director's tournament shows everything as it stands
    assert any(row["played"] for row in full["standings"])  # so the attack below had a result to find

    # The attack: every read of either match of the round, every other read of the server.
    for who, headers in attackers.items():
        finished = assert_withheld(match_reads(client, cd, headers, over["version"]), cd)
        assert finished == waiting[who], f"{who}: a finished match answers differently from a waiting one"
        if headers is not ada_h:
            playing = assert_withheld(match_reads(client, ab, headers, live["version"]), ab)
            assert playing == waiting[who], f"{who}: a live match answers differently from a waiting one"
        assert public_reads(client, tid, entrants, headers) == before[who], f"{who}: a read moved with Cleo–Dan's end"
    cleo_reads = match_reads(client, ab, cleo_h, live["version"])  # an entrant whose own match is over
    assert assert_withheld(cleo_reads, ab) == waiting["outsider"]
    me = ok(client.get("/api/me", headers=ada_h))
    assert cd not in json.dumps(me)  # Ada's own corner names only her matches

    shown = before["anonymous"][f"/api/tournaments/{tid}"][1]
    first = shown["rounds"][0]
    assert first["status"] == "running" and first["matches"] == []
    assert all(p["status"] == "withheld" and p["result"] is None for p in first["pairings"])
    assert all(r["played"] == 0 and r["points_against"] == 0 and r["same_deal"] is None for r in shown["standings"])
    assert shown["deal_keys"] == {}
    for who in attackers:
        assert before[who][f"/api/tournaments/{tid}/fairplay"][0] == 401  # the director's alone
    for player in (cleo, dan):
        page = before["anonymous"][f"/api/players/{player}"][1]
        item = next(h for h in page["history"] if h["match"] == cd)
        assert item["status"] == "withheld" and item["result"] is None and item["rating_change"] is None
        assert set(item["scores"]) == {0} and item["places"] is None
        assert page["rating_history"]["uno-duo"] == [] and page["head_to_head"] == []
    ranks = {p: n for n, p in enumerate(entrants, start=1)}
    trf = before["anonymous"][f"/api/tournaments/{tid}/trf"][1]
    cleo_line = next(line for line in trf.splitlines() if line.startswith("001") and "Cleo" in line)
    assert f"{ranks[dan]:4d} w " not in cleo_line  # no round 1 in it

    # A seat reads its own finished match as it did while it was played.
    seen = ok(client.get(f"/api/matches/{cd}", headers=cleo_h))["view"]
    assert seen["viewer"] == 0 and "hands" not in seen and "draw_order" not in seen
    lines = [json.loads(x) for x in client.get(f"/api/matches/{cd}/events?since=0", headers=dan_h).text.splitlines()]
    assert lines[-1]["type"] == "seed_revealed"
    for envelope in lines:
        for name in envelope["open"]:
            assert may_open(envelope["type"], envelope["data"], name, 1), (envelope["type"], name)
    with client.websocket_connect(socket_path(cd, cleo_h)) as ws:
        while True:
            message = ws.receive_json()
            if message["event"]["type"] == "seed_revealed":
                break
    assert message["view"]["viewer"] == 0 and "hands" not in message["view"]
    reply = client.get(f"/api/matches/{cd}/replay", headers=cleo_h)
    assert reply.status_code == 409 and reply.json()["code"] == "not_now"  # the seats' replay waits too
    reply = client.get(f"/api/matches/{cd}/review", params={"seat": 0, "samples": 1}, headers=cleo_h)
    assert reply.status_code == 409 and reply.json()["code"] == "not_now"  # and their Game Review
    with client.websocket_connect(socket_path(ab, ada_h)) as ws:  # a seat plays on: its socket is its seat's
        assert ws.receive_json()["view"]["viewer"] == 0
    # A seat's dispute may speak of its hand: the other seat reads the note once the round is revealed,
    # and nobody else learns that the round has one.
    note = {"seq": 1, "note": "my opponent held the Wild Draw Four all along"}
    ok(client.post(f"/api/matches/{cd}/disputes", headers=dan_h, json=note), 201)
    assert ok(client.get("/api/me/disputes", headers=cleo_h))[0]["note"] != note["note"]
    assert ok(client.get(f"/api/tournaments/{tid}"))["open_disputes"] == 0
    assert ok(client.get(f"/api/tournaments/{tid}", headers=DIRECTOR))["open_disputes"] == 1

    # Ada–Ben ends: the round is revealed, and everything of it shows to everyone.
    play_both(client, ab, [ada_h, ben_h], random.Random(3))
    t = wait_for_reveal(client, tid, 1)
    first = t["rounds"][0]
    assert len(first["matches"]) == 2 and all(p["status"] == "decided" for p in first["pairings"])
    assert all(r["played"] >= 1 for r in t["standings"]) and all(r["same_deal"] is not None for r in t["standings"])
    for who, headers in attackers.items():
        for path, status, body in match_reads(client, cd, headers, over["version"]):
            assert status == 200, (who, path, status, body)
        seen = ok(client.get(f"/api/matches/{cd}", headers=headers))["view"]
        assert "hands" in seen and "draw_order" in seen  # everyone audits a finished match of a revealed round
        after = public_reads(client, tid, entrants, headers)
        assert after[f"/api/tournaments/{tid}"][1]["rounds"][0]["pairings"] == first["pairings"]
    assert first_deck(client, ab) == first_deck(client, cd)  # the deal was shared: the attack had a target
    assert ok(client.get("/api/me/disputes", headers=cleo_h))[0]["note"] == note["note"]
    assert t["open_disputes"] == 1
    for player in (cleo, dan):
        page = ok(client.get(f"/api/players/{player}"))
        item = next(h for h in page["history"] if h["match"] == cd)
        assert item["status"] == "finished" and item["result"] in ("won", "lost")
        assert item["rating_change"] is not None and page["rating_history"]["uno-duo"]
        assert page["tournaments"][0]["rank"] is not None
        assert page["head_to_head"][0]["played"] == 1
    trf = client.get(f"/api/tournaments/{tid}/trf").text
    cleo_line = next(line for line in trf.splitlines() if line.startswith("001") and "Cleo" in line)
    assert f"{ranks[dan]:4d} w " in cleo_line  # round 1 against Dan, with its result


def test_a_duplicate_swiss_round_keeps_its_secret_too(client: TestClient) -> None:
    """The same gate for a duplicate Swiss (pairings made round by round): with one table of round 1
    over and the other live, an outsider and the entrants of the live table read nothing of the
    finished one, and the tournament shows the round's pairings only; after the reveal, everything."""
    people = {name: register(client, name) for name in ("Ada", "Ben", "Cleo", "Dan")}
    _olga, olga_h = register(client, "Olga")
    headers_of = {pid: h for pid, h in people.values()}
    t = start(client, create(client, list(headers_of), format="swiss", rounds=2, duplicate=True)["id"])
    tid = t["id"]
    first, second = ([p["seats"][i]["id"] for i in (0, 1)] for p in t["rounds"][0]["pairings"])
    done, live_match = (p["match"] for p in t["rounds"][0]["pairings"])
    for match_id, seats in ((done, first), (live_match, second)):
        for n, pid in enumerate(seats):
            ok(client.post(f"/api/matches/{match_id}/join", headers=headers_of[pid], json={"entropy": f"e{n}"}))
    live = play_both(client, live_match, [headers_of[p] for p in second], random.Random(4), commands=4)
    assert live["phase"] != "match_over"
    over = play_both(client, done, [headers_of[p] for p in first], random.Random(5))
    assert over["phase"] == "match_over"
    wait_for_result(client, tid, done)
    outsiders = {"anonymous": ANONYMOUS, "outsider": olga_h, **{p: headers_of[p] for p in second}}
    for who, headers in outsiders.items():
        reads = match_reads(client, done, headers, over["version"])
        assert assert_withheld(reads, done), who
        shown = ok(client.get(f"/api/tournaments/{tid}", headers=headers))
        assert shown["rounds"][0]["matches"] == [] and shown["deal_keys"] == {}, who
        assert all(p["status"] == "withheld" and p["result"] is None for p in shown["rounds"][0]["pairings"]), who
        assert all(row["played"] == 0 for row in shown["standings"]), who
    play_both(client, live_match, [headers_of[p] for p in second], random.Random(6))
    wait_for_reveal(client, tid, 1)
    for who, headers in outsiders.items():
        assert all(status == 200 for _, status, _ in match_reads(client, done, headers, over["version"])), who
    assert first_deck(client, done) == first_deck(client, live_match)  # the deal was shared
