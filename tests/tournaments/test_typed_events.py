"""Tournament and server events are typed: each class reads back what it writes, and every
event type has its class (so no shape lives only in a comment)."""

from __future__ import annotations

from typing import Any

from server.store.server_events import MatchAnnulled, MatchRegistered, PlayerRegistered
from server.store.streams import ServerEventType
from server.tournaments.model import (
    EVENT_CLASSES,
    DisputeOpened,
    DisputeRuled,
    MatchReplayed,
    PlayerEntered,
    PlayerLeft,
    PlayerWithdrew,
    ResultRecorded,
    RoundOpened,
    TournamentCreated,
    TournamentEventType,
    TournamentFinished,
    TournamentStarted,
    fold,
    parse_event,
)
from server.tournaments.schedule import round_robin

SAMPLES: list[Any] = [
    TournamentCreated("club night", ("p1", "p2"), {"name": "uno-duo", "target": 200}, False, 60, 300, "ab" * 32),
    TournamentStarted(tuple(round_robin(["p1", "p2", "p3"], double=False))),
    RoundOpened(1, {"1.1": "m_1"}),
    ResultRecorded("1.1", "m_1", "p1", (120, 40), False, "played"),
    ResultRecorded("1.1", None, None, (0, 0), True, "withdrawal"),
    PlayerWithdrew("p2", True, 0, 2, "ill"),
    DisputeOpened("t_1-d1", "1.1", "m_1", 5, 0, "p1", "odd cut"),
    DisputeRuled("t_1-d1", "award", 1, "to the bot", "D13"),
    MatchReplayed("1.1", "m_1", "m_1_1"),
    TournamentFinished("cd" * 32),
    TournamentCreated("open night", (), {"name": "uno-duo"}, False, 60, 300, "ef" * 32, open=True),
    PlayerEntered("p3", "player"),
    PlayerLeft("p3", "director"),
]


def test_every_tournament_event_reads_back_what_it_writes() -> None:
    for event in SAMPLES:
        assert type(event).from_payload(event.payload()) == event
        assert parse_event(event.TYPE, event.payload()) == event


def test_every_tournament_event_type_has_its_class() -> None:
    assert set(EVENT_CLASSES) == {t.value for t in TournamentEventType}


def test_a_fold_of_payloads_skips_a_type_it_does_not_know() -> None:
    events = [(e.TYPE.value, e.payload(), "2026-12-01T00:00:00.000000Z") for e in SAMPLES[:3]]
    t = fold("t_1", [*events, ("from_a_newer_server", {"x": 1}, "2026-12-01T00:00:01.000000Z")])
    assert t.version == 4 and t.opened == 1 and t.slots["1.1"].match == "m_1"


def test_entries_before_the_start_are_the_players_of_the_fold() -> None:
    events = [
        TournamentCreated("open night", ("p1",), {"name": "uno-duo"}, False, 60, 300, "ef" * 32, open=True),
        PlayerEntered("p2", "player"),
        PlayerEntered("p3", "director"),
        PlayerLeft("p1", "player"),
    ]
    t = fold("t_1", [(e.TYPE.value, e.payload(), "2026-12-01T00:00:00.000000Z") for e in events])
    assert t.open and t.players == ["p2", "p3"] and t.version == 4
    old = TournamentCreated("club", ("p1", "p2"), {}, False, 60, 300, "ab" * 32).payload()
    del old["open"]  # written before open tournaments existed
    assert TournamentCreated.from_payload(old).open is False


def test_server_events_read_back_what_they_write() -> None:
    samples: list[Any] = [
        MatchRegistered("m_1", ("p1", "bot-greedy-1"), None, None, "uno-duo", 60),
        MatchRegistered("m_2", ("p1", "p2"), "t_1", 2, "classic", None),
        MatchAnnulled("m_1", "expired: not started within 3600 s"),
        MatchAnnulled("m_1", "ruling on t_1-d1: played again", "m_1_1"),
        PlayerRegistered("p1", "Ada", "human"),
    ]
    for event in samples:
        assert type(event).from_payload(event.payload()) == event
        assert event.event().type == event.TYPE and event.event().data == event.payload()
    assert {type(e).TYPE for e in samples} == set(ServerEventType)
