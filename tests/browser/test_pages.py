"""The club's pages in a real browser (issue 38): Debian's headless Chromium, driven over the
DevTools protocol (tests/browser/cdp.py), opens the pages of a real ``unoduo serve`` where house
bots have played a Swiss and a single elimination and a round robin is being played
(tests/browser/evening.py), at a laptop's 1280×800, a phone's 390×844 and a wall screen's
1920×1080. What the pages say is read through the DOM (pairings, standings with their
tie-breaks, the bracket, a result arriving while the page is open); on the phone nothing but the
crosstable's own scroller is wider than the screen.

Screenshots go to the test's folder; with ``UNODUO_WEB_SHOTS=docs/web`` (a path from the
checkout) they are written there too, which is how the ones in docs/WEB.md are made — look at
them after a change to the pages.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.cdp import CHROMIUM, DESKTOP, NO_CHROMIUM, PHONE, WALL, Page, Viewport, chromium
from tests.browser.evening import Evening, evening
from tests.cli.serving import ROOT
from tests.server.helpers import ok
from tests.server.test_duplicate_leaks import play_both
from tests.server.test_tournaments import tournament_when

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)]

SIZES = (DESKTOP, PHONE, WALL)
LIVE = "document.querySelector('.live-status[data-state=live]') !== null"  # live.js follows the page's stream
KEPT = os.environ.get("UNODUO_WEB_SHOTS")  # also write the screenshots docs/WEB.md shows here (docs/web)
IN_THE_DOCS = {
    "front-390x844",
    "tournament-1280x800",
    "tournament-390x844",
    "bracket-1280x800",
    "wall-1920x1080",
    "player-390x844",
    "match-1280x800",
    "match-live-390x844",
}

# Elements wider than the screen that are not inside a box that scrolls them itself (the
# crosstable's), every <details> opened: on a phone there must be none, and the page itself must
# not scroll sideways.
OVERFLOWING = """(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });  // what a reader may open counts
  const width = window.innerWidth;
  const scrolls = e => { for (let p = e.parentElement; p; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX; if (x === 'auto' || x === 'scroll') return true; }
    return false; };
  const out = [...document.body.querySelectorAll('*')].filter(e => {
    const r = e.getBoundingClientRect(); return r.width > 0 && r.right > width + 1 && !scrolls(e); });
  return {scrollWidth: document.documentElement.scrollWidth, width,
          out: out.slice(0, 5).map(e => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className)};
})()"""


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Evening]:
    with evening(tmp_path_factory.mktemp("club")) as made:
        yield made


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    with chromium(tmp_path_factory.mktemp("chromium")) as page:
        yield page


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shots")


def look(page: Page, url: str, size: Viewport, shots: Path, name: str) -> None:
    """Open ``url`` at ``size``; on a phone, nothing sticks out sideways; a screenshot of the
    screen, ``name-WxH.png`` (written to docs/web too when asked, if the docs show it), and one of
    the whole page."""
    page.open(url, size)
    if size.mobile:
        laid = page.evaluate(OVERFLOWING)
        assert laid["scrollWidth"] <= laid["width"] and not laid["out"], f"{url} is wider than a phone: {laid}"
    png = page.screenshot(shots / f"{name}-{size.name}.png")
    page.screenshot(shots / f"{name}-{size.name}-whole.png", full_page=True)  # to look at the whole page
    if KEPT and f"{name}-{size.name}" in IN_THE_DOCS:
        kept = ROOT / KEPT / f"{name}-{size.name}.png"
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_bytes(png)


def test_the_front_page_lists_the_evening(club: Evening, browser: Page, shots: Path) -> None:
    for size in SIZES:
        look(browser, f"{club.base}/", size, shots, "front")
        live = browser.texts("#tournaments-live a")
        recent = browser.texts("#tournaments-recent a")
        assert live == ["Club night"], live
        assert sorted(recent) == ["Cup", "Tuesday Swiss"], recent
        links = browser.evaluate("[...document.querySelectorAll('#tournaments-recent a')].map(a => a.pathname)")
        assert sorted(links) == sorted(f"/t/{t['id']}" for t in (club.swiss, club.knockout))


def test_a_players_page_and_a_finished_matchs_replay(club: Evening, browser: Page, shots: Path) -> None:
    best = club.swiss["standings"][0]
    api = httpx.get(f"{club.base}/api/players/{best['player']}").json()
    seated = [p for r in club.swiss["rounds"] for p in r["pairings"] if best["player"] in {s["id"] for s in p["seats"]}]
    matches = [p["match"] for p in seated]
    for size in SIZES:
        look(browser, f"{club.base}/p/{best['name']}", size, shots, "player")
        assert browser.text("h1").startswith(best["name"])
        assert "uno-duo" in browser.text("#ratings")
        drawn = browser.evaluate("document.querySelectorAll('#rating-chart svg :is(polyline, path)').length")
        assert drawn >= 1, "no line in the rating chart"
        played = browser.evaluate("[...document.querySelectorAll('#history [data-match]')].map(r => r.dataset.match)")
        assert played == [h["match"] for h in api["history"]][: len(played)] and set(matches) <= set(played)
        met = browser.evaluate(
            "[...document.querySelectorAll('#head-to-head [data-player]')].map(r => r.dataset.player)"
        )
        assert met == [h["opponent"]["name"] for h in api["head_to_head"]], met

    match = matches[0]
    for size in SIZES:
        look(browser, f"{club.base}/m/{match}", size, shots, "match")
        assert best["name"] in browser.text("#score") and "finished" in browser.text("#score").lower()
        assert browser.evaluate(
            "!document.querySelector('#replay').hidden && !document.querySelector('#replay-range').hidden"
        )
        assert browser.texts("#log li"), "the finished match has no log"
        assert browser.evaluate("!!document.querySelector('#challenges')")
    # The scrubber's slider moves the replay in place, the address following, without a reload.
    browser.evaluate("window.__kept = true")
    browser.evaluate(
        "(() => { const r = document.querySelector('#replay-range'); r.value = 5;"
        " r.dispatchEvent(new Event('input')); r.dispatchEvent(new Event('change')); })()"
    )
    browser.wait_for(
        "document.querySelector('#replay .step').innerText.startsWith('After event 5 ')",
        "the slider did not move the replay",
    )
    assert browser.evaluate("window.__kept === true && new URL(location.href).searchParams.get('at') === '5'")


def test_a_head_to_head_the_player_search_and_an_address_that_names_nothing(
    club: Evening, browser: Page, shots: Path
) -> None:
    met_pairs = [[seat["name"] for seat in p["seats"]] for r in club.swiss["rounds"] for p in r["pairings"]]
    # two who met, not both greedy (or random): every greedy-N is one player to the head-to-head
    first, second = next(pair for pair in met_pairs if pair[0].split("-")[0] != pair[1].split("-")[0])
    api = httpx.get(f"{club.base}/api/players/{first}/versus/{second}").json()
    for size in SIZES:
        look(browser, f"{club.base}/p/{first}/vs/{second}", size, shots, "versus")
        # the heading names the two as the API's answer does: an opponent greedy-N is "greedy" there
        # (every greedy-N is one player to the head-to-head), whichever of them the address named
        heading = browser.text("h1")
        assert api["player"]["name"] in heading and api["opponent"]["name"] in heading, heading
        met = browser.evaluate("[...document.querySelectorAll('#history [data-match]')].map(r => r.dataset.match)")
        assert met == [h["match"] for h in api["matches"]] and met, met
        look(browser, f"{club.base}/p?name=gree", size, shots, "search")
        found = [r[0] for r in rows_of(browser, "#players [data-player]", "player")]
        assert found and all(str(name).startswith("greedy") for name in found), found
        look(browser, f"{club.base}/t/t_nothing_here", size, shots, "not-found")
        assert browser.text("h1") == "Not found" and browser.evaluate("!!document.querySelector('a[href=\"/\"]')")


def rows_of(page: Page, selector: str, *fields: str) -> list[list[str | None]]:
    """``data-*`` fields (camelCase) of every element ``selector`` matches; None where one has none."""
    found: list[list[str | None]] = page.evaluate(
        f"[...document.querySelectorAll({json.dumps(selector)})]"
        f".map(e => {json.dumps(list(fields))}.map(f => e.dataset[f] ?? null))"
    )
    return found


def test_a_swiss_page_its_rounds_standings_crosstable_and_season(club: Evening, browser: Page, shots: Path) -> None:
    t = club.swiss
    names = {p["id"]: p["name"] for p in t["players"]}
    for size in SIZES:
        look(browser, f"{club.base}/t/{t['id']}", size, shots, "tournament")
        assert "finished" in browser.text("#status").lower() and names[t["standings"][0]["player"]] in browser.text(
            "#status"
        )
        assert [r[0] for r in rows_of(browser, "#pairings [data-match]", "match")] == [
            p["match"] for p in t["rounds"][-1]["pairings"]
        ]
        standings = rows_of(browser, "#standings tbody tr", "player", "rank", "decidedBy")
        assert standings == [[r["name"], str(r["rank"]), r["decided_by"]] for r in t["standings"]]
        columns = browser.evaluate("document.querySelectorAll('#standings thead th').length")
        assert columns == 11 + len(t["standings"][0]["tiebreaks"]), "a tie-break column is missing"
        crosstable = browser.evaluate(
            "(() => { const s = document.querySelector('#crosstable .scroll');"
            " return s && s.tabIndex === 0 && !!s.getAttribute('aria-label') && s.querySelectorAll('tbody tr').length; })()"
        )
        assert crosstable == len(t["players"]), crosstable
        assert browser.evaluate(f"!!document.querySelector('#season a[href=\"/s/{club.season}\"]')")
    # Each round's pairings with its results, by ?round=N: the score of every match as the API has it.
    first = t["rounds"][0]
    browser.open(f"{club.base}/t/{t['id']}?round=1", DESKTOP)
    shown = dict(
        browser.evaluate(
            "[...document.querySelectorAll('#pairings [data-match]')]"
            ".map(e => [e.dataset.match, e.querySelector('.result').innerText.trim()])"
        )
    )
    assert shown == {p["match"]: "–".join(str(s) for s in p["result"]["scores"]) for p in first["pairings"]}
    # The season's table, linked from the tournament.
    season = httpx.get(f"{club.base}/api/seasons/{club.season}").json()
    for size in SIZES:
        look(browser, f"{club.base}/s/{club.season}", size, shots, "season")
        assert [r[0] for r in rows_of(browser, "#season tbody tr", "player")] == [
            r["name"] for r in season["standings"]
        ]


def test_a_knockouts_bracket_is_drawn_with_its_places(club: Evening, browser: Page, shots: Path) -> None:
    t = club.knockout
    for size in SIZES:
        look(browser, f"{club.base}/t/{t['id']}", size, shots, "bracket")
        nodes = rows_of(browser, "#bracket .node", "match")
        assert sorted(n[0] for n in nodes) == sorted(n["match"] for n in t["bracket"]), nodes
        drawn = browser.evaluate(
            "[...document.querySelectorAll('#bracket .node')].every(n => { const r = n.getBoundingClientRect();"
            " return r.width > 40 && r.height > 20; })"
        )
        assert drawn, "a node of the bracket is not drawn"
        places = rows_of(browser, "#bracket [data-place]", "place", "playerId")
        assert places == [[str(p["place"]), p["player"]] for p in t["places"]]
        final = next(n for n in t["bracket"] if n["round"] == max(m["round"] for m in t["bracket"]))
        winner = browser.text(f"#node-{final['id']} li.winner")
        assert winner.startswith(next(p["name"] for p in t["players"] if p["id"] == final["winner"])), winner


# The wall turns every 20 s (a setInterval of wall.js): in the test, a turn every 2 s instead.
FAST_TURNS = """(() => { const every = window.setInterval;
  window.setInterval = (f, ms, ...rest) => every(f, ms >= 10000 ? ms / 10 : ms, ...rest); })();"""


def test_the_wall_screen_shows_pairings_and_standings_in_turn(club: Evening, browser: Page, shots: Path) -> None:
    visible = (
        "[...document.querySelectorAll('#pairings, #standings')]"
        ".filter(e => e.getBoundingClientRect().height > 0).map(e => e.id).join()"
    )
    with browser.scripted(FAST_TURNS):
        look(browser, f"{club.base}/t/{club.swiss['id']}/wall?view=standings", WALL, shots, "wall")
        assert browser.evaluate(visible) == "standings"
        browser.wait_for(f"{visible} === 'pairings'", "the wall screen did not turn to the pairings")
        browser.screenshot(shots / "wall-turned.png")
    for size in (DESKTOP, PHONE):
        look(browser, f"{club.base}/t/{club.swiss['id']}/wall", size, shots, "wall")
        assert browser.evaluate(visible) == "pairings"


def recorded(t: dict[str, Any], match: str) -> dict[str, Any] | None:
    """The result of ``match`` in round 1 of the tournament ``t``, once it is recorded."""
    result: dict[str, Any] | None = next(p["result"] for p in t["rounds"][0]["pairings"] if p["match"] == match)
    return result


def test_a_live_match_and_its_result_arrive_on_open_pages_without_a_reload(
    club: Evening, browser: Page, shots: Path
) -> None:
    match, seats = club.live_match, list(club.seats)
    with httpx.Client(base_url=club.base, timeout=30.0) as client:
        for n, headers in enumerate(seats):
            ok(client.post(f"/api/matches/{match}/join", headers=headers, json={"entropy": f"seat {n}"}))
        play_both(client, match, seats, random.Random(7), commands=4)

        # The match's page follows the match: its log grows as the seats play, the page stays.
        for size in (WALL, DESKTOP, PHONE):
            look(browser, f"{club.base}/m/{match}", size, shots, "match-live")
        assert browser.evaluate("document.body.dataset.live") == f"/live/m/{match}"
        assert "Ada" in browser.text("#score") and "Ben" in browser.text("#score")
        newest = "Number((document.querySelector('#log li') || {value: 0}).value)"
        before = browser.evaluate(newest)
        browser.evaluate("window.__kept = true")
        browser.wait_for(LIVE, "the match's page did not start following it")
        play_both(client, match, seats, random.Random(8), commands=6)
        browser.wait_for(f"{newest} > {before}", "the match's log did not move on the open page")
        assert browser.evaluate("window.__kept === true"), "the page was reloaded"
        look(browser, f"{club.base}/m/{match}", PHONE, shots, "match-live")

        # The tournament's page: the match's result lands on the open page, the standings with it.
        browser.open(f"{club.base}/t/{club.live}", DESKTOP)
        row = f"#pairings [data-match={json.dumps(match)}] .result"
        assert "–" not in browser.text(row), browser.text(row)
        browser.evaluate("window.__kept = true")
        browser.wait_for(LIVE, "the tournament's page did not start following it")
        play_both(client, match, seats, random.Random(9))
        t = tournament_when(client, club.live, lambda t: recorded(t, match))  # the match over, its result in
    result = recorded(t, match)
    assert result is not None
    scores = "–".join(str(s) for s in result["scores"])
    browser.wait_for(
        f"document.querySelector({json.dumps(row)}).innerText.trim() === {json.dumps(scores)}",
        "the result did not arrive",
    )
    assert browser.evaluate("window.__kept === true"), "the page was reloaded"
    played = "document.querySelector('#standings tr[data-player=\"NAME\"] td[data-label=P]').innerText.trim()"
    for name in ("Ada", "Ben"):  # the standings moved with it, on the same page
        assert browser.evaluate(played.replace("NAME", name)) == "1"
    browser.screenshot(shots / "tournament-live-1280x800.png")
