"""The Decider on a fold alone for the staged knockouts (server/tournaments/decide.py): a table
knockout and pools into a bracket, from their creation (what is refused, what is recorded) to
their final places."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from engine.game.rulesets import RULESETS
from server.domain_errors import Malformed, NotNow
from server.tournaments.decide import Create, Decision, Start, decide
from server.tournaments.model import Format, Tournament, TournamentCreated, evolve
from tests.tournaments.test_decide import NOW, apply, made

FIELD = tuple(f"p{i:02d}" for i in range(1, 33))


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
