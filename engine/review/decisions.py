"""The decisions of one seat in a finished match: the moment, the options it had, the choice.

A decision is a ``command`` event the seat sent (a draft pick, a play, a draw, a pass, a dump,
a challenge or an accept, a colour, UNO). The options are the seat's legal actions in the state
before it (``engine.game.legal``), which depend only on what the seat holds and what the table
shows. Moves the server made for the seat (``timed_out``) are not the seat's decisions.

The true state travels with each decision only so that the estimator can build the seat's
knowledge from it (``engine.review.knowledge``); nothing else reads its hidden parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.game.commands import Dump, Play, SeatAction, format_action, parse_action
from engine.game.errors import CommandRefused
from engine.game.events import Event, EventType
from engine.game.evolve import evolve
from engine.game.legal import legal_actions
from engine.game.state import INITIAL_STATE, MatchState
from engine.record.jsonfmt import compact


@dataclass(frozen=True, slots=True)
class Decision:
    """One choice of ``seat``: event ``seq`` (1-based, the replay's numbering) in ``round``."""

    seq: int
    seat: int
    round: int
    kind: str  # the pending decision's kind (draft, turn, drawn, volley, wild_draw_four, dump, color) or "uno"
    options: tuple[SeatAction, ...]
    chosen: SeatAction
    state: MatchState  # the whole state before the choice; read only through engine.review.knowledge

    @property
    def forced(self) -> bool:
        """One option only: nothing to review."""
        return len(self.options) < 2


def option_key(action: SeatAction) -> str:
    """An option's canonical JSON text: the key every estimate and report uses."""
    return compact(format_action(_bare(action)))


def _bare(action: SeatAction) -> SeatAction:
    """The action without its UNO flag: saying UNO with a play is reviewed as the play (the
    window it opens is settled by the ``uno`` command or a catch, both decisions of their own)."""
    if isinstance(action, Play | Dump) and action.uno:
        return replace(action, uno=False)
    return action


def decisions_of(events: Sequence[Event], seat: int) -> list[Decision]:
    """Every decision ``seat`` made, in order (forced ones included, marked by :attr:`Decision.forced`)."""
    out: list[Decision] = []
    state = INITIAL_STATE
    for seq, event in enumerate(events, start=1):
        if event.type == EventType.COMMAND and event.data.get("seat") == seat:
            decision = _decision(state, seq, seat, event.data.get("command"))
            if decision is not None:
                out.append(decision)
        state = evolve(state, event)
    return out


def _decision(state: MatchState, seq: int, seat: int, command: object) -> Decision | None:
    try:
        chosen = _bare(parse_action(command))
    except CommandRefused:
        return None  # not a seat action the engine knows: nothing to review (never in a verified replay)
    options: list[SeatAction] = []
    seen: set[str] = set()
    for action in legal_actions(state, seat):
        key = option_key(action)
        if key not in seen:
            seen.add(key)
            options.append(_bare(action))
    if option_key(chosen) not in seen:
        return None  # a refused command recorded nowhere; a verified replay never holds one
    kind = "uno" if chosen.type == "uno" else state.pending.kind.value
    return Decision(seq, seat, state.round, kind, tuple(options), chosen, state)
