"""The Decider on a fold alone for the staged knockouts (server/tournaments/decide.py): a table
knockout and pools into a bracket, from their creation (what is refused, what is recorded) to
their final places."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.game.rulesets import RULESETS
from server.domain_errors import Malformed, NotNow
from server.tournaments.bracket_plan import PlaceOf
from server.tournaments.brackets import plan_of
from server.tournaments.decide import Advance, Create, Decision, MatchEnd, NoShow, RecordResult, Start, Withdraw, decide
from server.tournaments.knockouts import node_result, pool_standings_of, state
from server.tournaments.model import FINISHED, Format, Slot, SlotResult, Tournament, TournamentCreated, evolve
from server.tournaments.pools import pool_tables
from tests.profiles import examples
from tests.tournaments.test_decide import NOW, SEED, apply, made, won

FIELD = tuple(f"p{i:02d}" for i in range(1, 33))
FIELD_64 = tuple(f"p{i:02d}" for i in range(1, 65))


def create(players: Sequence[str] = FIELD, **asked: Any) -> Decision:
    command = Create(
        name="club night",
        players=tuple(players),
        ruleset=RULESETS[asked.pop("ruleset", "uno-duo")],
        format=asked.pop("format"),
        commitment="c" * 64,
        **asked,
    )
    return decide(Tournament("t_0123456789abcdef"), command, NOW)


def created(decision: Decision) -> TournamentCreated:
    [event] = decision.events
    assert isinstance(event, TournamentCreated)
    return event


def test_a_table_knockout_records_its_table_size_and_advance_two_unless_asked() -> None:
    event = created(create(ruleset="classic", format=Format.TABLE_KNOCKOUT, table_size=4))
    assert (event.table_size, event.advance, event.pool_format, event.bracket) == (4, 2, None, None)
    assert created(create(ruleset="classic", format=Format.TABLE_KNOCKOUT, table_size=6, advance=3)).advance == 3


def test_pools_record_their_settings_with_the_defaults_filled_in() -> None:
    event = created(create(FIELD[:16], format=Format.POOLS, pool_size=4))
    assert (event.pool_format, event.pool_size, event.advance, event.bracket, event.rounds) == (
        "round_robin",
        4,
        2,
        "single_elimination",
        None,
    )
    swiss = created(
        create(
            FIELD[:16], format=Format.POOLS, pool_size=4, pool_format="swiss", rounds=2, bracket="double_elimination"
        )
    )
    assert (swiss.pool_rounds, swiss.rounds, swiss.bracket) == (2, None, "double_elimination")


@pytest.mark.parametrize(
    ("players", "asked", "words"),
    [
        (FIELD, {"format": Format.TABLE_KNOCKOUT, "table_size": 4}, "ruleset of 3 or more seats"),
        (FIELD, {"ruleset": "classic", "format": Format.TABLE_KNOCKOUT}, "needs table_size: 3 to 10"),
        (
            FIELD,
            {"ruleset": "classic", "format": Format.TABLE_KNOCKOUT, "table_size": 4, "advance": 4},
            "advance: 1 to 3",
        ),
        (
            FIELD[:6],
            {"ruleset": "classic", "format": Format.TABLE_KNOCKOUT, "table_size": 4, "advance": 3},
            "nobody out",
        ),
        (FIELD, {"ruleset": "classic", "format": Format.TABLE_KNOCKOUT, "table_size": 4, "rounds": 3}, "rounds"),
        (FIELD, {"ruleset": "classic", "format": Format.TABLE_KNOCKOUT, "table_size": 4, "pool_size": 4}, "pool_size"),
        (FIELD, {"format": Format.POOLS, "pool_size": 4, "ruleset": "classic"}, "two-seat matches"),
        (FIELD, {"format": Format.POOLS}, "need pool_size"),
        (FIELD, {"format": Format.POOLS, "pool_size": 4, "advance": 4}, "advance: 1 to 3"),
        (FIELD, {"format": Format.POOLS, "pool_size": 4, "pool_format": "swiss"}, "Swiss pools need rounds"),
        (FIELD, {"format": Format.POOLS, "pool_size": 4, "rounds": 2}, "rounds is for Swiss pools"),
        (FIELD, {"format": Format.POOLS, "pool_size": 4, "bracket": "ladder"}, "bracket: single_elimination"),
        (FIELD, {"format": Format.POOLS, "pool_size": 4, "table_size": 4}, "table_size is for"),
        (FIELD[:4], {"format": Format.POOLS, "pool_size": 4}, "at least two pools"),
        (FIELD, {"format": Format.SWISS, "rounds": 3, "advance": 2}, "advance, pool_format, pool_size and bracket"),
        (FIELD, {"format": Format.ROUND_ROBIN, "pool_size": 4}, "are for table_knockout and pools"),
    ],
)
def test_a_creation_that_makes_no_staged_knockout_is_refused(
    players: tuple[str, ...], asked: dict[str, Any], words: str
) -> None:
    with pytest.raises(Malformed, match=words):
        create(players, **asked)


def test_an_open_table_knockout_is_checked_again_at_the_start_with_its_field() -> None:
    t = made(FIELD[:6], ruleset="classic", format=Format.TABLE_KNOCKOUT, table_size=4, advance=3, open=True)
    with pytest.raises(NotNow, match="nobody out"):
        apply(t, Start())
    pools = made(FIELD[:4], format=Format.POOLS, pool_size=4, advance=2, pool_format="round_robin", open=True)
    with pytest.raises(NotNow, match="at least two pools"):
        apply(pools, Start())


def test_an_open_pools_tournament_is_refused_what_no_field_could_play() -> None:
    with pytest.raises(Malformed, match="advance: 1 to 3"):
        create((), format=Format.POOLS, pool_size=4, advance=4, open=True)
    assert created(create((), format=Format.POOLS, pool_size=4, open=True)).pool_size == 4


def test_what_is_recorded_folds_back() -> None:
    t = Tournament("t_0123456789abcdef")
    evolve(t, created(create(FIELD[:16], format=Format.POOLS, pool_size=4, bracket="double_elimination")), "")
    assert (t.pool_format, t.pool_size, t.advance, t.bracket_format) == ("round_robin", 4, 2, "double_elimination")


# ---------------------------------------------------------------- played through on folds


def table_ends(t: Tournament, slot: Slot, rng: random.Random) -> None:
    """``slot``'s table ends: the players who sat (a withdrawn one did not) in a random order."""
    assert slot.match is not None
    seated = t.seated(slot)
    if len(slot.seats) == 2:  # a heads-up final
        apply(t, RecordResult(slot.match, MatchEnd(rng.randrange(2), (0, 500), tuple(slot.seats))))
        return
    order = list(range(len(seated)))
    rng.shuffle(order)
    places = tuple(order.index(i) + 1 for i in range(len(seated)))
    end = MatchEnd(places.index(1), tuple(100 * p for p in places), tuple(seated), places=places)
    apply(t, RecordResult(slot.match, end))


def run(t: Tournament, rng: random.Random, *, withdraw: str | None = None, before_round: int = 0) -> list[list[Slot]]:
    """Advance and end every match as the service would, until the finish; ``withdraw`` leaves
    before round ``before_round`` opens. The rounds' slots, in order."""
    for _ in range(100):
        if withdraw is not None and t.opened + 1 == before_round and withdraw not in t.withdrawn:
            apply(t, Withdraw(withdraw, "went home"))
        apply(t, Advance(SEED))
        if t.status == FINISHED:
            return [t.round_slots(n) for n in range(1, t.opened + 1)]
        for slot in t.round_slots(t.opened):
            if t.done(slot):
                continue
            if t.two_seats:
                won(t, slot, seat=rng.randrange(2))
            else:
                table_ends(t, slot, rng)
    raise AssertionError("never finished")


def test_thirty_two_at_tables_of_four_play_down_to_a_final_table_that_ranks_the_top() -> None:
    t = made(FIELD, ruleset="classic", format=Format.TABLE_KNOCKOUT, table_size=4, advance=2)
    apply(t, Start())
    assert t.rounds_planned == 4
    rounds = run(t, random.Random(7))
    assert [len(r) for r in rounds] == [8, 4, 2, 1]
    assert all(len(s.seats) == 4 for r in rounds for s in r)
    assert [s.node for s in rounds[0]] == [f"T1-{i}" for i in range(1, 9)] and rounds[3][0].node == "F"
    places = state(t).places
    assert places is not None and sorted(places) == sorted(FIELD)
    final = rounds[3][0]
    assert final.result is not None and final.result.places is not None
    assert [places[p] for p in final.seats] == list(final.result.places)  # the final table's places are 1..4
    assert Counter(places.values()) == {1: 1, 2: 1, 3: 1, 4: 1, 5: 2, 7: 2, 9: 4, 13: 4, 17: 8, 25: 8}
    for earlier, later in itertools.pairwise(rounds):  # exactly the top 2 of each table go on, nobody else
        went_on = {p for s in earlier for p, place in zip(s.seats, s.result.places or (), strict=True) if place <= 2}
        assert {p for s in later for p in s.seats} == went_on


def sixteen_after_round_one(rng: random.Random) -> Tournament:
    """16 at tables of 4, the top 2 going on, with round 1 played."""
    t = made(FIELD[:16], ruleset="classic", format=Format.TABLE_KNOCKOUT, table_size=4, advance=2)
    apply(t, Start())
    apply(t, Advance(SEED))
    for slot in t.round_slots(1):
        table_ends(t, slot, rng)
    return t


def test_a_player_who_withdraws_sits_no_more_and_is_last_at_the_table_he_left() -> None:
    rng = random.Random(3)
    t = sixteen_after_round_one(rng)
    first = t.round_slots(1)[0]
    assert first.result is not None and first.result.places is not None
    qualifier = first.seats[first.result.places.index(1)]  # the winner of table 1
    rounds = [t.round_slots(1), *run(t, rng, withdraw=qualifier, before_round=2)[1:]]
    table = next(s for s in rounds[1] if qualifier in s.seats)
    assert table.result is not None and table.result.places is not None
    assert table.result.places[table.seats.index(qualifier)] == 4  # last at his table of round 2
    assert all(qualifier not in s.seats for r in rounds[2:] for s in r)
    places = state(t).places
    assert places is not None and places[qualifier] == 7  # tied with the other 4th of round 2 (5, 5, 7, 7)


def pools_started(players: int, pool_format: str, bracket: str, **asked: Any) -> Tournament:
    """Pools (of 4 unless asked), the top 2 of each going on, started."""
    asked.setdefault("pool_size", 4)
    t = made(FIELD[:players], format=Format.POOLS, advance=2, pool_format=pool_format, bracket=bracket, **asked)
    apply(t, Start())
    return t


def test_sixteen_in_pools_of_four_play_their_round_robins_then_an_eight_bracket_seeded_across_pools() -> None:
    t = pools_started(16, "round_robin", "single_elimination")
    assert t.rounds_planned == 3 + 3
    rounds = run(t, random.Random(11))
    assert [len(r) for r in rounds] == [8, 8, 8, 4, 2, 1]
    pool = {
        p: f"pool-{'ABCD'[i]}" for i, members in enumerate(plan_of(t).pools) for p in (t.players[j] for j in members)
    }
    for r in rounds[:3]:
        for s in r:
            assert s.node == pool[s.white] == pool[s.black]
    met = Counter(frozenset(s.seats) for r in rounds[:3] for s in r)
    assert len(met) == 4 * 6 and set(met.values()) == {1}  # every pool a full round robin
    standings = pool_standings_of(t, SEED)
    assert standings is not None
    winners = {ranked[0]: q for q, ranked in standings.items()}
    runners_up = {ranked[1]: q for q, ranked in standings.items()}
    for s in rounds[3]:  # a pool winner meets another pool's runner-up first
        assert s.white in winners and s.black in runners_up and winners[s.white] != runners_up[s.black]
    places = state(t, standings).places
    assert places is not None and sorted(places) == sorted(FIELD[:16])
    assert Counter(places.values()) == {1: 1, 2: 1, 3: 2, 5: 4, 9: 4, 13: 4}
    assert {places[ranked[2]] for ranked in standings.values()} == {9}


def test_swiss_pools_pair_each_pool_round_by_round_into_a_double_elimination() -> None:
    t = pools_started(12, "swiss", "double_elimination", pool_rounds=2)
    rounds = run(t, random.Random(5))
    assert [len(r) for r in rounds[:2]] == [6, 6]
    assert all(s.node is not None and s.node.startswith("pool-") for r in rounds[:2] for s in r)
    assert all(s.node is not None and not s.node.startswith("pool-") for r in rounds[2:] for s in r)
    places = state(t, pool_standings_of(t, SEED)).places
    assert places is not None and sorted(places) == sorted(FIELD[:12])
    assert {places[p] for p in places if places[p] > 6} == {7, 10}  # three 3rds, three 4ths


def test_equal_places_at_a_table_go_by_seat_order_the_better_seed_first() -> None:
    slot = Slot("1.1", 1, 1, ("p9", "p1", "p5", "p3"), node="T1-1")
    slot.result = SlotResult(
        winner="p1", scores=(0, 120, 0, 0), forfeit=False, reason="played", match="m", places=(2, 1, 2, 2)
    )
    assert node_result(slot) == ("p1", "p9", "p5", "p3")


def test_more_start_times_than_the_plans_rounds_are_refused_at_the_start_of_an_open_one() -> None:
    starts = tuple(f"2026-12-0{d}T19:30:00+00:00" for d in range(1, 6))
    t = made(
        FIELD[:16],
        ruleset="classic",
        format=Format.TABLE_KNOCKOUT,
        table_size=4,
        advance=2,
        open=True,
        round_starts=starts,
    )
    with pytest.raises(NotNow, match="5 start times for 3 rounds"):  # 16 at tables of 4: 4 tables, 2, the final
        apply(t, Start())


@settings(max_examples=examples(60))
@given(
    st.sampled_from(["table_knockout", "pools_rr", "pools_swiss_de"]),
    st.integers(5, 40),
    st.integers(0, 2**32 - 1),
    st.floats(0, 0.15),
)
def test_any_field_with_withdrawals_and_no_shows_finishes_with_everyone_placed_and_nobody_seated_after_going_out(
    kind: str, players: int, lot: int, leave_rate: float
) -> None:
    field = FIELD_64[:players]
    if kind == "table_knockout":
        t = made(field, ruleset="classic", format=Format.TABLE_KNOCKOUT, table_size=4, advance=2)
    elif kind == "pools_rr":
        t = made(
            field, format=Format.POOLS, pool_size=4, advance=2, pool_format="round_robin", bracket="single_elimination"
        )
    else:
        t = made(
            field,
            format=Format.POOLS,
            pool_size=5,
            advance=2,
            pool_format="swiss",
            pool_rounds=2,
            bracket="double_elimination",
        )
    try:
        apply(t, Start())
    except NotNow:  # a field that makes no pools (one pool, a pool of 2)
        assume(False)
    rng = random.Random(lot)
    out: set[str] = set()
    for _ in range(200):
        apply(t, Advance(SEED))
        if t.status == FINISHED:
            break
        for slot in t.round_slots(t.opened):
            if slot.node is not None and not slot.node.startswith("pool-"):
                assert not set(slot.seats) & out, (slot.node, set(slot.seats) & out)  # nobody sits after going out
            if t.done(slot):
                continue
            if t.two_seats and rng.random() < leave_rate:
                assert slot.match is not None
                apply(t, NoShow(slot.key, slot.match))
            elif t.two_seats:
                won(t, slot, seat=rng.randrange(2))
            else:
                table_ends(t, slot, rng)
            if rng.random() < leave_rate:
                staying = [p for p in t.players if p not in t.withdrawn]
                apply(t, Withdraw(rng.choice(staying), "went home"))
        out = gone_out(t)
    assert t.status == FINISHED
    places = state(t, pool_standings_of(t, SEED)).places
    assert places is not None and sorted(places) == sorted(field)
    assert min(places.values()) == 1


def gone_out(t: Tournament) -> set[str]:
    """Who can sit at no later node: everyone whose last decided node did not send them on."""
    resolution = state(t, pool_standings_of(t, SEED))
    fed: set[str] = set()  # players a node not yet decided is waiting for, or seats
    for s in resolution.nodes.values():
        if s.status in ("waiting", "ready"):
            fed.update(p for p in s.seats if p is not None)
    sent_on: set[str] = set()
    plan = plan_of(t)
    for node in plan.nodes:
        for source in node.sources:
            if isinstance(source, PlaceOf):
                before = resolution.nodes[source.node]
                if before.status in ("decided", "walkover") and source.place <= len(before.places):
                    who = before.places[source.place - 1]
                    if who is not None:
                        sent_on.add(who)
    played = {p for s in resolution.nodes.values() if s.status in ("decided", "walkover") for p in s.entrants}
    return played - sent_on - fed


def test_a_swiss_pool_of_odd_size_gives_a_bye_a_round_worth_a_point_in_its_standings() -> None:
    t = pools_started(10, "swiss", "single_elimination", pool_size=5, pool_rounds=2)
    rounds = run(t, random.Random(2))
    assert [len(r) for r in rounds[:2]] == [4, 4]  # two pools of 5: two boards each, one player resting
    plan = plan_of(t)
    for table in pool_tables(t, plan, "swiss", SEED):
        rows = {r.player: r for r in table.rows}
        assert sum(r.byes for r in rows.values()) == 2  # one a round, never twice to one player
        assert max(r.byes for r in rows.values()) == 1
        assert all(r.tiebreaks["score"] == r.won + r.byes for r in rows.values())


def test_players_who_withdrew_before_their_table_never_go_on_from_it_even_when_too_few_are_left() -> None:
    rng = random.Random(4)
    t = sixteen_after_round_one(rng)
    table = state(t).nodes["T2-1"]  # who round 2's first table will seat
    leaving = [p for p in table.seats if p is not None][1:]  # all but one of them go home
    for player in leaving:
        apply(t, Withdraw(player, "went home"))
    rounds = [t.round_slots(1), *run(t, rng)[1:]]
    first = next(s for s in rounds[1] if s.node == "T2-1")
    assert first.result is not None and first.result.forfeit  # one left: the table is his without a match
    final = rounds[-1][0]
    assert final.node == "F" and not set(final.seats) & set(leaving)  # nobody who left goes on
    assert len(final.seats) == 3  # T2-1's second place went to nobody
    places = state(t).places
    # 1-3 at the final of three, T2-2's 3rd 4th; then every 4th of round 2: T2-2's and those who left T2-1
    assert places is not None and {places[p] for p in leaving} == {5}
    assert sorted(places.values())[:8] == [1, 2, 3, 4, 5, 5, 5, 5]
