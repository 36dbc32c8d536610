"""A knockout's next match is named where players look (issue 36.6): ``GET /api/me``'s ``next``
and the lobby socket's ``pairing`` carry ``label`` (``winners' round 1``), the words the client
shows instead of "round 1"; a round robin's carry none."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.server.helpers import ok, register
from tests.server.test_lobby_socket import lobby, receive, until
from tests.server.test_tournaments import create, start


def test_the_next_match_of_a_double_elimination_is_labelled(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy", "bot:random", "bot:greedy"], format="double_elimination")
    with lobby(client, headers) as ws:
        assert receive(ws)["type"] == "state"
        start(client, t["id"])
        pairing, _ = until(ws, lambda m: m["type"] == "pairing")
    assert pairing["label"] == "winners' round 1"
    nxt = ok(client.get("/api/me", headers=headers))["next"]
    assert [(n["tournament"], n["label"]) for n in nxt] == [(t["id"], "winners' round 1")]


def test_a_round_robin_pairing_has_no_label(client: TestClient) -> None:
    ada, headers = register(client, "ada")
    t = create(client, [ada, "bot:greedy"])
    start(client, t["id"])
    nxt = ok(client.get("/api/me", headers=headers))["next"]
    assert nxt and all(n["label"] is None for n in nxt)


def test_the_round_to_come_is_named_for_a_player_still_in_and_not_shown_once_out() -> None:
    from server.schemas import Me
    from server.services.lobby_state import byes_and_coming
    from server.tournaments.match_labels import coming_label
    from server.tournaments.model import Format
    from tests.tournaments.test_decide import SEED, started, won
    from tests.tournaments.test_knockout_decide import advance, live, names

    t = started(names(8), format=Format.DOUBLE_ELIMINATION)
    advance(t)
    for slot in live(t):
        won(t, slot)  # every seat 0 wins round 1
    loser = t.slots["1.1"].seats[1]
    me = Me(id=loser, name=loser, kind="human", matches=[], next=[])
    _byes, coming = byes_and_coming(t, loser, me, coming_label(t, loser, SEED))
    assert [(c.round, c.label) for c in coming] == [(2, "losers' round 1")]
    advance(t)
    again = next(s for s in live(t) if loser in s.seats)
    won(t, again, seat=1 - again.seats.index(loser))  # beaten twice: nothing comes
    assert byes_and_coming(t, loser, me, coming_label(t, loser, SEED)) == ([], [])
