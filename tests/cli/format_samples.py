"""Hand-made ``GET /api/tournaments/{id}`` answers in issue 22's shape (a Swiss, a tables
tournament), for the CLI's and the terminal client's rendering tests while the server side is
being written. Each is checked against the server's response model (``TournamentPublic``).

The numbers are made up but plausible (the standings are in rank order; the chain's keys are
the format's); what the tests check is the rendering, not the server's arithmetic.
"""

from __future__ import annotations

from typing import Any

from server.schemas import TournamentPublic

LONG_NAME = "Maximiliane-Josephine"  # 21 characters: past the 20 a standings name may take
NAMES = [
    "ann",
    "bob",
    "cyd",
    "dan",
    "eve",
    "fay",
    "gus",
    "hal",
    "ivy",
    "jon",
    "kim",
    "lou",
    "max",
    "ned",
    "ola",
    "pip",
    "quin",
    "rae",
    "sam",
    LONG_NAME,
]
# Round starts: Tuesdays at 19:30 UTC (the tests set TZ=UTC, or another zone to see it move).
STARTS = [f"2026-12-{day:02d}T19:30:00+00:00" for day in (1, 8, 15, 22, 29)]
SWISS_CHAIN = ("score", "buchholz", "sonneborn_berger", "match_wins", "points_difference", "points_conceded", "lot")
TABLES_CHAIN = ("placement_points", "match_points", "firsts", "lot")


def names(count: int) -> list[str]:
    """``count`` distinct names: the twenty above, then ``p21`` … (up to 64 and more)."""
    return [*NAMES[:count], *(f"player-number-{i:02d}x" for i in range(21, count + 1))][:count]


def player(index: int, name: str) -> dict[str, Any]:
    return {"id": f"p_{index:02d}", "name": name, "kind": "bot" if index % 3 == 0 else "human"}


def base(fmt: str, tid: str, title: str, players: list[dict[str, Any]], rounds_planned: int) -> dict[str, Any]:
    return {
        "id": tid,
        "name": title,
        "status": "running",
        "open": False,
        "ruleset": "uno-duo" if fmt != "tables" else "classic",
        "rules": {"target": 100} if fmt != "tables" else {"target": 500},
        "format": fmt,
        "rounds_planned": rounds_planned,
        "table_size": None,
        "placement_points": [],
        "double": False,
        "move_seconds": 60,
        "join_seconds": 300,
        "commitment": "ab" * 32,
        "server_seed": None,
        "players": players,
        "withdrawals": [],
        "rounds": [],
        "standings": [],
        "open_disputes": 0,
    }


def two_seat(round_number: int, board: int, white: dict[str, Any], black: dict[str, Any], done: bool) -> dict[str, Any]:
    match = f"m_sw_{round_number}_{board}"
    result = None
    if done:
        white_wins = (round_number + board) % 2 == 0
        scores = [100 + board, 40 + round_number] if white_wins else [35 + board, 104 + round_number]
        winner = white["id"] if white_wins else black["id"]
        result = {"winner": winner, "scores": scores, "forfeit": False, "reason": "played", "match": match}
    return {
        "slot": f"{round_number}.{board}",
        "board": board,
        "seats": [white, black],
        "white": white,
        "black": black,
        "status": "decided" if done else "live",
        "match": match,
        "annulled": [],
        "result": result,
    }


def swiss(count: int = 20, rounds_planned: int = 5) -> dict[str, Any]:
    """A running Swiss of ``count`` players: round 1 and 2 finished, round 3 live, the rest not
    paired yet (``pending``, no pairings); an odd field has a bye each round."""
    players = [player(i, n) for i, n in enumerate(names(count), start=1)]
    t = base("swiss", "t_swiss", "Winter Swiss", players, rounds_planned)
    for number in range(1, rounds_planned + 1):
        status = "finished" if number <= 2 else "running" if number == 3 else "pending"
        pairings: list[dict[str, Any]] = []
        bye = None
        if number <= 3:
            order = players[number - 1 :] + players[: number - 1]
            if len(order) % 2:
                bye, order = order[-1]["id"], order[:-1]
            for board in range(1, len(order) // 2 + 1):
                white, black = order[2 * board - 2], order[2 * board - 1]
                pairings.append(two_seat(number, board, white, black, done=number <= 2 or board == 1))
        t["rounds"].append(
            {
                "number": number,
                "status": status,
                "matches": [],
                "bye": bye,
                "pairings": pairings,
                "starts_at": STARTS[(number - 1) % len(STARTS)],
            }
        )
    for rank, p in enumerate(players, start=1):
        won = max(0, 3 - (rank - 1) * 3 // count)
        score = won + (1 if rank == count and count % 2 else 0)
        tiebreaks = {
            "score": score,
            "buchholz": 9 - rank % 5,
            "sonneborn_berger": 12 - rank % 7,
            "match_wins": won,
            "points_difference": 250 - rank * 37,
            "points_conceded": 180 + rank * 11,
            "lot": rank,
        }
        t["standings"].append(
            {
                "rank": rank,
                "player": p["id"],
                "name": p["name"],
                "played": 2,
                "won": won,
                "lost": 2 - min(won, 2),
                "byes": 1 if rank == count and count % 2 else 0,
                "forfeits": 0,
                "points_for": 300 - rank,
                "points_against": 180 + rank * 11,
                "withdrawn": rank == 7,
                "score": score,
                "tiebreaks": tiebreaks,
                "decided_by": None if rank == count else SWISS_CHAIN[rank % 4],
            }
        )
    return checked(t)


def table(round_number: int, board: int, seats: list[dict[str, Any]], done: bool) -> dict[str, Any]:
    match = f"m_tb_{round_number}_{board}"
    result = None
    if done:
        k = len(seats)
        places = [((i + round_number + board) % k) + 1 for i in range(k)]
        scores = [0 if place == k else 60 * (k - place) + 7 * board for place in places]
        winner = seats[places.index(1)]["id"]
        result = {
            "winner": winner,
            "scores": scores,
            "forfeit": False,
            "reason": "played",
            "match": match,
            "places": places,
        }
    return {
        "slot": f"{round_number}.{board}",
        "board": board,
        "seats": seats,
        "white": seats[0],
        "black": seats[1],
        "status": "decided" if done else "live" if round_number == 2 else "pending",
        "match": match if round_number <= 2 else None,
        "annulled": [],
        "result": result,
    }


def tables(count: int = 16, size: int = 4, rounds_planned: int = 5, points: list[int] | None = None) -> dict[str, Any]:
    """A running tables tournament: round 1 finished, round 2 live, the rest seated and pending;
    ``count`` not a multiple of ``size`` gives one table of a different size."""
    players = [player(i, n) for i, n in enumerate(names(count), start=1)]
    t = base("tables", "t_tables", "Club night", players, rounds_planned)
    t["table_size"] = size
    t["placement_points"] = points if points is not None else list(range(size - 1, -1, -1))
    for number in range(1, rounds_planned + 1):
        order = players[(number - 1) * 3 % count :] + players[: (number - 1) * 3 % count]
        groups = [order[i : i + size] for i in range(0, count, size)]
        if len(groups) > 1 and len(groups[-1]) < 3:
            groups[-2] += groups.pop()
        pairings = [table(number, b, g, done=number == 1 or (number == 2 and b == 1)) for b, g in enumerate(groups, 1)]
        status = "finished" if number == 1 else "running" if number == 2 else "pending"
        t["rounds"].append(
            {
                "number": number,
                "status": status,
                "matches": [],
                "bye": None,
                "pairings": pairings,
                "starts_at": STARTS[(number - 1) % len(STARTS)] if number != 4 else None,
            }
        )
    for rank, p in enumerate(players, start=1):
        pp = max(0, 6 - rank // 3)
        t["standings"].append(
            {
                "rank": rank,
                "player": p["id"],
                "name": p["name"],
                "played": 2,
                "won": 1 if rank <= count // size else 0,
                "lost": 1,
                "byes": 0,
                "forfeits": 0,
                "points_for": 900 - rank * 31,
                "points_against": 0,
                "withdrawn": False,
                "score": pp,
                "tiebreaks": {
                    "placement_points": pp,
                    "match_points": 900 - rank * 31,
                    "firsts": 1 if rank <= count // size else 0,
                    "lot": rank,
                },
                "decided_by": None if rank == count else TABLES_CHAIN[rank % 3],
            }
        )
    return checked(t)


def checked(t: dict[str, Any]) -> dict[str, Any]:
    """``t`` as the server's response model reads it (every key the API documents)."""
    return TournamentPublic.model_validate(t).model_dump(mode="json")
