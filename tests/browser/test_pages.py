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

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.cdp import CHROMIUM, DESKTOP, NO_CHROMIUM, PHONE, WALL, Page, Viewport, chromium
from tests.browser.evening import Evening, evening
from tests.cli.serving import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)]

SIZES = (DESKTOP, PHONE, WALL)
KEPT = os.environ.get("UNODUO_WEB_SHOTS")  # also write the screenshots here (docs/web), for the docs

# Elements wider than the screen that are not inside a box that scrolls them itself (the
# crosstable's): on a phone there must be none, and the page itself must not scroll sideways.
OVERFLOWING = """(() => {
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
    """Open ``url`` at ``size``; on a phone, nothing sticks out sideways; a screenshot named
    ``name-WxH.png`` (kept in docs/web too when asked)."""
    page.open(url, size)
    if size.mobile:
        laid = page.evaluate(OVERFLOWING)
        assert laid["scrollWidth"] <= laid["width"] and not laid["out"], f"{url} is wider than a phone: {laid}"
    png = page.screenshot(shots / f"{name}-{size.name}.png")
    if KEPT:
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
