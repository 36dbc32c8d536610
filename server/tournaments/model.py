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
from enum import StrEnum
from typing import Any, Final

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
    CREATED = "tournament_created"  # {name, players, ruleset, double, move_seconds, join_seconds, commitment}
    STARTED = "tournament_started"  # {rounds: [{number, pairings: [[white, black]…], bye}]}
    ROUND_OPENED = "round_opened"  # {round, matches: {slot: match id}}
    RESULT = "result_recorded"  # {slot, match, winner, scores, forfeit, reason}
    WITHDREW = "player_withdrew"  # {player, annulled, played, scheduled, note}
    DISPUTE_OPENED = "dispute_opened"  # {dispute, slot, match, seq, seat, player, note}
    DISPUTE_RULED = "dispute_ruled"  # {dispute, decision, seat, note, rule}
    MATCH_REPLAYED = "match_replayed"  # {slot, old, new}
    FINISHED = "tournament_finished"  # {server_seed}


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


# ---------------------------------------------------------------- the fold


def _rounds_of(data: Iterable[Mapping[str, Any]]) -> list[ScheduledRound]:
    return [
        ScheduledRound(
            number=r["number"], pairings=tuple(Pairing(white=w, black=b) for w, b in r["pairings"]), bye=r.get("bye")
        )
        for r in data
    ]


def evolve(t: Tournament, type_: str, data: Mapping[str, Any], at: str) -> None:
    """Apply one event to ``t`` in place (the fold owns its copy)."""
    t.version += 1
    if type_ == TournamentEventType.CREATED:
        t.name = data["name"]
        t.players = list(data["players"])
        t.ruleset = dict(data["ruleset"])
        t.double = bool(data["double"])
        t.move_seconds = int(data["move_seconds"])
        t.join_seconds = int(data["join_seconds"])
        t.commitment = data["commitment"]
        t.created_at = at
    elif type_ == TournamentEventType.STARTED:
        t.status = RUNNING
        t.rounds = _rounds_of(data["rounds"])
        for scheduled in t.rounds:
            for board, pairing in enumerate(scheduled.pairings, start=1):
                key = slot_key(scheduled.number, board)
                t.slots[key] = Slot(key, scheduled.number, board, pairing.white, pairing.black)
    elif type_ == TournamentEventType.ROUND_OPENED:
        t.opened = data["round"]
        t.opened_at[data["round"]] = at
        for key, match_id in data["matches"].items():
            t.slots[key].match = match_id
    elif type_ == TournamentEventType.RESULT:
        slot = t.slots[data["slot"]]
        slot.result = SlotResult(
            winner=data["winner"],
            scores=(data["scores"][0], data["scores"][1]),
            forfeit=bool(data["forfeit"]),
            reason=data["reason"],
            match=data.get("match"),
        )
    elif type_ == TournamentEventType.WITHDREW:
        t.withdrawn[data["player"]] = bool(data["annulled"])
    elif type_ == TournamentEventType.DISPUTE_OPENED:
        t.disputes[data["dispute"]] = Dispute(
            id=data["dispute"],
            slot=data["slot"],
            match=data["match"],
            seq=data["seq"],
            seat=data["seat"],
            player=data["player"],
            note=data["note"],
            at=at,
        )
    elif type_ == TournamentEventType.DISPUTE_RULED:
        dispute = t.disputes[data["dispute"]]
        dispute.decision = data["decision"]
        dispute.ruling_note = data["note"]
        dispute.award_to = data.get("seat")
        dispute.rule = data.get("rule")
        dispute.ruled_at = at
    elif type_ == TournamentEventType.MATCH_REPLAYED:
        slot = t.slots[data["slot"]]
        slot.annulled.append(data["old"])
        slot.match = data["new"]
        slot.result = None
    elif type_ == TournamentEventType.FINISHED:
        t.status = FINISHED
        t.server_seed = data["server_seed"]


def fold(tournament_id: str, events: Iterable[tuple[str, Mapping[str, Any], str]]) -> Tournament:
    """The tournament that ``(type, data, at)`` events make, in order."""
    t = Tournament(tournament_id)
    for type_, data, at in events:
        evolve(t, type_, data, at)
    return t
