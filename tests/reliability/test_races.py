"""Races on one match against a real ``unoduo serve`` process, over HTTP and the WebSocket at once.

A human-vs-human casual match lets both seats race. Each round takes the match at version V
and, released together by a barrier, sends from many clients:

- *conflicting* rounds: different commands (the turn seat's legal ones, and the other seat's),
  each with its own ``command_id`` and ``expected_version`` V, over HTTP and both seats'
  sockets. Exactly one is applied; every other gets 409 ``stale_version`` or its rule refusal.
- *duplicate* rounds: one command under one ``command_id``, in flight several times over HTTP
  and the socket. It is applied once, and every answer is that first outcome (HTTP: the same
  body; the socket: ``ok`` with the same version).

After every round the match's head is exactly the winner's last event; at the end the whole log
is contiguous, hash-chained, and is exactly the winners' events: nothing applied twice, nothing
lost. Runs on SQLite and PostgreSQL. ``UNODUO_RACE_ROUNDS`` sets the rounds (figures in
docs/RELIABILITY-fuzz-races-input.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from engine.record.chain import ZERO_HASH, envelope_hash
from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import ok, register, with_color

DIRECTOR_TOKEN = "director-token-for-races-0123456789"
ROUNDS = int(os.environ.get("UNODUO_RACE_ROUNDS", "24"))
HTTP_RACERS = 4  # HTTP clients in a round, besides the two seats' sockets
TIMEOUT = 30.0
RULE_STATUSES = {409, 422, 403}  # 409 stale_version / not_now; 422 a rule refusal; (403 never: both are seats)


@pytest.fixture
def server(url: str, tmp_path: Path) -> Iterator[str]:
    """``unoduo serve`` on ``url``. Its output goes to a file, not a pipe: a pipe nobody reads
    fills up with the access log and then stops the server's event loop in mid-race."""
    env = serve_env(
        UNODUO_DATABASE_URL=url,
        UNODUO_DIRECTOR_TOKEN=DIRECTOR_TOKEN,
        UNODUO_BOT_THINK_SECONDS="0",
        UNODUO_REGISTER_PER_MINUTE="0",
        UNODUO_BAD_TOKENS_PER_MINUTE="0",
    )
    port = free_port()
    log = tmp_path / "serve.log"
    process = serve("--port", str(port), env=env, log=log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        yield base
    finally:
        stop(process)
    output = log.read_text()
    assert "Traceback" not in output and "never retrieved" not in output, output


@dataclass
class Answer:
    via: str  # "http" or "ws"
    seat: int
    command_id: str
    applied: bool
    status: int | None  # HTTP status; None on the socket
    code: str | None  # the error code of a refusal
    version: int | None  # the version after it, when applied
    body: Any


class Socket:
    """One seat's socket on the match: commands out, results back; the event messages are skipped."""

    def __init__(self, stack: contextlib.ExitStack, base: str, match_id: str, token: str, since: int) -> None:
        url = base.replace("http://", "ws://") + f"/api/matches/{match_id}/ws?since={since}"
        headers = {"Authorization": f"Bearer {token}"}
        self.ws: ClientConnection = stack.enter_context(connect(url, additional_headers=headers, open_timeout=TIMEOUT))
        self.events = 0

    def command(self, command_id: str, expected: int, command: dict[str, Any]) -> dict[str, Any]:
        self.ws.send(
            json.dumps({"type": "command", "command_id": command_id, "expected_version": expected, "command": command})
        )
        while True:
            message = json.loads(self.ws.recv(timeout=TIMEOUT))
            if message["type"] == "result" and message["command_id"] == command_id:
                return dict(message)
            assert message["type"] == "event", message
            self.events += 1


@dataclass
class Table:
    """The match, its two seats' HTTP clients and sockets, and what the races did."""

    base: str
    match_id: str
    headers: list[dict[str, str]]
    http: list[list[httpx.Client]]  # per seat, HTTP_RACERS clients
    sockets: list[Socket]
    winners: list[Answer] = field(default_factory=list)
    tally: Counter[str] = field(default_factory=Counter)

    def view(self, seat: int) -> dict[str, Any]:
        body = ok(self.http[seat][0].get(f"/api/matches/{self.match_id}", headers=self.headers[seat]))
        return dict(body["view"])

    def post(self, seat: int, client: int, command_id: str, expected: int, command: dict[str, Any]) -> Answer:
        body = {"command_id": command_id, "expected_version": expected, "command": command}
        response = self.http[seat][client].post(
            f"/api/matches/{self.match_id}/commands", headers=self.headers[seat], json=body
        )
        parsed = response.json()
        applied = response.status_code == 200
        return Answer(
            "http",
            seat,
            command_id,
            applied,
            response.status_code,
            None if applied else parsed["code"],
            parsed["view"]["version"] if applied else None,
            parsed,
        )

    def send(self, seat: int, command_id: str, expected: int, command: dict[str, Any]) -> Answer:
        result = self.sockets[seat].command(command_id, expected, command)
        applied = bool(result["ok"])
        return Answer(
            "ws",
            seat,
            command_id,
            applied,
            None,
            None if applied else result["error"]["code"],
            result.get("version"),
            result,
        )


def race(senders: list[Callable[[], Answer]]) -> list[Answer]:
    """Run every sender at once (a barrier releases them together); their answers, in order."""
    barrier = threading.Barrier(len(senders))
    answers: list[Answer | BaseException | None] = [None] * len(senders)

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=TIMEOUT)
            answers[index] = senders[index]()
        except BaseException as exc:  # noqa: BLE001 - reported below, in the test's thread
            answers[index] = RuntimeError(f"racer {index}: {exc!r} at {time.monotonic():.2f}")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(senders))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=TIMEOUT * 2)
    out: list[Answer] = []
    for answer in answers:
        if not isinstance(answer, Answer):
            raise AssertionError(f"a racer failed: {answer!r}")
        out.append(answer)
    return out


def other_command(rng: random.Random) -> dict[str, Any]:
    return rng.choice([{"type": "draw"}, {"type": "pass"}, {"type": "play", "card": "R5"}, {"type": "uno"}])


def conflicting_round(table: Table, number: int, rng: random.Random) -> None:
    views = [table.view(0), table.view(1)]
    version = views[0]["version"]
    assert views[1]["version"] == version
    turn = views[0]["turn"]
    assert turn in (0, 1) and views[turn]["legal"], views[0]["pending"]
    senders: list[Callable[[], Answer]] = []
    for seat in (0, 1):
        legal = views[seat]["legal"] or [other_command(rng)]
        for client in range(HTTP_RACERS // 2 if seat != turn else HTTP_RACERS):
            command = with_color(rng.choice(legal), rng)
            cid = f"r{number}-s{seat}-h{client}"
            senders.append(lambda s=seat, c=client, i=cid, m=command: table.post(s, c, i, version, m))
        command = with_color(rng.choice(legal), rng)
        senders.append(lambda s=seat, i=f"r{number}-s{seat}-ws", m=command: table.send(s, i, version, m))
    answers = race(senders)
    applied = [a for a in answers if a.applied]
    assert len(applied) == 1, [(a.via, a.seat, a.status, a.code) for a in answers]
    winner = applied[0]
    for loser in answers:
        if loser is winner:
            continue
        if loser.via == "http":
            assert loser.status in RULE_STATUSES and loser.status != 403, loser.body
        assert loser.code is not None and loser.code != "malformed", loser.body
        table.tally[f"refused {loser.code}"] += 1
    table.tally["applied"] += 1
    table.tally["sent"] += len(answers)
    check_head(table, version, winner)


def duplicate_round(table: Table, number: int, rng: random.Random) -> None:
    view = table.view(0)
    version = view["version"]
    turn = view["turn"]
    assert turn in (0, 1)
    seat_view = view if turn == 0 else table.view(1)
    command = with_color(rng.choice(seat_view["legal"]), rng)
    cid = f"d{number}"
    senders: list[Callable[[], Answer]] = [
        (lambda c=client: table.post(turn, c, cid, version, command)) for client in range(HTTP_RACERS)
    ]
    senders.append(lambda: table.send(turn, cid, version, command))
    answers = race(senders)
    assert all(a.applied for a in answers), [(a.via, a.status, a.code, a.body) for a in answers if not a.applied]
    versions = {a.version for a in answers}
    assert len(versions) == 1, versions
    bodies = [json.dumps(a.body, sort_keys=True) for a in answers if a.via == "http"]
    assert len(set(bodies)) == 1, "every HTTP answer to one command_id is the first outcome"
    table.tally["duplicates answered"] += len(answers)
    table.tally["applied"] += 1
    table.tally["sent"] += len(answers)
    check_head(table, version, next(a for a in answers if a.via == "http"))


def check_head(table: Table, before: int, winner: Answer) -> None:
    """The match moved by exactly the winner's events, and no further."""
    assert winner.version is not None and winner.version > before
    events = table.http[0][0].get(f"/api/matches/{table.match_id}/events", params={"since": before}).text
    seqs = [json.loads(line)["seq"] for line in events.splitlines()]
    assert seqs == list(range(before + 1, winner.version + 1)), (before, winner.version, seqs)
    if winner.via == "http":
        assert [e["seq"] for e in winner.body["events"]] == seqs
    table.winners.append(winner)


def check_log(table: Table, first: int) -> None:
    """The whole log: contiguous, hash-chained, and after ``first`` exactly the winners' events."""
    lines = table.http[0][0].get(f"/api/matches/{table.match_id}/events").text.splitlines()
    prev = ZERO_HASH
    for seq, line in enumerate(lines, 1):
        e = json.loads(line)
        assert e["seq"] == seq and e["prev"] == prev
        assert e["hash"] == envelope_hash(e["stream"], e["seq"], e["type"], e["data"], e["sealed"], e["at"], e["prev"])
        prev = e["hash"]
    covered = first
    for winner in table.winners:
        assert winner.version is not None and winner.version > covered
        covered = winner.version
    assert covered == len(lines), "every event after the join is one winner's: none lost, none doubled"


def race_joins(clients: list[list[httpx.Client]], match_id: str, headers: list[dict[str, str]]) -> int:
    """Both seats join at once, each from every client with its own entropy: each seat joins
    once, and every answer to a seat is its first join's (view and events; the summary is the
    current one, docs/SERVER.md); the match's version once both have joined."""
    answers: dict[int, list[httpx.Response]] = {0: [], 1: []}

    def join(seat: int, client: int) -> Answer:
        response = clients[seat][client].post(
            f"/api/matches/{match_id}/join", headers=headers[seat], json={"entropy": f"seat-{seat}"}
        )
        answers[seat].append(response)
        return Answer("http", seat, "join", response.status_code == 200, response.status_code, None, None, None)

    race([(lambda s=seat, c=client: join(s, c)) for seat in (0, 1) for client in range(HTTP_RACERS)])
    for seat, responses in answers.items():
        assert [r.status_code for r in responses] == [200] * HTTP_RACERS, [r.text for r in responses]
        firsts = {json.dumps([r.json()["view"], r.json()["events"]], sort_keys=True) for r in responses}
        assert len(firsts) == 1, f"seat {seat}: every answer to its join is the first join's outcome"
    events = clients[0][0].get(f"/api/matches/{match_id}/events").text.splitlines()
    joins = [json.loads(line) for line in events if json.loads(line)["type"] == "seat_joined"]
    assert sorted(e["data"]["seat"] for e in joins) == [0, 1], "each seat joined once"
    return len(events)


def open_table(stack: contextlib.ExitStack, base: str) -> tuple[Table, int]:
    clients = [
        [stack.enter_context(httpx.Client(base_url=base, timeout=TIMEOUT)) for _ in range(HTTP_RACERS)]
        for _ in range(2)
    ]
    _, ada = register(clients[0][0], "ada")
    bob_id, bob = register(clients[1][0], "bob")
    match = ok(clients[0][0].post("/api/matches", headers=ada, json={"opponent": bob_id, "move_seconds": 86_400}), 201)
    match_id = match["id"]
    version = race_joins(clients, match_id, [ada, bob])
    tokens = [h["Authorization"].removeprefix("Bearer ") for h in (ada, bob)]
    sockets = [Socket(stack, base, match_id, token, version) for token in tokens]
    return Table(base, match_id, [ada, bob], clients, sockets), version


def test_one_decision_is_applied_once_however_many_clients_race(server: str, db_kind: str) -> None:
    rng = random.Random(f"races-{db_kind}")
    with contextlib.ExitStack() as stack:
        table, joined = open_table(stack, server)
        for number in range(ROUNDS):
            if table.view(0)["phase"] == "match_over":
                break
            if number % 3 == 2:
                duplicate_round(table, number, rng)
            else:
                conflicting_round(table, number, rng)
        check_log(table, joined)
    rounds = len(table.winners)
    print(f"\nraces on {db_kind}: {rounds} rounds, {dict(table.tally)}")
    assert rounds == table.tally["applied"] and rounds >= min(ROUNDS, 10)
