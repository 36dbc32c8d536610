"""Issue 33.3 and 33.7: every export ranks as the standings do (one ranking,
``server.tournaments.standings.places``), a game still being played is never a loss, and before
anyone has played, everyone shares one place in pairing order.

The club saw standings with ann 9th, fay 3rd, eve 4th while the TRF ranked ann 6, eve 3, fay 4
(by score, then pairing number), and games in play written as losses for both players. The
first tests build the fold from known results (tie-breaks that differ from the pairing
numbers, on purpose); the others go through the HTTP API on SQLite and PostgreSQL and compare
the TRF, the tournament's JSON and the players' pages with the standings.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from server.tournaments.model import (
    Format,
    ResultRecorded,
    RoundOpened,
    RoundPaired,
    Tournament,
    TournamentCreated,
    TournamentEvent,
    TournamentStarted,
    fold,
)
from server.tournaments.schedule import Pairing, ScheduledRound, round_robin
from server.tournaments.standings import row_score
from server.tournaments.trf import tournament_trf
from tests.server.helpers import ok, register
from tests.server.test_tournaments import create, finished, show, start, tournament_when

AT = "2026-12-01T19:00:00.000000Z"
SEED = bytes(range(32))
RULESET = {"name": "uno-duo", "scoring": "loser_scores"}  # the lower total wins


def trf_rows(text: str) -> dict[int, str]:
    """The 001 lines by start rank (the pairing number)."""
    return {int(line[4:8]): line for line in text.splitlines() if line.startswith("001")}


def trf_rank(line: str) -> int:
    return int(line[85:89])  # columns 86-89


def trf_points(line: str) -> float:
    return float(line[80:84])  # columns 81-84


def entries(line: str) -> list[str]:
    """The round blocks' 8 characters each (columns 92-99, 102-109, …), as written."""
    return [line[i : i + 8] for i in range(91, len(line), 10)]


def entry_points(entry: str) -> int:
    return 1 if entry[-1] in "1+U" else 0


def swiss(results: dict[str, tuple[str, tuple[int, int], bool]], rounds: list[list[tuple[str, str]]]) -> Tournament:
    """A Swiss of a, b, c, d (pairing numbers 1-4), ``rounds`` paired and opened, ``results`` by slot."""
    events: list[TournamentEvent] = [
        TournamentCreated(
            "Club", ("a", "b", "c", "d"), RULESET, False, 60, 300, "ab" * 32, format=Format.SWISS, rounds=3
        ),
        TournamentStarted(()),
    ]
    for number, boards in enumerate(rounds, start=1):
        events.append(RoundPaired(ScheduledRound(number, tuple(Pairing(w, b) for w, b in boards), None)))
        events.append(RoundOpened(number, {f"{number}.{k}": f"m{number}{k}" for k in range(1, len(boards) + 1)}))
        for k in range(1, len(boards) + 1):
            slot = f"{number}.{k}"
            if slot in results:
                winner, scores, forfeit = results[slot]
                events.append(ResultRecorded(slot, f"m{number}{k}", winner, scores, forfeit, "played"))
    return fold("t_1", [(e.TYPE.value, e.payload(), AT) for e in events])


ROUNDS = [[("a", "c"), ("d", "b")], [("c", "b"), ("a", "d")], [("b", "a"), ("c", "d")]]
# c and d both end round 2 on 1 point, level on Buchholz, Sonneborn-Berger and wins; d's points
# difference is better, so d is 2nd and c 3rd, against their pairing numbers (3 before 4).
RESULTS = {
    "1.1": ("c", (200, 100), False),  # a 200, c 100: c wins
    "1.2": ("b", (200, 150), False),
    "2.1": ("b", (200, 50), False),
    "2.2": ("d", (200, 10), False),
}


def ranks_and_points(text: str, players: tuple[str, ...]) -> dict[str, tuple[int, float]]:
    lines = trf_rows(text)
    return {p: (trf_rank(lines[n]), trf_points(lines[n])) for n, p in enumerate(players, start=1)}


def test_a_swiss_trf_ranks_by_the_standings_tie_breaks_not_by_pairing_number() -> None:
    t = swiss(RESULTS, ROUNDS[:2])
    rows = t.standings(SEED)
    assert [r.player for r in rows] == ["b", "d", "c", "a"] and rows[1].decided_by == "points_difference"
    text = tournament_trf(t, rows, {p: p.upper() for p in t.players})
    assert ranks_and_points(text, tuple(t.players)) == {r.player: (r.rank, float(row_score(r))) for r in rows}
    for line in trf_rows(text).values():  # the points column adds up from the round entries
        assert sum(entry_points(e) for e in entries(line)) == trf_points(line)
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_a_game_still_being_played_is_left_out_never_a_loss() -> None:
    results = {**RESULTS, "3.1": ("a", (10, 200), False)}  # round 3: b–a decided, c–d still playing
    t = swiss(results, ROUNDS)
    rows = t.standings(SEED)
    lines = trf_rows(tournament_trf(t, rows, {}))
    a, b, c, d = (lines[n] for n in (1, 2, 3, 4))
    assert entries(a)[2] == "   2 b 1" and entries(b)[2] == "   1 w 0"  # the decided game of round 3
    assert len(entries(c)) == len(entries(d)) == 2  # the game in play: nothing written for round 3
    assert not c.endswith(" ") and len(c) == 109
    by_player = {r.player: r for r in rows}
    for player, line in zip("abcd", (a, b, c, d), strict=True):
        assert (trf_rank(line), trf_points(line)) == (by_player[player].rank, row_score(by_player[player]))


def test_a_game_in_play_before_a_decided_round_leaves_a_blank_block() -> None:
    # a replay ruling can leave round 1 undecided while round 2 is decided: the block stays blank
    results = {k: v for k, v in RESULTS.items() if k != "1.1"}
    t = swiss(results, ROUNDS[:2])
    lines = trf_rows(tournament_trf(t, t.standings(SEED), {}))
    assert entries(lines[1])[0] == " " * 8 and entries(lines[1])[1] == "   4 w 0"


def round_robin_of_five() -> Tournament:
    players = ("p1", "p2", "p3", "p4", "p5")
    schedule = round_robin(players)
    events: list[TournamentEvent] = [
        TournamentCreated("RR", players, RULESET, False, 60, 300, "cd" * 32),
        TournamentStarted(tuple(schedule)),
    ]
    beats = {"p5": {"p1", "p2"}, "p4": {"p5", "p3"}, "p1": {"p4", "p3"}, "p2": {"p1", "p4"}, "p3": {"p2", "p5"}}
    for r in schedule:
        events.append(
            RoundOpened(r.number, {f"{r.number}.{k}": f"m{r.number}{k}" for k in range(1, len(r.pairings) + 1)})
        )
        for k, pairing in enumerate(r.pairings, start=1):
            white, black = pairing.seats
            winner = white if black in beats[white] else black
            scores = (10 * k, 200) if winner == white else (200, 10 * r.number)
            events.append(ResultRecorded(f"{r.number}.{k}", f"m{r.number}{k}", winner, scores, False, "played"))
    return fold("t_2", [(e.TYPE.value, e.payload(), AT) for e in events])


def test_a_round_robin_trf_ranks_by_its_chain_and_its_free_round_scores_nothing() -> None:
    t = round_robin_of_five()
    rows = t.standings(SEED)
    assert all(r.won == 2 for r in rows)  # everyone 2 wins: head-to-head and the rest decide
    assert [r.player for r in rows] != sorted(t.players)  # not the pairing numbers
    text = tournament_trf(t, rows, {})
    assert "092 Individual: Round-Robin" in text.splitlines() and "XXC white1" not in text
    assert ranks_and_points(text, tuple(t.players)) == {r.player: (r.rank, float(r.won)) for r in rows}
    for line in trf_rows(text).values():
        assert "0000 - Z" in line and "U" not in line[91:]  # the free round: no game, no point
        assert sum(entry_points(e) for e in entries(line)) == trf_points(line)


def test_before_any_game_everyone_shares_first_place_in_pairing_order() -> None:
    t = swiss({}, ROUNDS[:1])
    rows = t.standings(SEED)
    assert [(r.player, r.rank, r.decided_by) for r in rows] == [(p, 1, None) for p in "abcd"]
    assert {trf_rank(line) for line in trf_rows(tournament_trf(t, rows, {})).values()} == {1}


# ---------------------------------------------------------------- through the API


def trf_of(client: TestClient, tournament_id: str) -> str:
    reply = client.get(f"/api/tournaments/{tournament_id}/trf")
    text: str = reply.text
    assert reply.status_code == 200, text
    assert text.endswith("\n") and not text.endswith("\n\n")  # one final newline
    return text


def exports(client: TestClient, t: dict[str, Any]) -> tuple[dict[str, tuple[int, float]], dict[str, int | None]]:
    """What the TRF (ranks and points) and the people's pages (ranks) say of ``t``."""
    players = tuple(p["id"] for p in t["players"])
    trf = ranks_and_points(trf_of(client, t["id"]), players) if t["format"] != "tables" else {}
    pages: dict[str, int | None] = {}
    for player in (p["id"] for p in t["players"] if p["kind"] != "bot"):  # a house bot's page is its engine's
        page = ok(client.get(f"/api/players/{player}"))
        pages[player] = next((x["rank"] for x in page["tournaments"] if x["id"] == t["id"]), None)
    return trf, pages


def assert_exports_agree(client: TestClient, tournament_id: str) -> dict[str, Any]:
    """The TRF's rank and points columns, and every person's page, say what the standings say,
    all read while nothing moved (read again when a result landed in between). Returns the tournament."""
    while True:
        t = show(client, tournament_id)
        trf, pages = exports(client, t)
        if show(client, tournament_id) == t:
            break
    standing = {r["player"]: (r["rank"], float(r["score"])) for r in t["standings"]}
    if t["format"] != "tables":
        assert trf == standing
    for player, rank in pages.items():
        assert rank is not None or t["status"] != "finished", player
        assert rank is None or rank == standing[player][0]
    return t


def test_a_finished_swiss_of_house_bots_exports_as_it_stands(client: TestClient) -> None:
    t = create(client, ["bot:random", "bot:greedy"] * 4, format="swiss", rounds=3)
    start(client, t["id"])
    assert_exports_agree(client, tournament_when(client, t["id"], finished)["id"])


def test_a_finished_tables_tournament_ranks_its_players_pages_as_its_standings(client: TestClient) -> None:
    rules = {"target": 500, "round_limit": 1}
    t = create(
        client,
        ["bot:random", "bot:greedy"] * 3,
        format="tables",
        ruleset="classic",
        rules=rules,
        rounds=2,
        table_size=3,
    )
    start(client, t["id"])
    assert_exports_agree(client, tournament_when(client, t["id"], finished)["id"])


def test_exported_mid_round_the_game_in_play_is_left_out_and_the_ranks_agree(client: TestClient) -> None:
    ann, _ = register(client, "ann")
    bob, _ = register(client, "bob")
    t = create(client, [ann, "bot:random", "bot:greedy", bob])  # round 1 (Berger 1–4, 2–3): ann–bob, the bots
    before = show(client, t["id"])
    assert [r["rank"] for r in before["standings"]] == [1, 1, 1, 1]  # nobody ranked by lot
    assert [r["player"] for r in before["standings"]] == [p["id"] for p in before["players"]]
    start(client, t["id"])
    assert_exports_agree(client, t["id"])

    # The people never join: their matches stay live until the join deadline (300 s), the bots' is decided.
    def bots_done(shown: dict[str, Any]) -> bool:
        return any(p["status"] == "decided" for p in shown["rounds"][0]["pairings"])

    tournament_when(client, t["id"], bots_done)
    t = assert_exports_agree(client, t["id"])
    live = [p for p in t["rounds"][0]["pairings"] if p["status"] == "live"]
    assert live, "a game of round 1 is still being played"
    lines = trf_rows(trf_of(client, t["id"]))
    numbers = {p["id"]: n for n, p in enumerate(t["players"], start=1)}
    for pairing in live:
        for seat in ("white", "black"):
            line = lines[numbers[pairing[seat]["id"]]]
            assert entries(line) == [] and len(line) == 89, line  # left out: no "0", no entry at all
    decided = next(p for p in t["rounds"][0]["pairings"] if p["status"] == "decided")
    for seat in ("white", "black"):
        assert entries(lines[numbers[decided[seat]["id"]]])[0][-1] in "10"
