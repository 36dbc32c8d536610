"""The proof of issue 33 ("Must exist" 1): two tournaments at once, and after every event each
observed player's lobby lines, built by ``tui_client.models.lobby_model`` from the lobby socket's
``lobby`` state, are the lines the HTTP API gives at that moment.

The same driver runs in-process (``TestClient``, SQLite and PostgreSQL) and against two real
``unoduo serve`` processes on one PostgreSQL database (each player's socket and requests on a
different process, each tournament made on a different one). The evening: an open Swiss of
UNO Duo (2 rounds, a start time, three entrants so each round has a bye, a hand a match) that
the players enter themselves, and a classic tables tournament (a table of 3 with two house bots, round 1 at a
past start time, round 2 at one far ahead); the players play their matches by HTTP, one legal
command at a time; a dispute is raised and ruled; in the Swiss's round 2 the player with a
match is withdrawn while it is live (a forfeit) and the other watches it from their bye.

"What the API says" is read independently of the lobby state: ``GET /api/me``,
``GET /api/tournaments``, ``GET /api/tournaments/{id}`` (live matches to watch, byes, rounds not
paired yet, names) and ``GET /api/me/disputes``, drawn by the same words as the lobby's. After
each step every observer waits for lobby states (never for time) until its lines equal the
API's; a lobby that stays wrong fails after :data:`STALL` seconds without a message that puts
it right, showing both sets of lines.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tests.server.helpers import Http, ok, shedding, with_color
from tui_client.models.lobby_model import bye_lines, lobby_lines, state_lines

STALL = 120.0  # seconds without a lobby message while the lines disagree: a failure, never a budget
HIDDEN = ("hand", "hands", "draw_order", "deck", "server_seed", "entropy", "token")
PAST = "2000-01-01T19:30:00+00:00"  # round 1's start time: come already
AHEAD = "2999-12-01T19:30:00+00:00"  # round 2's start time at the tables: not in this test's life
SWISS = "Swiss [b]Friday[/b] cup"
TABLES = "Tables [red]x"
RULING = (
    "eve's h[and] was never [b]shown[/b]: the result stands, as the log of the match says "
    "from the deal to the last card, and this note is long enough to need wrapping"
)

Receive = Callable[[float], dict[str, Any]]  # a lobby socket's next message, or a failure after the guard


@dataclass
class Observer:
    """A player whose lobby is compared with the API: their server, token and lobby socket."""

    name: str
    id: str
    headers: dict[str, str]
    http: Http
    receive: Receive
    state: dict[str, Any] | None = None
    version: int = 0
    seen: list[str] = field(default_factory=list)  # every line their lobby drew

    def absorb(self, message: dict[str, Any]) -> None:
        if message.get("type") != "lobby":
            return
        text = str(message)
        assert not any(f"'{word}'" in text for word in HIDDEN), message
        assert message["version"] > self.version, "a lobby state came out of order"
        self.version = message["version"]
        self.state = message["lobby"]
        for part in state_lines(self.state, NOW).words().values():
            self.seen += part


NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # "now" for both sides' words (a start time to come)


def api_lines(o: Observer) -> dict[str, list[str]]:
    """The observer's lobby lines from the HTTP API alone."""
    get = o.http.get
    me = ok(get("/api/me", headers=o.headers))
    listed = ok(get("/api/tournaments?limit=20", headers=o.headers))
    disputes = ok(get("/api/me/disputes", headers=o.headers))
    wanted = {t["id"] for t in listed} | {m["tournament"] for m in me["matches"] if m.get("tournament")}
    wanted |= {n["tournament"] for n in me["next"]} | {d["tournament"] for d in disputes}
    details = [ok(get(f"/api/tournaments/{tid}", headers=o.headers)) for tid in sorted(wanted)]
    mine = [t for t in details if any(p["id"] == o.id for p in t["players"])]
    byes: list[dict[str, Any]] = []
    coming: list[dict[str, Any]] = []
    for t in mine:
        withdrawn = any(w["player"] == o.id for w in t["withdrawals"])
        if t["status"] != "running" or withdrawn:
            continue
        opened = sum(1 for r in t["rounds"] if r["status"] != "pending")
        for r in t["rounds"]:
            if r["bye"] == o.id and r["number"] >= opened and r["status"] != "finished":
                byes.append(
                    {
                        "tournament": t["id"],
                        "round": r["number"],
                        "starts_at": r["starts_at"],
                        "opened": r["number"] <= opened,
                    }
                )
        ahead = [n for n in me["next"] if n["tournament"] == t["id"]]
        number = opened + 1
        paired = [r for r in t["rounds"] if r["pairings"]]  # a Swiss lists its rounds to come, unpaired
        if not ahead and number <= t["rounds_planned"] and number > len(paired):
            coming.append({"tournament": t["id"], "round": number, "starts_at": None})
    names = {t["id"]: t["name"] for t in details}
    said = bye_lines({"names": names, "byes": byes, "coming": coming}, NOW)
    return lobby_lines(
        me,
        mine,
        listed,
        disputes,
        byes=said,
        mine=[t["id"] for t in listed if t.get("entered")],
        now=NOW,
    ).words()


def settle(observers: list[Observer]) -> None:
    """Each observer's lobby until its lines are the API's now (a lobby state per wait)."""
    for o in observers:
        while True:
            want = api_lines(o)
            if o.state is not None and state_lines(o.state, NOW).words() == want:
                break
            try:
                message = o.receive(STALL)
            except (AssertionError, TimeoutError) as failed:
                drawn = state_lines(o.state, NOW).words() if o.state is not None else None
                raise AssertionError(
                    f"{o.name}'s lobby never came to what the API says:\nlobby: {drawn}\napi:   {want}"
                ) from failed
            o.absorb(message)


@dataclass
class Evening:
    """The scenario, on ``here`` (the first observer's server) and ``there`` (the second's)."""

    ann: Observer
    bob: Observer
    director: dict[str, str]
    rng: random.Random = field(default_factory=lambda: random.Random(33))
    joined: set[tuple[str, str]] = field(default_factory=set)  # (player, match) joined
    held: set[str] = field(default_factory=set)  # matches the players do not move (a withdrawal comes)
    moves: int = 0

    @property
    def observers(self) -> list[Observer]:
        return [self.ann, self.bob]

    def step(self) -> bool:
        """One join or one legal command of a player; False when neither has anything to do."""
        for o in self.observers:
            me = ok(o.http.get("/api/me", headers=o.headers))
            for m in me["matches"]:
                if m["id"] in self.held:
                    continue
                if m["status"] == "waiting" and (o.id, m["id"]) not in self.joined:
                    self.joined.add((o.id, m["id"]))
                    body: dict[str, Any] = {"entropy": f"{o.name}-{m['id']}"}
                    ok(o.http.post(f"/api/matches/{m['id']}/join", headers=o.headers, json=body))
                    return True
                if m["status"] == "live":
                    view = ok(o.http.get(f"/api/matches/{m['id']}", headers=o.headers))["view"]
                    if not view["legal"]:
                        continue
                    self.moves += 1
                    command = with_color(self.rng.choice(shedding(view["legal"])), self.rng)
                    body = {
                        "command_id": f"{o.name}-{self.moves}",
                        "expected_version": view["version"],
                        "command": command,
                    }
                    o.http.post(f"/api/matches/{m['id']}/commands", headers=o.headers, json=body)
                    return True  # refused (a bot moved first): it is looked at again
        return False

    def tournament(self, tid: str) -> dict[str, Any]:
        result: dict[str, Any] = ok(self.ann.http.get(f"/api/tournaments/{tid}"))
        return result

    def run(self) -> dict[str, str]:
        """The evening; the tournaments' ids by name."""
        ann, bob, director = self.ann, self.bob, self.director
        settle(self.observers)
        swiss_body = {
            "name": SWISS,
            "format": "swiss",
            "rounds": 2,
            "open": True,
            "round_starts": [PAST],
            # One hand a match (RULES.md D23's round limit): the lobby's lines after every event are the
            # point, not how many hands a match has. The players' moves in an evening, five runs each:
            # to 30 alone 106-287 (median 137), with the limit 57-302 (median 65).
            "rules": {"target": 30, "round_limit": 1},
        }
        swiss = ok(bob.http.post("/api/tournaments", headers=director, json=swiss_body), 201)["id"]  # on bob's server
        settle(self.observers)
        ok(ann.http.post(f"/api/tournaments/{swiss}/entries", headers=ann.headers), 201)
        settle(self.observers)
        ok(bob.http.post(f"/api/tournaments/{swiss}/entries", headers=bob.headers), 201)
        settle(self.observers)
        ok(ann.http.post(f"/api/tournaments/{swiss}/entries", headers=director, json={"player": "bot:greedy"}), 201)
        settle(self.observers)
        tables_body = {
            "name": TABLES,
            "format": "tables",
            "ruleset": "classic",
            "rounds": 2,
            "table_size": 3,
            "players": [ann.id, "bot:greedy", "bot:random"],
            "round_starts": [PAST, AHEAD],
            "rules": {"round_limit": 1},
        }
        tables = ok(ann.http.post("/api/tournaments", headers=director, json=tables_body), 201)["id"]  # ann's server
        settle(self.observers)
        ok(ann.http.post(f"/api/tournaments/{tables}/start", headers=director))
        settle(self.observers)
        ok(bob.http.post(f"/api/tournaments/{swiss}/start", headers=director))
        settle(self.observers)
        disputed = withdrew = False
        last: list[dict[str, list[str]]] = []
        since = time.monotonic()
        while True:
            if not withdrew:
                t = self.tournament(swiss)
                if t["status"] == "running" and t["rounds"][1]["pairings"]:
                    withdrew = self.withdraw_in_round_two(t)
                    continue
            if self.step():
                settle(self.observers)
                continue
            if not disputed and (done := self.finished_match(ann, tables)) is not None:
                note = {"seq": 2, "note": "[red]the bot[/red] saw my card"}
                dispute = ok(ann.http.post(f"/api/matches/{done}/disputes", headers=ann.headers, json=note), 201)
                settle(self.observers)
                ruling = {"decision": "stands", "note": RULING}
                ok(bob.http.post(f"/api/disputes/{dispute['id']}/ruling", headers=director, json=ruling))
                settle(self.observers)
                disputed = True
                continue
            t = self.tournament(swiss)
            if t["status"] == "finished" and disputed and self.finished_match(ann, tables):
                settle(self.observers)
                return {"swiss": swiss, "tables": tables}
            # Bots at work, or a round about to open: nothing for the players to do until the API moves.
            seen = [api_lines(o) for o in self.observers]
            if seen != last:
                last, since = seen, time.monotonic()
            assert time.monotonic() - since < STALL, f"nothing moved for {STALL:g} s: {seen}"
            settle(self.observers)
            time.sleep(0.05)

    def finished_match(self, o: Observer, tid: str) -> str | None:
        me = ok(o.http.get("/api/me", headers=o.headers))
        return next((m["id"] for m in me["matches"] if m["tournament"] == tid and m["status"] == "finished"), None)

    def withdraw_in_round_two(self, t: dict[str, Any]) -> bool:
        """Round 2 is open: the player with a match joins it (it goes live against the bot, and the
        other watches it from the bye), then is withdrawn: a forfeit while it is live."""
        rnd = t["rounds"][1]
        pairing = next(
            (
                p
                for p in rnd["pairings"]
                if {ann_or_bob.id for ann_or_bob in self.observers} & {s["id"] for s in p["seats"]}
            ),
            None,
        )
        assert pairing is not None and pairing["match"], rnd
        player = next(o for o in self.observers if o.id in {s["id"] for s in pairing["seats"]})
        self.held.add(pairing["match"])
        if (player.id, pairing["match"]) not in self.joined:
            self.joined.add((player.id, pairing["match"]))
            body = {"entropy": f"{player.name}-r2"}
            ok(player.http.post(f"/api/matches/{pairing['match']}/join", headers=player.headers, json=body))
        while ok(player.http.get(f"/api/matches/{pairing['match']}"))["match"]["status"] != "live":
            player.absorb(player.receive(STALL))  # the bot takes its seat: the lobby says so
        settle(self.observers)  # the other watches it
        withdraw = {"player": player.id, "note": "had to go [home]"}
        ok(player.http.post(f"/api/tournaments/{t['id']}/withdraw", headers=self.director, json=withdraw))
        settle(self.observers)
        return True
