"""A match run in memory: state plus its event log, driven through the Decider.

Used by ``unoduo scenario``, self-play and tests; the server does the same with a store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.game.commands import Command, CreateMatch, JoinSeat, parse_seat_command
from engine.game.decide import decide_step
from engine.game.events import Event
from engine.game.rulesets import UNO_DUO, Ruleset
from engine.game.shuffle import Dealer, commitment_of
from engine.game.state import INITIAL_STATE, MatchState
from engine.protocol.views import Viewer, view


@dataclass
class LocalMatch:
    dealer: Dealer
    state: MatchState = INITIAL_STATE
    events: list[Event] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        server_seed: bytes,
        ruleset: Ruleset = UNO_DUO,
        entropies: tuple[str, ...] = ("", ""),
        dealer: Dealer | None = None,
        seats: int | None = None,
    ) -> LocalMatch:
        """Create the match and seat every player (``entropies`` one per seat: ``seats`` of them,
        two when None); round 1 is then waiting for its first decision."""
        match = cls(dealer=dealer or Dealer(server_seed))
        match.apply(CreateMatch(ruleset, commitment_of(server_seed), seats=seats))
        for seat, entropy in enumerate(entropies):
            match.apply(JoinSeat(seat, entropy))
        return match

    def apply(self, command: Command) -> list[Event]:
        """Decide and fold; raises CommandRefused (and changes nothing) on a refusal."""
        events, self.state = decide_step(self.state, command, self.dealer)
        self.events.extend(events)
        return events

    def act(self, seat: int, command: dict[str, Any]) -> list[Event]:
        return self.apply(parse_seat_command(seat, command))

    def view(self, viewer: Viewer) -> dict[str, Any]:
        return view(self.state, viewer)
