"""The tournament's Decider on a fold alone: no store, no server, no clock (server/tournaments/decide.py).

Each test builds a tournament from its events, asks ``decide`` what a command makes of it, folds
the answer in and goes on: every format's rounds, entries, the start and its seeding, scheduled
starts, results, join deadlines, withdrawals, disputes and rulings, duplicate reveals, the finish.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine.game.duplicate import round_deal_key
from engine.game.rulesets import RULESETS
from server.domain_errors import Malformed, NotNow, PlayerNotFound, TooManyOpen
from server.tournaments.decide import (
    MAX_PLAYERS,
    Advance,
    Command,
    Create,
    Decision,
    DisputeNotFound,
    Enter,
    EntryNotFound,
    Leave,
    MatchEnd,
    NoShow,
    OpenDispute,
    RecordResult,
    Rule,
    Start,
    Withdraw,
    decide,
    scheduled_match_id,
)
from server.tournaments.model import (
    FINISHED,
    RUNNING,
    DisputeOpened,
    DisputeRuled,
    DuplicateRevealed,
    Format,
    MatchReplayed,
    PlayerWithdrew,
    ResultRecorded,
    RoundOpened,
    RoundPaired,
    Slot,
    Tournament,
    TournamentCreated,
    TournamentFinished,
    TournamentStarted,
    evolve,
)

NOW = datetime(2026, 12, 7, 19, 30, tzinfo=UTC)
SEED = bytes(range(32))
PLAYERS = ("ann", "bob", "cy", "di")


def made(players: Sequence[str] = PLAYERS, **switches: Any) -> Tournament:
    """A tournament as its creation event makes it (a round robin of uno-duo unless told)."""
    t = Tournament("t_0123456789abcdef")
    created = TournamentCreated(
        name="club night",
        players=tuple(players),
        ruleset=RULESETS[switches.pop("ruleset", "uno-duo")].to_dict(),
        double=False,
        move_seconds=60,
        join_seconds=300,
        commitment="c" * 64,
        **switches,
    )
    evolve(t, created, NOW.isoformat())
    return t


def apply(t: Tournament, command: Command, now: datetime = NOW) -> Decision:
    """Decide ``command`` and fold what it decides into ``t``."""
    decision = decide(t, command, now)
    for event in decision.events:
        evolve(t, event, now.isoformat())
    return decision


def started(players: Sequence[str] = PLAYERS, **switches: Any) -> Tournament:
    t = made(players, **switches)
    apply(t, Start())
    return t


def won(t: Tournament, slot: Slot, seat: int = 0, scores: tuple[int, ...] = (0, 120)) -> Decision:
    """``slot``'s match ends, won by ``seat`` (two seats)."""
    assert slot.match is not None
    return apply(t, RecordResult(slot.match, MatchEnd(seat, scores, tuple(slot.seats))))


def play_round(t: Tournament, number: int) -> None:
    for slot in t.round_slots(number):
        if not t.done(slot):
            won(t, slot)


# ---------------------------------------------------------------- entries and the start


def test_entries_before_the_start_and_their_refusals() -> None:
    t = made((), open=True)
    assert apply(t, Enter("ann", "ann", "player", "dice")).command_id == "enter-ann-1"
    assert t.players == ["ann"] and t.entropies == {"ann": "dice"}
    with pytest.raises(NotNow, match="already"):
        decide(t, Enter("ann", "ann", "player"), NOW)
    with pytest.raises(EntryNotFound):
        decide(t, Leave("bob", "bob", "player"), NOW)
    apply(t, Leave("ann", "ann", "player"))
    assert t.players == []
    closed = made()
    with pytest.raises(NotNow, match="not open to entries"):
        decide(closed, Enter("eve", "eve", "player"), NOW)
    apply(closed, Enter("eve", "eve", "director"))  # the director enters anyone
    full = made(tuple(f"p{n}" for n in range(MAX_PLAYERS)))
    with pytest.raises(NotNow, match="full"):
        decide(full, Enter("one-more", "one-more", "director"), NOW)
    apply(closed, Start())
    with pytest.raises(NotNow, match="has started"):
        decide(closed, Enter("fay", "fay", "director"), NOW)


def test_a_start_needs_two_players_and_happens_once() -> None:
    with pytest.raises(NotNow, match="needs at least 2"):
        decide(made(("ann",)), Start(), NOW)
    t = started()
    assert t.status == RUNNING and len(t.rounds) == 3  # a round robin of 4: 3 rounds fixed at the start
    with pytest.raises(NotNow, match="already started"):
        decide(t, Start(), NOW)


def test_a_rating_seeding_orders_by_the_ratings_it_is_given_and_records_them() -> None:
    t = made(seeding="rating")
    decision = apply(t, Start({"cy": 1700.4, "bob": 1500.0, "ann": 1500.0}))
    start = decision.events[0]
    assert isinstance(start, TournamentStarted)
    assert t.players == ["cy", "ann", "bob", "di"]  # highest first; equal ratings keep the entry order
    assert start.ratings == {"cy": 1700, "ann": 1500, "bob": 1500, "di": 0}
    entry_order = started(seeding="rating")  # no ratings read: the entry order
    assert entry_order.players == list(PLAYERS)


# ---------------------------------------------------------------- rounds, results, the finish


def test_a_round_robin_opens_each_round_once_the_one_before_is_decided_then_finishes() -> None:
    t = started()
    opened = apply(t, Advance(SEED))
    assert opened.command_id == "round-1"
    (event,) = opened.events
    assert isinstance(event, RoundOpened) and event.round == 1
    assert event.matches == {s.key: scheduled_match_id(t.id, s) for s in t.round_slots(1)}
    assert decide(t, Advance(SEED), NOW).events == []  # round 1 is being played
    first = t.round_slots(1)[0]
    result = won(t, first, 1, (35, 0)).events[0]
    assert isinstance(result, ResultRecorded) and result.winner == first.black and result.reason == "played"
    assert won(t, first).events == []  # recorded once
    for number in (1, 2, 3):
        play_round(t, number)
        apply(t, Advance(SEED))
    assert t.status == FINISHED and t.server_seed == SEED.hex()


def test_a_scheduled_round_opens_at_its_start_time_and_not_before() -> None:
    at = NOW + timedelta(hours=1)
    t = started(round_starts=(at.isoformat(),))
    assert decide(t, Advance(SEED), NOW).events == []
    assert decide(t, Advance(SEED), at).command_id == "round-1"


def test_a_swiss_round_is_paired_from_the_results_when_it_opens() -> None:
    t = started(format=Format.SWISS, rounds=2)
    assert t.rounds == []  # nothing fixed at the start
    first = apply(t, Advance(SEED)).events
    assert [type(e) for e in first] == [RoundPaired, RoundOpened]
    play_round(t, 1)
    second = apply(t, Advance(SEED)).events
    assert [type(e) for e in second] == [RoundPaired, RoundOpened]
    winners = {s.result.winner for s in t.round_slots(1) if s.result is not None}
    assert any(set(s.seats) == winners for s in t.round_slots(2))  # the winners meet


def test_a_table_result_places_each_seat_and_a_seat_gone_before_it_sat_shares_the_last_place() -> None:
    players = tuple(f"p{n}" for n in range(6))
    t = started(players, format=Format.TABLES, rounds=1, table_size=3, placement_points=(2, 1, 0), ruleset="classic")
    apply(t, Advance(SEED))
    table = t.round_slots(1)[0]
    assert len(table.seats) == 3 and table.match is not None
    seated = (table.seats[0], table.seats[2])  # the middle seat withdrew before the table sat
    end = MatchEnd(1, (10, 0), seated, places=(2, 1))
    result = apply(t, RecordResult(table.match, end)).events[0]
    assert isinstance(result, ResultRecorded)
    assert result.places == (2, 3, 1) and result.scores == (10, 0, 0) and result.winner == table.seats[2]


def test_a_match_nobody_joined_is_a_double_forfeit() -> None:
    t = started()
    apply(t, Advance(SEED))
    slot = t.round_slots(1)[0]
    assert slot.match is not None
    result = apply(t, NoShow(slot.key, slot.match)).events[0]
    assert isinstance(result, ResultRecorded) and result.winner is None and result.reason == "no_show"
    assert decide(t, NoShow(slot.key, slot.match), NOW).events == []


# ---------------------------------------------------------------- withdrawals


def test_an_early_withdrawal_annuls_and_the_pairings_left_are_not_played() -> None:
    t = started()
    apply(t, Advance(SEED))
    (record,) = apply(t, Withdraw("ann", "ill")).events
    assert isinstance(record, PlayerWithdrew) and record.annulled and record.played == 0
    play_round(t, 1)  # ann's pairing is cancelled: the round is done without it
    opened = apply(t, Advance(SEED)).events[0]
    assert isinstance(opened, RoundOpened)
    assert all("ann" not in t.slots[key].seats for key in opened.matches)
    with pytest.raises(NotNow, match="already withdrawn"):
        decide(t, Withdraw("ann", "again"), NOW)
    with pytest.raises(PlayerNotFound):
        decide(t, Withdraw("zed", "who"), NOW)


def test_a_late_withdrawal_keeps_the_results_and_forfeits_the_rest_to_the_opponents() -> None:
    t = started()
    for number in (1, 2):
        apply(t, Advance(SEED))
        play_round(t, number)
    apply(t, Withdraw("ann", "left early"))
    assert t.withdrawn == {"ann": False}
    events = apply(t, Advance(SEED)).events
    opened = events[0]
    assert isinstance(opened, RoundOpened)
    forfeits = [e for e in events if isinstance(e, ResultRecorded)]
    (forfeit,) = forfeits
    slot = t.slots[forfeit.slot]
    assert "ann" in slot.seats and forfeit.slot not in opened.matches
    assert forfeit.winner == slot.others("ann")[0] and forfeit.reason == "withdrawal" and forfeit.match is None


def test_a_withdrawal_needs_a_running_tournament() -> None:
    with pytest.raises(NotNow, match="running"):
        decide(made(), Withdraw("ann", "x"), NOW)


# ---------------------------------------------------------------- disputes and rulings


def disputed(t: Tournament, player: str = "ann") -> tuple[str, Slot]:
    if t.opened == 0:
        apply(t, Advance(SEED))
    slot = next(s for s in t.round_slots(t.opened) if s.has(player))
    assert slot.match is not None
    (opened,) = apply(t, OpenDispute(slot.match, 3, slot.seats.index(player), player, "odd", 2)).events
    assert isinstance(opened, DisputeOpened)
    return opened.dispute, slot


def test_disputes_are_bounded_per_player_and_hold_the_finish() -> None:
    t = started(("ann", "bob"))
    dispute, slot = disputed(t)
    assert dispute == f"{t.id}-d1"
    assert slot.match is not None
    apply(t, OpenDispute(slot.match, 4, 0, "ann", "odder", 2))
    with pytest.raises(TooManyOpen):
        decide(t, OpenDispute(slot.match, 5, 0, "ann", "too many", 2), NOW)
    won(t, slot)
    assert decide(t, Advance(SEED), NOW).events == []  # two disputes wait for a ruling
    apply(t, Rule(dispute, "stands", "fine"))
    apply(t, Rule(f"{t.id}-d2", "stands", "fine too"))
    assert isinstance(apply(t, Advance(SEED)).events[0], TournamentFinished)
    with pytest.raises(NotNow, match="has ended"):
        decide(t, OpenDispute(slot.match, 1, 0, "ann", "late", 2), NOW)


def test_a_replay_ruling_names_the_new_match_and_a_second_one_is_refused() -> None:
    t = started(("ann", "bob"))
    dispute, slot = disputed(t)
    events = apply(t, Rule(dispute, "replay", "again", rule="D18")).events
    assert isinstance(events[0], DisputeRuled) and events[0].rule == "D18"
    replayed = events[1]
    assert isinstance(replayed, MatchReplayed) and replayed.new == scheduled_match_id(t.id, slot, 1)
    assert slot.match == replayed.new and slot.annulled == [replayed.old]
    with pytest.raises(NotNow, match="ruled already"):
        decide(t, Rule(dispute, "stands", "x"), NOW)
    old = OpenDispute(replayed.old, 2, 0, "ann", "the old one again", 5)  # a dispute of the annulled match
    second = apply(t, old).events[0]
    assert isinstance(second, DisputeOpened)
    with pytest.raises(NotNow, match="replayed already"):
        decide(t, Rule(second.dispute, "replay", "again?"), NOW)


def test_an_award_decides_a_finished_match_at_once_and_a_live_one_by_the_other_seats_forfeit() -> None:
    t = started(("ann", "bob"))
    dispute, slot = disputed(t)
    live = apply(t, Rule(dispute, "award", "to bob", seat=1, playing=True)).events
    assert [type(e) for e in live] == [DisputeRuled]  # the service forfeits seat 0; its end records it
    again, _ = disputed(t)
    over = apply(t, Rule(again, "award", "to bob", seat=1)).events
    result = over[1]
    assert isinstance(result, ResultRecorded)
    assert (result.winner, result.reason, result.forfeit) == (slot.seats[1], "ruling", True)


def test_a_ruling_is_checked_before_anything() -> None:
    t = started(("ann", "bob"))
    dispute, _ = disputed(t)
    with pytest.raises(DisputeNotFound):
        decide(t, Rule(f"{t.id}-d9", "stands", "x"), NOW)
    with pytest.raises(Malformed, match="decision"):
        decide(t, Rule(dispute, "maybe", "x"), NOW)
    with pytest.raises(Malformed, match="seat 0 to 1"):
        decide(t, Rule(dispute, "award", "x", seat=2), NOW)
    with pytest.raises(Malformed, match="only an award"):
        decide(t, Rule(dispute, "stands", "x", seat=0), NOW)
    with pytest.raises(Malformed, match="rulings"):
        decide(t, Rule(dispute, "stands", "x", rule="D99"), NOW)
    assert t.disputes[dispute].open


def test_an_award_at_a_table_in_play_puts_the_seat_first_and_the_rest_last() -> None:
    t = started(("ann", "bob", "cy"), format=Format.TABLES, rounds=1, table_size=3, ruleset="classic")
    dispute, slot = disputed(t)
    result = apply(t, Rule(dispute, "award", "to the last seat", seat=2, playing=True)).events[1]
    assert isinstance(result, ResultRecorded) and result.places == (3, 3, 1) and result.winner == slot.seats[2]


# ---------------------------------------------------------------- duplicate rounds


def test_a_duplicate_round_is_revealed_once_decided_before_the_next_opens() -> None:
    t = made(duplicate=True)
    apply(t, Enter("eve", "eve", "director", "eve's dice"))
    apply(t, Start())
    apply(t, Advance(SEED))
    play_round(t, 1)
    (revealed,) = apply(t, Advance(SEED)).events
    assert isinstance(revealed, DuplicateRevealed) and revealed.round == 1
    assert revealed.key == round_deal_key(SEED, 1, t.deal_entropies()).hex()
    assert "eve's dice" in t.deal_entropies()
    assert isinstance(apply(t, Advance(SEED)).events[0], RoundOpened)


# ---------------------------------------------------------------- the creation


def create(players: Sequence[str] = PLAYERS, **asked: Any) -> Decision:
    command = Create(
        name="club night",
        players=tuple(players),
        ruleset=RULESETS[asked.pop("ruleset", "uno-duo")],
        format=asked.pop("format", Format.ROUND_ROBIN),
        commitment="c" * 64,
        **asked,
    )
    return decide(Tournament("t_0123456789abcdef"), command, NOW)


def test_a_creation_is_the_first_event_with_what_the_format_fills_in() -> None:
    starts = (NOW + timedelta(hours=1), NOW + timedelta(hours=2))
    decision = create(
        (*PLAYERS, "eve", "fay"), ruleset="classic", format=Format.TABLES, rounds=2, table_size=3, round_starts=starts
    )
    assert decision.command_id == "create"
    [created] = decision.events
    assert isinstance(created, TournamentCreated)
    assert created.placement_points == (2, 1, 0)  # tables of three: k-1 ... 0 unless asked
    assert created.round_starts == ("2026-12-07T20:30:00.000000Z", "2026-12-07T21:30:00.000000Z")
    t = Tournament("t_0123456789abcdef")
    evolve(t, created, NOW.isoformat())
    assert t.players == [*PLAYERS, "eve", "fay"] and t.format is Format.TABLES and t.version == 1


@pytest.mark.parametrize(
    ("players", "asked", "words"),
    [
        (("ann",), {}, "needs 2 to 64 players, not 1"),
        (tuple(f"p{i}" for i in range(MAX_PLAYERS + 1)), {}, "not 65"),
        (PLAYERS, {"rounds": 3}, "a round_robin has its rounds from its players"),
        (PLAYERS, {"format": Format.TABLES, "rounds": 2, "table_size": 3}, "ruleset of 3 or more seats"),
    ],
)
def test_a_creation_that_makes_no_tournament_is_refused(
    players: tuple[str, ...], asked: dict[str, Any], words: str
) -> None:
    with pytest.raises(Malformed, match=words):
        create(players, **asked)


def test_an_open_tournament_may_be_made_empty_and_a_tournament_only_once() -> None:
    assert create((), open=True).events
    with pytest.raises(NotNow, match="exists already"):
        decide(made(), Create("again", PLAYERS, RULESETS["uno-duo"], Format.ROUND_ROBIN, "c" * 64), NOW)
