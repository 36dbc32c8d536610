"""Ratings as a read model (docs/RATINGS.md), on SQLite and PostgreSQL: folded from the finished
matches of the event log, the same rows as a rebuild, re-rated when a ruling edits a result, a
player's page, and seeding by rating."""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from server.ratings.book import Book, Result
from server.services.ratings import Ratings
from server.store import ratings as rating_rows
from tests.server.conftest import app_client
from tests.server.helpers import ok, play_to_end, register
from tests.server.test_tournaments import DIRECTOR, create, finished, start, tournament_when

# ------------------------------------------------------------------ a reference Glicko-2

REF_SCALE = 173.7178


def reference_glicko2(
    r: float, rd: float, vol: float, opp_r: float, opp_rd: float, score: float, tau: float, periods: float
) -> tuple[float, float, float]:
    """Glickman's 2012 example, steps 1-8, written out again for one game (the test's own copy)."""
    mu, phi = (r - 1500) / REF_SCALE, rd / REF_SCALE
    mu_j, phi_j = (opp_r - 1500) / REF_SCALE, opp_rd / REF_SCALE
    g = 1 / math.sqrt(1 + 3 * phi_j**2 / math.pi**2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g**2 * e * (1 - e))
    delta = v * g * (score - e)
    a = math.log(vol**2)

    def f(x: float) -> float:
        return (
            math.exp(x) * (delta**2 - phi**2 - v - math.exp(x)) / (2 * (phi**2 + v + math.exp(x)) ** 2)
            - (x - a) / tau**2
        )

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > 0.000001:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa = fa / 2
        big_b, fb = c, fc
    new_vol = math.exp(big_a / 2)
    phi_star = math.sqrt(phi**2 + periods * new_vol**2)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = mu + new_phi**2 * g * (score - e)
    new_rd = min(max(new_phi * REF_SCALE, 45.0), 500.0)  # lichess's bounds
    return new_mu * REF_SCALE + 1500, new_rd, new_vol


def test_the_fold_gives_a_reference_glicko2_match_by_match() -> None:
    """A fixed log of uno-duo results against a per-match reference computation (lichess's
    constants: tau 0.75, newcomers 1500/500/0.09, 0.21436 rating periods a day)."""
    log = [
        ("m1", "2026-12-01T19:00:00.000000Z", "ada", "bo", 1),
        ("m2", "2026-12-01T19:30:00.000000Z", "bo", "cy", 1),
        ("m3", "2026-12-03T20:00:00.000000Z", "ada", "cy", 2),
        ("m4", "2026-12-10T20:00:00.000000Z", "cy", "bo", 2),
        ("m5", "2026-12-10T21:00:00.000000Z", "ada", "bo", 1),
    ]
    book = Book()
    ref: dict[str, tuple[float, float, float, str | None]] = {}
    for match, at, first, second, winner_place in log:
        places = (1, 2) if winner_place == 1 else (2, 1)
        book.rate(Result(match, "uno-duo", at, (first, second), places))
        before = {p: ref.get(p, (1500.0, 500.0, 0.09, None)) for p in (first, second)}
        for me, them, place in ((first, second, places[0]), (second, first, places[1])):
            r, rd, vol, last = before[me]
            periods = 1.0 if last is None else days(last, at) * 0.21436
            nr, nrd, nvol = reference_glicko2(
                r, rd, vol, before[them][0], before[them][1], 1.0 if place == 1 else 0.0, 0.75, periods
            )
            ref[me] = (nr, nrd, nvol, at)
    for player, (r, rd, vol, _) in ref.items():
        got = book.of(player, "uno-duo")
        assert math.isclose(got.rating, r, abs_tol=1e-9) and math.isclose(got.deviation, rd, abs_tol=1e-9)
        assert math.isclose(got.volatility, vol, abs_tol=1e-12)
    assert book.of("ada", "uno-duo").games == 3 and book.of("ada", "uno-duo").rating > 1500


def days(since: str, until: str) -> float:
    from datetime import datetime

    return (datetime.fromisoformat(until) - datetime.fromisoformat(since)).total_seconds() / 86400


def test_one_identity_at_two_seats_is_not_rated_by_that_match() -> None:
    book = Book()
    assert book.rate(Result("m", "uno-duo", "2026-12-01T19:00:00.000000Z", ("bot:greedy", "bot:greedy"), (1, 2))) == []
    changes = book.rate(
        Result("t", "classic", "2026-12-01T19:00:00.000000Z", ("bot:greedy", "ada", "bot:greedy"), (1, 2, 3))
    )
    assert [c.identity for c in changes] == ["ada"] and book.of("bot:greedy", "classic").games == 0


# ------------------------------------------------------------------ through the server


@contextmanager
def rated_client(url: str, **settings: Any) -> Iterator[TestClient]:
    with app_client(url, **settings) as client:
        yield client


def ratings_of(client: TestClient) -> Ratings:
    ratings: Ratings = client.app.state.ratings  # type: ignore[attr-defined]
    return ratings


def my_open_matches(t: dict[str, Any], player: str, played: set[str]) -> list[tuple[str, int]]:
    return [
        (m["id"], [s["id"] if s else None for s in m["seats"]].index(player))
        for r in t["rounds"]
        for m in r["matches"]
        if m["id"] not in played and m["status"] in ("waiting", "live") and player in [s["id"] for s in m["seats"] if s]
    ]


def play_my_matches(
    client: TestClient, t: dict[str, Any], player: str, headers: dict[str, str], rng: random.Random
) -> None:
    """Play ``player``'s matches of the tournament to the end as they open."""
    played: set[str] = set()
    while not finished(
        t := tournament_when(client, t["id"], lambda t: finished(t) or bool(my_open_matches(t, player, played)))
    ):
        for match_id, seat in my_open_matches(t, player, played):
            ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "dice"}))
            play_to_end(client, match_id, headers, seat, rng)
            played.add(match_id)


def play_round_one(client: TestClient, seed: int) -> tuple[str, dict[str, str], str, int]:
    """ada against the random bot in a double round robin: ada's round-1 match played to the end."""
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:random"], join_seconds=3600, double=True)
    start(client, t["id"])
    t = tournament_when(client, t["id"], lambda t: t["rounds"][0]["status"] == "running")
    ((match_id, seat),) = my_open_matches(t, ada, set())
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={}))
    play_to_end(client, match_id, headers, seat, random.Random(seed))
    return ada, headers, match_id, seat


def test_a_tournament_is_rated_and_a_rebuild_gives_the_same_rows(url: str) -> None:
    with rated_client(url) as client:
        ada, headers = register(client, "ada")
        t = create(client, [ada, "bot:greedy", "bot:greedy", "bot:random"], join_seconds=3600)
        start(client, t["id"])
        play_my_matches(client, t, ada, headers, random.Random(7))
        t = tournament_when(client, t["id"], finished)
        page = ok(client.get(f"/api/players/{ada}"))
        duo = page["ratings"]["uno-duo"]
        assert duo["games"] == 3 and duo["provisional"] and page["ratings"]["classic"]["games"] == 0
        assert len(page["rating_history"]["uno-duo"]) == 3 and len(page["history"]) == 3
        assert all(h["rating_change"] is not None and h["tournament_name"] == "Tuesday club" for h in page["history"])
        assert page["tournaments"][0]["id"] == t["id"] and page["tournaments"][0]["rank"] in (1, 2, 3, 4)
        # Every greedy-N plays for bot:greedy: their meeting is unrated, the rest rated.
        greedy = next(p["id"] for p in t["players"] if p["name"].startswith("greedy"))
        bot_page = ok(client.get(f"/api/players/{greedy}"))
        assert bot_page["ratings"]["uno-duo"]["games"] == 4  # 2 greedy seats x (ada, random)
        assert any(h["unrated"] == "one player" for h in bot_page["history"])
        # One bot, one page: the house bot greedy's page lists every greedy seat's matches.
        house = ok(client.get("/api/players/bot:greedy"))
        assert house["ratings"] == bot_page["ratings"] and len(house["history"]) == 5
        assert {r["opponent"]["id"]: r["played"] for r in house["head_to_head"]}[ada] == 2
        live_rows = rating_rows.all_rows(ratings_of(client).store.engine)
        assert ratings_of(client).catch_up(rebuild=True).rebuilt
        assert rating_rows.all_rows(ratings_of(client).store.engine) == live_rows
        h2h = {r["opponent"]["name"].split("-")[0]: r for r in page["head_to_head"]}
        assert h2h["greedy"]["played"] == 2 and h2h["random"]["played"] == 1
        versus = ok(client.get(f"/api/players/{ada}/versus/{greedy}"))
        assert versus["played"] == 2 and len(versus["matches"]) == 2


def test_casual_matches_are_rated_only_when_the_server_says_so(url: str) -> None:
    for rate_casual in (False, True):
        with rated_client(url, rate_casual=rate_casual) as client:
            ada, headers = register(client, f"ada{int(rate_casual)}")
            match = ok(client.post("/api/matches", headers=headers, json={"opponent": "bot:greedy"}), 201)
            ok(client.post(f"/api/matches/{match['id']}/join", headers=headers, json={}))
            play_to_end(client, match["id"], headers, 0, random.Random(1))
            page = ok(client.get(f"/api/players/{ada}"))
            assert page["ratings"]["uno-duo"]["games"] == (1 if rate_casual else 0)
            assert page["history"][0]["unrated"] == (None if rate_casual else "casual")


def test_a_replay_ruling_takes_the_match_out_of_the_ratings(url: str) -> None:
    with rated_client(url) as client:
        ada, headers, match_id, _seat = play_round_one(client, 3)
        before = ok(client.get(f"/api/players/{ada}"))["ratings"]["uno-duo"]
        assert before["games"] == 1
        dispute = ok(
            client.post(f"/api/matches/{match_id}/disputes", headers=headers, json={"seq": 1, "note": "?"}), 201
        )
        ok(
            client.post(
                f"/api/disputes/{dispute['id']}/ruling", headers=DIRECTOR, json={"decision": "replay", "note": "again"}
            )
        )
        after = ok(client.get(f"/api/players/{ada}"))
        assert after["ratings"]["uno-duo"]["games"] == 0 and after["ratings"]["uno-duo"]["rating"] == 1500.0
        live_rows = rating_rows.all_rows(ratings_of(client).store.engine)
        ratings_of(client).catch_up(rebuild=True)
        assert rating_rows.all_rows(ratings_of(client).store.engine) == live_rows


def test_seeding_by_rating_orders_the_pairing_numbers(url: str) -> None:
    with rated_client(url) as client:
        ada, headers = register(client, "ada")
        t = create(client, [ada, "bot:random"], join_seconds=3600)
        start(client, t["id"])
        play_my_matches(client, t, ada, headers, random.Random(5))
        page = ok(client.get(f"/api/players/{ada}"))
        ada_rating = page["ratings"]["uno-duo"]["rating"]
        bo, _ = register(client, "bo")
        seeded = create(client, [bo, "bot:random", ada], seeding="rating", join_seconds=3600)
        assert seeded["seeding"] == "rating"
        started = start(client, seeded["id"])
        order = [p["id"] for p in started["players"]]
        ratings = started["seed_ratings"]
        assert [ratings[p] for p in order] == sorted(ratings.values(), reverse=True)
        assert ratings[ada] == round(ada_rating) and ratings[bo] == 1500 and set(order) == set(ratings)
        assert order.index(ada) < order.index(bo) if ada_rating > 1500 else order.index(ada) > order.index(bo)
        unseeded = start(client, create(client, [bo, "bot:random", ada], join_seconds=3600)["id"])
        assert next(p["id"] for p in unseeded["players"]) == bo and unseeded["seed_ratings"] == {}
        # A Swiss's initial order: round 1 pairs the top half against the bottom half, by rating.
        cy, _ = register(client, "cy")
        swiss = create(
            client, [bo, cy, "bot:random", ada], format="swiss", rounds=1, seeding="rating", join_seconds=3600
        )
        swiss = start(client, swiss["id"])
        order = [p["id"] for p in swiss["players"]]
        assert [swiss["seed_ratings"][p] for p in order] == sorted(swiss["seed_ratings"].values(), reverse=True)
        pairs = {frozenset((p["white"]["id"], p["black"]["id"])) for p in swiss["rounds"][0]["pairings"]}
        assert pairs == {frozenset((order[0], order[2])), frozenset((order[1], order[3]))}


def test_a_page_for_nobody_is_404_and_a_bad_limit_is_400(url: str) -> None:
    with rated_client(url) as client:
        assert client.get("/api/players/nobody-at-all").status_code == 404
        ada, _ = register(client, "ada")
        assert client.get(f"/api/players/{ada}?limit=0").status_code == 400
        assert client.get(f"/api/players/{ada}?limit=100000").status_code == 400
        assert client.get(f"/api/players/{ada}/versus/nobody-at-all").status_code == 404
        page = ok(client.get(f"/api/players/{ada}"))
        assert page["ratings"]["uno-duo"] == {"rating": 1500.0, "deviation": 500.0, "provisional": True, "games": 0}
        assert page["history"] == [] and page["head_to_head"] == []


def test_an_award_on_a_finished_match_rates_it_as_awarded(url: str) -> None:
    with rated_client(url) as client:
        ada, headers, match_id, seat = play_round_one(client, 11)
        played = next(h for h in ok(client.get(f"/api/players/{ada}"))["history"] if h["match"] == match_id)
        dispute = ok(
            client.post(f"/api/matches/{match_id}/disputes", headers=headers, json={"seq": 1, "note": "?"}), 201
        )
        other = 1 - seat if played["result"] == "won" else seat  # award it to whoever lost it
        ok(
            client.post(
                f"/api/disputes/{dispute['id']}/ruling",
                headers=DIRECTOR,
                json={"decision": "award", "seat": other, "note": "the other way"},
            )
        )
        again = next(h for h in ok(client.get(f"/api/players/{ada}"))["history"] if h["match"] == match_id)
        assert again["rating_change"] is not None
        assert (again["rating_change"] > 0) == (played["rating_change"] < 0)  # the change turned round
        live_rows = rating_rows.all_rows(ratings_of(client).store.engine)
        ratings_of(client).catch_up(rebuild=True)
        assert rating_rows.all_rows(ratings_of(client).store.engine) == live_rows


def test_two_processes_folding_at_once_agree_with_a_rebuild(url: str) -> None:
    """Two Ratings over one database (as two server processes are) catch up at the same time."""
    with rated_client(url) as client:
        t = create(client, ["bot:greedy", "bot:random"], double=True)
        start(client, t["id"])
        tournament_when(client, t["id"], finished)
        first = ratings_of(client)
        second = Ratings(first.store, first.rate_casual, first.tournament_of)
        barrier = threading.Barrier(2)

        def fold(r: Ratings) -> None:
            barrier.wait()
            r.catch_up()

        threads = [threading.Thread(target=fold, args=(r,)) for r in (first, second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        rows = rating_rows.all_rows(first.store.engine)
        assert len(rows["rated_matches"]) == 2 and len(rows["rating_changes"]) == 4
        first.catch_up(rebuild=True)
        assert rating_rows.all_rows(first.store.engine) == rows
