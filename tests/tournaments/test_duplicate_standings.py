"""Duplicate rounds in the fold (server/tournaments/model.py) and the same-deal column
(server/tournaments/duplicate.py, docs/TOURNAMENTS.md "Duplicate rounds"), from known results."""

from __future__ import annotations

from typing import Any

import pytest

from server.tournaments.formats import FormatError, FormatRequest, check_request
from server.tournaments.model import (
    DuplicateRevealed,
    Format,
    MatchReplayed,
    PlayerEntered,
    ResultRecorded,
    RoundOpened,
    Tournament,
    TournamentCreated,
    TournamentEvent,
    TournamentStarted,
    fold,
)
from server.tournaments.schedule import Pairing, ScheduledRound

AT = "2026-12-01T00:00:00.000000Z"
SEED = bytes(32)
PLAYERS = ("a", "b", "c", "d", "e", "f")
RULESET = {"name": "uno-duo", "scoring": "winner_scores"}


def tournament(results: list[tuple[str, tuple[int, int], bool]], *extra: TournamentEvent) -> Tournament:
    """Six players, round 1 paired a–b, c–d, e–f (white first), with ``results`` (slot, scores, forfeit)."""
    created = TournamentCreated("dup", PLAYERS, RULESET, False, 60, 300, "ab" * 32, duplicate=True)
    rounds = (ScheduledRound(1, (Pairing("a", "b"), Pairing("c", "d"), Pairing("e", "f")), None),)
    events: list[TournamentEvent] = [
        created,
        TournamentStarted(rounds),
        RoundOpened(1, {"1.1": "m1", "1.2": "m2", "1.3": "m3"}),
    ]
    seats = {"1.1": ("a", "b"), "1.2": ("c", "d"), "1.3": ("e", "f")}
    for slot, scores, forfeit in results:
        white, black = seats[slot]
        winner = white if scores[0] > scores[1] else black
        events.append(
            ResultRecorded(slot, f"m{slot[-1]}", winner, scores, forfeit, "timeouts" if forfeit else "played")
        )
    events.extend(extra)
    return fold("t_1", [(e.TYPE.value, e.payload(), AT) for e in events])


def column(t: Tournament) -> dict[str, Any]:
    return {row.player: row.same_deal for row in t.standings(SEED)}


def test_matchpoints_compare_each_seat_with_the_same_seat_on_the_same_deal() -> None:
    # margins, seat 0: a +100, c +20, e +20; seat 1: b -100, d -20, f -20
    t = tournament([("1.1", (150, 50), False), ("1.2", (120, 100), False), ("1.3", (60, 40), False)])
    assert column(t) == {
        "a": 100.0,  # beat c and e: 2 of 2
        "c": 25.0,  # lost to a, tied e: 0.5 of 2
        "e": 25.0,
        "b": 0.0,  # below d and f
        "d": 75.0,  # above b, tied f: 1.5 of 2
        "f": 75.0,
    }


def test_the_lowest_total_wins_turns_the_margins_round() -> None:
    t = tournament([("1.1", (10, 90), False), ("1.2", (40, 60), False)])
    t.ruleset = {"name": "uno-duo", "scoring": "loser_scores"}
    shown = column(t)
    assert shown["a"] == 100.0 and shown["c"] == 0.0  # a conceded 80 fewer than b: better than c's 20
    assert shown["e"] is None and shown["f"] is None  # not decided: nothing to compare


def test_forfeits_and_replayed_matches_take_no_part() -> None:
    t = tournament(
        [("1.1", (150, 50), False), ("1.2", (120, 100), True), ("1.3", (60, 40), False)],
        MatchReplayed("1.3", "m3", "m3_1"),
    )
    assert t.slots["1.3"].result is None and not t.dealt_together(t.slots["1.3"])
    assert column(t) == {"a": None, "b": None, "c": None, "d": None, "e": None, "f": None}  # nobody to compare with


def test_a_tournament_without_duplicate_has_no_column_and_its_events_read_as_before() -> None:
    created = TournamentCreated("plain", PLAYERS, RULESET, False, 60, 300, "ab" * 32)
    assert "duplicate" not in created.payload()
    t = fold("t_2", [(created.TYPE.value, created.payload(), AT)])
    assert not t.duplicate and all(row.same_deal is None for row in t.standings(SEED))
    assert "entropy" not in PlayerEntered("p", "player").payload()


def test_entries_entropies_and_reveals_fold() -> None:
    created = TournamentCreated("open", (), RULESET, False, 60, 300, "ab" * 32, open=True, duplicate=True)
    events: list[TournamentEvent] = [
        created,
        PlayerEntered("p", "player", "dice"),
        PlayerEntered("q", "director"),
        DuplicateRevealed(1, "cd" * 32),
    ]
    t = fold("t_3", [(e.TYPE.value, e.payload(), AT) for e in events])
    assert t.duplicate and t.deal_entropies() == ["dice", ""] and t.deal_keys == {1: "cd" * 32}


def test_duplicate_is_for_round_robin_and_swiss() -> None:
    def request(kind: Format, **more: Any) -> FormatRequest:
        base: dict[str, Any] = {
            "format": kind,
            "players": 6,
            "seats": 10,
            "rounds": None,
            "table_size": None,
            "placement_points": None,
            "double": False,
            "round_starts": (),
            "open": False,
            "duplicate": True,
        }
        return FormatRequest(**{**base, **more})

    check_request(request(Format.ROUND_ROBIN))
    check_request(request(Format.SWISS, rounds=3))
    with pytest.raises(FormatError, match="duplicate rounds are for round_robin and swiss"):
        check_request(request(Format.TABLES, rounds=2, table_size=3))
