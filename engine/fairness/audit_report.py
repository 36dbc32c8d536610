"""What a director reads to settle a dispute: the facts of every Wild Draw Four challenge in a
replay, the whole table at any event, and (``--bots``) whether every house-bot move is the one
its bot makes with its chance from the revealed seed (``unoduo audit``; the terminal client's
audit panel shows the same facts from these functions).

Everything here is read off a replay that :func:`engine.fairness.verify.verify_replay` accepted: the
events with their opened values, folded by the engine. Nothing is taken on trust from the
server: a replay that fails verification is reported as such and not audited.

A table has 2 to 10 seats (``classic``, docs/RULES.md D18–D24): the table shows every seat's
hand, the direction and the seats that left, and the result says every seat's place (D23).
``seat`` (``unoduo audit --seat N``) takes one seat's perspective: the table at ``--at`` as that
seat saw it (its engine view: its own hand, the others' counts), and for each challenge whether
that seat saw the challenged hand during play (only the challenger did, D20).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from engine import ENGINE_VERSION
from engine.fairness.house_bots import BotCheck, check_house_bots
from engine.fairness.verify import Receipt, Report, verify_replay
from engine.game.events import Event, EventType
from engine.game.evolve import evolve
from engine.game.rulesets import Deal, WildDrawFourCheck, WildDrawFourRule
from engine.game.score_words import places_words, result_words
from engine.game.seat_names import seat_label, seat_names
from engine.game.state import INITIAL_STATE, MatchState
from engine.protocol.views import view
from engine.record.event_codec import read_event
from engine.record.jsonfmt import compact
from engine.record.replay import parse_replay
from engine.record.sealing import join

# The ruling of docs/RULES.md that governs a Wild Draw Four, by the ruleset's check.
RULE_OF_CHECK = {WildDrawFourCheck.CHALLENGE.value: "D13", WildDrawFourCheck.ENFORCED.value: "D13c"}
WD4_RULE_WORDS = {
    WildDrawFourRule.NO_PLAYABLE.value: "legal only if the player held no other card that could be played on the top card",
    WildDrawFourRule.NO_COLOUR_MATCH.value: "legal only if the player held no card of the active colour",
    WildDrawFourRule.NO_MATCH.value: "legal only if the player held no card matching the top card's colour, "
    "number or symbol (a wild matches nothing)",
}


@dataclass(frozen=True)
class Draw:
    seat: int
    count: int
    reason: str
    codes: list[str]


@dataclass(frozen=True)
class ChallengeFacts:
    """One challenged Wild Draw Four, as the log and the rules establish it."""

    round: int
    played_seq: int  # the card_played of the W+4
    resolved_seq: int  # the challenge_resolved
    player: int  # the seat that played it
    challenger: int
    top: str  # the top card the W+4 was played on
    color: str | None  # the active colour then
    chosen_color: str | None  # the colour the player named with it
    hand: list[str]  # the player's hand as it was when the card left it
    wd4_rule: str
    wd4_check: str
    rule_id: str
    rule_words: str
    matching: list[str]  # the cards that made the play illegal (none: it was legal)
    verdict: str
    draws: list[Draw] = field(default_factory=list)

    @property
    def legal(self) -> bool:
        return not self.matching


@dataclass(frozen=True)
class Table:
    """The whole table just after event ``seq``: what the audit view shows."""

    seq: int
    type: str
    phase: str
    round: int
    player1: int | None  # the first drafter (uno-duo) or the dealer (classic rulesets)
    scores: list[int]
    hands: list[list[str]]  # one per seat
    draw_pile: list[str]  # top first
    discard: list[str]  # bottom first: the last is the top card
    color: str | None
    pending: dict[str, Any]
    uno_said: list[bool]
    uno_open: list[bool]
    direction: int = 1  # 1 clockwise, -1 counter-clockwise (D20)
    departed: list[bool] = field(default_factory=list)  # seats that left by forfeit
    dealt: bool = False  # a classic deal: player1 is the dealer, not a first drafter


@dataclass(frozen=True)
class SeatTable:
    """The table just after event ``seq`` as ``seat`` saw it: that seat's view (engine.protocol.views)."""

    seq: int
    type: str
    seat: int
    view: dict[str, Any]


@dataclass
class AuditReport:
    file: str
    header: dict[str, Any]
    verification: Report
    challenges: list[ChallengeFacts] = field(default_factory=list)
    table: Table | None = None
    bots: BotCheck | None = None  # only when asked for
    names: list[str] = field(default_factory=list)  # the seats' names (engine.game.seat_names)
    result: str | None = None  # "bob wins 31–229 (lowest total wins)", once verified
    places: str | None = None  # "1st ann 512; 2nd bob 340; …" at a table of more than two
    seat: int | None = None  # the perspective asked for (--seat), if any
    seat_table: SeatTable | None = None  # the table at --at as that seat saw it

    @property
    def ok(self) -> bool:
        """Verified, and (if they were checked) every house-bot move re-derived."""
        return self.verification.ok and (self.bots is None or self.bots.ok)

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "match": self.header.get("match"),
            "ruleset": self.header.get("ruleset"),
            "players": self.header.get("players"),
            "names": self.names,
            "result": self.result,
            "places": self.places,
            "seat": self.seat,
            "seat_table": None if self.seat_table is None else asdict(self.seat_table),
            "verified": self.verification.ok,
            "checks": self.verification.checks,
            "failure": None
            if self.verification.ok
            else {"line": self.verification.line, "message": self.verification.failure},
            "challenges": [{**asdict(c), "legal": c.legal} for c in self.challenges],
            "table": None if self.table is None else asdict(self.table),
            "bots": None if self.bots is None else _bots_dict(self.bots),
        }


def _bots_dict(check: BotCheck) -> dict[str, Any]:
    return {
        "seats": {str(seat): name for seat, name in check.seats.items()},
        "unknown": {str(seat): name for seat, name in check.unknown.items()},
        "checked": {str(seat): count for seat, count in check.checked.items()},
        "ok": check.ok,
        "mismatch": None if check.mismatch is None else asdict(check.mismatch),
    }


def full_events(lines: Sequence[dict[str, Any]]) -> list[Event]:
    """The engine's events of a replay's lines: public data joined with the opened values."""
    return [read_event(line["type"], join(line["data"], line["open"])) for line in lines]


def _codes(state: MatchState, ids: Sequence[int]) -> list[str]:
    codes = state.facts.codes
    return [codes[i] for i in ids]


def challenges(events: Sequence[Event]) -> list[ChallengeFacts]:
    """Every challenged Wild Draw Four, in order, with what was on the table when it was played."""
    out: list[ChallengeFacts] = []
    state = INITIAL_STATE
    before_play: MatchState | None = None
    played_seq = 0
    chosen: str | None = None
    current: ChallengeFacts | None = None
    for seq, event in enumerate(events, start=1):
        if event.type == EventType.CARD_PLAYED and event.data.get("code") == "W+4":
            before_play, played_seq, chosen = state, seq, event.data.get("color")
        if event.type == EventType.CHALLENGE_RESOLVED and before_play is not None:
            current = _facts(before_play, state, played_seq, seq, chosen, event.data)
            out.append(current)
        elif current is not None and event.type == EventType.CARDS_DRAWN:
            current.draws.append(
                Draw(event.data["seat"], event.data["count"], event.data["reason"], list(event.data.get("codes", [])))
            )
        elif event.type in (EventType.AWAITING, EventType.COMMAND):
            current = None
        state = evolve(state, event)
    return out


def _facts(
    before: MatchState, now: MatchState, played: int, resolved: int, chosen: str | None, data: dict[str, Any]
) -> ChallengeFacts:
    ruleset = now.ruleset
    top = before.top
    evidence = data.get("evidence", {})
    return ChallengeFacts(
        round=now.round,
        played_seq=played,
        resolved_seq=resolved,
        player=data["player"],
        challenger=data["by"],
        top=str(evidence.get("top") or (before.card(top).code if top is not None else "")),
        color=evidence.get("color", None if before.color is None else before.color.value),
        chosen_color=chosen,
        hand=list(data.get("hand", [])),
        wd4_rule=ruleset.wd4_rule.value,
        wd4_check=ruleset.wd4_check.value,
        rule_id=RULE_OF_CHECK.get(ruleset.wd4_check.value, "D13"),
        rule_words=WD4_RULE_WORDS.get(ruleset.wd4_rule.value, ruleset.wd4_rule.value),
        matching=list(data.get("matching", [])),
        verdict=str(data["verdict"]),
    )


def table_at(events: Sequence[Event], seq: int) -> Table:
    """The table just after event ``seq`` (1 … len(events)); ValueError otherwise."""
    if not 1 <= seq <= len(events):
        raise ValueError(f"--at must name an event of this replay: 1 to {len(events)}, not {seq}")
    state = INITIAL_STATE
    for event in events[:seq]:
        state = evolve(state, event)
    return table_of(state, seq, events[seq - 1].type)


def table_of(state: MatchState, seq: int, type_: str) -> Table:
    """The table of ``state``, the state just after event ``seq`` (of type ``type_``)."""
    pending = state.pending
    return Table(
        seq=seq,
        type=type_,
        phase=state.phase.value,
        round=state.round,
        player1=state.player1,
        scores=list(state.scores),
        hands=[_codes(state, hand) for hand in state.hands],
        draw_pile=_codes(state, state.draw_pile),
        discard=_codes(state, state.discard),
        color=None if state.color is None else state.color.value,
        pending={"kind": pending.kind.value, "seat": pending.seat, "total": pending.total},
        uno_said=list(state.uno_said),
        uno_open=list(state.uno_open),
        direction=state.direction,
        departed=list(state.departed),
        dealt=state.ruleset.deal is Deal.DEAL,
    )


def seat_table_at(events: Sequence[Event], seq: int, seat: int) -> SeatTable:
    """The table just after event ``seq`` as ``seat`` saw it; ValueError for an event or a seat
    outside the replay."""
    if not 1 <= seq <= len(events):
        raise ValueError(f"--at must name an event of this replay: 1 to {len(events)}, not {seq}")
    state = INITIAL_STATE
    for event in events[:seq]:
        state = evolve(state, event)
    return SeatTable(seq, events[seq - 1].type, seat, view(state, seat))


def seats_of(events: Sequence[Event]) -> int:
    """How many seats the match has (``match_created``'s ``seats``; 2 when it records none)."""
    first = events[0].data if events and events[0].type == EventType.MATCH_CREATED else {}
    seats = first.get("seats")
    return seats if isinstance(seats, int) and not isinstance(seats, bool) else 2


def audit(
    text: str,
    file: str = "",
    at: int | None = None,
    receipts: Sequence[Receipt] = (),
    *,
    bots: bool = False,
    seat: int | None = None,
) -> AuditReport:
    """Verify the replay, then read its challenges (and the table at ``at``, as ``seat`` saw it
    when a seat is given; with ``bots``, re-derive every house-bot move). ReplayUnreadable for a
    file that is not a replay; ValueError for an ``at`` or a ``seat`` outside the replay."""
    header, lines = parse_replay(text)
    report = AuditReport(file, header, verify_replay(text, receipts), names=seat_names(header, lines), seat=seat)
    if not report.verification.ok:
        return report
    events = full_events(lines)
    seats = seats_of(events)
    if seat is not None and not 0 <= seat < seats:
        raise ValueError(f"--seat must name a seat of this match: 0 to {seats - 1}, not {seat}")
    report.result = match_result(events, report.names)
    report.places = match_places(events, report.names)
    report.challenges = challenges(events)
    if at is not None and seat is not None:
        report.seat_table = seat_table_at(events, at, seat)
    elif at is not None:
        report.table = table_at(events, at)
    if bots:
        report.bots = check_house_bots(header, events)
    return report


def match_result(events: Sequence[Event], names: Sequence[str]) -> str | None:
    """The result of a finished match in words, winner first (engine.game.score_words); None if it has
    no ``match_ended``."""
    ended = next((e for e in reversed(events) if e.type == EventType.MATCH_ENDED), None)
    if ended is None or not events:
        return None
    ruleset = events[0].data.get("ruleset") if events[0].type == EventType.MATCH_CREATED else None
    winner = int(ended.data["winner"])
    # A forfeit decided the match when it left one seat playing (at two seats: any forfeit);
    # at a bigger table a seat that left earlier did not stop the others playing on to the target.
    forfeited = {e.data["seat"] for e in events if e.type == EventType.MATCH_FORFEITED}
    forfeit = len(forfeited) >= seats_of(events) - 1
    return result_words(_name(names, winner), ended.data["scores"], winner, ruleset, forfeit=forfeit)


def match_places(events: Sequence[Event], names: Sequence[str]) -> str | None:
    """Every seat's place in words (D23: ``match_ended``'s ``places``), at a table of more than
    two; None at two seats (the result says it all) or without a ``match_ended``."""
    ended = next((e for e in reversed(events) if e.type == EventType.MATCH_ENDED), None)
    places = None if ended is None else ended.data.get("places")
    if ended is None or not isinstance(places, list) or len(places) <= 2:
        return None
    left = {e.data["seat"] for e in events if e.type == EventType.MATCH_FORFEITED}
    departed = [seat in left for seat in range(len(places))]
    return places_words([_name(names, s) for s in range(len(places))], ended.data["scores"], places, departed)


# ---------------------------------------------------------------- as text


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"seat {seat}"


def _seat(names: Sequence[str], seat: int) -> str:
    return seat_label(names, seat)


def _seats_where(names: Sequence[str], flags: Sequence[bool]) -> str:
    """``seat 0 (ann)``, ``seat 0 (ann) and seat 2 (cy)``, or ``nobody``: the seats whose flag is set."""
    seats = [_seat(names, seat) for seat, flag in enumerate(flags) if flag]
    return " and ".join(seats) if seats else "nobody"


def _cards(codes: Sequence[str]) -> str:
    return " ".join(codes) if codes else "(none)"


def format_challenge(c: ChallengeFacts, names: Sequence[str], number: int, seat: int | None = None) -> list[str]:
    legal = (
        "LEGAL: no card in the hand made it illegal" if c.legal else f"ILLEGAL: {_cards(c.matching)} could be played"
    )
    lines = [
        f"Challenge {number}: round {c.round}, W+4 played at seq {c.played_seq}, challenge resolved at seq {c.resolved_seq}",
        f"  played by:      {_seat(names, c.player)}, naming {c.chosen_color or '-'}",
        f"  challenged by:  {_seat(names, c.challenger)}",
        f"  played on:      top card {c.top}, active colour {c.color or '-'}",
        f"  hand then:      {_cards(c.hand)} (as it was when the W+4 left it)",
        f"  rule in force:  wd4_rule={c.wd4_rule}, wd4_check={c.wd4_check} ({c.rule_id}: {c.rule_words})",
        f"  {legal}",
        f"  verdict:        {c.verdict}",
    ]
    for draw in c.draws:
        lines.append(f"  then {_seat(names, draw.seat)} drew {draw.count} ({draw.reason}): {_cards(draw.codes)}")
    if seat is not None:
        saw = "yes, as the challenger" if seat == c.challenger else "no: during play only the challenger saw it"
        lines.append(f"  {_seat(names, seat)} saw the hand: {saw}")
    return lines


def format_table(t: Table, names: Sequence[str]) -> list[str]:
    pending = t.pending
    waiting = "nothing" if pending["seat"] is None else f"{_seat(names, pending['seat'])}: {pending['kind']}"
    if pending.get("total"):
        waiting += f" (total {pending['total']})"
    top = t.discard[-1] if t.discard else "-"
    first = "dealer" if t.dealt else "Player 1 (first drafter)"
    lines = [
        f"The table just after seq {t.seq} ({t.type})",
        f"  phase {t.phase}, round {t.round}, {first}: " + ("-" if t.player1 is None else _seat(names, t.player1)),
        "  scores: " + _scores(names, t.scores),
        *(f"  hand of {_seat(names, s)} ({len(hand)}): {_cards(hand)}" for s, hand in enumerate(t.hands)),
        f"  top card {top}, active colour {t.color or '-'}; discard pile {len(t.discard)} cards",
        f"  draw pile ({len(t.draw_pile)}, top first): {_cards(t.draw_pile)}",
        f"  waiting for {waiting}",
        f"  UNO said: {_seats_where(names, t.uno_said)}; UNO window open: {_seats_where(names, t.uno_open)}",
    ]
    if len(t.hands) > 2:
        lines.append(f"  direction: {_direction(t.direction)}; left the table: {_seats_where(names, t.departed)}")
    return lines


def _scores(names: Sequence[str], scores: Sequence[int]) -> str:
    return ", ".join(f"{_name(names, seat)} {score}" for seat, score in enumerate(scores))


def _direction(direction: int) -> str:
    return "clockwise" if direction >= 0 else "counter-clockwise"


def format_seat_table(t: SeatTable, names: Sequence[str]) -> list[str]:
    """The table as one seat saw it: its own hand, the others' counts, what it could send."""
    v = t.view
    pending = v["pending"]
    waiting = "nothing" if pending.get("seat") is None else f"{_seat(names, pending['seat'])}: {pending['kind']}"
    counts = ", ".join(f"{_seat(names, s)} {n}" for s, n in enumerate(v["hand_counts"]))
    lines = [
        f"The table just after seq {t.seq} ({t.type}) as {_seat(names, t.seat)} saw it",
        f"  phase {v['phase']}, round {v['round']}; scores: {_scores(names, v['scores'])}",
        f"  own hand ({len(v['hand'] or [])}): {_cards(v['hand'] or [])}",
        f"  cards held: {counts}",
        f"  top card {v['top'] or '-'}, active colour {v['color'] or '-'}; draw pile {v['draw_pile']} cards",
        f"  waiting for {waiting}; UNO said: {_seats_where(names, v['uno'])}",
    ]
    if "direction" in v:
        lines.append(f"  direction: {_direction(v['direction'])}; dealer: {_seat(names, v['dealer'])}")
    challenge = v.get("last_challenge")
    if challenge is not None:
        shown = challenge.get("hand")
        hand = _cards(shown) if shown is not None else "not shown to this seat (only the challenger sees it, D20)"
        lines.append(f"  last challenge by {_seat(names, challenge['by'])}: {challenge['verdict']}; hand: {hand}")
    legal = ", ".join(compact(c) for c in v["legal"]) or "nothing"
    lines.append(f"  could send: {legal}")
    return lines


def format_report(report: AuditReport, *, only_challenges: bool = False) -> str:
    header = report.header
    lines = [f"Audit of {report.file or 'the replay'}: match {header.get('match')}, ruleset {header.get('ruleset')}"]
    v = report.verification
    if not v.ok:
        where = f"line {v.line}: " if v.line is not None else ""
        lines.append(f"NOT VERIFIED: {where}{v.failure}")
        lines.append("Nothing in a replay that fails verification can be relied on; no audit was made.")
        return "\n".join(lines) + "\n"
    if not only_challenges:
        lines += [f"verified: {check}" for check in v.checks]
        if report.result is not None:
            lines.append(f"result: {report.result}")
        if report.places is not None:
            lines.append(f"places: {report.places}")
    lines.append(f"Wild Draw Four challenges: {len(report.challenges)}")
    for number, c in enumerate(report.challenges, start=1):
        lines += format_challenge(c, report.names, number, report.seat)
    if report.table is not None:
        lines += format_table(report.table, report.names)
    if report.seat_table is not None:
        lines += format_seat_table(report.seat_table, report.names)
    if report.bots is not None:
        lines += format_bots(report.bots, header, report.names)
    return "\n".join(lines) + "\n"


def format_bots(check: BotCheck, header: dict[str, Any], names: Sequence[str]) -> list[str]:
    if not check.seats and not check.unknown:
        return [
            "House bots: none in this replay (no seat's player id is a house bot's, bot-<name>-…): nothing to re-derive"
        ]
    lines = ["House bots (each move asked again of its bot, with its chance from the revealed seed):"]
    for seat, name in check.unknown.items():
        lines.append(f"  {_seat(names, seat)}: this engine has no bot {name!r}, so its moves are not checked")
    for seat, name in check.seats.items():
        every = "every move" if check.ok else "moves before the first that differs"
        lines.append(f"  {_seat(names, seat)} is bot:{name}: {check.checked[seat]} re-derived as recorded ({every})")
    m = check.mismatch
    if m is not None:
        lines += [
            f"  DIFFERS at seq {m.seq}: {_seat(names, m.seat)} (bot:{m.bot}), deciding on the state at version {m.version},",
            f"    sent {compact(m.recorded)}; with its chance it sends {'-' if m.derived is None else compact(m.derived)}",
            f"    ({m.reason}; the check stops here)",
        ]
        written = header.get("engine")
        if written != ENGINE_VERSION:
            lines.append(
                f"    this replay was written by engine {written}, this is {ENGINE_VERSION}: a bot changed since differs too"
            )
    return lines
