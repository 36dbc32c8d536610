"""Canned player pages (``GET /api/players/{id}``, the shape the server answers) for the player
screen's tests, and an app that serves them on a fake transport."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import httpx

from tui_client.apps.play_app import PlayApp, make_play_app
from tui_client.connection.api import Api

SERVER = "http://unoduo.test"
ANN = "p_ann0001"
BOB = "p_bob0002"
CYD = "p_cyd0003"
GREEDY = "bot:greedy"
DEEP = "p_deep0004"  # a bot account: a program someone registered


def seat(player_id: str, name: str, kind: str = "human") -> dict[str, str]:
    return {"id": player_id, "name": name, "kind": kind}


ANN_SEAT = seat(ANN, "ann")
BOB_SEAT = seat(BOB, "bob")
CYD_SEAT = seat(CYD, "cyd")
GREEDY_SEAT = seat(GREEDY, "greedy-1", "bot")
DEEP_SEAT = seat(DEEP, "deepuno", "bot_account")

# ann's UNO Duo rating after each of 24 rated matches: a climb, a dip, a recovery.
DUO_RATINGS = [
    1500, 1538, 1571, 1552, 1586, 1610, 1596, 1631, 1652, 1640, 1618, 1597,
    1581, 1604, 1622, 1648, 1667, 1659, 1684, 1702, 1691, 1713, 1730, 1724,
]  # fmt: skip
CLASSIC_RATINGS = [1500, 1471, 1489]


def history_points(values: list[int], day: int, prefix: str) -> list[dict[str, Any]]:
    return [
        {
            "match": f"m_{prefix}{i:03d}",
            "at": f"2026-11-{day + i // 6:02d}T{10 + i % 6:02d}:00:00Z",
            "rating": float(v),
            "deviation": float(max(60, 350 - 12 * i)),
        }
        for i, v in enumerate(values)
    ]


def item(
    match: str,
    at: str | None,
    seats: list[dict[str, str] | None],
    scores: list[int],
    *,
    status: str = "finished",
    my_seat: int = 0,
    result: str | None = None,
    place: int | None = None,
    change: float | None = None,
    family: str = "uno-duo",
    tournament: tuple[str, str, int] | None = None,
    places: list[int] | None = None,
) -> dict[str, Any]:
    return {
        "match": match,
        "at": at,
        "status": status,
        "ruleset": "uno-duo" if family == "uno-duo" else "classic",
        "family": family,
        "tournament": tournament[0] if tournament else None,
        "tournament_name": tournament[1] if tournament else None,
        "round": tournament[2] if tournament else None,
        "seat": my_seat,
        "seats": seats,
        "scores": scores,
        "places": places,
        "result": result,
        "place": place,
        "rating_change": change,
    }


SPRING = ("t_spring", "Spring Cup", 3)


def ann_page() -> dict[str, Any]:
    """ann: 24 rated UNO Duo matches (1724 ± 60 now), three classic (still provisional), a live
    tournament match, a table of five, a house bot and a bot account among her opponents."""
    history = [
        item("m_live", "2026-12-02T18:20:00Z", [ANN_SEAT, BOB_SEAT], [12, 40], status="live", tournament=SPRING),
        item(
            "m_duo023",
            "2026-11-04T15:00:00Z",
            [DEEP_SEAT, ANN_SEAT],
            [212, 88],
            my_seat=1,
            result="lost",
            change=-6.4,
            tournament=("t_spring", "Spring Cup", 2),
        ),
        item(
            "m_table5",
            "2026-11-04T12:00:00Z",
            [ANN_SEAT, BOB_SEAT, CYD_SEAT, GREEDY_SEAT, DEEP_SEAT],
            [61, 12, 140, 0, 75],
            result=None,
            place=2,
            places=[2, 1, 5, 3, 4],
            change=18.0,
            family="classic",
        ),
        item("m_duo022", "2026-11-04T11:00:00Z", [ANN_SEAT, GREEDY_SEAT], [40, 204], result="won", change=17.2),
        item("m_duo021", "2026-11-04T10:00:00Z", [BOB_SEAT, ANN_SEAT], [96, 201], my_seat=1, result="lost", change=-11),
        item("m_wait", None, [ANN_SEAT, None], [0, 0], status="waiting"),
        item("m_void", "2026-11-03T09:00:00Z", [ANN_SEAT, CYD_SEAT], [30, 30], status="annulled"),
        item("m_duo020", "2026-11-03T15:00:00Z", [ANN_SEAT, CYD_SEAT], [150, 150], result="drawn", change=0.2),
    ]
    return {
        "id": ANN,
        "name": "ann",
        "kind": "human",
        "ratings": {
            "uno-duo": {"rating": 1724.4, "deviation": 60.2, "provisional": False, "games": 24},
            "classic": {"rating": 1489.0, "deviation": 290.0, "provisional": True, "games": 3},
        },
        "rating_history": {
            "uno-duo": history_points(DUO_RATINGS, 1, "duo"),
            "classic": history_points(CLASSIC_RATINGS, 20, "cl"),
        },
        "history": history,
        "tournaments": [
            {
                "id": "t_spring",
                "name": "Spring Cup",
                "format": "round_robin",
                "status": "running",
                "rank": 2,
                "players": 5,
            },
            {
                "id": "t_autumn",
                "name": "Autumn Swiss",
                "format": "swiss",
                "status": "finished",
                "rank": 1,
                "players": 8,
            },
        ],
        "head_to_head": [
            {"opponent": BOB_SEAT, "played": 9, "won": 5, "lost": 4, "drawn": 0},
            {"opponent": GREEDY_SEAT, "played": 6, "won": 6, "lost": 0, "drawn": 0},
            {"opponent": DEEP_SEAT, "played": 4, "won": 1, "lost": 3, "drawn": 0},
            {"opponent": CYD_SEAT, "played": 3, "won": 1, "lost": 1, "drawn": 1},
        ],
    }


def newcomer_page(player_id: str = BOB, name: str = "bob") -> dict[str, Any]:
    """A player with no rated match: both families 1500 ± 350, provisional, 0 games."""
    newcomer = {"rating": 1500.0, "deviation": 350.0, "provisional": True, "games": 0}
    return {
        "id": player_id,
        "name": name,
        "kind": "human",
        "ratings": {"uno-duo": dict(newcomer), "classic": dict(newcomer)},
        "rating_history": {"uno-duo": [], "classic": []},
        "history": [],
        "tournaments": [],
        "head_to_head": [],
    }


def pages_app(
    tmp_path: Path, pages: dict[str, dict[str, Any]] | None = None, *, player: str = "ann", **options: Any
) -> PlayApp:
    """``unoduo play --player PLAYER`` on a fake server that knows ``pages`` by id and by name
    (by default ann's and bob's), and 404s everything else."""
    known = pages if pages is not None else {ANN: ann_page(), BOB: newcomer_page()}
    by_entry = {**known, **{p["name"]: p for p in known.values()}}

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "GET" and path.startswith("/api/players/"):
            entry = path.removeprefix("/api/players/")
            if entry in by_entry:
                return httpx.Response(200, json=copy.deepcopy(by_entry[entry]))
            return httpx.Response(404, json={"code": "not_found", "message": f"no player {entry}"})
        return httpx.Response(404, json={"code": "not_found", "message": f"nothing canned at {path}"})

    api = Api(SERVER, transport=httpx.MockTransport(answer))
    return make_play_app(SERVER, config_dir=tmp_path, api=api, player=player, **options)
