"""A club evening on a real ``unoduo serve``, for the tests that look at its web pages: house bots
play a Swiss (in a season) and a single elimination to their ends, and a round robin is left
running, its first round held open by a match nobody comes to, with one match between two
people the test plays itself, so that a result can land while a page is open. Everything is made through the public API as a director would."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.cli.serving import free_port, serve, serve_env, stop, wait_until_up
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok, register
from tests.server.test_tournaments import DIRECTOR, create, start, tournament_when


@dataclass(frozen=True)
class Evening:
    """What the pages are looked at against: the server and the ids of what it holds."""

    base: str
    swiss: dict[str, Any]  # finished, the director's view of it
    knockout: dict[str, Any]  # finished single elimination
    season: str
    live: str  # a round robin, round 1 open: Ada–Ben waits on the test, Cleo–Dan on nobody, the bots play
    live_match: str  # Ada–Ben
    seats: tuple[dict[str, str], dict[str, str]]  # Ada's and Ben's headers, seat 0 and seat 1


def tournament(client: httpx.Client, name: str, players: list[str], **options: Any) -> dict[str, Any]:
    """A tournament made and started by the director."""
    made = create(client, players, name=name, **options)
    return start(client, made["id"])


def finished(client: httpx.Client, tournament_id: str) -> dict[str, Any]:
    """The tournament once it is finished, as the director sees it."""
    return tournament_when(client, tournament_id, lambda t: t["status"] == "finished", DIRECTOR)


@contextmanager
def evening(folder: Path) -> Iterator[Evening]:
    """The server with its evening laid out (see the module's docstring); stopped afterwards."""
    log = (
        folder / "serve.log"
    )  # a file: the access log of a long evening fills a pipe nobody reads, and the server stalls
    env = serve_env(UNODUO_DIRECTOR_TOKEN=DIRECTOR_TOKEN, UNODUO_BOT_THINK_SECONDS="0")
    port = free_port()
    process = serve("--port", str(port), "--db", f"sqlite:///{folder / 'club.sqlite3'}", env=env, log=log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        with httpx.Client(base_url=base, timeout=30.0) as client:
            season = ok(client.post("/api/seasons", headers=DIRECTOR, json={"name": "Winter season"}), 201)["id"]
            bots = ["bot:greedy", "bot:random"] * 4
            swiss = tournament(client, "Tuesday Swiss", bots, format="swiss", rounds=3)
            ok(client.post(f"/api/seasons/{season}/tournaments", headers=DIRECTOR, json={"tournament": swiss["id"]}))
            knockout = tournament(client, "Cup", bots, format="single_elimination")
            ada, ada_h = register(client, "Ada")
            ben, ben_h = register(client, "Ben")
            cleo, dan = register(client, "Cleo")[0], register(client, "Dan")[0]
            # Round 1 (Berger, six): Ada–Ben, Cleo–Dan, the bots. Cleo and Dan never come, so round 1
            # stays open (generous clocks) while the test plays Ada–Ben whenever it comes to it.
            entries = [ada, cleo, "bot:greedy", "bot:random", dan, ben]
            live = tournament(client, "Club night", entries, join_seconds=86_400, move_seconds=3600)
            ab = next(p["match"] for p in live["rounds"][0]["pairings"] if {s["id"] for s in p["seats"]} == {ada, ben})
            seats = (ada_h, ben_h)
            if next(p for p in live["rounds"][0]["pairings"] if p["match"] == ab)["seats"][0]["id"] != ada:
                seats = (ben_h, ada_h)
            yield Evening(
                base=base,
                swiss=finished(client, swiss["id"]),
                knockout=finished(client, knockout["id"]),
                season=season,
                live=live["id"],
                live_match=ab,
                seats=seats,
            )
    finally:
        stop(process)
    output = log.read_text(encoding="utf-8")
    assert "Traceback" not in output, output
