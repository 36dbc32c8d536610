"""The tournaments' process manager reads how a match ended from the match's own events
(server/services/tournament_manager.py, ``MatchEnding``): the same result the live match's state
gives, at two seats and at a table, played out or forfeited."""

from __future__ import annotations

import dataclasses
import random
from types import SimpleNamespace

from engine.bots import get_bot
from engine.game.commands import Forfeit
from engine.game.events import EventType
from engine.game.rulesets import get_ruleset
from engine.game.state import Phase
from engine.play.match import LocalMatch
from server.services.tournament_manager import MatchEnding
from server.tournaments.decide import MatchEnd


def played_out(match: LocalMatch, seed: int) -> None:
    """Greedy bots play ``match`` to its end."""
    rng = random.Random(seed)
    bot = get_bot("greedy")
    while match.state.phase is not Phase.MATCH_OVER:
        seat = match.state.pending.seat
        assert seat is not None
        match.act(seat, bot.choose(match.view(seat), rng))


def ending_of(match: LocalMatch) -> list[MatchEnd | None]:
    """What MatchEnding answers at each event of ``match``."""
    ending = MatchEnding()
    return [ending.read(SimpleNamespace(type=e.type, data=e.data)) for e in match.events]  # type: ignore[arg-type]


def test_a_match_played_out_ends_as_its_state_says_and_only_at_its_last_event() -> None:
    match = LocalMatch.start(b"m" * 32, dataclasses.replace(get_ruleset("uno-duo"), target=100))
    played_out(match, 1)
    answers = ending_of(match)
    assert match.events[-1].type == EventType.SEED_REVEALED
    assert all(a is None for a in answers[:-1])
    end = answers[-1]
    assert end is not None and end.forfeit is None and end.places is None
    assert (end.winner, end.scores) == (match.state.winner, tuple(match.state.scores))


def test_a_two_seat_forfeit_names_its_reason() -> None:
    match = LocalMatch.start(b"f" * 32)
    match.apply(Forfeit(0, "join_deadline"))
    end = ending_of(match)[-1]
    assert end is not None and (end.winner, end.forfeit) == (1, "join_deadline")


def test_a_table_where_a_seat_left_ends_with_its_places_and_no_forfeit_reason() -> None:
    ruleset = dataclasses.replace(get_ruleset("classic"), target=100)
    match = LocalMatch.start(b"t" * 32, ruleset, entropies=("", "", ""), seats=3)
    match.apply(Forfeit(1, "withdrawal"))  # the seat leaves; the other two play on
    played_out(match, 2)
    end = ending_of(match)[-1]
    assert end is not None and end.forfeit is None
    assert end.places is not None and len(end.places) == 3 and end.places[1] == 3
    assert end.scores == tuple(match.state.scores)
