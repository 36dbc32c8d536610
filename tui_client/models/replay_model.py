"""The replay scrubber's headless core: a verified replay folded once, and everything the screen
shows at any event, for any perspective. No Textual here: tests and tools drive it directly.

Everything is read off the replay with the engine's own functions: ``engine.fairness.verify`` checks it,
``engine.game.evolve`` folds it (every state is kept: a match is a few hundred to a few thousand
events, and a state shares its tuples with the one before), ``engine.protocol.views.view`` says what a
seat or the auditor sees, ``engine.record.sealing.may_open`` which sealed fields of an event a seat was
opened during play, and ``engine.fairness.audit_report`` what ``unoduo audit`` reports at a challenge.
A replay that fails verification is kept with its failure and is not folded: nothing in it can
be relied on, so it is not scrubbed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine.fairness.audit_report import ChallengeFacts, Table, challenges, full_events, table_of
from engine.fairness.verify import Report, verify_live_log, verify_replay
from engine.game.errors import ReplayUnreadable
from engine.game.events import Event, EventType
from engine.game.evolve import evolve
from engine.game.seat_names import names_of, seat_label, seat_names
from engine.game.state import INITIAL_STATE, MatchState
from engine.protocol.views import view
from engine.record.replay import parse_replay
from engine.record.sealing import AUDITOR, SPECTATOR, Viewer, may_open
from tui_client.models.narration import SEATS, Voice, describe, match_result

__all__ = [
    "PERSPECTIVES",
    "ChallengeAt",
    "Frame",
    "LogLine",
    "Mark",
    "MarkKind",
    "ReplayModel",
    "ReplayUnreadable",
    "RoundScore",
    "TimelineBar",
    "perspective_name",
    "perspectives_for",
]

PERSPECTIVES: tuple[Viewer, ...] = (AUDITOR, 0, 1)
"""The perspectives ``v`` cycles through at two seats, the first being where a replay opens: the
auditor (a finished match opens every seal), then what seat 0 and seat 1 saw during play. A
table of N seats has the auditor and every seat (:func:`perspectives_for`)."""


def perspectives_for(seats: int) -> tuple[Viewer, ...]:
    """The auditor, then seat 0 … seat N-1."""
    return (AUDITOR, *range(seats))


def perspective_name(viewer: Viewer) -> str:
    return f"seat {viewer}" if isinstance(viewer, int) else "audit" if viewer == AUDITOR else str(viewer)


class MarkKind(StrEnum):
    CHALLENGE = "challenge"  # a challenge_resolved
    VOLLEY = "volley"  # a seat faces a Draw Two volley (an awaiting of kind volley)
    UNO_CAUGHT = "uno_caught"
    ROUND_END = "round_end"


# The events whose words at a table of 3+ seats need the table just before them.
TABLE_WORDS = frozenset({EventType.CARD_PLAYED, EventType.STARTER_TURNED, EventType.MATCH_FORFEITED})

# When two marks fall on one column of the timeline, the first kind here is drawn.
MARK_PRIORITY: tuple[MarkKind, ...] = (MarkKind.CHALLENGE, MarkKind.UNO_CAUGHT, MarkKind.ROUND_END, MarkKind.VOLLEY)


@dataclass(frozen=True)
class Mark:
    seq: int
    kind: MarkKind
    label: str


@dataclass(frozen=True)
class RoundScore:
    round: int
    seq: int  # the round_ended
    scores: tuple[int, ...]  # cumulative, after the round, one per seat
    points: int
    winner: int | None


@dataclass(frozen=True)
class LogLine:
    seq: int
    text: str
    current: bool


@dataclass(frozen=True)
class ChallengeAt:
    """The challenge whose verdict or penalty the cursor is on, with the table at the verdict."""

    number: int  # from 1, as ``unoduo audit`` numbers them
    facts: ChallengeFacts
    table: Table  # engine.fairness.audit_report.table_at(events, facts.resolved_seq)
    span: tuple[int, int]  # first and last seq the audit panel is shown for
    hand_shown: (
        bool  # does this perspective see the challenged hand (engine.protocol.views: the challenger, an auditor)
    )
    hands_shown: tuple[bool, ...]  # which hands at the verdict this perspective sees, one per seat

    def draw_shown(self, seat: int) -> bool:
        return self.hands_shown[seat]


@dataclass(frozen=True)
class Frame:
    """Everything the scrubber shows just after event ``seq`` from ``viewer``'s perspective."""

    seq: int
    total: int
    viewer: Viewer
    event_type: str
    view: dict[str, Any]  # engine.protocol.views.view(state, viewer)
    log: list[LogLine]
    challenge: ChallengeAt | None
    round: int


class ReplayModel:
    """A replay read, verified and (if it verified) folded. ReplayUnreadable for text that is not
    a replay file of this version."""

    def __init__(
        self, text: str, source: str = "", *, live: tuple[dict[str, Any], list[dict[str, Any]]] | None = None
    ) -> None:
        self.source = source
        # live: a match not over yet, as (header, envelopes) an auditor received (from_live)
        self.live = live is not None
        if live is None:
            self.header, self.lines = parse_replay(text)
        else:
            self.header, envelopes = live
            self.lines = [{**e, "open": {k: o.get("value") for k, o in e["open"].items()}} for e in envelopes]
        self.names = seat_names(self.header, self.lines)
        # The log calls seats by the names the replay records; a replay without them, "seat 0".
        recorded = self.lines and self.lines[0].get("type") == EventType.MATCH_CREATED
        self.voice = Voice(None, self.names) if recorded and names_of(self.lines[0].get("data")) else SEATS
        self.rules: dict[str, Any] | None = None
        self.forfeit_seq: int | None = None  # the match_forfeited, if the match ended so
        self.verification: Report = verify_replay(text) if live is None else verify_live_log(live[1])
        self.events: list[Event] = []
        self.states: list[MatchState] = [INITIAL_STATE]  # states[seq]: just after event seq
        self.challenges: list[ChallengeFacts] = []
        self.marks: list[Mark] = []
        self.round_starts: list[tuple[int, int]] = []  # (round, seq of its first round_started)
        self.round_scores: list[RoundScore] = []
        self._spans: list[tuple[int, int]] = []
        self._tables: dict[int, Table] = {}
        if not self.verification.ok:
            return
        self.events = full_events(self.lines)
        for event in self.events:
            self.states.append(evolve(self.states[-1], event))
        self.challenges = challenges(self.events)
        self._spans = [self._span(c) for c in self.challenges]
        self._index()

    @classmethod
    def from_text(cls, text: str, source: str = "") -> ReplayModel:
        return cls(text, source)

    @classmethod
    def from_live(
        cls, match_id: str, envelopes: list[dict[str, Any]], players: list[str], source: str = ""
    ) -> ReplayModel:
        """A match not over yet, from its events as an auditor (the director) receives them: every
        ``open`` holding ``{value, salt}``. What can be checked before the seed is revealed is
        (engine.fairness.verify.verify_live_log); everything else is shown as for a replay.
        ReplayUnreadable for envelopes that are not objects with an ``open`` object."""
        if not all(isinstance(e, dict) and isinstance(e.get("open"), dict) for e in envelopes):
            raise ReplayUnreadable("the events are not envelopes with their openings")
        if not all(isinstance(o, dict) for e in envelopes for o in e["open"].values()):
            raise ReplayUnreadable("an opening is not {value, salt}")
        ruleset = ""
        if envelopes and isinstance(envelopes[0].get("data"), dict):
            ruleset = str((envelopes[0]["data"].get("ruleset") or {}).get("name") or "")
        header = {"match": match_id, "ruleset": ruleset, "players": players, "live": True}
        return cls("", source, live=(header, envelopes))

    # ------------------------------------------------------------ what the fold gives

    @property
    def ok(self) -> bool:
        return self.verification.ok

    @property
    def total(self) -> int:
        return len(self.events)

    @property
    def seats(self) -> int:
        """The table's seats (2 for uno-duo and classic-2p)."""
        return len(self.states[-1].hands) if self.events else max(2, len(self.names))

    @property
    def perspectives(self) -> tuple[Viewer, ...]:
        """What ``v`` cycles through: the auditor, then every seat."""
        return perspectives_for(self.seats)

    @property
    def players(self) -> list[str]:
        """The seats' names (engine.game.seat_names: recorded names, else the header's players)."""
        return [*self.names, *["?"] * self.seats][: self.seats]

    def seat_label(self, seat: int) -> str:
        """``seat 0 (ann)``."""
        return seat_label(self.names, seat)

    def result(self) -> str | None:
        """The match's result, winner first with the rule (``bob wins 31–229 (lowest total wins)``)."""
        ended = next((e for e in reversed(self.events) if e.type == EventType.MATCH_ENDED), None)
        if ended is None:
            return None
        return match_result(ended.data, self.voice, self.rules, forfeit=self.forfeit_seq is not None)

    def name(self, seat: int) -> str:
        """What the log calls ``seat``: its name, or ``seat N`` for a replay without names."""
        return self.voice.name(seat)

    @property
    def target(self) -> int:
        return self.states[-1].ruleset.target

    @property
    def scoring(self) -> str:
        return self.states[-1].ruleset.scoring.value

    def failure_words(self) -> str:
        v = self.verification
        if v.ok:
            return ""
        where = f"line {v.line}: " if v.line is not None else ""
        return f"NOT VERIFIED: {where}{v.failure}"

    def state(self, seq: int) -> MatchState:
        return self.states[self.clamp(seq)]

    def clamp(self, seq: int) -> int:
        return max(1, min(self.total, seq)) if self.total else 0

    def view_at(self, seq: int, viewer: Viewer) -> dict[str, Any]:
        return view(self.state(seq), viewer)

    def _index(self) -> None:
        number = 0
        leaving: int | None = None
        for seq, event in enumerate(self.events, start=1):
            data = event.data
            if event.type == EventType.MATCH_CREATED:
                self.rules = data.get("ruleset")
            elif event.type == EventType.MATCH_FORFEITED:
                leaving = seq  # at 3+ seats play may go on without it
            elif event.type == EventType.AWAITING:
                leaving = None
            elif event.type == EventType.MATCH_ENDED:
                self.forfeit_seq = leaving  # the match ended by a forfeit (in the same batch)
            if event.type == EventType.CHALLENGE_RESOLVED:
                number += 1
                self.marks.append(Mark(seq, MarkKind.CHALLENGE, f"challenge {number}: {data['verdict']}"))
            elif event.type == EventType.AWAITING and data.get("kind") == "volley":
                label = f"{self.voice.name(data['seat'])} faces a volley of {data.get('total')}"
                self.marks.append(Mark(seq, MarkKind.VOLLEY, label))
            elif event.type == EventType.UNO_CAUGHT:
                label = f"{self.voice.name(data['by'])} caught {self.voice.name(data['seat'])}"
                self.marks.append(Mark(seq, MarkKind.UNO_CAUGHT, label))
            elif event.type == EventType.ROUND_ENDED:
                self.marks.append(Mark(seq, MarkKind.ROUND_END, f"round {data['round']} ends"))
                scores = data["scores"]
                self.round_scores.append(
                    RoundScore(data["round"], seq, tuple(scores), data["points"], data.get("winner"))
                )
            elif event.type == EventType.ROUND_STARTED and (
                not self.round_starts or self.round_starts[-1][0] != data["round"]
            ):
                self.round_starts.append((data["round"], seq))

    def _span(self, c: ChallengeFacts) -> tuple[int, int]:
        """From the verdict to the last of its penalty draws (up to the next decision)."""
        end = c.resolved_seq
        while end < self.total and self.events[end].type not in (EventType.AWAITING, EventType.COMMAND):
            end += 1
        return c.resolved_seq, end

    # ------------------------------------------------------------ moving

    def next_round(self, seq: int) -> int:
        for _round, start in self.round_starts:
            if start > seq:
                return start
        return self.total

    def prev_round(self, seq: int) -> int:
        for _round, start in reversed(self.round_starts):
            if start < seq:
                return start
        return 1

    def next_challenge(self, seq: int) -> int | None:
        """The verdict of the next challenge after ``seq``; after the last, the first again."""
        if not self.challenges:
            return None
        for c in self.challenges:
            if c.resolved_seq > seq:
                return c.resolved_seq
        return self.challenges[0].resolved_seq

    def prev_challenge(self, seq: int) -> int | None:
        if not self.challenges:
            return None
        for c in reversed(self.challenges):
            if c.resolved_seq < seq:
                return c.resolved_seq
        return self.challenges[-1].resolved_seq

    def round_of(self, seq: int) -> int:
        return self.state(seq).round

    # ------------------------------------------------------------ perspective

    def visible_data(self, seq: int, viewer: Viewer) -> dict[str, Any]:
        """Event ``seq``'s data as ``viewer`` received it during play: its public fields, plus
        the sealed ones opened to it (engine.record.sealing.may_open)."""
        line = self.lines[seq - 1]
        public: dict[str, Any] = line["data"]
        opened = {k: v for k, v in line["open"].items() if may_open(line["type"], public, k, viewer)}
        return {**public, **opened}

    def challenge_at(self, seq: int, viewer: Viewer) -> ChallengeAt | None:
        for number, (c, span) in enumerate(zip(self.challenges, self._spans, strict=True), start=1):
            if span[0] <= seq <= span[1]:
                seen = view(self.states[c.resolved_seq], viewer).get("last_challenge") or {}
                everything = viewer == AUDITOR
                hands = tuple(everything or viewer == seat for seat in range(self.seats))
                return ChallengeAt(number, c, self.table(c.resolved_seq), span, seen.get("hand") is not None, hands)
        return None

    def table(self, seq: int) -> Table:
        """engine.fairness.audit_report's table just after event ``seq`` (as ``unoduo audit --at``), from
        the state already folded."""
        seq = self.clamp(seq)
        if seq not in self._tables:
            self._tables[seq] = table_of(self.states[seq], seq, str(self.lines[seq - 1]["type"]))
        return self._tables[seq]

    # ------------------------------------------------------------ in words

    def describe(self, seq: int, viewer: Viewer) -> str:
        """Event ``seq`` in plain words (``tui_client.models.narration``, seats by name), with only what
        ``viewer`` was shown, and what follows it where that says more (the awaiting after a Draw
        Two or a Wild Draw Four, the cards a challenge made someone draw)."""
        kind = str(self.lines[seq - 1]["type"])
        d = self.visible_data(seq, viewer)
        after = then = None
        answered: object = None
        if kind == EventType.CARD_PLAYED:
            code = str(d.get("code"))
            after = self._next_awaiting(seq) if code == "W+4" or code.endswith("+2") else None
        elif kind == EventType.CHALLENGE_RESOLVED and seq < self.total:
            following = self.lines[seq]
            then = following["data"] if following["type"] == EventType.CARDS_DRAWN else None
        elif kind == EventType.COMMAND:
            answered = self._answered(seq)
        words = describe(
            kind,
            d,
            self.voice,
            every=True,
            answered=answered,
            after=after,
            then=then,
            rules=self.rules,
            forfeit=self.forfeit_seq is not None and self.forfeit_seq < seq,
            table=self._table_before(seq, kind),
        )
        return words if words is not None else kind

    def _table_before(self, seq: int, kind: str) -> dict[str, Any] | None:
        """At a table of 3+ seats, the table just before a play, a starter or a seat leaving (its
        seats, direction, dealer, who has left): what says who a Skip skipped and where a
        Reverse turned. None otherwise (two seats: the next turn says it all)."""
        if self.seats <= 2 or kind not in TABLE_WORDS:
            return None
        return view(self.states[seq - 1], SPECTATOR)

    def _answered(self, seq: int) -> object:
        """The kind of decision the command at ``seq`` answered: the awaiting before it."""
        for line in reversed(self.lines[: seq - 1]):
            if line["type"] == EventType.AWAITING:
                return line["data"].get("kind")
        return None

    def _next_awaiting(self, seq: int) -> dict[str, Any] | None:
        """The awaiting that closes event ``seq``'s batch, if any (its public data)."""
        for line in self.lines[seq:]:
            if line["type"] == EventType.AWAITING:
                data: dict[str, Any] = line["data"]
                return data
            if line["type"] in (EventType.COMMAND, EventType.TIMED_OUT):
                return None
        return None

    def log(self, seq: int, viewer: Viewer, before: int = 8) -> list[LogLine]:
        first = max(1, seq - before)
        return [LogLine(s, self.describe(s, viewer), s == seq) for s in range(first, seq + 1)]

    # ------------------------------------------------------------ the frame

    def frame(self, seq: int, viewer: Viewer, before: int = 8) -> Frame:
        seq = self.clamp(seq)
        return Frame(
            seq=seq,
            total=self.total,
            viewer=viewer,
            event_type=self.lines[seq - 1]["type"],
            view=self.view_at(seq, viewer),
            log=self.log(seq, viewer, before),
            challenge=self.challenge_at(seq, viewer),
            round=self.round_of(seq),
        )


@dataclass
class TimelineBar:
    """The timeline bar of ``width`` columns: one character per column, and where ``seq`` is."""

    width: int
    total: int
    marks: list[Mark] = field(default_factory=list)

    def column(self, seq: int) -> int:
        if self.total <= 1 or self.width <= 1:
            return 0
        return min(self.width - 1, (seq - 1) * self.width // self.total)

    def seq_at(self, column: int) -> int:
        """The first event of a column (clicking on it jumps there)."""
        if self.total == 0:
            return 0
        column = max(0, min(self.width - 1, column))
        return max(1, min(self.total, -(-column * self.total // self.width) + 1))

    def cells(self) -> list[MarkKind | None]:
        cells: list[MarkKind | None] = [None] * max(0, self.width)
        for mark in self.marks:
            col = self.column(mark.seq)
            now = cells[col]
            if now is None or MARK_PRIORITY.index(mark.kind) < MARK_PRIORITY.index(now):
                cells[col] = mark.kind
        return cells
