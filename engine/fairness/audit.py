"""Re-run a recorded match through the Decider: every decision must give back exactly its events.

The log is cut into batches at head events (``match_created``, ``seat_joined``, ``command``,
``timed_out``, ``forfeit_declared``, ``time_called``);
each head says which command produced the batch. With the revealed server seed, ``decide`` is
called again on the state folded so far and must return the recorded batch, event for event.
That re-derives every shuffle, verdict and score from the rules alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.game.commands import (
    CallTime,
    Command,
    CreateMatch,
    Forfeit,
    JoinSeat,
    SeatCommand,
    TimeOut,
    parse_action,
)
from engine.game.decide import decide
from engine.game.errors import CommandRefused, UnoDuoError
from engine.game.events import HEAD_TYPES, Event, EventType
from engine.game.evolve import evolve
from engine.game.rulesets import Ruleset
from engine.game.shuffle import Dealer
from engine.game.state import INITIAL_STATE, MatchState


@dataclass(frozen=True)
class Mismatch:
    """The first place where the log and the rules disagree; ``index`` counts events from 0."""

    index: int
    reason: str


def batches(events: Sequence[Event]) -> Iterator[tuple[int, list[Event]]]:
    """Yield (index of the head event, the batch) in order. Raises if the log starts mid-batch."""
    start = 0
    for index in range(1, len(events) + 1):
        if index == len(events) or events[index].type in HEAD_TYPES:
            if events[start].type not in HEAD_TYPES:
                raise UnoDuoError(f"event {start} ({events[start].type}) is not the head of a command")
            yield start, list(events[start:index])
            start = index


def command_of(head: Event) -> Command:
    """Rebuild the command a head event records."""
    data = head.data
    if head.type == EventType.MATCH_CREATED:
        names = data.get("names")
        return CreateMatch(
            Ruleset.from_record(data["ruleset"]),  # as recorded: a key it lacks reads as it was then
            data["commitment"],
            data.get("first_drafter"),
            tuple(names) if isinstance(names, list) else names,
            data.get("seats"),  # a table of 3 to 10 (classic); absent: two seats
            data.get("duplicate"),  # a duplicate round's match; absent: any other
        )
    if head.type == EventType.SEAT_JOINED:
        return JoinSeat(data["seat"], data["entropy"])
    if head.type == EventType.COMMAND:
        return SeatCommand(data["seat"], parse_action(data["command"]))
    if head.type == EventType.TIMED_OUT:
        return TimeOut(data["seat"])  # the re-run must give back its kind, action and count
    if head.type == EventType.FORFEIT_DECLARED:
        return Forfeit(data["seat"], data["reason"])
    if head.type == EventType.TIME_CALLED:
        return CallTime(data["moment"])
    raise UnoDuoError(f"{head.type} is not a head event")


def rerun(events: Sequence[Event], dealer: Dealer) -> Mismatch | None:
    """Re-decide every batch; return the first mismatch, or None when the whole log holds."""
    state: MatchState = INITIAL_STATE
    try:
        chunks = list(batches(events))
    except UnoDuoError as exc:
        return Mismatch(0, str(exc))
    for start, batch in chunks:
        try:
            command = command_of(batch[0])
            expected = decide(state, command, dealer)
        except CommandRefused as refusal:
            return Mismatch(start, f"the recorded command was not legal: {refusal.message} ({refusal.code.value})")
        except (UnoDuoError, KeyError, TypeError, ValueError) as exc:
            return Mismatch(start, f"cannot re-run this command: {exc}")
        for offset, (got, want) in enumerate(zip(batch, expected, strict=False)):
            if got != want:
                return Mismatch(
                    start + offset,
                    f"recorded {got.type} {got.data} but the rules give {want.type} {want.data}",
                )
        if len(batch) != len(expected):
            return Mismatch(
                start + min(len(batch), len(expected)),
                f"the command gives {len(expected)} events, the log holds {len(batch)}",
            )
        for event in batch:
            state = evolve(state, event)
    return None
