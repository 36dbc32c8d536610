"""A tournament page followed live, for real: ``unoduo serve`` as a process, results landing.

A round robin of two house bots and two players who never come (a bot's match against one of
them is a no-show won a second after the round opens; the bots' own match is played out). One
stream of ``/live/t/{id}`` is read as a browser's EventSource reads it: results recorded by the
server reach it as new versions (only the regions that changed), the server's Ctrl-C ends it in
the middle of the tournament, and a server started again on the same database file and port
takes it up again from its ``Last-Event-ID`` and follows it to the end — the regions it was
sent, applied one version after another, are then exactly what a page opened afresh is sent.
The bounds are the server's settings: one live page per address and two in all here, so the
same address twice is refused 429 and a third address 503 (loopback addresses 127.0.0.2 and .3
stand for other clients).
"""

from __future__ import annotations

import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from bench.progress import STALL_SECONDS, Stall
from bench.sse import Frame, SseParser
from tests.cli.serving import STOP_SECONDS, free_port, serve, serve_env, stop, wait_until_up
from tests.server.helpers import ok

TOKEN = "e2e-director-token-0123456789abcdef"
DIRECTOR = {"Authorization": f"Bearer {TOKEN}"}
# Two house bots and two players who never come: a bot wins its match against an absent player a
# second after the round opens (a result that lands at once), the bots' own match is played out.
ABSENT = ("absent-ann", "absent-bob")
BOUNDS = {"UNODUO_LIVE_PAGES_MAX": "2", "UNODUO_LIVE_PAGES_PER_ADDRESS": "1"}
# No heartbeat within the test: a stream that stops moving trips the client's read timeout instead of idling.
QUIET = {"UNODUO_LIVE_HEARTBEAT_SECONDS": "3600"}


class LivePage:
    """What a browser keeps of one live page: the regions as swapped in, version after version."""

    def __init__(self) -> None:
        self.regions: dict[str, str] = {}
        self.version: int | None = None
        self.versions: list[int] = []
        self.changed: list[set[str]] = []

    def apply(self, frame: Frame) -> None:
        assert frame.event == "version" and frame.id is not None
        data = frame.json()
        assert int(frame.id) == data["version"]
        self.version = data["version"]
        self.versions.append(data["version"])
        self.changed.append(set(data["html"]))
        self.regions.update(data["html"])


def frames(response: httpx.Response, parser: SseParser) -> Iterator[Frame]:
    for chunk in response.iter_bytes():
        yield from parser.feed(chunk)


def _server(db: Path, port: int, log: Path) -> subprocess.Popen[str]:
    env = serve_env(UNODUO_DIRECTOR_TOKEN=TOKEN, UNODUO_BOT_THINK_SECONDS="0.02", **BOUNDS, **QUIET)
    process = serve("--port", str(port), "--db", f"sqlite:///{db}", env=env, log=log)
    wait_until_up(f"http://127.0.0.1:{port}", process)
    return process


def _from(address: str, base: str) -> httpx.Client:
    return httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=address), timeout=STALL_SECONDS)


def _tournament(client: httpx.Client, tournament_id: str) -> dict[str, Any]:
    found: dict[str, Any] = ok(client.get(f"/api/tournaments/{tournament_id}"))
    return found


def _a_winner(t: dict[str, Any]) -> str | None:
    """The name of a winner of a recorded result, if there is one yet."""
    names: dict[str, str] = {p["id"]: p["name"] for p in t["players"]}
    for r in t["rounds"]:
        for p in r["pairings"]:
            if p.get("result") and p["result"].get("winner"):
                return names[p["result"]["winner"]]
    return None


def _played(standings: str, name: str) -> int:
    """Matches played by ``name`` as the standings region shows them (0 while it has no row)."""
    found = re.search(rf'data-player="{re.escape(name)}".*?data-label="P">(\d+)<', standings, re.S)
    return int(found.group(1)) if found else 0


def _stopped(server: subprocess.Popen[str], log: Path) -> None:
    try:
        assert server.wait(STOP_SECONDS) == 0, log.read_text()
    except subprocess.TimeoutExpired:
        server.kill()
        raise AssertionError(f"the server did not stop on Ctrl-C with a live page open:\n{log.read_text()}") from None


def _opened_once_free(client: httpx.Client, path: str) -> None:
    """Open (and close) a live page as soon as the server has counted a closed one out: 503 until then."""
    stall = Stall()
    while True:
        with client.stream("GET", path) as response:
            if response.status_code == 200:
                return
            assert response.status_code == 503, response.status_code
        stall.moved(None)
        assert not stall.stuck, "a closed live page kept its place"
        time.sleep(0.05)


def _fresh(client: httpx.Client, path: str) -> LivePage:
    """The page a browser opening it now is sent (its first version, every region)."""
    page = LivePage()
    with client.stream("GET", path) as response:
        assert response.status_code == 200
        page.apply(next(frames(response, SseParser())))
    return page


def test_a_tournament_page_follows_results_live_and_resumes_after_a_restart(tmp_path: Path) -> None:
    db, port = tmp_path / "live.sqlite3", free_port()
    log, log2 = tmp_path / "serve.log", tmp_path / "serve-again.log"
    base = f"http://127.0.0.1:{port}"
    server = _server(db, port, log)
    try:
        with httpx.Client(base_url=base, timeout=STALL_SECONDS) as client:
            for absent in ABSENT:
                ok(client.post("/api/players", json={"name": absent}), 201)
            entries = ["bot:random", "bot:greedy", *ABSENT]
            body = {"name": "club night", "players": entries, "rules": {"target": 20}, "join_seconds": 1}
            tournament_id = ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)["id"]
            path = f"/live/t/{tournament_id}"
            page, parser = LivePage(), SseParser()
            with client.stream("GET", path) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                stream = frames(response, parser)
                page.apply(next(stream))  # the current version at once, every region
                assert parser.retry == 3000 and {"pairings", "standings"} <= set(page.regions)

                # The bounds, while this page is open: the same address again, then a second and a third.
                again = client.get(path)
                assert again.status_code == 429 and "live pages open" in again.text, again.text
                with _from("127.0.0.2", base) as second, second.stream("GET", path) as other:
                    assert other.status_code == 200
                    with _from("127.0.0.3", base) as third:
                        full = third.get(path)
                    assert full.status_code == 503 and "2 live pages open" in full.text, full.text
                with _from("127.0.0.3", base) as third:  # the page that went gave its place back
                    _opened_once_free(third, path)

                ok(client.post(f"/api/tournaments/{tournament_id}/start", headers=DIRECTOR))
                while (winner := _a_winner(_tournament(client, tournament_id))) is None:
                    page.apply(next(stream))  # versions come as the tournament moves: no polling of ours
                while _played(page.regions["standings"], winner) < 1:
                    page.apply(next(stream))  # the version that recorded it reaches the page
                assert any(changed and changed < set(page.regions) for changed in page.changed[1:])  # only what changed

                server.send_signal(signal.SIGINT)  # Ctrl-C: the open stream ends, so the server stops at once
                for frame in stream:  # (a version sent just before, then the end)
                    page.apply(frame)
                _stopped(server, log)
            before_restart = page.version

        server = _server(db, port, log2)  # the same file, the same port: where the browser reconnects
        with httpx.Client(base_url=base, timeout=STALL_SECONDS) as client:
            with client.stream("GET", path, headers={"last-event-id": str(before_restart)}) as response:
                assert response.status_code == 200
                stream = frames(response, SseParser())
                page.apply(next(stream))  # taken up where it was: only what changed since, if anything
                assert page.version is not None and before_restart is not None and page.version >= before_restart
                assert page.version > before_restart or page.changed[-1] == set()
                while 'class="status status-finished"' not in page.regions["status"]:
                    page.apply(next(stream))
            with _from("127.0.0.2", base) as other_browser:  # (this address's page may not be counted out yet)
                fresh = _fresh(other_browser, path)
            assert fresh.version == page.version and fresh.regions == page.regions  # nothing missed, nothing stale
            assert page.versions == sorted(page.versions)
            standings = _tournament(client, tournament_id)["standings"]
            names = {p["id"]: p["name"] for p in _tournament(client, tournament_id)["players"]}
            shown = re.findall(r'data-player="([^"]+)"', page.regions["standings"])
            assert shown == [names[row["player"]] for row in standings]  # the final table, as the API ranks it
    finally:
        if server.poll() is None:
            stop(server)
    for written in (log, log2):
        assert "Traceback" not in written.read_text(), written.read_text()
