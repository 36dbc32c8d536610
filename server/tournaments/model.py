"""A tournament as the fold of its own stream ``tournament-<id>`` (docs/TOURNAMENTS.md).

Pure: no I/O. :func:`fold` turns the stream's events into a :class:`Tournament`; the questions
the service asks (which round is due, which pairings are open, what the withdrawal rule says,
the standings) are answered here from that fold alone, so every process and every restart
gets the same answers from the same events. Standings are never stored: they are computed.

Each pairing of the schedule is a :class:`Slot`, named ``"<round>.<board>"``. A slot holds the
match playing it (a ``replay`` ruling swaps in a new one) and, once decided, its result.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, ClassVar, Final

from engine.shuffle import shuffle_ids
from server.tournaments.schedule import Pairing, ScheduledRound
from server.tournaments.standings import Result, StandingRow, standings

TOURNAMENT_PREFIX: Final = "tournament-"
CREATED: Final = "created"
RUNNING: Final = "running"
FINISHED: Final = "finished"
DECISIONS: Final = ("stands", "replay", "award")
LOTS_LABEL: Final = "lots"


class TournamentEventType(StrEnum):
    CREATED = "tournament_created"
    STARTED = "tournament_started"
    ROUND_OPENED = "round_opened"
    RESULT = "result_recorded"
    WITHDREW = "player_withdrew"
    DISPUTE_OPENED = "dispute_opened"
    DISPUTE_RULED = "dispute_ruled"
    MATCH_REPLAYED = "match_replayed"
    FINISHED = "tournament_finished"
    ENTERED = "player_entered"
    LEFT = "player_left"


def tournament_stream(tournament_id: str) -> str:
    return f"{TOURNAMENT_PREFIX}{tournament_id}"


def slot_key(round_number: int, board: int) -> str:
    return f"{round_number}.{board}"


@dataclass(frozen=True)
class SlotResult:
    """How a pairing was decided: ``winner`` a player id (None: a double forfeit)."""

    winner: str | None
    scores: tuple[int, int]
    forfeit: bool
    reason: str  # "played", or the forfeit's: timeouts, join_deadline, withdrawal, ruling, no_show
    match: str | None  # the match that decided it; None when no match was played


@dataclass
class Slot:
    key: str
    round: int
    board: int
    white: str
    black: str
    match: str | None = None
    annulled: list[str] = field(default_factory=list)  # matches of this slot annulled by a replay ruling
    result: SlotResult | None = None

    def seat_of(self, player: str) -> int | None:
        return 0 if player == self.white else 1 if player == self.black else None

    def has(self, player: str) -> bool:
        return player in (self.white, self.black)


@dataclass
class Dispute:
    id: str
    slot: str
    match: str
    seq: int
    seat: int
    player: str
    note: str
    at: str
    decision: str | None = None
    ruling_note: str | None = None
    award_to: int | None = None
    rule: str | None = None
    ruled_at: str | None = None

    @property
    def open(self) -> bool:
        return self.decision is None


@dataclass
class Tournament:
    id: str
    name: str = ""
    players: list[str] = field(default_factory=list)
    open: bool = False  # players may enter (and leave) themselves until the start
    ruleset: dict[str, Any] = field(default_factory=dict)
    double: bool = False
    move_seconds: int = 60
    join_seconds: int = 300
    commitment: str = ""
    created_at: str = ""
    status: str = CREATED
    rounds: list[ScheduledRound] = field(default_factory=list)
    slots: dict[str, Slot] = field(default_factory=dict)
    opened: int = 0  # rounds opened so far
    opened_at: dict[int, str] = field(default_factory=dict)
    withdrawn: dict[str, bool] = field(default_factory=dict)  # player -> their results annulled
    disputes: dict[str, Dispute] = field(default_factory=dict)
    server_seed: str | None = None
    version: int = 0

    # ------------------------------------------------------------ reading the fold

    def replaced_by(self, match_id: str) -> str | None:
        """The match that replays ``match_id`` after a ``replay`` ruling (None: it was not replayed)."""
        for slot in self.slots.values():
            if match_id in slot.annulled:
                played = [*slot.annulled, slot.match]
                return played[played.index(match_id) + 1]
        return None

    def join_deadline(self, number: int) -> datetime | None:
        """When round ``number``'s seats must have joined (None: the round is not open)."""
        opened = self.opened_at.get(number)
        if opened is None:
            return None
        return datetime.fromisoformat(opened) + timedelta(seconds=self.join_seconds)

    def round_slots(self, number: int) -> list[Slot]:
        return [s for s in self.slots.values() if s.round == number]

    def slot_of_match(self, match_id: str) -> Slot | None:
        for slot in self.slots.values():
            if slot.match == match_id:
                return slot
        return None

    def cancelled(self, slot: Slot) -> bool:
        """A pairing with a player whose results were annulled by withdrawal is not played."""
        return self.withdrawn.get(slot.white, False) or self.withdrawn.get(slot.black, False)

    def done(self, slot: Slot) -> bool:
        return slot.result is not None or self.cancelled(slot)

    def round_done(self, number: int) -> bool:
        return all(self.done(s) for s in self.round_slots(number))

    def round_status(self, number: int) -> str:
        if number > self.opened:
            return "pending"
        return "finished" if self.round_done(number) else "running"

    def round_due(self) -> int | None:
        """The round to open now: round 1 at the start, round k+1 once every pairing of k ended."""
        if self.status != RUNNING or self.opened >= len(self.rounds):
            return None
        if self.opened == 0 or self.round_done(self.opened):
            return self.opened + 1
        return None

    def finish_due(self) -> bool:
        """Every round opened and every pairing decided, and no dispute waiting for a ruling."""
        return (
            self.status == RUNNING
            and self.opened == len(self.rounds)
            and all(self.done(s) for s in self.slots.values())
            and not any(d.open for d in self.disputes.values())
        )

    def open_slots(self) -> list[Slot]:
        """Pairings of opened rounds that a match is playing now (not decided, not cancelled)."""
        return [s for s in self.slots.values() if s.round <= self.opened and not self.done(s) and s.match is not None]

    def forfeits_due(self, number: int) -> list[tuple[Slot, str | None]]:
        """Round ``number``'s pairings with a withdrawn player (results kept): decided by forfeit
        without a match, the other player the winner (None: both withdrew)."""
        out: list[tuple[Slot, str | None]] = []
        for slot in self.round_slots(number):
            if self.cancelled(slot) or slot.result is not None:
                continue
            gone = [p for p in (slot.white, slot.black) if p in self.withdrawn]
            if gone:
                stays = [p for p in (slot.white, slot.black) if p not in self.withdrawn]
                out.append((slot, stays[0] if stays else None))
        return out

    def scheduled_of(self, player: str) -> list[Slot]:
        return [s for s in self.slots.values() if s.has(player)]

    def played_of(self, player: str) -> int:
        """Pairings of ``player`` decided so far (played or forfeited)."""
        return sum(1 for s in self.scheduled_of(player) if s.result is not None)

    def withdrawal_annuls(self, player: str) -> bool:
        """The published rule: fewer than half of one's matches played → every result annulled."""
        return 2 * self.played_of(player) < len(self.scheduled_of(player))

    def byes(self) -> dict[str, int]:
        counts = dict.fromkeys(self.players, 0)
        for scheduled in self.rounds[: self.opened]:
            if scheduled.bye is not None and not self.withdrawn.get(scheduled.bye, False):
                counts[scheduled.bye] += 1
        return counts

    def results(self) -> list[Result]:
        """The results that count: decided pairings, less those annulled by a withdrawal."""
        out: list[Result] = []
        for slot in self.slots.values():
            if slot.result is None or self.cancelled(slot):
                continue
            r = slot.result
            out.append(Result(slot.white, slot.black, r.winner, r.scores, r.forfeit))
        return out

    def lower_total_wins(self) -> bool:
        return bool(self.ruleset.get("scoring", "loser_scores") != "winner_scores")

    def standings(self, seed: bytes) -> list[StandingRow]:
        """The table; players whose results a withdrawal annulled come last, below everyone in
        play (``decided_by`` "withdrawal"), in lot order, with no result to their name."""
        out = [p for p in self.players if self.withdrawn.get(p, False)]
        staying = [p for p in self.players if p not in out]
        drawn = lots(seed, self.players)
        byes = self.byes()
        lower = self.lower_total_wins()
        rows = standings(
            staying,
            self.results(),
            {p: byes[p] for p in staying},
            [p for p in drawn if p in staying],
            lower_total_wins=lower,
        )
        tail = standings(out, [], {p: byes[p] for p in out}, [p for p in drawn if p in out], lower_total_wins=lower)
        if rows and tail:
            rows[-1] = replace(rows[-1], decided_by="withdrawal")
        return rows + [replace(r, rank=len(rows) + r.rank) for r in tail]


# ---------------------------------------------------------------- lots


def lots_key(seed: bytes) -> bytes:
    return hmac.new(seed, b"tournament:lots", hashlib.sha256).digest()


def lots(seed: bytes, players: Sequence[str]) -> list[str]:
    """The drawing of lots: the players in the order of ``shuffle(pairing numbers, "lots")`` under
    the tournament's seed (committed at creation, revealed at the end), first = best."""
    order = shuffle_ids(range(len(players)), lots_key(seed), LOTS_LABEL)
    return [players[i] for i in order]


# ---------------------------------------------------------------- the events, typed


@dataclass(frozen=True, slots=True)
class TournamentCreated:
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.CREATED

    name: str
    players: tuple[str, ...]
    ruleset: Mapping[str, Any]  # the ruleset's switches (``Ruleset.to_dict``)
    double: bool
    move_seconds: int
    join_seconds: int
    commitment: str  # to the tournament's seed (the lots), revealed by ``tournament_finished``
    open: bool = False  # players enter themselves until the start (``player_entered``, ``player_left``)

    def payload(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "players": list(self.players),
            "ruleset": dict(self.ruleset),
            "double": self.double,
            "move_seconds": self.move_seconds,
            "join_seconds": self.join_seconds,
            "commitment": self.commitment,
            "open": self.open,
        }

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> TournamentCreated:
        return cls(
            name=data["name"],
            players=tuple(data["players"]),
            ruleset=dict(data["ruleset"]),
            double=bool(data["double"]),
            move_seconds=int(data["move_seconds"]),
            join_seconds=int(data["join_seconds"]),
            commitment=data["commitment"],
            open=bool(data.get("open", False)),  # absent before open tournaments existed
        )


@dataclass(frozen=True, slots=True)
class PlayerEntered:
    """Before the start: ``player`` entered (themselves, or the director entered them: ``by``)."""

    TYPE: ClassVar[TournamentEventType] = TournamentEventType.ENTERED

    player: str
    by: str  # "player" (an open tournament's self-entry) or "director"

    def payload(self) -> dict[str, Any]:
        return {"player": self.player, "by": self.by}

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> PlayerEntered:
        return cls(player=data["player"], by=str(data.get("by", "director")))


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """Before the start: ``player`` left the tournament (themselves, or the director took them out: ``by``)."""

    TYPE: ClassVar[TournamentEventType] = TournamentEventType.LEFT

    player: str
    by: str

    def payload(self) -> dict[str, Any]:
        return {"player": self.player, "by": self.by}

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> PlayerLeft:
        return cls(player=data["player"], by=str(data.get("by", "director")))


@dataclass(frozen=True, slots=True)
class TournamentStarted:
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.STARTED

    rounds: tuple[ScheduledRound, ...]

    def payload(self) -> dict[str, Any]:
        return {
            "rounds": [
                {"number": r.number, "pairings": [[p.white, p.black] for p in r.pairings], "bye": r.bye}
                for r in self.rounds
            ]
        }

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> TournamentStarted:
        return cls(
            rounds=tuple(
                ScheduledRound(
                    number=r["number"],
                    pairings=tuple(Pairing(white=w, black=b) for w, b in r["pairings"]),
                    bye=r.get("bye"),
                )
                for r in data["rounds"]
            )
        )


@dataclass(frozen=True, slots=True)
class RoundOpened:
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.ROUND_OPENED

    round: int
    matches: Mapping[str, str]  # slot key -> the match playing it

    def payload(self) -> dict[str, Any]:
        return {"round": self.round, "matches": dict(self.matches)}

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> RoundOpened:
        return cls(round=data["round"], matches=dict(data["matches"]))


@dataclass(frozen=True, slots=True)
class ResultRecorded:
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.RESULT

    slot: str
    match: str | None  # None when no match was played (a forfeit by withdrawal)
    winner: str | None  # None: a double forfeit
    scores: tuple[int, int]
    forfeit: bool
    reason: str  # "played", or the forfeit's: timeouts, join_deadline, withdrawal, ruling, no_show

    def payload(self) -> dict[str, Any]:
        return {
            "slot": self.slot,
            "match": self.match,
            "winner": self.winner,
            "scores": list(self.scores),
            "forfeit": self.forfeit,
            "reason": self.reason,
        }

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> ResultRecorded:
        return cls(
            slot=data["slot"],
            match=data.get("match"),
            winner=data["winner"],
            scores=(data["scores"][0], data["scores"][1]),
            forfeit=bool(data["forfeit"]),
            reason=data["reason"],
        )


@dataclass(frozen=True, slots=True)
class PlayerWithdrew:
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.WITHDREW

    player: str
    annulled: bool  # their results annulled (fewer than half of their matches played)
    played: int
    scheduled: int
    note: str

    def payload(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "annulled": self.annulled,
            "played": self.played,
            "scheduled": self.scheduled,
            "note": self.note,
        }

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> PlayerWithdrew:
        return cls(
            player=data["player"],
            annulled=bool(data["annulled"]),
            played=int(data.get("played", 0)),
            scheduled=int(data.get("scheduled", 0)),
            note=str(data.get("note", "")),
        )


@dataclass(frozen=True, slots=True)
class DisputeOpened:
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.DISPUTE_OPENED

    dispute: str
    slot: str
    match: str
    seq: int
    seat: int
    player: str
    note: str

    def payload(self) -> dict[str, Any]:
        return {
            "dispute": self.dispute,
            "slot": self.slot,
            "match": self.match,
            "seq": self.seq,
            "seat": self.seat,
            "player": self.player,
            "note": self.note,
        }

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> DisputeOpened:
        return cls(
            dispute=data["dispute"],
            slot=data["slot"],
            match=data["match"],
            seq=data["seq"],
            seat=data["seat"],
            player=data["player"],
            note=data["note"],
        )


@dataclass(frozen=True, slots=True)
class DisputeRuled:
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.DISPUTE_RULED

    dispute: str
    decision: str  # one of DECISIONS
    seat: int | None  # an award's seat
    note: str
    rule: str | None  # the RULES.md ruling it rests on, if named

    def payload(self) -> dict[str, Any]:
        return {
            "dispute": self.dispute,
            "decision": self.decision,
            "seat": self.seat,
            "note": self.note,
            "rule": self.rule,
        }

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> DisputeRuled:
        return cls(
            dispute=data["dispute"],
            decision=data["decision"],
            seat=data.get("seat"),
            note=data["note"],
            rule=data.get("rule"),
        )


@dataclass(frozen=True, slots=True)
class MatchReplayed:
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.MATCH_REPLAYED

    slot: str
    old: str
    new: str

    def payload(self) -> dict[str, Any]:
        return {"slot": self.slot, "old": self.old, "new": self.new}

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> MatchReplayed:
        return cls(slot=data["slot"], old=data["old"], new=data["new"])


@dataclass(frozen=True, slots=True)
class TournamentFinished:
    TYPE: ClassVar[TournamentEventType] = TournamentEventType.FINISHED

    server_seed: str  # hex: the seed the creation committed to

    def payload(self) -> dict[str, Any]:
        return {"server_seed": self.server_seed}

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> TournamentFinished:
        return cls(server_seed=data["server_seed"])


TournamentEvent = (
    TournamentCreated
    | TournamentStarted
    | RoundOpened
    | ResultRecorded
    | PlayerWithdrew
    | DisputeOpened
    | DisputeRuled
    | MatchReplayed
    | TournamentFinished
    | PlayerEntered
    | PlayerLeft
)
EVENT_CLASSES: Final[dict[str, type[TournamentEvent]]] = {
    cls.TYPE.value: cls
    for cls in (
        TournamentCreated,
        TournamentStarted,
        RoundOpened,
        ResultRecorded,
        PlayerWithdrew,
        DisputeOpened,
        DisputeRuled,
        MatchReplayed,
        TournamentFinished,
        PlayerEntered,
        PlayerLeft,
    )
}


def parse_event(type_: str, data: Mapping[str, Any]) -> TournamentEvent:
    """A stored tournament event as its typed class (KeyError for a type no class has)."""
    return EVENT_CLASSES[type_].from_payload(data)


# ---------------------------------------------------------------- the fold


def evolve(t: Tournament, event: TournamentEvent, at: str) -> None:
    """Apply one event to ``t`` in place (the fold owns its copy)."""
    t.version += 1
    if isinstance(event, TournamentCreated):
        t.name = event.name
        t.players = list(event.players)
        t.ruleset = dict(event.ruleset)
        t.double = event.double
        t.move_seconds = event.move_seconds
        t.join_seconds = event.join_seconds
        t.commitment = event.commitment
        t.open = event.open
        t.created_at = at
    elif isinstance(event, PlayerEntered):
        if event.player not in t.players:
            t.players.append(event.player)
    elif isinstance(event, PlayerLeft):
        if event.player in t.players:
            t.players.remove(event.player)
    elif isinstance(event, TournamentStarted):
        t.status = RUNNING
        t.rounds = list(event.rounds)
        for scheduled in t.rounds:
            for board, pairing in enumerate(scheduled.pairings, start=1):
                key = slot_key(scheduled.number, board)
                t.slots[key] = Slot(key, scheduled.number, board, pairing.white, pairing.black)
    elif isinstance(event, RoundOpened):
        t.opened = event.round
        t.opened_at[event.round] = at
        for key, match_id in event.matches.items():
            t.slots[key].match = match_id
    elif isinstance(event, ResultRecorded):
        t.slots[event.slot].result = SlotResult(
            winner=event.winner, scores=event.scores, forfeit=event.forfeit, reason=event.reason, match=event.match
        )
    elif isinstance(event, PlayerWithdrew):
        t.withdrawn[event.player] = event.annulled
    elif isinstance(event, DisputeOpened):
        t.disputes[event.dispute] = Dispute(
            id=event.dispute,
            slot=event.slot,
            match=event.match,
            seq=event.seq,
            seat=event.seat,
            player=event.player,
            note=event.note,
            at=at,
        )
    elif isinstance(event, DisputeRuled):
        dispute = t.disputes[event.dispute]
        dispute.decision = event.decision
        dispute.ruling_note = event.note
        dispute.award_to = event.seat
        dispute.rule = event.rule
        dispute.ruled_at = at
    elif isinstance(event, MatchReplayed):
        slot = t.slots[event.slot]
        slot.annulled.append(event.old)
        slot.match = event.new
        slot.result = None
    elif isinstance(event, TournamentFinished):
        t.status = FINISHED
        t.server_seed = event.server_seed


def fold(tournament_id: str, events: Iterable[tuple[str, Mapping[str, Any], str]]) -> Tournament:
    """The tournament that ``(type, data, at)`` events make, in order."""
    t = Tournament(tournament_id)
    for type_, data, at in events:
        if type_ in EVENT_CLASSES:
            evolve(t, parse_event(type_, data), at)
        else:  # a type this code does not know (a newer server's): it changes nothing here
            t.version += 1
    return t
