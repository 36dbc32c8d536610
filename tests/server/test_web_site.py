"""The club's front page, tournament pages, wall screen and season page (issue 38), in process,
on SQLite and PostgreSQL, against tournaments played to the end by house bots.

What a page shows is checked against what ``GET /api/...`` answers an anonymous spectator: every
pairing's match, every standings row with every tie-break column the API gives and its
``decided_by``, the bracket's nodes and the final places, the season table. Unknown ids are the
friendly 404 page; bad query parameters a 4xx. The page cache renders a page once per version
and holds a bounded number of entries.
"""

from __future__ import annotations

import random
import tomllib
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bench.progress import wait_for
from server.web.cache import PageCache
from server.web.render import STATIC_DIR, TEMPLATE_DIR, tiebreak_short, tiebreak_words
from server.web.site import LIVE_REGIONS, WebSite
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok, register
from tests.server.test_duplicate_leaks import play_both, wait_for_result, wait_for_reveal
from tests.server.test_tournaments import create, start

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
ROOT = Path(__file__).resolve().parents[2]
BROWSER = {"accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


class Elements(HTMLParser):
    """Every element's tag and attributes, in document order, and the text (to look words up)."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {name: value or "" for name, value in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def ids(self) -> set[str]:
        return {a["id"] for _, a in self.elements if a.get("id")}

    def values(self, attribute: str) -> set[str]:
        return {a[attribute] for _, a in self.elements if attribute in a}

    def titles(self) -> set[str]:
        return self.values("title")


def played(client: TestClient, *bodies: dict[str, Any]) -> list[dict[str, Any]]:
    """Tournaments of house bots made, started together and played to their ends: the API's answers."""
    ids = []
    for body in bodies:
        made = ok(client.post("/api/tournaments", headers=DIRECTOR, json={"rules": {"target": 1}, **body}), 201)
        ok(client.post(f"/api/tournaments/{made['id']}/start", headers=DIRECTOR))
        ids.append(made["id"])

    def public(tournament_id: str) -> Callable[[], dict[str, Any]]:
        return lambda: dict(ok(client.get(f"/api/tournaments/{tournament_id}")))

    return [
        wait_for(
            public(tournament_id),
            "the tournament stopped moving",
            until=lambda t: t["status"] == "finished",
            moving=lambda t: repr(t["rounds"]),
        )
        for tournament_id in ids
    ]


def html_of(client: TestClient, path: str, status: int = 200) -> str:
    response = client.get(path, headers=BROWSER)
    assert response.status_code == status, (path, response.status_code, response.text[:500])
    assert response.headers["content-type"].startswith("text/html")
    return str(response.text)


def test_the_pages_show_what_the_api_shows_a_spectator(client: TestClient) -> None:
    rr, ko = played(
        client,
        {"name": "Club night", "players": ["bot:random"] * 4},
        {"name": "Cup", "players": ["bot:random"] * 3, "format": "single_elimination"},  # a walkover too
    )
    later = ok(
        client.post(
            "/api/tournaments",
            headers=DIRECTOR,
            json={"name": "Next week", "players": ["bot:random"] * 3, "starts_at": "2030-01-01T19:00:00Z"},
        ),
        201,
    )
    season = ok(client.post("/api/seasons", headers=DIRECTOR, json={"name": "Winter"}), 201)
    ok(client.post(f"/api/seasons/{season['id']}/tournaments", headers=DIRECTOR, json={"tournament": rr["id"]}))

    # The front page (a browser's GET /); an API client's GET / is the server information as before.
    front = Elements(html_of(client, "/"))
    assert {"tournaments-live", "tournaments-upcoming", "tournaments-recent"} <= front.ids()
    links = front.values("href")
    assert {f"/t/{rr['id']}", f"/t/{ko['id']}", f"/t/{later['id']}"} <= links
    assert "2030-01-01 19:00 UTC" in "".join(front.text)
    assert ok(client.get("/"))["docs"] == "/docs"

    # A round robin: the current (last) round's pairings, standings with every column, crosstable, season.
    page = Elements(html_of(client, f"/t/{rr['id']}"))
    assert {"pairings", "standings", "crosstable", "schedule", "season"} <= page.ids()
    last = rr["rounds"][-1]
    assert {p["match"] for p in last["pairings"]} <= page.values("data-match")
    assert {row["name"] for row in rr["standings"]} <= page.values("data-player")
    tiebreaks = {name for row in rr["standings"] for name in row["tiebreaks"]}
    assert len(tiebreaks) >= 5
    assert {tiebreak_words(name) for name in tiebreaks} <= page.titles()  # each column, headed by its words
    rows = {
        (a["data-player"], a["data-rank"], a.get("data-decided-by"))
        for tag, a in page.elements
        if tag == "tr" and "data-rank" in a
    }
    assert rows == {(row["name"], str(row["rank"]), row["decided_by"]) for row in rr["standings"]}
    text = "".join(page.text)
    assert {tiebreak_words(row["decided_by"]) for row in rr["standings"] if row["decided_by"]} <= {
        line.strip() for line in page.text
    }
    assert f"/s/{season['id']}" in page.values("href") and "Winter" in text
    assert "/static/live.js" in page.values("src")

    # Every round by ?round=N, each listing its own matches.
    first = rr["rounds"][0]
    round_one = Elements(html_of(client, f"/t/{rr['id']}?round=1"))
    assert {p["match"] for p in first["pairings"]} <= round_one.values("data-match")
    assert not {p["match"] for p in last["pairings"]} & round_one.values("data-match")
    assert "data-live" not in {name for _, a in round_one.elements for name in a}  # history: not live

    # A knockout: the bracket's nodes, each decided one linking its match, and the final places.
    bracket = Elements(html_of(client, f"/t/{ko['id']}"))
    assert "bracket" in bracket.ids()
    assert {f"node-{n['id']}" for n in ko["bracket"]} <= bracket.ids()
    assert {n["match"] for n in ko["bracket"] if n["match"]} <= bracket.values("data-match")
    places = [(p["place"], p["player"]) for p in ko["places"]]
    assert (
        places
        and places[0][0] == 1
        and places
        == [
            (int(a["data-place"]), a["data-player-id"])
            for tag, a in bracket.elements
            if tag == "li" and "data-place" in a
        ]
    )
    assert "crosstable" not in bracket.ids() or 'id="crosstable" hidden' in html_of(client, f"/t/{ko['id']}")

    # The wall screen: both views, the one asked for shown; without script a refresh to the other.
    for view, other in (("pairings", "standings"), ("standings", "pairings")):
        wall = html_of(client, f"/t/{rr['id']}/wall?view={view}")
        assert f"view-{view}" in wall and f"?view={other}" in wall and "<noscript><meta http-equiv" in wall
        assert {"pairings", "standings"} <= Elements(wall).ids()
    # Every page a live update reaches has a place for each of its regions (live.js reloads the page
    # for a region it cannot place).
    for path in (f"/t/{rr['id']}", f"/t/{rr['id']}?round={last['number']}", f"/t/{ko['id']}", f"/t/{rr['id']}/wall"):
        assert set(LIVE_REGIONS) <= Elements(html_of(client, path)).ids(), path

    # The season page: its table and its tournaments.
    table = Elements(html_of(client, f"/s/{season['id']}"))
    public = ok(client.get(f"/api/seasons/{season['id']}"))
    assert {row["name"] for row in public["standings"]} <= table.values("data-player")
    assert f"/t/{rr['id']}" in table.values("href")

    # Unknown ids are the friendly 404 page; bad parameters a 4xx, never a 500.
    for path in (
        "/t/t_nothing",
        "/t/a%24b",
        f"/t/{rr['id']}?round=99",
        "/t/t_nothing/wall",
        "/s/s_nothing",
        "/t/",
        "/x",
    ):
        assert "Not found" in html_of(client, path, 404)
    for path, headers in (("/x", {}), ("/api/x", BROWSER), ("/static/x.css", BROWSER)):
        assert client.get(path, headers=headers).json()["code"] == "not_found"  # an API client's, the API's: JSON
    for path in (f"/t/{rr['id']}?round=x", f"/t/{rr['id']}?round=0", f"/t/{rr['id']}/wall?view=bracket"):
        assert 400 <= client.get(path, headers=BROWSER).status_code < 500, path


def test_a_page_is_rendered_once_per_version_and_its_live_regions_come_from_the_same_cache(
    client: TestClient,
) -> None:
    (rr,) = played(client, {"name": "Cached", "players": ["bot:random"] * 3})
    site: WebSite = client.app.state.web  # type: ignore[attr-defined]
    html_of(client, f"/t/{rr['id']}")
    renders = site.html.renders
    assert html_of(client, f"/t/{rr['id']}") and site.html.renders == renders  # the kept page
    version, regions = site.render_tournament_regions(rr["id"])
    assert set(regions) == set(LIVE_REGIONS)
    for region_id, fragment in regions.items():
        assert f'id="{region_id}"' in fragment  # the whole element, as live.js swaps it
    assert site.render_tournament_regions(rr["id"]) == (version, regions)
    page = html_of(client, f"/t/{rr['id']}")
    assert f'data-live-version="{version}"' in page and regions["standings"] in page
    # Adding the tournament to a season is no event of the tournament, yet its page shows it.
    season = ok(client.post("/api/seasons", headers=DIRECTOR, json={"name": "Spring"}), 201)
    ok(client.post(f"/api/seasons/{season['id']}/tournaments", headers=DIRECTOR, json={"tournament": rr["id"]}))
    assert "Spring" in html_of(client, f"/t/{rr['id']}") and site.html.renders == renders + 1


def test_the_page_cache_keeps_a_bounded_number_of_entries_and_characters() -> None:
    cache: PageCache[str] = PageCache(len, max_entries=3, max_bytes=10)
    for key in ("aaa", "bbb", "ccc"):
        assert cache.get(key[0], key.upper) == key.upper()
    assert len(cache) == 3 and cache.bytes == 9
    cache.get("a", lambda: "never made")  # a is the most recently used now
    cache.get("d", lambda: "dd")  # four entries: b, the least recently used, goes
    assert len(cache) == 3 and cache.bytes == 8
    assert cache.get("b", lambda: "b2") == "b2"  # made again; c goes (10 characters: b2 would make 10)
    cache.get("e", lambda: "eeeee")  # over 10 characters: a and d go, the least recently used
    assert cache.bytes <= 10 and len(cache) <= 3
    assert cache.get("a", lambda: "again") == "again" and cache.get("e", lambda: "never") == "eeeee"
    assert cache.get("huge", lambda: "x" * 11) == "x" * 11 and "huge" not in {k for k in cache._entries}


@pytest.mark.parametrize(
    ("name", "short"), [("sonneborn_berger", "SB"), ("buchholz", "BH"), ("something_new", "something new")]
)
def test_a_tiebreak_column_is_headed_even_when_the_server_adds_one(name: str, short: str) -> None:
    assert tiebreak_short(name) == short and tiebreak_words(name)


def test_a_withheld_result_moves_neither_the_page_nor_the_version_a_spectator_is_shown(client: TestClient) -> None:
    """A duplicate round: Cleo–Dan ends (and Dan opens a dispute) while Ada–Ben is live. The
    tournament page, the wall and the live regions stay byte for byte what they were, version
    included (the stream moved: a spectator must not learn that a table ended); the reveal moves them."""
    ada, ada_h = register(client, "Ada")
    ben, ben_h = register(client, "Ben")
    cleo, cleo_h = register(client, "Cleo")
    dan, dan_h = register(client, "Dan")
    t = start(client, create(client, [ada, cleo, dan, ben], duplicate=True)["id"])  # Ada–Ben, Cleo–Dan
    tid = t["id"]
    board = {tuple(p["seats"][i]["id"] for i in (0, 1)): p["match"] for p in t["rounds"][0]["pairings"]}
    ab, cd = board[(ada, ben)], board[(cleo, dan)]
    for match_id, seats in ((ab, (ada_h, ben_h)), (cd, (cleo_h, dan_h))):
        for n, headers in enumerate(seats):
            ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": f"e{n}"}))
    play_both(client, ab, [ada_h, ben_h], random.Random(1), commands=6)
    site: WebSite = client.app.state.web  # type: ignore[attr-defined]
    paths = (f"/t/{tid}", f"/t/{tid}/wall", f"/t/{tid}?round=1")
    before = {path: html_of(client, path) for path in paths}
    version, regions = site.render_tournament_regions(tid)
    stream = site.tournaments.load(tid).version

    play_both(client, cd, [cleo_h, dan_h], random.Random(2))
    wait_for_result(client, tid, cd)
    ok(client.post(f"/api/matches/{cd}/disputes", headers=dan_h, json={"seq": 1, "note": "look"}), 201)
    assert site.tournaments.load(tid).version >= stream + 2  # the result and the dispute: events withheld
    assert {path: html_of(client, path) for path in paths} == before
    assert site.render_tournament_regions(tid) == (version, regions)
    assert f'data-live-version="{version}"' in before[f"/t/{tid}"]
    assert "withheld" in regions["pairings"] and f'href="/m/{cd}"' not in regions["pairings"]

    play_both(client, ab, [ada_h, ben_h], random.Random(3))
    wait_for_reveal(client, tid, 1)
    revealed, _ = site.render_tournament_regions(tid)
    round_one = html_of(client, f"/t/{tid}?round=1")
    assert revealed > version and {f"/m/{ab}", f"/m/{cd}"} <= Elements(round_one).values("href")
    assert "status-withheld" not in round_one


def test_every_template_and_static_file_is_package_data_so_a_wheel_carries_it() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["server"]
    files = [p for folder in (TEMPLATE_DIR, STATIC_DIR) for p in folder.rglob("*") if p.is_file()]
    assert files
    for path in files:
        inside = PurePosixPath(path.relative_to(ROOT / "server").as_posix())
        matched = [p for p in patterns if inside.match(p) and len(inside.parts) == len(PurePosixPath(p).parts)]
        assert matched, f"server/{inside} is in no package-data pattern of pyproject.toml: a wheel would lack it"
