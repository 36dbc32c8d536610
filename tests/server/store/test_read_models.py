"""Read models: match summaries and standings, projected from the events, rebuilt identically."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from sqlalchemy import delete, select, update
from typer.testing import CliRunner

from cli.main import app
from engine.game.events import Event
from engine.game.rulesets import CLASSIC_2P, UNO_DUO, Ruleset
from server.store.errors import InvalidAppendError
from server.store.event_store import EventStore
from server.store.migrate import downgrade, upgrade
from server.store.models import events_table, match_summaries_table, player_tokens_table, players_table, standings_table
from server.store.players import get_player, hash_token, player_by_token, register_player
from server.store.read_models import (
    MatchSummary,
    Projection,
    Standing,
    match_summaries,
    match_summary,
    matches_of,
    project,
    read_rows,
    rebuild,
)
from server.store.streams import MATCHES_STREAM, match_stream
from tests.server.store.helpers import play_random


def env(stream: str, type_: str, **data: Any) -> dict[str, Any]:
    return {"stream": stream, "type": type_, "data": data}


def registered(match: str, seats: list[str | None], tournament: str | None = None) -> dict[str, Any]:
    return env(
        MATCHES_STREAM, "match_registered", match=match, seats=seats, tournament=tournament, round=1, ruleset="uno-duo"
    )


def ended(match: str, winner: int, scores: list[int]) -> dict[str, Any]:
    return env(match_stream(match), "match_ended", winner=winner, loser=1 - winner, scores=scores, rounds=3)


def test_the_projection_follows_a_match_through_its_life() -> None:
    view = Projection()
    project(view, registered("m1", ["ann", "bob"], "cup"))
    assert view.matches["m1"] == MatchSummary(
        id="m1",
        status="waiting",
        seats=["ann", "bob"],
        player1=None,
        scores=[0, 0],
        winner=None,
        tournament="cup",
        round=1,
        ruleset="uno-duo",
    )
    project(view, env("match-m1", "match_created", ruleset={"name": "uno-duo"}, commitment="c"))
    project(view, env("match-m1", "seat_joined", seat=0, entropy=""))
    assert view.matches["m1"].status == "waiting"
    project(view, env("match-m1", "round_started", round=1, player1=1, deck=[]))
    assert view.matches["m1"].status == "live" and view.matches["m1"].player1 == 1
    project(view, env("match-m1", "round_ended", round=1, winner=0, loser=1, points=40, scores=[0, 40]))
    assert view.matches["m1"].scores == [0, 40]
    project(view, ended("m1", 0, [120, 210]))
    m = view.matches["m1"]
    assert (m.status, m.winner, m.scores) == ("finished", "ann", [120, 210])
    assert view.standings[("cup", "ann")] == Standing("cup", "ann", 1, 1, 0, 120, 210)
    assert view.standings[("cup", "bob")] == Standing("cup", "bob", 1, 0, 1, 210, 120)


def test_an_annulled_match_counts_for_nobody() -> None:
    view = Projection()
    for e in (
        registered("m1", ["ann", "bob"]),
        ended("m1", 1, [200, 50]),
        registered("m2", ["ann", "bob"]),
        ended("m2", 0, [10, 200]),
        env(MATCHES_STREAM, "match_annulled", match="m1", reason="dispute"),
    ):
        project(view, e)
    assert view.matches["m1"].status == "annulled"
    assert view.standings[("", "ann")] == Standing("", "ann", 1, 1, 0, 10, 200)
    project(view, ended("m1", 1, [200, 50]))  # an annulled match stays annulled
    assert view.standings[("", "ann")].played == 1


def test_a_match_registered_late_is_counted_then() -> None:
    view = Projection()
    project(view, ended("m1", 1, [200, 50]))
    assert view.standings == {} and view.matches["m1"].winner is None
    project(view, registered("m1", ["ann", "bob"]))
    assert view.matches["m1"].winner == "bob" and view.standings[("", "bob")].won == 1


def test_events_that_change_no_read_model_touch_nothing() -> None:
    view = Projection()
    project(view, env("match-m1", "card_played", seat=0, card=3, color="red"))
    project(view, env("players", "player_registered", id="p", name="P", kind="human"))
    project(view, env("tournament-1", "match_ended", winner=0, scores=[1, 2]))
    assert view.matches == {} and view.standings == {}


def play_registered_matches(store: EventStore) -> None:
    """Three players, four matches: finished in a tournament, casual, annulled, still live."""
    for pid, name in (("ann", "Ann"), ("bob", "Bob"), ("cy", "Cy")):
        register_player(store, player_id=pid, name=name, kind="human", token=f"{pid}-token-0123456789abcdef")
    short = Ruleset.from_dict({**UNO_DUO.to_dict(), "target": 60})  # short matches, same rules
    plan = [
        ("t1", ["ann", "bob"], "cup", 11, short, None),
        ("c1", ["bob", "cy"], None, 9, CLASSIC_2P, 60),
        ("c2", ["cy", "ann"], None, 10, short, None),
        ("c3", ["ann", "cy"], "cup", 10, UNO_DUO, 30),
    ]
    for match_id, seats, tournament, seed, ruleset, limit in plan:
        store.append(
            MATCHES_STREAM,
            [
                Event(
                    "match_registered",
                    {
                        "match": match_id,
                        "seats": seats,
                        "tournament": tournament,
                        "round": 1 if tournament else None,
                        "ruleset": ruleset.name,
                    },
                )
            ],
            expected_seq=None,
        )
        stream = match_stream(match_id)
        for match, events in play_random(seed, ruleset, limit):
            if events:
                store.append(
                    stream, events, expected_seq=match.state.version - len(events), seal_seed=match.dealer.server_seed
                )
    store.append(MATCHES_STREAM, [Event("match_annulled", {"match": "c2", "reason": "test"})], expected_seq=None)


def test_rebuild_gives_the_rows_the_appends_made(store: EventStore, url: str) -> None:
    play_registered_matches(store)
    incremental = read_rows(store.engine)
    statuses = {r["id"]: r["status"] for r in incremental["match_summaries"]}
    assert statuses == {"t1": "finished", "c1": "live", "c2": "annulled", "c3": "live"}
    t1 = match_summary(store.engine, "t1")
    assert t1 is not None and t1.winner in ("ann", "bob") and max(t1.scores) >= 60
    players = {(r["scope"], r["player"]) for r in incremental["standings"]}
    assert players == {("cup", "ann"), ("cup", "bob")}

    report = rebuild(store.engine)
    assert read_rows(store.engine) == incremental
    assert report.matches == 4 and report.standings == 2

    # wreck the read models, then rebuild them from the CLI
    with store.engine.begin() as conn:
        conn.execute(delete(standings_table))
        conn.execute(update(match_summaries_table).values(status="live", score0=999))
    assert read_rows(store.engine) != incremental
    result = CliRunner().invoke(app, ["db", "rebuild", "--db", url])
    assert result.exit_code == 0, result.output
    assert "4 matches, 2 standings rows" in result.output
    assert read_rows(store.engine) == incremental


def test_summaries_read_at_once_are_those_read_one_by_one(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    play_registered_matches(store)
    monkeypatch.setattr("server.store.read_models.SUMMARIES_AT_ONCE", 3)  # four matches: two chunks
    ids = ["c3", "t1", "nobody", "c1", "c2", "t1"]
    found = match_summaries(store.engine, ids)
    assert sorted(found) == ["c1", "c2", "c3", "t1"]  # a missing id is left out, one asked twice is read once
    assert all(found[m] == match_summary(store.engine, m) for m in found)
    assert match_summaries(store.engine, []) == {}


def test_a_malformed_registry_event_is_refused(store: EventStore) -> None:
    for data in (
        {"seats": ["a", "b"]},
        {"match": "m", "seats": "ab"},
        {"match": "m", "seats": ["a", 1]},
        {"match": "m", "seats": ["a", "b"], "round": "one"},
    ):
        with pytest.raises(InvalidAppendError):
            store.append(MATCHES_STREAM, [Event("match_registered", data)], expected_seq=None)
    assert store.head(MATCHES_STREAM) == 0


def test_players_keep_only_a_hash_of_their_token(store: EventStore) -> None:
    token = "secret-token-0123456789abcdef"
    first = register_player(store, player_id="p_1", name="  Ann  ", kind="human", token=token, command_id="r1")
    assert first.result == {"id": "p_1", "name": "Ann", "kind": "human"}
    again = register_player(store, player_id="p_1", name="Ann", kind="human", token=token, command_id="r1")
    assert again.duplicate and store.head("players") == 1
    with store.engine.connect() as conn:
        row = conn.execute(select(players_table)).mappings().one()
        kept = conn.execute(select(player_tokens_table)).mappings().one()
        stored = [dict(r) for r in conn.execute(select(events_table)).mappings()]
    assert kept["token_hash"] == hash_token(token) == hashlib.sha256(token.encode()).hexdigest()
    assert row["created_at"] == stored[0]["at"] == kept["created_at"] and kept["player_id"] == "p_1"
    assert token not in repr(stored) and token not in repr(dict(row)) and token not in repr(dict(kept))
    assert player_by_token(store, token) == get_player(store, "p_1")
    assert player_by_token(store, token + "x") is None and get_player(store, "nobody") is None
    with pytest.raises(InvalidAppendError, match="constraint"):  # the same id again: nothing appended
        register_player(store, player_id="p_1", name="Other", kind="bot", token="another-token-0123456789")
    assert store.head("players") == 1
    for bad in ({"player_id": "p 1"}, {"name": " "}, {"kind": "alien"}, {"token": "short"}):
        args: dict[str, Any] = {"player_id": "p_2", "name": "B", "kind": "bot", "token": "t" * 20, **bad}
        with pytest.raises(InvalidAppendError):
            register_player(store, **args)
    assert store.head("players") == 1


def test_summary_rows_convert_both_ways() -> None:
    summary = MatchSummary("m", "finished", ["a", "b"], 0, [1, 2], "b", 1, "cup", 3, "uno-duo")
    assert MatchSummary.from_row(summary.to_row()) == summary


# ---------------------------------------------------------------- tables of more than two (issue 21)

TABLE = ["ann", "bob", "cy", "dee", "eve"]


def table_of_five(view: Projection, match: str = "t5") -> None:
    project(view, env(MATCHES_STREAM, "match_registered", match=match, seats=TABLE, tournament=None, ruleset="classic"))
    project(view, env(match_stream(match), "match_created", ruleset={"name": "classic"}, commitment="c", seats=5))
    project(view, env(match_stream(match), "round_started", round=1, player1=4, deck=[]))
    project(view, env(match_stream(match), "round_ended", round=1, winner=3, scores=[0, 0, 0, 90, 0]))
    project(
        view,
        env(
            match_stream(match),
            "match_ended",
            winner=3,
            loser=None,
            scores=[120, 0, 40, 510, 40],
            rounds=4,
            places=[2, 5, 3, 1, 3],
        ),
    )


def test_a_table_of_five_has_every_seat_score_and_place() -> None:
    view = Projection()
    table_of_five(view)
    m = view.matches["t5"]
    assert (m.seats, m.scores, m.places, m.player1) == (TABLE, [120, 0, 40, 510, 40], [2, 5, 3, 1, 3], 4)
    assert (m.status, m.winner, m.winner_seat, m.creator) == ("finished", "dee", 3, "ann")
    assert m.public([None] * 5).places == [2, 5, 3, 1, 3]
    # every seat played once; the winner won; each seat's points against are the others' totals
    assert view.standings[("", "dee")] == Standing("", "dee", 1, 1, 0, 510, 200)
    assert view.standings[("", "bob")] == Standing("", "bob", 1, 0, 1, 0, 710)
    assert view.standings[("", "cy")] == Standing("", "cy", 1, 0, 1, 40, 670)


def test_a_table_is_stored_and_rebuilt_with_every_seat(store: EventStore) -> None:
    for pid in TABLE:
        register_player(store, player_id=pid, name=pid.title(), kind="human", token=f"{pid}-token-0123456789abcdef")
    seats = list(TABLE)
    store.append(
        MATCHES_STREAM,
        [Event("match_registered", {"match": "t5", "seats": seats, "ruleset": "classic", "creator": "cy"})],
        expected_seq=None,
    )
    stream = match_stream("t5")
    store.append(stream, [Event("round_started", {"round": 1, "player1": 4})], expected_seq=0)
    store.append(
        stream,
        [
            Event(
                "match_ended",
                {"winner": 3, "loser": None, "scores": [120, 0, 40, 510, 40], "rounds": 4, "places": [2, 5, 3, 1, 3]},
            )
        ],
        expected_seq=1,
    )
    found = match_summary(store.engine, "t5")
    assert found is not None
    assert (found.seats, found.scores, found.places, found.winner, found.creator) == (
        TABLE,
        [120, 0, 40, 510, 40],
        [2, 5, 3, 1, 3],
        "dee",
        "cy",
    )
    assert [m.id for m in matches_of(store.engine, "eve")] == ["t5"]  # seat 4 finds its match
    incremental = read_rows(store.engine)
    assert len(incremental["match_seats"]) == 5
    rebuild(store.engine)
    assert read_rows(store.engine) == incremental


def test_a_malformed_table_event_is_refused(store: EventStore) -> None:
    for data in (
        {"match": "m", "seats": ["a"]},
        {"match": "m", "seats": [f"p{i}" for i in range(11)]},
        {"match": "m", "seats": ["a", "b", "c"], "creator": 7},
    ):
        with pytest.raises(InvalidAppendError):
            store.append(MATCHES_STREAM, [Event("match_registered", data)], expected_seq=None)
    stream = match_stream("m")
    bad_events: tuple[tuple[str, dict[str, Any]], ...] = (
        ("round_started", {"round": 1, "player1": 10}),
        ("round_ended", {"round": 1, "scores": [1]}),
        ("match_ended", {"winner": 3, "scores": [1, 2, 3]}),
        ("match_ended", {"winner": 0, "scores": [1, 2, 3], "places": [1, 2]}),
    )
    for type_, event_data in bad_events:
        with pytest.raises(InvalidAppendError):
            store.append(stream, [Event(type_, event_data)], expected_seq=0)
    assert store.head(MATCHES_STREAM) == 0 and store.head(stream) == 0


def test_migration_0007_gives_two_seat_matches_the_rows_a_rebuild_gives(store: EventStore, url: str) -> None:
    """Down to 0006 and up again with matches in the database: ``match_seats`` and ``creator`` are
    filled from the old columns exactly as the projection fills them."""
    play_registered_matches(store)
    before = read_rows(store.engine)
    assert {r["match_id"] for r in before["match_seats"]} == {"t1", "c1", "c2", "c3"}
    assert {r["id"]: r["creator"] for r in before["match_summaries"]} == {
        "c1": "bob",
        "c2": "cy",
        "c3": None,
        "t1": None,
    }
    downgrade(url, "0006")
    upgrade(url)
    assert read_rows(store.engine) == before
