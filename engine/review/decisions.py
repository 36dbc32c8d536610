"""The decisions of one seat in a finished match: the moment, what the seat knew, its options, its choice.

A decision is a ``command`` event the seat sent (a draft pick, a play, a draw, a pass, a dump,
a challenge or an accept, a colour, UNO). What the seat knew then is folded from the events *as
that seat received them* (``engine.search.knowledge.SeatFold``, which filters every event with
``engine.record.sealing.seen_by``), plus the one thing its view showed that no event before the
choice carries: the card it looked at in a draft step (D3), which the seat's own ``drafted``
event states right after (its ``hand_code`` if it kept it, else the public ``pile_code``). The
options are the seat's legal actions in any state consistent with that knowledge (they depend
only on its own hand and the table), less a bluffed Wild Draw Four the seat did not play
(:func:`bluff`). Nothing here reads a field the seat could not open, so a
review is a function of the seat's own stream. Moves the server made for the seat (``timed_out``)
are not its decisions.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.game.cards import Rank
from engine.game.commands import Dump, Play, SeatAction, format_action, parse_action
from engine.game.errors import CommandRefused
from engine.game.events import Event, EventType
from engine.game.legal import legal_actions
from engine.game.rules import wild_draw_four_breaks_rule
from engine.game.rulesets import WildDrawFourCheck
from engine.game.state import MatchState, PendingKind
from engine.record.jsonfmt import compact
from engine.record.sealing import seen_by
from engine.search.knowledge import SeatFold, SeatKnowledge, determinize


@dataclass(frozen=True, slots=True)
class Decision:
    """One choice of ``seat``: event ``seq`` (1-based, the replay's numbering) in ``round``."""

    seq: int
    seat: int
    round: int
    kind: str  # the pending decision's kind (draft, turn, drawn, volley, wild_draw_four, dump, color) or "uno"
    options: tuple[SeatAction, ...]
    chosen: SeatAction
    knowledge: SeatKnowledge  # what the seat knew just before it chose
    commitment: str  # the match's public commitment (its first event): what seeds the review

    @property
    def forced(self) -> bool:
        """One option only: nothing to review."""
        return len(self.options) < 2


def option_key(action: SeatAction) -> str:
    """An option's canonical JSON text: the key every estimate and report uses."""
    return compact(format_action(bare(action)))


def bare(action: SeatAction) -> SeatAction:
    """The action without its UNO flag: saying UNO with a play is reviewed as the play (the
    estimator always says it when a play leaves one card; the ``uno`` command is a decision of its own)."""
    if isinstance(action, Play | Dump) and action.uno:
        return replace(action, uno=False)
    return action


def bluff(state: MatchState, seat: int, action: SeatAction) -> bool:
    """A Wild Draw Four the seat's hand makes illegal where it may be challenged (D13). Such an
    option is not offered as a better one: the playouts never challenge, so they would not see
    its cost (the coach leaves it out of its search for the same reason)."""
    if state.ruleset.wd4_check is not WildDrawFourCheck.CHALLENGE or not isinstance(action, Play):
        return False
    if action.card.rank is not Rank.WILD_DRAW_FOUR:
        return False
    card_id = next(i for i in state.hands[seat] if state.deck[i] == action.card)
    return wild_draw_four_breaks_rule(state, seat, card_id)


def decisions_of(events: Sequence[Event], seat: int) -> list[Decision]:
    """Every decision ``seat`` made, in order (forced ones included, marked by :attr:`Decision.forced`)."""
    out: list[Decision] = []
    fold = SeatFold(seat)
    commitment = str(events[0].data.get("commitment", "")) if events else ""
    for index, event in enumerate(events):
        if event.type == EventType.COMMAND and event.data.get("seat") == seat:
            decision = _decision(fold, events, index, seat, commitment)
            if decision is not None:
                out.append(decision)
        fold.see(event)
    return out


def _looked_at(events: Sequence[Event], index: int, seat: int) -> str | None:
    """The draft card the seat looked at before command ``index``, as its own ``drafted`` event says."""
    for event in events[index + 1 :]:
        if event.type in (EventType.DRAFTED,):
            data = seen_by(event.type, event.data, seat)
            code = data.get("hand_code") if data.get("keep") else data.get("pile_code")
            return code if isinstance(code, str) else None
        if event.type == EventType.COMMAND:
            break
    return None


def _decision(fold: SeatFold, events: Sequence[Event], index: int, seat: int, commitment: str) -> Decision | None:
    try:
        chosen = bare(parse_action(events[index].data.get("command")))
    except CommandRefused:
        return None  # not a seat action the engine knows (never in a verified replay)
    pending = fold.picture.pending
    drafting = pending.kind is PendingKind.DRAFT and pending.seat == seat
    knowledge = fold.knowledge(_looked_at(events, index, seat) if drafting else None)
    probe = determinize(knowledge, random.Random(0))  # any consistent state: the seat's options are the same in all
    options: list[SeatAction] = []
    seen: set[str] = set()
    chosen_key = option_key(chosen)
    for action in legal_actions(probe, seat):
        key = option_key(action)
        if key not in seen:
            seen.add(key)
            if key == chosen_key or not bluff(probe, seat, action):
                options.append(bare(action))
    if chosen_key not in seen:
        return None  # a command the rules refused is recorded nowhere; a verified replay never holds one
    kind = "uno" if chosen.type == "uno" else pending.kind.value
    return Decision(index + 1, seat, knowledge.picture.round, kind, tuple(options), chosen, knowledge, commitment)
