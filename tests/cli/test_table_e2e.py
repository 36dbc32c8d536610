"""A ``classic`` table of five over real sockets (issue 21, "How it is shown"): two people and
three house bots on ``unoduo serve``, the people playing over ``WS /api/matches/{id}/ws``.

Each person's client checks every message as the terminal client does (``tui_client.models.receipts``:
the chain link by link, every opening against its commitment, the seed against the commitment
and every salt against the seed at the end), and that a seat is never opened another seat's
hidden field while the match is live (``engine.record.sealing.may_open``: seat i sees ``hand_i`` of
``cards_dealt`` and no other hand). A spectator's socket is checked the same way, and is
opened nothing while the match is live. Every viewer receives the same envelopes, and the
finished match's replay verifies (``engine.fairness.verify``, and ``unoduo verify`` itself), with the
receipt each person kept.

Waits are on events: each socket is read until the server closes it after the match's last
event, and the test waits while any socket still receives (``bench.progress.wait_until``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosedOK
from websockets.sync.client import connect

from bench.progress import wait_until
from engine.fairness.verify import Receipt, verify_replay
from engine.protocol.views import SPECTATOR, Viewer
from engine.record.sealing import may_open
from tests.cli.serving import ROOT, running
from tui_client.models.receipts import ChainCheck

COLORS = ("red", "yellow", "green", "blue")


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.text)
    return response.json()


def register(http: httpx.Client, name: str) -> tuple[str, str]:
    body = ok(http.post("/api/players", json={"name": name}), 201)
    return body["id"], body["token"]


@dataclass
class Watcher:
    """One socket on the table: a seat that plays (any legal command) or a spectator (``seat`` None)."""

    match: str
    token: str | None
    seat: int | None
    chain: ChainCheck = field(init=False)
    envelopes: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    sent: int = 0
    refused: int = 0
    last_view: dict[str, Any] = field(default_factory=dict)
    closed: bool = False

    def __post_init__(self) -> None:
        self.chain = ChainCheck(self.match)

    def check(self, message: dict[str, Any]) -> None:
        envelope, seen = message["event"], message["view"]
        self.problems += self.chain.check(envelope)
        live = seen["phase"] != "match_over"
        if live:  # once over, every viewer is an auditor and is opened everything
            viewer: Viewer = SPECTATOR if self.seat is None else self.seat
            assert seen["viewer"] == viewer
            for name in envelope["open"]:
                if not may_open(envelope["type"], envelope["data"], name, viewer):
                    self.problems.append(f"#{envelope['seq']} {envelope['type']}.{name} opened to {viewer}")
            if envelope["type"] == "cards_dealt":
                others = {f"hand{i}" for i in range(5)} - ({f"hand{self.seat}"} if self.seat is not None else set())
                if others & set(envelope["open"]):
                    self.problems.append(f"#{envelope['seq']}: another seat's hand opened to {viewer}")
            assert "hands" not in seen and "draw_order" not in seen
            if self.seat is not None:
                assert len(seen["hand"]) == seen["hand_counts"][self.seat]
        self.envelopes.append({k: v for k, v in envelope.items() if k != "open"})
        self.last_view = seen

    def command(self, socket: Any, seen: dict[str, Any]) -> None:
        """Any legal command (the first one: it sheds a card when one can be played), its colour named."""
        legal = seen["legal"]
        plays = [c for c in legal if c["type"] == "play"]
        command = dict((plays or legal)[self.sent % len(plays or legal)])
        if command["type"] == "color" or (command["type"] == "play" and command.get("card") in ("W", "W+4")):
            command["color"] = COLORS[self.sent % 4]
        self.sent += 1
        socket.send(
            json.dumps(
                {
                    "type": "command",
                    "command_id": f"c-{self.sent}",
                    "expected_version": seen["version"],
                    "command": command,
                }
            )
        )

    def run(self, base: str) -> None:
        url = base.replace("http://", "ws://") + f"/api/matches/{self.match}/ws?since=0"
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        try:
            with connect(url, additional_headers=headers, max_size=None) as socket:
                waiting_for: int | None = None  # the version our command in flight was decided on
                for raw in socket:
                    message = json.loads(raw)
                    if message["type"] == "result":
                        after = message.get("version", 0)
                        if not message["ok"]:
                            # a stale view (the table moved on, maybe to its end): decide again on a newer one
                            self.refused += 1
                            assert message["error"]["code"] in ("stale_version", "match_over"), message
                            after = (waiting_for or 0) + 1
                        waiting_for = None
                        if self.last_view.get("version", 0) < after:
                            continue  # the events of what happened are still to come: decide on them
                    else:
                        assert message["type"] == "event", message
                        self.check(message)
                    seen = self.last_view
                    if self.seat is not None and seen["legal"] and waiting_for is None:
                        waiting_for = seen["version"]
                        try:
                            self.command(socket, seen)
                        except ConnectionClosedOK:  # the match ended meanwhile: read what is left of it
                            waiting_for = -1  # and send nothing more
        except Exception as exc:  # noqa: BLE001 - reported by the test
            self.problems.append(f"socket of {self.seat}: {exc!r}")
        finally:
            self.problems += self.chain.finished()
            self.closed = True


def test_a_table_of_two_people_and_three_bots_plays_over_sockets_and_verifies(tmp_path: Path) -> None:
    with running(tmp_path / "table.sqlite3") as base, httpx.Client(base_url=base, timeout=30) as http:
        ada, ada_token = register(http, "ada")
        bob, bob_token = register(http, "bob")
        ada_headers = {"Authorization": f"Bearer {ada_token}"}
        bob_headers = {"Authorization": f"Bearer {bob_token}"}
        body = {"opponents": ["bob", "bot:greedy", "bot:random", "bot:greedy"], "ruleset": "classic", "seat": 2}
        summary = ok(http.post("/api/matches", headers=ada_headers, json=body), 201)
        match_id = summary["id"]
        seats = [p["id"] for p in summary["seats"]]
        assert seats[0] == bob and seats[2] == ada and summary["status"] == "waiting"
        assert [p["name"] for p in summary["seats"]] == ["bob", "greedy", "ada", "random", "greedy-2"]
        assert match_id in [m["id"] for m in ok(http.get("/api/me", headers=bob_headers))["matches"]]

        watchers = [
            Watcher(match_id, bob_token, 0),
            Watcher(match_id, ada_token, 2),
            Watcher(match_id, None, None),
        ]
        threads = [threading.Thread(target=w.run, args=(base,), daemon=True) for w in watchers]
        for thread in threads:
            thread.start()
        first = ok(http.post(f"/api/matches/{match_id}/join", headers=ada_headers, json={"entropy": "ada's"}))
        assert first["view"]["phase"] == "waiting"  # bob has not joined: the bots have, the match waits
        ok(http.post(f"/api/matches/{match_id}/join", headers=bob_headers, json={"entropy": "bob's"}))

        def received() -> tuple[int, ...]:
            return tuple(len(w.envelopes) + w.sent for w in watchers)

        assert wait_until(lambda: all(w.closed for w in watchers), received), "the table stopped moving"
        for thread in threads:
            thread.join()

        for w in watchers:
            assert w.problems == [], w.problems[:5]
            assert w.chain.ok and w.chain.seed_checked and w.last_view["phase"] == "match_over"
        assert watchers[0].sent > 0 and watchers[1].sent > 0  # both people played
        assert watchers[0].envelopes == watchers[1].envelopes == watchers[2].envelopes  # one log for everybody

        done = ok(http.get(f"/api/matches/{match_id}", headers=ada_headers))["match"]
        assert done["status"] == "finished" and len(done["places"]) == 5 and len(done["scores"]) == 5
        winner_seat = seats.index(done["winner"])
        assert done["places"][winner_seat] == 1 and sorted(done["places"])[0] == 1

        replay = http.get(f"/api/matches/{match_id}/replay")
        assert replay.status_code == 200
        receipts = [Receipt(w.chain.last_seq, w.chain.last_hash) for w in watchers[:2]]  # what each person kept
        report = verify_replay(replay.text, receipts)
        assert report.ok, report
        path = tmp_path / f"{match_id}.jsonl"
        path.write_text(replay.text)
        args = ["verify", str(path), *(arg for r in receipts for arg in ("--receipt", f"{r.seq}:{r.hash}"))]
        verified = subprocess.run(
            [sys.executable, "-m", "cli.main", *args], cwd=ROOT, capture_output=True, text=True, check=False
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr
        lines = [json.loads(line) for line in replay.text.splitlines()[1:]]
        assert [line["hash"] for line in lines] == [e["hash"] for e in watchers[0].envelopes]
        header = json.loads(replay.text.splitlines()[0])
        assert header["players"] == seats
