"""Hand-made ``GET /api/tournaments/{id}`` answers of knockouts in the shape docs/API.md gives
(the tournament's ``bracket`` and ``places``, each pairing's ``bracket`` and ``node``), for the
CLI's and the terminal client's rendering tests: a 16-player double elimination half played, a
6-player single elimination with byes (finished), a 16-player table knockout at tables of 4, and
pools of 4 into a bracket.

The plans are the server's own (``server.tournaments.brackets``, ``table_knockout``, ``pools``),
filled in by :func:`server.tournaments.brackets.resolve` from made-up results (the better seed
wins unless the node is an upset); only the JSON around them is written here.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from engine.game.score_words import ordinal
from server.tournaments import brackets, pools
from server.tournaments import table_knockout as tables_plan
from server.tournaments.bracket_plan import Plan, PoolPlace, Seed, Source
from tests.cli.format_samples import base, checked, names, player


def source_words(source: Source, table: bool) -> str:
    """A source as the API says it: ``seed 3``, ``winner of W1-2``, ``2nd of table T1-3``, ``1st of pool B``."""
    if isinstance(source, Seed):
        return f"seed {source.index + 1}"
    if isinstance(source, PoolPlace):
        return f"{ordinal(source.place)} of pool {pools.pool_label(source.pool)}"
    if table:
        return f"{ordinal(source.place)} of table {source.node}"
    return f"{'winner' if source.place == 1 else 'loser'} of {source.node}"


def play(
    plan: Plan,
    seeded: list[str],
    played_rounds: int,
    upsets: Collection[str] = (),
    also_played: Collection[str] = (),
    pool_standings: dict[int, list[str]] | None = None,
) -> brackets.Resolution:
    """The plan after its rounds up to ``played_rounds`` (and the nodes ``also_played``): at each
    node the better seed wins (place order by seed), reversed at an ``upsets`` node."""
    results: dict[str, list[str | None]] = {}
    while True:
        state = brackets.resolve(plan, seeded, results, pool_standings)
        due = [s for s in state.ready() if s.node.round <= played_rounds or s.node.id in also_played]
        if not due:
            return state
        for node in due:
            order = sorted(node.entrants, key=seeded.index)
            results[node.node.id] = list(reversed(order) if node.node.id in upsets else order)


def tournament(
    fmt: str, tid: str, title: str, count: int, plan: Plan, state: brackets.Resolution, live_round: int
) -> dict[str, Any]:
    """The API's answer: ``bracket`` from the plan and its state (the ready nodes of ``live_round``
    live, with a match), ``rounds`` with a pairing per played or live node, ``places`` once done."""
    players = [player(i, name) for i, name in enumerate(names(count), start=1)]
    seeded = [p["id"] for p in players]
    t = base(fmt, tid, title, players, plan.rounds)
    table = fmt == "table_knockout"
    by_player = {p["id"]: p for p in players}
    t["bracket"] = []
    rounds: dict[int, list[dict[str, Any]]] = {}
    for node in plan.nodes:
        s = state.nodes[node.id]
        live = s.status == "ready" and node.round == live_round
        match = f"m_{tid}_{node.id}" if s.status == "decided" or live else None
        t["bracket"].append(
            {
                "id": node.id,
                "round": node.round,
                "bracket": node.bracket,
                "stage": node.stage,
                "seats": list(s.seats),
                "sources": [source_words(src, table) for src in node.sources],
                "status": "live" if live else s.status,
                "match": match,
                "winner": s.winner,
            }
        )
        if match is None:
            continue
        seats = [by_player[p] for p in s.seats if p is not None]
        board = len(rounds.setdefault(node.round, [])) + 1
        result = None
        if s.status == "decided":
            places = [s.place_of(p["id"]) for p in seats]
            scores = [0 if place == 1 else 40 * place + board for place in places]
            result = {"winner": s.winner, "scores": scores, "forfeit": False, "reason": "played", "match": match}
            if len(seats) > 2:
                result["places"] = places
        rounds[node.round].append(
            {
                "slot": f"{node.round}.{board}",
                "board": board,
                "seats": seats,
                "white": seats[0],
                "black": seats[1],
                "status": "decided" if result else "live",
                "match": match,
                "annulled": [],
                "result": result,
                "bracket": node.bracket,
                "node": node.id,
            }
        )
    for number in range(1, plan.rounds + 1):
        pairings = rounds.get(number, [])
        done = bool(pairings) and all(p["result"] for p in pairings)
        t["rounds"].append(
            {
                "number": number,
                "status": "finished" if done else "running" if pairings else "pending",
                "matches": [],
                "bye": None,
                "pairings": pairings,
                "starts_at": None,
            }
        )
    if state.places is not None:
        t["status"] = "finished"
        t["places"] = [{"place": place, "player": p} for p, place in sorted(state.places.items(), key=lambda x: x[1])]
    del seeded
    return t


def seeds(count: int) -> list[str]:
    return [f"p_{i:02d}" for i in range(1, count + 1)]


def double_elimination() -> dict[str, Any]:
    """16 players, double elimination, rounds 1-3 played (upsets at W1-3, W2-2, L2-1), round 4 live."""
    plan = brackets.double_elimination(16)
    state = play(plan, seeds(16), played_rounds=3, upsets={"W1-3", "W2-2", "L2-1"})
    return checked(tournament("double_elimination", "t_de", "Winter Cup", 16, plan, state, live_round=4))


def single_elimination() -> dict[str, Any]:
    """6 players, single elimination: seeds 1 and 2 have byes; finished (an upset in a semi-final)."""
    plan = brackets.single_elimination(6)
    state = play(plan, seeds(6), played_rounds=9, upsets={"W2-2"})
    return checked(tournament("single_elimination", "t_se", "Club knockout", 6, plan, state, live_round=0))


def table_knockout() -> dict[str, Any]:
    """16 players at tables of 4, top 2 go on: round 1 played, round 2 live (one table done)."""
    plan = tables_plan.plan(16, 4, 2)
    state = play(plan, seeds(16), played_rounds=1, upsets={"T1-2", "T2-1"}, also_played={"T2-1"})
    t = tournament("table_knockout", "t_tk", "Club tables", 16, plan, state, live_round=2)
    t.update({"table_size": 4, "advance": 2, "ruleset": "classic", "rules": {"target": 500}})
    return checked(t)


def pools_into_bracket() -> dict[str, Any]:
    """16 players in pools of 4 (round robin, 3 rounds), the top 2 of each into an 8-player single
    elimination: the pools played, the quarter-finals live."""
    pool_rounds = 3
    plan = pools.into_bracket(brackets.single_elimination(8), 16, 4, 2, pool_rounds)
    seeded = seeds(16)
    members = [[seeded[i] for i in pool] for pool in plan.pools]
    standings = {i: sorted(m, key=lambda p: (int(p[2:]) % 3, p)) for i, m in enumerate(members)}
    state = play(plan, seeded, played_rounds=pool_rounds, pool_standings=standings)
    t = tournament("pools", "t_po", "Spring pools", 16, plan, state, live_round=pool_rounds + 1)
    t.update({"pool_format": "round_robin", "pool_size": 4, "advance": 2, "bracket_format": "single_elimination"})
    t["pools"] = [
        {
            "pool": pools.pool_label(i),
            "node": pools.pool_node(i),
            "players": standings[i],
            "decided": True,
            "standings": [],
        }
        for i in range(len(members))
    ]
    by_player = {p["id"]: p for p in t["players"]}
    for number in range(1, pool_rounds + 1):
        pairings = []
        for i, group in enumerate(members):
            a, b, c, d = group
            for white, black in {1: [(a, d), (b, c)], 2: [(a, c), (d, b)], 3: [(a, b), (c, d)]}[number]:
                board = len(pairings) + 1
                better = min((white, black), key=standings[i].index)
                match = f"m_po_{number}_{board}"
                pairings.append(
                    {
                        "slot": f"{number}.{board}",
                        "board": board,
                        "seats": [by_player[white], by_player[black]],
                        "white": by_player[white],
                        "black": by_player[black],
                        "status": "decided",
                        "match": match,
                        "annulled": [],
                        "result": {
                            "winner": better,
                            "scores": [0, 64] if better == white else [71, 0],
                            "forfeit": False,
                            "reason": "played",
                            "match": match,
                        },
                        "bracket": "pool",
                        "node": pools.pool_node(i),
                    }
                )
        t["rounds"][number - 1] = {
            "number": number,
            "status": "finished",
            "matches": [],
            "bye": None,
            "pairings": pairings,
            "starts_at": None,
        }
    return checked(t)
