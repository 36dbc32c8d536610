"""Tournaments through the HTTP API (docs/TOURNAMENTS.md), on SQLite and PostgreSQL.

House bots answer at once (``bot_think_seconds=0``) and the matches go to a low target, so a
whole round-robin takes seconds. A human entrant plays through the same routes as in a casual
match (``play_to_end``), which makes withdrawals and disputes happen at a known point.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

from fastapi.testclient import TestClient

from bench.progress import wait_for
from server.tournaments.model import lots
from tests.server.conftest import DIRECTOR_TOKEN
from tests.server.helpers import ok, play_to_end, register

DIRECTOR = {"Authorization": f"Bearer {DIRECTOR_TOKEN}"}
QUICK = {"target": 30}


def create(client: TestClient, players: list[str], **options: Any) -> dict[str, Any]:
    body = {"name": "Tuesday club", "players": players, "rules": QUICK, **options}
    return ok(client.post("/api/tournaments", headers=DIRECTOR, json=body), 201)


def start(client: TestClient, tournament_id: str) -> dict[str, Any]:
    return ok(client.post(f"/api/tournaments/{tournament_id}/start", headers=DIRECTOR))


def round_limited_match(
    client: TestClient, headers: dict[str, dict[str, str]], ruleset: str, rounds: int
) -> tuple[str, list[dict[str, str]]]:
    """The one match of a two-player round robin, ending after ``rounds`` rounds (RULES.md D23's
    round limit; a casual match always plays to the target): its id and the players' headers
    (``headers``: by player id) in seat order."""
    made = create(client, list(headers), ruleset=ruleset, rules={"round_limit": rounds})
    (pairing,) = start(client, made["id"])["rounds"][0]["pairings"]
    return pairing["match"], [headers[seat["id"]] for seat in pairing["seats"]]


def show(client: TestClient, tournament_id: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    return ok(client.get(f"/api/tournaments/{tournament_id}", headers=headers))


def tournament_when(
    client: TestClient, tournament_id: str, ready: Any, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """The tournament once ``ready(t)`` holds (as ``headers`` see it: the director sees a duplicate
    round's results before its reveal); fails only when its rounds and pairings have not moved for
    the stall window."""
    return wait_for(
        lambda: show(client, tournament_id, headers),
        "the tournament stopped moving",
        until=ready,
        moving=lambda t: repr(t["rounds"]),
    )


def finished(t: dict[str, Any]) -> bool:
    return t["status"] == "finished"


def pairing_of(t: dict[str, Any], player: str, round_number: int) -> dict[str, Any]:
    rnd = t["rounds"][round_number - 1]
    return next(p for p in rnd["pairings"] if player in (p["white"]["id"], p["black"]["id"]))


def play_my_match(client: TestClient, t: dict[str, Any], player: str, headers: dict[str, str], rnd: int) -> None:
    pairing = pairing_of(t, player, rnd)
    seat = 0 if pairing["white"]["id"] == player else 1
    ok(client.post(f"/api/matches/{pairing['match']}/join", headers=headers, json={"entropy": f"me-{rnd}"}))
    play_to_end(client, pairing["match"], headers, seat, random.Random(rnd))


def row(t: dict[str, Any], player: str) -> dict[str, Any]:
    return next(r for r in t["standings"] if r["player"] == player)


def test_a_bot_round_robin_runs_to_the_end_by_the_berger_table_and_its_standings_add_up(client: TestClient) -> None:
    t = create(client, ["bot:random", "bot:greedy", "bot:random", "bot:greedy"])
    assert t["status"] == "created" and [p["name"] for p in t["players"]] == [
        "random",
        "greedy",
        "random-2",
        "greedy-2",
    ]
    assert len({p["id"] for p in t["players"]}) == 4 and all(p["kind"] == "bot" for p in t["players"])
    start(client, t["id"])
    t = tournament_when(client, t["id"], finished)
    ids = [p["id"] for p in t["players"]]
    numbers = {player: i + 1 for i, player in enumerate(ids)}
    table = [[(numbers[p["white"]["id"]], numbers[p["black"]["id"]]) for p in r["pairings"]] for r in t["rounds"]]
    assert table == [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]  # FIDE's table for 4
    met = Counter(frozenset((p["white"]["id"], p["black"]["id"])) for r in t["rounds"] for p in r["pairings"])
    assert len(met) == 6 and set(met.values()) == {1}
    for rnd in t["rounds"]:
        assert rnd["status"] == "finished"
        by_id = {m["id"]: m for m in rnd["matches"]}
        for pairing in rnd["pairings"]:
            assert pairing["status"] == "decided" and pairing["result"]["reason"] == "played"
            match = by_id[pairing["match"]]
            assert match["tournament"] == t["id"] and match["round"] == rnd["number"]
            assert [s["id"] for s in match["seats"]] == [pairing["white"]["id"], pairing["black"]["id"]]
            assert match["status"] == "finished" and match["winner"] == pairing["result"]["winner"]
            assert match["scores"] == pairing["result"]["scores"]
            events = client.get(f"/api/matches/{match['id']}/events").text
            assert '"type":"cut"' not in events and '"first_drafter":0' in events  # white drafts first, no cut
    standings = t["standings"]
    assert [r["rank"] for r in standings] == [1, 2, 3, 4]
    assert sum(r["won"] for r in standings) == 6 and all(r["played"] == 3 for r in standings)
    assert sum(r["points_for"] for r in standings) == sum(r["points_against"] for r in standings)
    assert standings[-1]["decided_by"] is None and all(r["decided_by"] for r in standings[:-1])
    seed = bytes.fromhex(t["server_seed"])
    assert hashlib.sha256(seed).hexdigest() == t["commitment"]  # the lots' seed, revealed at the end
    lot_order = lots(seed, ids)
    assert all(r["tiebreaks"]["lot"] == lot_order.index(r["player"]) for r in standings)
    listed = ok(client.get("/api/tournaments"))
    assert {
        "id": t["id"],
        "name": "Tuesday club",
        "status": "finished",
        "players": 4,
        "rounds": 3,
        "opened": 3,
        "open": False,
        "entries": 4,
        "entered": None,
        "format": "round_robin",
        "check_in_opens": None,
        "checked_in": 0,
        "you_checked_in": None,
        "late_entry_until": None,
        "you_missed_check_in": None,
    } in listed


def test_an_odd_field_gets_a_bye_each_and_a_double_round_robin_reverses_the_colours(client: TestClient) -> None:
    t = create(client, ["bot:random", "bot:greedy", "bot:random"], double=True)
    start(client, t["id"])
    t = tournament_when(client, t["id"], finished)
    assert len(t["rounds"]) == 6
    assert Counter(r["bye"] for r in t["rounds"]) == {p["id"]: 2 for p in t["players"]}
    colours = Counter((p["white"]["id"], p["black"]["id"]) for r in t["rounds"] for p in r["pairings"])
    assert len(colours) == 6 and set(colours.values()) == {1}  # each pair twice, once with each colour
    assert all(r["byes"] == 2 and r["played"] == 4 for r in t["standings"])
    assert sum(r["won"] for r in t["standings"]) == 6


def test_a_seat_that_does_not_join_by_the_deadline_forfeits_and_me_shows_the_next_match(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy", "bot:random"], join_seconds=1)
    start(client, t["id"])
    me = ok(client.get("/api/me", headers=headers))
    assert me["next"] or me["matches"]
    t = tournament_when(client, t["id"], finished)
    results = [p["result"] for r in t["rounds"] for p in r["pairings"] if ada in (p["white"]["id"], p["black"]["id"])]
    assert len(results) == 2
    assert all(r["forfeit"] and r["reason"] == "join_deadline" and r["winner"] != ada for r in results)
    mine = row(t, ada)
    assert (mine["played"], mine["won"], mine["lost"], mine["forfeits"], mine["points_for"]) == (2, 0, 2, 2, 0)
    assert mine["rank"] == 3


def test_two_seats_that_never_join_both_lose_and_their_match_is_annulled(client: TestClient) -> None:
    ada, _ = register(client, "ada")
    bob, _ = register(client, "bob")
    t = create(client, [ada, bob], join_seconds=1)
    start(client, t["id"])
    t = tournament_when(client, t["id"], finished)
    pairing = t["rounds"][0]["pairings"][0]
    assert pairing["result"] == {
        "winner": None,
        "scores": [0, 0],
        "forfeit": True,
        "reason": "no_show",
        "match": pairing["match"],
        "places": None,
    }
    assert t["rounds"][0]["matches"][0]["status"] == "annulled"
    assert [(r["won"], r["lost"]) for r in t["standings"]] == [(0, 1), (0, 1)]


def test_a_withdrawal_after_half_way_forfeits_the_remaining_matches(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy", "bot:random", "bot:greedy"], join_seconds=3600)
    start(client, t["id"])
    for rnd in (1, 2):
        t = tournament_when(client, t["id"], lambda t, rnd=rnd: t["rounds"][rnd - 1]["status"] == "running")
        play_my_match(client, t, ada, headers, rnd)
    t = tournament_when(client, t["id"], lambda t: t["rounds"][2]["status"] == "running")
    t = ok(client.post(f"/api/tournaments/{t['id']}/withdraw", headers=DIRECTOR, json={"player": ada, "note": "ill"}))
    assert t["withdrawals"] == [{"player": ada, "annulled": False}]
    t = tournament_when(client, t["id"], finished)
    last = pairing_of(t, ada, 3)
    assert last["result"]["forfeit"] and last["result"]["reason"] == "withdrawal" and last["result"]["winner"] != ada
    mine = row(t, ada)
    assert mine["played"] == 3 and mine["withdrawn"] and mine["lost"] >= 1
    assert sum(r["won"] for r in t["standings"]) == 6
    again = client.post(f"/api/tournaments/{t['id']}/withdraw", headers=DIRECTOR, json={"player": ada})
    assert again.status_code == 409


def test_a_withdrawal_before_half_way_annuls_every_result_of_the_player(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy", "bot:random", "bot:greedy"], join_seconds=3600)
    start(client, t["id"])
    t = tournament_when(client, t["id"], lambda t: t["rounds"][0]["status"] == "running")
    play_my_match(client, t, ada, headers, 1)
    t = tournament_when(client, t["id"], lambda t: t["rounds"][1]["status"] == "running")
    live = pairing_of(t, ada, 2)["match"]
    t = ok(client.post(f"/api/tournaments/{t['id']}/withdraw", headers=DIRECTOR, json={"player": ada}))
    assert t["withdrawals"] == [{"player": ada, "annulled": True}]
    t = tournament_when(client, t["id"], finished)
    assert all(pairing_of(t, ada, rnd)["status"] == "cancelled" for rnd in (1, 2, 3))
    assert ok(client.get(f"/api/matches/{live}"))["match"]["status"] == "annulled"
    refused = client.post(
        f"/api/matches/{live}/commands", headers=headers, json={"command_id": "late", "command": {"type": "draw"}}
    )
    assert refused.status_code == 409
    mine = row(t, ada)
    assert (mine["played"], mine["won"], mine["lost"], mine["rank"]) == (0, 0, 0, 4)
    assert sum(r["won"] for r in t["standings"]) == 3  # the bots' three matches among themselves
    assert all(r["played"] == 2 for r in t["standings"] if r["player"] != ada)


def _dispute(client: TestClient, match_id: str, headers: dict[str, str], seq: int, note: str) -> dict[str, Any]:
    return ok(client.post(f"/api/matches/{match_id}/disputes", headers=headers, json={"seq": seq, "note": note}), 201)


def _rule(client: TestClient, dispute_id: str, **body: Any) -> Any:
    return client.post(f"/api/disputes/{dispute_id}/ruling", headers=DIRECTOR, json=body)


def test_disputes_are_listed_with_the_audit_view_and_every_ruling_kind_applies(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    _, stranger = register(client, "eve")
    t = create(client, [ada, "bot:greedy"], join_seconds=3600, double=True)
    start(client, t["id"])
    t = tournament_when(client, t["id"], lambda t: t["rounds"][0]["status"] == "running")
    match_id = pairing_of(t, ada, 1)["match"]
    ok(client.post(f"/api/matches/{match_id}/join", headers=headers, json={"entropy": "dice"}))
    seen = ok(client.get(f"/api/matches/{match_id}", headers=headers))["view"]
    # Refusals change nothing.
    assert (
        client.post(f"/api/matches/{match_id}/disputes", headers=stranger, json={"seq": 1, "note": "x"}).status_code
        == 403
    )
    assert (
        client.post(f"/api/matches/{match_id}/disputes", headers=headers, json={"seq": 10**6, "note": "x"}).status_code
        == 400
    )
    assert (
        client.post(
            f"/api/matches/{match_id}/disputes", headers=headers, json={"seq": 2, "note": "a\u202eb"}
        ).status_code
        == 400
    )
    first = _dispute(client, match_id, headers, 3, "the cut looked odd")
    assert first["status"] == "open" and first["audit_view"] == f"/api/matches/{match_id}?at=3"
    listed = ok(client.get("/api/disputes", headers=DIRECTOR))
    assert [d["id"] for d in listed] == [first["id"]]
    audit = ok(client.get(first["audit_view"], headers=DIRECTOR))["view"]
    assert audit["version"] == 3 and "hands" in audit
    assert "hands" not in ok(client.get(first["audit_view"], headers=headers))["view"]
    assert show(client, t["id"])["open_disputes"] == 1
    # Bad rulings are refused by name.
    assert _rule(client, first["id"], decision="banish", note="x").status_code == 400
    assert _rule(client, first["id"], decision="award", note="x").status_code == 400
    assert _rule(client, first["id"], decision="stands", note="x", rule="D99").status_code == 400
    stands = ok(_rule(client, first["id"], decision="stands", note="the cut follows the seed", rule="D2"))
    assert (stands["status"], stands["decision"], stands["rule"]) == ("ruled", "stands", "D2")
    assert _rule(client, first["id"], decision="stands", note="again").status_code == 409
    # Replay: the match is annulled and played again with a new seed.
    second = _dispute(client, match_id, headers, seen["version"], "I was not shown my card")
    ok(_rule(client, second["id"], decision="replay", note="play it again"))
    t = show(client, t["id"])
    pairing = pairing_of(t, ada, 1)
    assert pairing["annulled"] == [match_id] and pairing["match"] != match_id and pairing["result"] is None
    assert ok(client.get(f"/api/matches/{match_id}"))["match"]["status"] == "annulled"
    old_seed = ok(client.get(f"/api/matches/{match_id}", headers=DIRECTOR))["view"]["commitment"]
    replayed = pairing["match"]
    assert ok(client.get(f"/api/matches/{replayed}", headers=DIRECTOR))["view"]["commitment"] != old_seed
    # Award, while the new match is live: the other seat forfeits it.
    third = _dispute(client, replayed, headers, 1, "the bot was given my seat")
    ok(_rule(client, third["id"], decision="award", note="awarded to ada", seat=0))
    t = tournament_when(client, t["id"], lambda t: pairing_of(t, ada, 1)["result"] is not None)
    result = pairing_of(t, ada, 1)["result"]
    assert (result["winner"], result["forfeit"], result["reason"]) == (ada, True, "ruling")
    # Round 2 (colours reversed) is played out; the tournament then ends and takes no dispute.
    t = tournament_when(client, t["id"], lambda t: t["rounds"][1]["status"] == "running")
    play_my_match(client, t, ada, headers, 2)
    t = tournament_when(client, t["id"], finished)
    assert row(t, ada)["won"] >= 1 and sum(r["won"] for r in t["standings"]) == 2
    late = client.post(f"/api/matches/{replayed}/disputes", headers=headers, json={"seq": 1, "note": "late"})
    assert late.status_code == 409
    assert len(ok(client.get("/api/disputes?status=all", headers=DIRECTOR))) == 3


def test_an_award_after_the_match_ended_replaces_its_result(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy"], join_seconds=3600, double=True)
    start(client, t["id"])
    t = tournament_when(client, t["id"], lambda t: t["rounds"][0]["status"] == "running")
    play_my_match(client, t, ada, headers, 1)
    t = tournament_when(client, t["id"], lambda t: pairing_of(t, ada, 1)["result"] is not None)
    match_id = pairing_of(t, ada, 1)["match"]
    dispute = _dispute(client, match_id, headers, 5, "a wrong score")
    bot_seat = 1  # ada is white (seat 0) in round 1
    ok(_rule(client, dispute["id"], decision="award", note="to the bot", seat=bot_seat))
    result = pairing_of(show(client, t["id"]), ada, 1)["result"]
    assert result["winner"] != ada and result["forfeit"] and result["reason"] == "ruling"


def test_bad_creations_are_refused_and_change_nothing(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    before = ok(client.get("/api/tournaments"))
    cases = [
        ({"name": "x", "players": [ada, ada]}, 400),
        ({"name": "x", "players": [ada, "bot:nobody"]}, 404),
        ({"name": "x", "players": [ada, "bot:greedy"], "ruleset": "poker"}, 400),
        ({"name": "x", "players": [ada, "bot:greedy"], "rules": {"target": -5}}, 400),
        ({"name": "x", "players": [ada, "bot:greedy"], "rules": {"name": "classic-2p"}}, 400),
        ({"name": "\u202ex", "players": [ada, "bot:greedy"]}, 400),
        ({"name": "x", "players": [ada, "bot:greedy"], "move_seconds": 0}, 400),
    ]
    for body, status in cases:
        response = client.post("/api/tournaments", headers=DIRECTOR, json=body)
        assert response.status_code == status, (body, response.text)
        assert "Traceback" not in response.text
    assert client.post("/api/tournaments", headers=headers, json=cases[0][0]).status_code == 401
    assert ok(client.get("/api/tournaments")) == before


def test_a_player_may_keep_only_a_few_disputes_open(client: TestClient) -> None:
    """One seat filed 300 disputes in a row, each holding the tournament open: now the fourth open
    one is refused (409 too_many_open) and nothing is recorded; a ruling makes room again."""
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy"], join_seconds=3600, double=True)
    start(client, t["id"])
    t = tournament_when(client, t["id"], lambda t: t["rounds"][0]["status"] == "running")
    match_id = pairing_of(t, ada, 1)["match"]
    filed = [_dispute(client, match_id, headers, 1, f"complaint {n}") for n in range(3)]
    refused = [
        client.post(f"/api/matches/{match_id}/disputes", headers=headers, json={"seq": 1, "note": "again"})
        for _ in range(20)
    ]
    assert {r.status_code for r in refused} == {409} and {r.json()["code"] for r in refused} == {"too_many_open"}
    assert show(client, t["id"])["open_disputes"] == 3
    ok(_rule(client, filed[0]["id"], decision="stands", note="no"))
    assert _dispute(client, match_id, headers, 1, "one more")["status"] == "open"
