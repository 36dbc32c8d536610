"""The tournament screen's headless core on canned answers of the server."""

from __future__ import annotations

from tui_client.models.tournament_model import (
    STANDING_COLUMNS,
    decided_by_words,
    dispute_rows,
    schedule_rows,
    standing_rows,
    title_words,
    tournament_lines,
)

ANN, BEA = {"id": "p1", "name": "ann"}, {"id": "p2", "name": "bea"}
TOURNAMENT = {
    "id": "t1",
    "name": "Cup",
    "status": "running",
    "ruleset": "uno-duo",
    "rules": {"target": 30},
    "players": [ANN, BEA, {"id": "p3", "name": "cy"}],
    "open_disputes": 2,
    "standings": [
        {
            "rank": 1,
            "name": "ann",
            "player": "p1",
            "played": 1,
            "won": 1,
            "lost": 0,
            "byes": 1,
            "forfeits": 0,
            "points_for": 0,
            "points_against": 40,
            "withdrawn": False,
            "decided_by": "sonneborn_berger",
            "tiebreaks": {
                "match_wins": 1,
                "head_to_head": 0,
                "sonneborn_berger": 1,
                "points_difference": 40,
                "points_conceded": 0,
                "lot": 2,
            },
        },
        {
            "rank": 2,
            "name": "bea",
            "player": "p2",
            "played": 1,
            "won": 0,
            "lost": 1,
            "byes": 0,
            "forfeits": 1,
            "points_for": 0,
            "points_against": 0,
            "withdrawn": True,
            "decided_by": None,
            "tiebreaks": {},
        },
    ],
    "rounds": [
        {
            "number": 1,
            "status": "finished",
            "bye": "p3",
            "matches": [{"id": "m1", "status": "finished", "scores": [0, 40]}],
            "pairings": [
                {
                    "slot": "1.1",
                    "white": ANN,
                    "black": BEA,
                    "status": "decided",
                    "match": "m1",
                    "annulled": [],
                    "result": {"winner": "p1", "scores": [0, 40], "forfeit": False},
                }
            ],
        },
        {
            "number": 2,
            "status": "running",
            "bye": None,
            "matches": [{"id": "m2", "status": "live", "scores": [12, 5]}],
            "pairings": [
                {
                    "slot": "2.1",
                    "white": BEA,
                    "black": ANN,
                    "status": "live",
                    "match": "m2",
                    "annulled": [],
                    "result": None,
                },
                {
                    "slot": "2.2",
                    "white": ANN,
                    "black": BEA,
                    "status": "decided",
                    "match": None,
                    "annulled": [],
                    "result": {"winner": "p2", "scores": [0, 0], "forfeit": True, "reason": "join_deadline"},
                },
            ],
        },
    ],
}


def test_standings_have_every_column_in_order() -> None:
    rows = standing_rows(TOURNAMENT)
    assert len(STANDING_COLUMNS) == 16
    assert rows[0] == (
        "1",
        "ann",
        "1",
        "1",
        "0",
        "1",
        "0",
        "0",
        "40",
        "1",
        "0",
        "1",
        "40",
        "0",
        "2",
        "Sonneborn–Berger",
    )
    assert rows[1][1] == "bea (withdrawn)" and rows[1][9:15] == ("–",) * 6 and rows[1][-1] == ""
    assert decided_by_words("head_to_head") == "head-to-head" and decided_by_words("lot") == "lot"


def test_schedule_by_round_with_results_live_scores_and_the_bye() -> None:
    rows = schedule_rows(TOURNAMENT)
    assert [r.kind for r in rows] == ["round", "pairing", "bye", "round", "pairing", "pairing"]
    assert rows[1].cells == ("1.1", "ann", "bea", "decided", "ann wins 0–40") and rows[1].finished
    assert rows[2].cells[:2] == ("1 bye", "cy")
    assert rows[4].cells[4] == "live 12–5" and rows[4].watchable and not rows[4].finished
    assert rows[5].cells[4] == "bea wins by forfeit (join deadline)" and not rows[5].watchable


def test_disputes_title_and_lobby_lines() -> None:
    disputes = [
        {
            "id": "d1",
            "tournament": "t1",
            "slot": "2.1",
            "match": "m2",
            "seq": 7,
            "seat": 1,
            "player": "p1",
            "note": "odd",
            "status": "open",
            "audit_view": "/api/matches/m2?at=7",
        },
        {
            "id": "d2",
            "tournament": "t9",
            "slot": "1.1",
            "match": "x",
            "seq": 1,
            "seat": 0,
            "player": "p9",
            "note": "",
            "status": "open",
            "audit_view": "",
        },
        {
            "id": "d3",
            "tournament": "t1",
            "slot": "1.1",
            "match": "m1",
            "seq": 1,
            "seat": 0,
            "player": "p1",
            "note": "",
            "status": "ruled",
            "audit_view": "",
        },
    ]
    rows = dispute_rows(disputes, TOURNAMENT)
    assert [r.id for r in rows] == ["d1"]
    assert rows[0].cells == ("d1", "2.1", "m2", "#7", "seat 1 (ann)", "odd") and rows[0].seq == 7
    assert title_words(TOURNAMENT) == "Cup · running · round 2/2 · uno-duo to 30 · 3 players · 2 open disputes"
    lines = tournament_lines(
        [
            {"id": "t0", "name": "Old", "status": "finished"},
            {"id": "t1", "name": "Cup", "status": "running", "players": 3, "rounds": 3, "opened": 2},
        ],
        ["t1", "t0"],
    )
    assert [x.tournament for x in lines] == ["t1", "t0"]
    assert lines[0].text == "tour   Cup · running · 2/3 rounds · 3 players · you play"
    assert lines[1].text == "tour   Old · finished · 0 rounds · 0 players · you played"  # not 'you play' (a walk)
