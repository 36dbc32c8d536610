"""The tournament and server events through the one codec: every class reads back what it writes
(as a store gives it back), version-1 data keeps the exact shape the hand-written pairs wrote
(so stored events hash the same), and each upcast of an older shape has its test."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.record.event_codec import CODEC
from server.store.server_events import MatchAnnulled, MatchRegistered, PlayerRegistered
from server.store.streams import ServerEventType
from server.tournaments.model import (
    EVENT_CLASSES,
    DisputeOpened,
    DisputeRuled,
    DuplicateRevealed,
    Format,
    MatchReplayed,
    PlayerEntered,
    PlayerLeft,
    PlayerWithdrew,
    ResultRecorded,
    RoundOpened,
    RoundPaired,
    TournamentCreated,
    TournamentEventType,
    TournamentFinished,
    TournamentStarted,
    parse_event,
)
from server.tournaments.schedule import Pairing, ScheduledRound
from tests.profiles import examples

text = st.text(max_size=6)
count = st.integers(-3, 10_000)
maybe = st.none
some = lambda values: st.lists(values, max_size=3).map(tuple)  # noqa: E731
scheduled = st.builds(
    ScheduledRound, count, some(st.lists(text, min_size=2, max_size=4).map(lambda s: Pairing(*s))), maybe() | text
)
seats = st.lists(maybe() | text, min_size=1, max_size=4).map(tuple)
EVENTS = st.one_of(
    st.builds(
        TournamentCreated,
        text,
        some(text),
        st.dictionaries(text, count | text | st.booleans(), max_size=3),
        st.booleans(),
        count,
        count,
        text,
        open=st.booleans(),
        format=st.sampled_from(Format),
        rounds=maybe() | count,
        table_size=maybe() | count,
        placement_points=some(count),
        round_starts=some(text),
        bot_accounts=st.booleans(),
        seeding=st.sampled_from(["entry", "rating"]),
        duplicate=st.booleans(),
    ),
    st.builds(PlayerEntered, text, text, text),
    st.builds(PlayerLeft, text, text),
    st.builds(
        TournamentStarted,
        some(scheduled),
        st.lists(text, min_size=1, max_size=3).map(tuple),  # a rating seeding: the order, with its ratings
        st.dictionaries(text, count, max_size=3),
    ),
    st.builds(TournamentStarted, some(scheduled)),
    st.builds(RoundPaired, scheduled),
    st.builds(RoundOpened, count, st.dictionaries(text, text, max_size=3)),
    st.builds(
        ResultRecorded, text, maybe() | text, maybe() | text, some(count), st.booleans(), text, maybe() | some(count)
    ),
    st.builds(PlayerWithdrew, text, st.booleans(), count, count, text),
    st.builds(DisputeOpened, text, text, text, count, count, text, text),
    st.builds(DisputeRuled, text, text, maybe() | count, text, maybe() | text),
    st.builds(MatchReplayed, text, text, text),
    st.builds(TournamentFinished, text),
    st.builds(DuplicateRevealed, count, text),
    # a casual match, its creator any seat (or none: seat 0), and a tournament's, which has none
    st.builds(MatchRegistered, text, seats, maybe(), maybe(), maybe() | text, maybe() | count, maybe() | text),
    st.builds(MatchRegistered, text, seats, text, count, maybe() | text, maybe() | count, maybe()),
    st.builds(MatchAnnulled, text, text, maybe() | text),
    st.builds(PlayerRegistered, text, text, text),
)


@settings(max_examples=examples(500))
@given(EVENTS)
def test_every_event_class_reads_back_what_it_writes(event: Any) -> None:
    stored = json.loads(json.dumps(event.event().data))  # what a store hands back
    assert type(event).from_payload(stored) == event
    assert CODEC.decode(str(event.TYPE), stored) == event
    assert "v" not in stored  # every family's types are at version 1: no version key


def test_every_event_type_of_each_family_is_registered_at_version_1() -> None:
    for type_ in [*TournamentEventType, *ServerEventType]:
        assert CODEC.knows(type_.value) and CODEC.version_of(type_.value) == 1
    assert set(EVENT_CLASSES) == {t.value for t in TournamentEventType}


# The shapes the hand-written payload/from_payload pairs wrote (before issue 35), field for field.
SHAPES: list[tuple[Any, dict[str, Any]]] = [
    (
        TournamentCreated("n", ("a", "b"), {"target": 200}, False, 60, 300, "c"),
        {
            "name": "n",
            "players": ["a", "b"],
            "ruleset": {"target": 200},
            "double": False,
            "move_seconds": 60,
            "join_seconds": 300,
            "commitment": "c",
            "open": False,
            "format": "round_robin",
        },
    ),
    (
        TournamentCreated(
            "n", (), {}, True, 1, 2, "c", True, Format.TABLES, 3, 4, (5, 1), ("t",), True, "rating", True
        ),
        {
            "name": "n",
            "players": [],
            "ruleset": {},
            "double": True,
            "move_seconds": 1,
            "join_seconds": 2,
            "commitment": "c",
            "open": True,
            "format": "tables",
            "rounds": 3,
            "table_size": 4,
            "placement_points": [5, 1],
            "round_starts": ["t"],
            "bot_accounts": True,
            "seeding": "rating",
            "duplicate": True,
        },
    ),
    (PlayerEntered("p", "player"), {"player": "p", "by": "player"}),
    (PlayerEntered("p", "player", "e"), {"player": "p", "by": "player", "entropy": "e"}),
    (
        TournamentStarted((ScheduledRound(1, (Pairing("a", "b"),), None),)),
        {"rounds": [{"number": 1, "pairings": [["a", "b"]], "bye": None}]},
    ),
    (
        TournamentStarted((), ("b", "a"), {"a": 1500, "b": 1600}),
        {"rounds": [], "order": ["b", "a"], "ratings": {"a": 1500, "b": 1600}},
    ),
    (
        RoundPaired(ScheduledRound(2, (Pairing("a", "b", "c"),), "d")),
        {"number": 2, "pairings": [["a", "b", "c"]], "bye": "d"},
    ),
    (
        ResultRecorded("1.1", None, None, (0, 0), True, "withdrawal"),
        {"slot": "1.1", "match": None, "winner": None, "scores": [0, 0], "forfeit": True, "reason": "withdrawal"},
    ),
    (
        ResultRecorded("1.1", "m", "a", (1, 2, 3), False, "played", (1, 3, 2)),
        {
            "slot": "1.1",
            "match": "m",
            "winner": "a",
            "scores": [1, 2, 3],
            "forfeit": False,
            "reason": "played",
            "places": [1, 3, 2],
        },
    ),
    (
        DisputeRuled("d", "stands", None, "", None),
        {"dispute": "d", "decision": "stands", "seat": None, "note": "", "rule": None},
    ),
    (
        MatchRegistered("m", ("a", "b"), None, None, "uno-duo", 60),
        {
            "match": "m",
            "seats": ["a", "b"],
            "tournament": None,
            "round": None,
            "ruleset": "uno-duo",
            "move_seconds": 60,
        },
    ),
    (
        MatchRegistered("m", ("a", "b"), None, None, None, None, "b"),
        {
            "match": "m",
            "seats": ["a", "b"],
            "tournament": None,
            "round": None,
            "ruleset": None,
            "move_seconds": None,
            "creator": "b",
        },
    ),
    (MatchAnnulled("m", "r"), {"match": "m", "reason": "r"}),
    (MatchAnnulled("m", "r", "m2"), {"match": "m", "reason": "r", "replaced_by": "m2"}),
]


@pytest.mark.parametrize(("event", "shape"), SHAPES)
def test_version_1_keeps_the_shape_stored_events_have(event: Any, shape: dict[str, Any]) -> None:
    assert event.payload() == shape
    assert list(event.payload()) == list(shape)  # in the same order: the stored JSON is the same text


# ---------------------------------------------------------------- one test per upcast

# (type, an older shape, what it reads as)
UPCASTS: list[tuple[str, dict[str, Any], Any]] = [
    (
        TournamentEventType.CREATED,
        {
            "name": "n",
            "players": ["a"],
            "ruleset": {},
            "double": False,
            "move_seconds": 60,
            "join_seconds": 300,
            "commitment": "c",
        },
        TournamentCreated("n", ("a",), {}, False, 60, 300, "c", open=False, format=Format.ROUND_ROBIN),
    ),
    (TournamentEventType.ENTERED, {"player": "p"}, PlayerEntered("p", "director")),
    (TournamentEventType.LEFT, {"player": "p"}, PlayerLeft("p", "director")),
    (
        TournamentEventType.STARTED,
        {"rounds": [{"number": 1, "pairings": [["a", "b"]]}]},
        TournamentStarted((ScheduledRound(1, (Pairing("a", "b"),), None),)),
    ),
    (
        TournamentEventType.ROUND_PAIRED,
        {"number": 3, "pairings": [["a", "b"]]},
        RoundPaired(ScheduledRound(3, (Pairing("a", "b"),), None)),
    ),
    (
        TournamentEventType.RESULT,
        {"slot": "1.1", "winner": "a", "scores": [1, 0], "forfeit": True, "reason": "withdrawal"},
        ResultRecorded("1.1", None, "a", (1, 0), True, "withdrawal"),
    ),
    (TournamentEventType.WITHDREW, {"player": "p", "annulled": True}, PlayerWithdrew("p", True, 0, 0, "")),
    (
        TournamentEventType.DISPUTE_RULED,
        {"dispute": "d", "decision": "stands", "note": "n"},
        DisputeRuled("d", "stands", None, "n", None),
    ),
    (
        ServerEventType.MATCH_REGISTERED,
        {"match": "m", "seats": ["a", "b"]},
        MatchRegistered("m", ("a", "b"), None, None, None, None),
    ),
    (ServerEventType.MATCH_ANNULLED, {"match": "m"}, MatchAnnulled("m", "")),
]


@pytest.mark.parametrize(("type_", "old", "read"), UPCASTS, ids=[str(u[0]) for u in UPCASTS])
def test_an_older_shape_is_upcast_to_the_current_event(type_: str, old: dict[str, Any], read: Any) -> None:
    before = json.dumps(old)
    assert CODEC.decode(str(type_), old) == read
    assert json.dumps(old) == before  # the stored data itself is not touched
    assert dict(CODEC.upcast(str(type_), read.payload())) == read.payload()  # the current shape passes as it is


def test_every_upcaster_has_its_test() -> None:
    assert {(str(t), 0) for t, _, _ in UPCASTS} == set(CODEC.upcasters())


def test_parse_event_reads_a_stored_tournament_event_by_its_type() -> None:
    assert parse_event("player_left", {"player": "p", "by": "player"}) == PlayerLeft("p", "player")
