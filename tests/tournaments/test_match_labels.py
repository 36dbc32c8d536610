"""A knockout pairing's label (issue 36.6: the lobby's "winners' round 2 vs bob"), on folds of the
Decider: every node of a double elimination of 8 named as the lobby says it, a single
elimination's last rounds by their usual names, and nothing outside a knockout."""

from __future__ import annotations

from server.tournaments.match_labels import slot_label
from server.tournaments.model import Format
from tests.tournaments.test_decide import started, won
from tests.tournaments.test_knockout_decide import advance, live, names


def test_every_pairing_of_a_double_elimination_is_named() -> None:
    t = started(names(8), format=Format.DOUBLE_ELIMINATION)
    seen: dict[str, str | None] = {}
    for _ in range(20):
        advance(t)
        slots = live(t)
        if not slots:
            break
        for slot in slots:
            assert slot.node is not None
            seen[slot.node] = slot_label(t, slot)
            won(t, slot, seat=1 if slot.node == "GF" else 0)  # the losers' side takes the grand final: a reset
    assert seen == {
        **{f"W1-{i}": "winners' round 1" for i in range(1, 5)},
        "W2-1": "winners' round 2",
        "W2-2": "winners' round 2",
        "W3-1": "winners' final",
        "L1-1": "losers' round 1",
        "L1-2": "losers' round 1",
        "L2-1": "losers' round 2",
        "L2-2": "losers' round 2",
        "L3-1": "losers' round 3",
        "L4-1": "losers' final",
        "GF": "grand final",
        "GF2": "grand final reset",
    }


def test_a_single_elimination_names_its_last_rounds() -> None:
    t = started(names(8), format=Format.SINGLE_ELIMINATION)
    labels = []
    for _ in range(5):
        advance(t)
        slots = live(t)
        if not slots:
            break
        labels.append(slot_label(t, slots[0]))
        for slot in slots:
            won(t, slot)
    assert labels == ["quarter-final", "semi-final", "final"]


def test_a_round_robin_has_no_label() -> None:
    t = started(names(4))
    advance(t)
    assert slot_label(t, t.round_slots(1)[0]) is None


def test_a_table_knockout_names_each_table_and_who_goes_on() -> None:
    from engine.game.bracket_words import NodeFacts, RoundNames
    from server.tournaments.table_knockout import plan

    tables = plan(16, 4, 2)
    words = RoundNames((NodeFacts(n.id, n.round, n.bracket) for n in tables.nodes), tables.advance)
    assert words.node_words("T1-3") == "round 1 table 3 — top 2 go on"
    assert words.node_words("T2-1") == "round 2 table 1 — top 2 go on"
    assert words.node_words("F") == "final table"


def test_pools_name_their_pool_then_the_bracket_its_rounds() -> None:
    t = started(names(8), format=Format.POOLS, pool_size=4)
    labels: list[set[str | None]] = []
    for _ in range(8):
        advance(t)
        slots = live(t)
        if not slots:
            break
        labels.append({slot_label(t, slot) for slot in slots})
        for slot in slots:
            won(t, slot)
    assert labels == [
        {"pool A round 1", "pool B round 1"},
        {"pool A round 2", "pool B round 2"},
        {"pool A round 3", "pool B round 3"},
        {"semi-final"},
        {"final"},
    ]


def test_what_comes_next_for_a_player_of_a_double_elimination() -> None:
    from server.tournaments.match_labels import coming_label
    from tests.tournaments.test_decide import SEED

    t = started(names(8), format=Format.DOUBLE_ELIMINATION)
    advance(t)
    first = live(t)[0]
    loser = first.seats[1]
    won(t, first)  # seat 0 wins: the other drops to the losers' bracket
    assert coming_label(t, first.seats[0], SEED) == (True, "winners' round 2")
    assert coming_label(t, loser, SEED) == (True, "losers' round 1")
    for slot in live(t):
        if slot.result is None:
            won(t, slot)
    advance(t)
    second_loss = next(s for s in live(t) if loser in s.seats)
    won(t, second_loss, seat=1 - second_loss.seats.index(loser))  # beaten twice: out
    assert coming_label(t, loser, SEED) == (False, None)


def test_a_pools_phase_names_the_pools_round_to_come() -> None:
    from server.tournaments.match_labels import coming_label
    from tests.tournaments.test_decide import SEED

    t = started(names(8), format=Format.POOLS, pool_size=4)
    advance(t)
    assert coming_label(t, t.players[0], SEED) == (True, "pool A round 2")
    assert coming_label(t, t.players[1], SEED) == (True, "pool B round 2")
