"""The player and match pages (issue 38), in process, on SQLite and PostgreSQL: a real match
against a house bot played to the end (with a Wild Draw Four challenged: the human challenges
every one the bot plays and plays its own when it can), a live one, and a duplicate round's.

What the pages show is checked against what the public API gives an anonymous spectator: the
live page holds no card of a hand that the spectator's view and events do not show; a finished
match's page has its result, the replay (scrubbed without JS by ``?at=``) and every challenge
with its verdict as the replay records it; a duplicate round's match is refused as the API
refuses it.
"""

from __future__ import annotations

import html
import json
import random
import re
from types import SimpleNamespace
from typing import Any

import pytest
import sqlalchemy
from fastapi.testclient import TestClient

from server.names import name_key
from server.schemas import RatingPoint
from server.store.players import players_table
from server.web.match_page import BadStep, card_words, parse_at
from server.web.rating_chart import chart
from server.web.routes_matches import render_match_regions
from tests.server.conftest import DIRECTOR_TOKEN, app_client
from tests.server.helpers import ok, register, shedding, with_color
from tests.server.test_leaks import CODE
from tests.server.test_tournaments import create, start

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
TAGS = re.compile(r"<[^>]+>")


def text_of(page: str) -> str:
    """A page's text as a reader gets it (tags out, entities read), where card codes are looked for."""
    return " ".join(html.unescape(TAGS.sub(" ", page)).split())


def region(page: str, region_id: str) -> str:
    """The element with ``id=region_id`` (a <section>), from its opening tag to its end."""
    start = page.index(f'id="{region_id}"')
    return page[start : page.index("</section>", start)]


def challenging(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Challenge every Wild Draw Four; play one's own whenever it can; else shed at random."""
    for kind in ("challenge",):
        found = [c for c in legal if c["type"] == kind]
        if found:
            return found[0]
    wild_fours = [c for c in legal if c["type"] == "play" and c.get("card") == "W+4"]
    return with_color((wild_fours or [rng.choice(shedding(legal))])[0], rng)


def play(client: TestClient, match_id: str, headers: dict[str, str], rng: random.Random, steps: int) -> dict[str, Any]:
    """Seat 0 plays ``steps`` commands (or to the end); the last view."""
    seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    for step in range(steps):
        if seen["phase"] == "match_over":
            break
        body = {
            "command_id": f"c-{step}",
            "expected_version": seen["version"],
            "command": challenging(seen["legal"], rng),
        }
        seen = ok(client.post(f"/api/matches/{match_id}/commands", headers=headers, json=body))["view"]
    return dict(seen)


def new_match(client: TestClient, headers: dict[str, str]) -> str:
    match_id: str = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)["id"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "e"}))
    return match_id


def replay_lines(client: TestClient, match_id: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in client.get(f"/api/matches/{match_id}/replay").text.splitlines()[1:]]


def test_a_finished_match_and_its_players_pages(url: str) -> None:
    with app_client(url, rate_casual=True) as client:
        ada, headers = register(client, "ada")
        rng = random.Random(3)
        for _attempt in range(4):  # a match in which a Wild Draw Four was challenged (nearly always the first)
            match_id = new_match(client, headers)
            assert play(client, match_id, headers, rng, 5000)["phase"] == "match_over"
            lines = replay_lines(client, match_id)
            verdicts = [e["data"]["verdict"] for e in lines if e["type"] == "challenge_resolved"]
            if verdicts:
                break
        assert verdicts, "no Wild Draw Four was challenged in four matches"
        total = len(lines)

        page = client.get(f"/m/{match_id}")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        body = page.text
        for region_id in ("score", "replay", "challenges", "log"):
            assert f'id="{region_id}"' in body
        assert "data-live=" not in body  # over: nothing more to follow
        summary = ok(client.get(f"/api/matches/{match_id}"))["match"]
        winner = next(s["name"] for s in summary["seats"] if s["id"] == summary["winner"])
        assert f"{winner} wins" in text_of(region(body, "score"))
        # Every challenge with its verdict, as the replay records it, in order.
        challenges = text_of(region(body, "challenges"))
        assert re.findall(r"Challenge \d+: (legal|illegal)", challenges) == verdicts
        assert "Hand then" in challenges
        # The replay opens at the last event; ?at= scrubs without JS, out of range is clamped, junk is 400.
        replay = region(body, "replay")
        assert f"After event {total} " in text_of(replay) and 'rel="next"' not in replay
        pages = client.app.state.web_match_pages  # type: ignore[attr-defined]
        asked_for: list[str] = []
        real_replay = pages.tournaments.replay
        pages.tournaments = SimpleNamespace(replay=lambda m, c: asked_for.append(m) or real_replay(m, c))
        middle = client.get(f"/m/{match_id}", params={"at": total // 2}).text
        assert asked_for == []  # scrubbing reads the replay folded for the first look, not the file again
        assert f"After event {total // 2} " in text_of(region(middle, "replay"))
        assert f'href="?at={total // 2 - 1}#replay" rel="prev"' in middle
        assert f'href="?at={total // 2 + 1}#replay" rel="next"' in middle
        assert 'name="at"' in middle and 'type="range"' in middle  # the GET form, and the slider JS shows
        for asked, shown in (("0", 1), ("-4", 1), (str(10**9), total), ("", total)):
            clamped = client.get(f"/m/{match_id}", params={"at": asked})
            assert clamped.status_code == 200 and f"After event {shown} " in text_of(clamped.text), asked
        for junk in ("abc", "1.5", "9" * 40, "1e3"):
            assert client.get(f"/m/{match_id}", params={"at": junk}).status_code == 400, junk
        verdict_at = next(e["seq"] for e in lines if e["type"] == "challenge_resolved")
        at_verdict = client.get(f"/m/{match_id}", params={"at": verdict_at}).text
        assert 'href="#challenge-1"' in at_verdict

        # The player's page: ratings with the chart (title, desc, a table of the same points), the
        # match in the history, the bot in the head-to-head, which links to the two's page.
        player = client.get("/p/ada")
        assert player.status_code == 200
        mine = player.text
        for region_id in ("ratings", "rating-chart", "history", "head-to-head"):
            assert f'id="{region_id}"' in mine
        chart = region(mine, "rating-chart")
        assert "<svg" in chart and "<title" in chart and "<desc" in chart and 'role="img"' in chart
        assert f'data-match="{match_id}"' in chart and f'data-match="{match_id}"' in region(mine, "history")
        versus = re.search(r'href="(/p/ada/vs/[^"]+)"', region(mine, "head-to-head"))
        assert versus is not None
        detail = client.get(versus.group(1))
        assert detail.status_code == 200 and f'data-match="{match_id}"' in detail.text
        # The id, and the name in other letters, lead to the name's address.
        for other in (f"/p/{ada}", "/p/ADA"):
            moved = client.get(other, follow_redirects=False)
            assert moved.status_code == 302 and moved.headers["location"] == "/p/ada", other
        found = client.get("/p", params={"name": "ad"})
        assert found.status_code == 200 and 'href="/p/ada"' in found.text

        # Unknown things are the 404 page (HTML), never a 500.
        for path in ("/p/nobody-here", "/m/no-such-match", "/m/bad%20id", "/p/ada/vs/nobody-here", "/m/" + "x" * 300):
            missing = client.get(path)
            assert missing.status_code == 404 and "<h1>" in missing.text, path


def test_a_live_match_page_shows_no_hidden_card(url: str) -> None:
    with app_client(url) as client:
        _ada, headers = register(client, "ada")
        match_id = new_match(client, headers)
        seen = play(client, match_id, headers, random.Random(5), 3)  # early: most cards still hidden
        assert seen["phase"] != "match_over"
        page = client.get(f"/m/{match_id}").text
        assert f'data-live="/live/m/{match_id}"' in page
        for region_id in ("score", "log"):
            assert f'id="{region_id}"' in page
        assert "<li" in region(page, "log")

        # What the API shows a spectator now, and the truth the director sees.
        spectator = ok(client.get(f"/api/matches/{match_id}"))["view"]
        events = client.get(f"/api/matches/{match_id}/events?since=0").text
        public = set(CODE.findall(json.dumps(spectator))) | set(CODE.findall(events))
        audit = ok(client.get(f"/api/matches/{match_id}", headers=DIRECTOR))["view"]
        assert audit["version"] == spectator["version"]
        hidden = {code for hand in audit["hands"] for code in hand} - public
        assert hidden, "every card in the hands was shown publicly: nothing to leak, nothing tested"
        shown = set(CODE.findall(text_of(page))) | set(CODE.findall(page))
        assert not shown & hidden, f"the live page shows hidden cards: {sorted(shown & hidden)}"
        assert shown <= public

        # The live regions for the stream: the same elements, by id, for the page's version.
        pages = client.app.state.web_match_pages  # type: ignore[attr-defined]
        version, regions = client.portal.call(render_match_regions, pages, match_id)  # type: ignore[union-attr]
        assert version == spectator["version"]
        assert set(regions) == {"score", "log", "replay", "challenges"}
        for region_id, element in regions.items():
            assert element.lstrip().startswith(f'<section id="{region_id}"')
        assert not set(CODE.findall(text_of("".join(regions.values())))) & hidden


def test_a_duplicate_rounds_match_is_withheld_as_the_api_withholds_it(url: str) -> None:
    with app_client(url) as client:
        ids = [register(client, name)[0] for name in ("Ada", "Ben", "Cleo", "Dan")]
        t = start(client, create(client, [ids[0], ids[2], ids[3], ids[1]], duplicate=True)["id"])
        match_id = t["rounds"][0]["pairings"][0]["match"]
        assert client.get(f"/api/matches/{match_id}").status_code == 403
        page = client.get(f"/m/{match_id}")
        assert page.status_code == 403 and "duplicate" in page.text
        for at in ("1", "5"):
            assert client.get(f"/m/{match_id}", params={"at": at}).status_code == 403
        history = region(client.get("/p/Ada").text, "history")
        assert f'data-match="{match_id}"' in history and "withheld" in history


def test_the_rating_chart_says_in_words_what_it_draws_and_escapes_what_it_is_given() -> None:
    points = [
        RatingPoint(match=f"m{i}", at=f"2026-12-0{i + 1}T20:00:00Z", rating=r, deviation=d)
        for i, (r, d) in enumerate([(1500.0, 350.0), (1562.4, 250.5), (1530.0, 200.0)])
    ]
    drawn = chart(points, "uno-duo", "c1")
    svg = str(drawn.svg)
    assert svg.count("<circle") == 3 and 'aria-labelledby="c1-title c1-desc"' in svg
    assert drawn.description == (
        "uno-duo rating after each of the last 3 rated matches (2026-12-01 to 2026-12-03): "
        "from 1500 to 1530; highest 1562, lowest 1500."
    )
    assert f'<desc id="c1-desc">{drawn.description}</desc>' in svg
    hostile = str(chart(points[:1], "<script>x</script>", "c2").svg)
    assert "<script>" not in hostile and "&lt;script&gt;" in hostile
    empty = chart([], "classic", "c3")
    assert empty.description == "No rated classic match yet." and "<circle" not in str(empty.svg)


def test_the_scrubber_step_and_card_words() -> None:
    assert [parse_at(v) for v in (None, "", " 12 ", "+3", "-2")] == [None, None, 12, 3, -2]
    for junk in ("abc", "1.5", "1e3", "9" * 13, "١٢"):
        with pytest.raises(BadStep):
            parse_at(junk)
    assert [card_words(c) for c in ("R5", "G+2", "YS", "BR", "W", "W+4")] == [
        "red 5",
        "green Draw Two",
        "yellow Skip",
        "blue Reverse",
        "Wild",
        "Wild Draw Four",
    ]


def test_a_name_two_older_players_share_lists_both_and_each_page_stays_at_its_id(url: str) -> None:
    with app_client(url) as client:
        store = client.app.state.store  # type: ignore[attr-defined]
        rows = [  # registered before names were unique (migration 0006 left them without a unique_key)
            {"id": f"p_ann{i}", "name": "ann", "kind": "human", "name_key": name_key("ann"), "created_at": at}
            for i, at in ((1, "2026-12-01T19:00:00.000000Z"), (2, "2026-12-01T19:10:00.000000Z"))
        ]
        with store.engine.begin() as conn:
            conn.execute(sqlalchemy.insert(players_table), rows)
        listed = client.get("/p/ann")
        assert listed.status_code == 300
        assert 'href="/p/p_ann1"' in listed.text and 'href="/p/p_ann2"' in listed.text
        own = client.get("/p/p_ann2", follow_redirects=False)  # the name leads to both: no redirect to it
        assert own.status_code == 200 and 'href="/p/p_ann2"' in own.text
        assert client.get("/p/ann/vs/greedy").status_code == 300
