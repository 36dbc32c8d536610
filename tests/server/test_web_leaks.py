"""The leak test of the club's pages (issue 38, "nothing hidden"): the pages and their live regions
show only what the public API gives a spectator.

- **A live match**: while Ada and Ben play, every page a spectator can open (the front page, the
  tournament's page in each of its views, its wall screen, the match's page, both players' pages
  and their head-to-head, the season's) and the first frame of every live stream is read. No
  card that is hidden from a spectator — in either seat's hand or in the undealt deck, and never
  shown to spectators at all so far — is named on any of them. The director's audit view gives
  the truth, and the test checks that there were such cards to leak.
- **A duplicate round**: Cleo–Dan is played to its end while Eve–Finn, dealt the same cards, is
  live. Every page of either match of the round answers as the API does (withheld, the same for
  a match waiting, live or over), and every other page and live stream is exactly as it was
  before Cleo–Dan began, to its version: a page that changed, or a stream whose version moved,
  would tell a spectator (or the other table) that a table of the round has ended, or how. Once
  Eve–Finn ends the round is revealed and its results show.

In process (the app under TestClient), on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import random
import re
from html.parser import HTMLParser
from typing import Any

from fastapi.testclient import TestClient

from tests.server.helpers import ok, register
from tests.server.test_duplicate_leaks import play_both
from tests.server.test_leaks import CODE
from tests.server.test_tournaments import DIRECTOR, create, start, tournament_when

BROWSER = {"Accept": "text/html,application/xhtml+xml"}  # "/" is the front page only for a browser
LIVE_VERSION = re.compile(r'data-live-version="([^"]*)"')
SSE_FRAME_LINES = 400  # lines of one live stream read while looking for its first frame


class _Text(HTMLParser):
    """A page's text as a reader is told it: the elements' contents and their labels and tooltips,
    not their other attributes, scripts or styles. An abbreviation counts as the words it stands
    for (its title): the standings' column "W" is "won", not a Wild card."""

    SKIPPED = ("script", "style", "abbr")

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIPPED:
            self._skip += 1
        for name, value in attrs:
            if name in ("title", "aria-label", "alt") and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIPPED:
            self._skip = max(0, self._skip - 1)

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def shown_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(parser.parts)


def page(client: TestClient, path: str, status: int = 200) -> str:
    """A page as a browser without a sign-in gets it: its shown text, and the version its live
    updates start from (a version that moved says that something happened)."""
    reply = client.get(path, headers=BROWSER)
    assert reply.status_code == status, (path, reply.status_code, reply.text[:500])
    assert reply.headers["content-type"].startswith("text/html"), (path, reply.headers["content-type"])
    version = LIVE_VERSION.search(reply.text)
    return shown_text(reply.text) + (f" [live version {version[1]}]" if version else "")


def first_frame(client: TestClient, path: str) -> dict[str, Any]:
    """The first ``version`` frame of a live stream (what an opening page receives): its data,
    with the regions' HTML as shown text."""
    with client.stream("GET", path, headers={"Accept": "text/event-stream"}) as reply:
        assert reply.status_code == 200, (path, reply.status_code)
        assert reply.headers["content-type"].startswith("text/event-stream")
        kind, data = "", ""
        for n, line in enumerate(reply.iter_lines()):
            assert n < SSE_FRAME_LINES, f"{path}: no version frame in its first {SSE_FRAME_LINES} lines"
            if line.startswith("event:"):
                kind = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                data += line.removeprefix("data:").strip()
            elif line == "" and data:
                if kind == "version":
                    frame: dict[str, Any] = json.loads(data)
                    frame["html"] = {k: shown_text(v) for k, v in frame.get("html", {}).items()}
                    return frame
                kind, data = "", ""
    raise AssertionError(f"{path}: the stream ended before its first frame")


def codes(text: str) -> set[str]:
    return set(CODE.findall(text))


def pages_of_tournament(tournament: dict[str, Any]) -> list[str]:
    """Every page a spectator can open of a tournament: its views, each round's, its wall screen."""
    tid = tournament["id"]
    rounds = [f"/t/{tid}?round={r['number']}" for r in tournament["rounds"]]
    return [f"/t/{tid}", *rounds, f"/t/{tid}/wall", f"/t/{tid}/wall?view=pairings", f"/t/{tid}/wall?view=standings"]


def streams_of(tournament_id: str, match_ids: list[str]) -> list[str]:
    return ["/live/front", f"/live/t/{tournament_id}", *(f"/live/m/{m}" for m in match_ids)]


def test_no_page_names_a_card_hidden_from_spectators_during_a_live_match(client: TestClient) -> None:
    ada, ada_h = register(client, "Ada")
    ben, ben_h = register(client, "Ben")
    t = start(client, create(client, [ada, "bot:greedy", "bot:random", ben], name="Club night")["id"])
    pairing = next(p for p in t["rounds"][0]["pairings"] if {s["id"] for s in p["seats"]} == {ada, ben})
    match = pairing["match"]
    seats = [ada_h, ben_h] if pairing["seats"][0]["id"] == ada else [ben_h, ada_h]
    for n, headers in enumerate(seats):
        ok(client.post(f"/api/matches/{match}/join", headers=headers, json={"entropy": f"seat {n}"}))
    live = play_both(client, match, seats, random.Random(5), commands=12)
    assert live["phase"] != "match_over"

    # The truth: the cards in the hands and the undealt deck; those a spectator has never been shown.
    audit = ok(client.get(f"/api/matches/{match}", headers=DIRECTOR))["view"]
    assert audit["version"] == live["version"], "the match moved while the pages were read"
    held = {code for hand in audit["hands"] for code in hand} | set(audit["draw_order"])
    spectator = json.dumps(ok(client.get(f"/api/matches/{match}"))) + client.get(f"/api/matches/{match}/events").text
    hidden = held - codes(spectator)
    assert len(hidden) >= 5, f"too few cards hidden from spectators to test: {hidden}"

    paths = ["/", *pages_of_tournament(t), f"/m/{match}", f"/m/{match}?at=1", f"/m/{match}?at={live['version']}"]
    paths += ["/p/Ada", "/p/Ben", "/p/Ada/vs/Ben", "/p/Ben/vs/Ada"]
    shown = {path: page(client, path) for path in paths}
    shown |= {path: json.dumps(first_frame(client, path)) for path in streams_of(t["id"], [match])}
    assert ok(client.get(f"/api/matches/{match}", headers=DIRECTOR))["view"]["version"] == live["version"]
    for path, text in shown.items():
        leaked = codes(text) & hidden
        assert not leaked, f"{path} names {sorted(leaked)}, hidden from spectators"
    assert "Ada" in shown[f"/m/{match}"] and "Ben" in shown[f"/m/{match}"]  # the page is the match's


def test_a_duplicate_round_shows_nothing_of_a_finished_table_before_its_reveal(client: TestClient) -> None:
    ids = {name: register(client, name) for name in ("Cleo", "Dan", "Eve", "Finn")}
    entrants = [ids[n][0] for n in ("Cleo", "Eve", "Finn", "Dan")]  # Berger round 1: Cleo–Dan and Eve–Finn
    t = start(client, create(client, entrants, name="Duplicate night", duplicate=True)["id"])
    tid = t["id"]
    board = {tuple(p["seats"][i]["id"] for i in (0, 1)): p["match"] for p in t["rounds"][0]["pairings"]}
    cd, ef = board[(ids["Cleo"][0], ids["Dan"][0])], board[(ids["Eve"][0], ids["Finn"][0])]
    cleo_dan = [ids["Cleo"][1], ids["Dan"][1]]
    eve_finn = [ids["Eve"][1], ids["Finn"][1]]

    def spectator_view() -> dict[str, str]:
        """Every page and live stream a spectator has of the evening but the round's own matches."""
        paths = ["/", *pages_of_tournament(t), f"/s/{season}"]
        for name in ids:
            paths += [f"/p/{name}", *(f"/p/{name}/vs/{other}" for other in ids if other != name)]
        out = {path: page(client, path) for path in paths}
        out |= {path: json.dumps(first_frame(client, path), sort_keys=True) for path in streams_of(tid, [])}
        return out

    def withheld(match_id: str) -> set[str]:
        """The round's match pages and live streams: each refused as the API refuses it (403,
        withheld); the answers, the match id left out, to compare one match's with another's."""
        answers = set()
        for path in (f"/m/{match_id}", f"/m/{match_id}?at=1", f"/m/{match_id}?at=40"):
            answers.add(page(client, path, status=403).replace(match_id, "M"))
        reply = client.get(f"/live/m/{match_id}", headers={"Accept": "text/event-stream"})
        assert reply.status_code == 403, reply.text[:300]  # no stream: nothing of it is live to anyone
        answers.add(f"{reply.status_code} {reply.text}".replace(match_id, "M"))
        return answers

    season = ok(client.post("/api/seasons", headers=DIRECTOR, json={"name": "Duplicate season"}), 201)["id"]
    ok(client.post(f"/api/seasons/{season}/tournaments", headers=DIRECTOR, json={"tournament": tid}))
    for n, headers in enumerate(eve_finn):
        ok(client.post(f"/api/matches/{ef}/join", headers=headers, json={"entropy": f"ef {n}"}))
    live = play_both(client, ef, eve_finn, random.Random(1), commands=6)
    assert live["phase"] != "match_over"
    before = spectator_view()
    waiting = withheld(cd)
    assert withheld(ef) == waiting, "a live match of the round answers differently from a waiting one"

    for n, headers in enumerate(cleo_dan):
        ok(client.post(f"/api/matches/{cd}/join", headers=headers, json={"entropy": f"cd {n}"}))
    assert play_both(client, cd, cleo_dan, random.Random(2))["phase"] == "match_over"
    tournament_when(  # the director sees the result recorded: there is something to withhold now
        client,
        tid,
        lambda d: any(p["match"] == cd and p["result"] for p in d["rounds"][0]["pairings"]),
        DIRECTOR,
    )
    assert withheld(cd) == waiting, "a finished match of the round answers differently from a waiting one"
    assert withheld(ef) == waiting
    after = spectator_view()
    moved = [path for path in before if after[path] != before[path]]
    assert not moved, f"these moved with Cleo–Dan's end, before the round's reveal: {moved}"
    round_one = before[f"/t/{tid}?round=1"]
    assert round_one.count("withheld") >= 2, "round 1's pairings are not shown as withheld"

    # Eve–Finn ends: the round is revealed, and its results show on the pages.
    play_both(client, ef, eve_finn, random.Random(3))
    revealed = tournament_when(client, tid, lambda d: "1" in d["deal_keys"])
    round_one = page(client, f"/t/{tid}?round=1")
    for pairing in revealed["rounds"][0]["pairings"]:
        assert "–".join(str(s) for s in pairing["result"]["scores"]) in round_one
    assert "withheld" not in round_one
    for match_id in (cd, ef):
        assert "finished" in page(client, f"/m/{match_id}").lower()
