"""Stacked-deck scripts (docs/PROTOCOL.md ``unoduo scenario``): rules tests and dispute what-ifs.

A scenario fixes the top of each round's deck, optionally the first drafter, and lists
``[seat, command]`` pairs. A stacked deck stands for a round's first start only: a classic-2p
round that starts again after a wild starter is dealt from the seeded shuffle, as in play. Every command is answered (events or a refusal) and the script goes
on; the result ends with both seats' views and the audit view.

A what-if (:func:`run_from_replay`, ``unoduo scenario --from REPLAY --at SEQ``) starts instead
from the position a verified replay reached at event SEQ, optionally with a seat's hand edited,
and plays the given commands there with the replay's own dealer (its revealed seed and the
players' entropy), so every later shuffle is the one the real match would have had.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from engine.fairness.verify import verify_replay
from engine.game.cards import Card, parse_card
from engine.game.commands import parse_seat_command
from engine.game.errors import CardParseError, CommandRefused, ReplayUnreadable, ScenarioError, describe_invalid, shown
from engine.game.events import HEAD_TYPES, Event
from engine.game.evolve import fold
from engine.game.rulesets import MAX_SEATS, MIN_SEATS, RULESETS, Ruleset, RulesetError, deal_problem
from engine.game.shuffle import Dealer
from engine.game.state import MatchState, PendingKinds, Phases
from engine.play.match import LocalMatch
from engine.protocol.views import AUDITOR
from engine.record.event_codec import read_event
from engine.record.replay import parse_replay, revealed_seed
from engine.record.sealing import join

DEFAULT_SEED = hashlib.sha256(b"unoduo scenario").digest()


def stack_deck(ruleset: Ruleset, codes: Sequence[object], where: str) -> tuple[int, ...]:
    """The listed cards on top in that order, the rest of the deck after them in canonical order."""
    deck = ruleset.deck
    free: dict[str, list[int]] = {}
    for card_id, card in enumerate(deck):
        free.setdefault(card.code, []).append(card_id)
    top: list[int] = []
    for position, code in enumerate(codes):
        try:
            card = parse_card(code)
        except CardParseError as exc:
            raise ScenarioError(f"{where}[{position}]: {exc}") from None
        ids = free.get(card.code)
        if not ids:
            raise ScenarioError(f"{where}[{position}]: the {ruleset.name} deck has no more {card.code} to stack")
        top.append(ids.pop(0))
    taken = set(top)
    return tuple(top) + tuple(i for i in range(len(deck)) if i not in taken)


class ScenarioSpec(BaseModel):
    """A scenario file's shape (docs/PROTOCOL.md ``unoduo scenario``), read strictly: no
    unknown key, no string where a number belongs. Seats and commands are left as they are:
    a bad one is the engine's to refuse, and the script goes on."""

    model_config = ConfigDict(extra="forbid", strict=True)

    ruleset: str = "uno-duo"
    rules: dict[str, Any] | None = None
    seats: int | None = None  # a classic table's size, 2-10 (None: two seats)
    first_drafter: int | None = None
    dealer: int | None = None  # classic: round 1's dealer (the cut is skipped)
    decks: list[list[str]] = []
    seed: str | None = None
    entropy: list[str] | None = None  # one per seat; "" each when left out
    commands: list[tuple[Any, Any]] = []
    note: str | None = None
    expect: Any = None

    @field_validator("first_drafter", mode="before")
    @classmethod
    def _a_seat(cls, seat: object) -> object:
        if seat is not None and (seat not in (0, 1) or isinstance(seat, bool)):
            raise ValueError("must be 0 or 1")
        return seat

    @field_validator("seats")
    @classmethod
    def _a_table(cls, seats: int | None) -> int | None:
        if seats is not None and not MIN_SEATS <= seats <= MAX_SEATS:
            raise ValueError(f"must be {MIN_SEATS} to {MAX_SEATS}")
        return seats

    @model_validator(mode="after")
    def _seats_agree(self) -> ScenarioSpec:
        n = self.table_size
        if self.dealer is not None and not 0 <= self.dealer < n:
            raise ValueError(f"dealer must be a seat from 0 to {n - 1}")
        if self.dealer is not None and self.first_drafter is not None and self.dealer != self.first_drafter:
            raise ValueError("give dealer or first_drafter, not two different seats")
        if self.entropy is not None and len(self.entropy) < n:
            raise ValueError(f"entropy.{len(self.entropy)}: Field required (one string per seat, {n} seats)")
        if self.entropy is not None and len(self.entropy) > n:
            raise ValueError(f"entropy: one string per seat, {n} seats, not {len(self.entropy)}")
        return self

    @property
    def table_size(self) -> int:
        return 2 if self.seats is None else self.seats

    @property
    def entropies(self) -> tuple[str, ...]:
        return tuple(self.entropy) if self.entropy is not None else ("",) * self.table_size

    @property
    def first_seat(self) -> int | None:
        """Round 1's Player 1 (the dealer in classic), fixed by the script: no cut."""
        return self.dealer if self.dealer is not None else self.first_drafter

    @field_validator("seed")
    @classmethod
    def _hex_seed(cls, seed: str | None) -> str | None:
        if seed is not None:
            try:
                bytes.fromhex(seed)
            except ValueError:
                raise ValueError(f"seed must be a hex string, not {seed!r}") from None
        return seed

    @field_validator("ruleset")
    @classmethod
    def _known_ruleset(cls, name: str) -> str:
        if name not in RULESETS:
            raise ValueError(f"ruleset must be one of {', '.join(RULESETS)}, not {name!r}")
        return name


def parse_spec(spec: object) -> ScenarioSpec:
    """The scenario's fields, or ScenarioError naming each problem (``decks.0.1: ...``)."""
    if not isinstance(spec, Mapping):
        raise ScenarioError("a scenario is a JSON object")
    try:
        # As JSON, which is what a scenario file is: strict, yet arrays may stand for pairs.
        return ScenarioSpec.model_validate_json(json.dumps(spec))
    except ValidationError as exc:
        raise ScenarioError(_explain(exc)) from None


def _explain(exc: ValidationError) -> str:
    return describe_invalid(exc.errors(include_url=False), "unknown scenario key:")


def _ruleset(spec: ScenarioSpec) -> Ruleset:
    ruleset = RULESETS[spec.ruleset]
    if spec.rules is None:
        return ruleset
    try:
        ruleset = Ruleset.from_dict({**ruleset.to_dict(), **spec.rules, "name": spec.ruleset})
    except RulesetError as exc:
        raise ScenarioError(f"rules: {exc}") from None
    problem = deal_problem(ruleset, spec.table_size)  # the hands and a starter must fit in the deck
    if problem is not None:
        raise ScenarioError(f"rules: {problem}")
    return ruleset


def build_dealer(spec: ScenarioSpec, ruleset: Ruleset) -> Dealer:
    seed = DEFAULT_SEED if spec.seed is None else bytes.fromhex(spec.seed)
    stacked = {r + 1: stack_deck(ruleset, d, f"decks[{r}]") for r, d in enumerate(spec.decks)}
    return Dealer(seed, stacked=stacked, first_drafter=spec.first_seat)


def run_scenario(raw: object) -> dict[str, Any]:
    """Run a parsed scenario object; raise ScenarioError if its shape is wrong."""
    spec = parse_spec(raw)
    ruleset = _ruleset(spec)
    dealer = build_dealer(spec, ruleset)
    try:
        match = LocalMatch.start(dealer.server_seed, ruleset, spec.entropies, dealer, spec.seats)
    except CommandRefused as refusal:  # e.g. a table size the ruleset does not play
        raise ScenarioError(f"seats: {refusal.message}") from None
    return play_script(match, spec.commands)


def play_script(match: LocalMatch, commands: Sequence[tuple[Any, Any]]) -> dict[str, Any]:
    """Answer every ``(seat, command)`` on ``match`` (a refusal too, and go on): the scenario
    answer, whose ``setup`` is every event the match held before the first command."""
    results: list[dict[str, Any]] = []
    for seat, command in commands:
        try:
            events = match.apply(parse_seat_command(seat, command))
        except CommandRefused as refusal:
            results.append({"ok": False, "error": refusal.to_dict()})
        else:
            results.append({"ok": True, "events": [e.to_dict() for e in events]})
    return {
        "setup": [e.to_dict() for e in match.events[: len(match.events) - _events_in(results)]],
        "results": results,
        "views": [match.view(seat) for seat in range(match.state.seats)],
        "audit": match.view(AUDITOR),
    }


def _events_in(results: list[dict[str, Any]]) -> int:
    return sum(len(r["events"]) for r in results if r["ok"])


def read_text(path: Path) -> str:
    """A UTF-8 file's text, or ScenarioError saying why it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{path} is not UTF-8 text") from None


def load_scenario(path: Path) -> object:
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path} is not valid JSON: {exc}") from None


# ---------------------------------------------------------------- what-if from a replay


@dataclass(frozen=True)
class HandEdit:
    """``--hand SEAT=CODES``: at the start position, ``seat`` holds exactly ``cards``."""

    seat: int
    cards: tuple[Card, ...]

    @classmethod
    def parse(cls, text: str, seats: int = 2) -> HandEdit:
        """``1=G7,R5,W`` (codes as in docs/RULES.md, any case) for a table of ``seats``, or
        ScenarioError saying what is wrong."""
        seat_text, sep, codes = text.partition("=")
        if not sep or seat_text.strip() not in [str(seat) for seat in range(seats)]:
            choice = "0 or 1" if seats == 2 else f"from 0 to {seats - 1}"
            raise ScenarioError(f"--hand {shown(text)}: write SEAT=CODES, a seat {choice} and card codes (1=G7,R5,W)")
        parts = [code.strip() for code in codes.split(",")]
        if parts == [""]:
            raise ScenarioError(f"--hand {shown(text)}: a hand edit needs at least one card")
        cards: list[Card] = []
        for position, code in enumerate(parts):
            try:
                cards.append(parse_card(code))
            except CardParseError as exc:
                raise ScenarioError(f"--hand {shown(text)}: card {position + 1}: {exc}") from None
        return cls(int(seat_text), tuple(cards))


def parse_commands(raw: object) -> list[tuple[Any, Any]]:
    """A what-if's commands: a JSON list of ``[seat, command]`` pairs (as a scenario file writes
    them) or ``{"seat": 0, "type": ...}`` objects. As in a scenario, the seat and the command
    themselves are the engine's to refuse (an answer, not an error)."""
    if not isinstance(raw, list):
        raise ScenarioError('commands: a JSON list of [seat, command] pairs or {"seat": ..., "type": ...} objects')
    pairs: list[tuple[Any, Any]] = []
    for index, item in enumerate(raw):
        if isinstance(item, list) and len(item) == 2:
            pairs.append((item[0], item[1]))
        elif isinstance(item, dict) and "seat" in item:
            pairs.append((item["seat"], {key: value for key, value in item.items() if key != "seat"}))
        else:
            raise ScenarioError(
                f'commands[{index}]: a command is a [seat, command] pair or an object with "seat", not {shown(item)}'
            )
    return pairs


def load_replay(text: str, where: str) -> tuple[dict[str, Any], list[Event], bytes]:
    """(header, whole events, server seed) of a replay that passes ``engine.fairness.verify``; else
    ScenarioError naming the first failed check (a what-if starts only from a true record)."""
    try:
        report = verify_replay(text)
    except ReplayUnreadable as exc:
        raise ScenarioError(f"{where}: {exc}") from None
    if not report.ok:
        at = f"line {report.line}: " if report.line is not None else ""
        raise ScenarioError(f"{where} does not verify ({at}{report.failure}); a what-if starts only from a true replay")
    header, lines = parse_replay(text)
    events = [read_event(line["type"], join(line["data"], line["open"])) for line in lines]
    return header, events, revealed_seed(events)


def check_start(events: Sequence[Event], seq: int) -> None:
    """``seq`` must name an event of the log that ends a command's events (or the log): the
    position between two commands, where the next command is awaited."""
    count = len(events)
    if not 1 <= seq <= count:
        raise ScenarioError(f"--at {seq}: out of range; this replay's events are seq 1 to {count}")
    if seq < count and events[seq].type not in HEAD_TYPES:
        head = max((i for i in range(seq) if events[i].type in HEAD_TYPES), default=0) + 1
        last = next((i for i in range(seq, count) if events[i].type in HEAD_TYPES), count)
        raise ScenarioError(
            f"--at {seq}: seq {seq} ({events[seq - 1].type}) is inside the events of one command (seq {head} to"
            f" {last}); start before that command (--at {head - 1}) or after it (--at {last})"
        )


def _place(state: MatchState, card_id: int) -> str:
    for seat in range(state.seats):
        if card_id in state.hands[seat]:
            return f"seat {seat}'s hand"
    if card_id in state.draw_pile:
        return "the draw pile"
    if card_id in state.draft_pile:
        return "the draft pile"
    return "the discard pile" if card_id in state.discard else "nowhere"


def edit_hand(state: MatchState, edit: HandEdit) -> tuple[MatchState, dict[str, Any]]:
    """The position with ``edit.seat`` holding exactly ``edit.cards``, and a record of the edit.

    The deck stays a permutation of its card ids: a card the seat already holds is kept; any
    other comes from the draw pile, its deepest copy (the one drawn last, so the next draws change
    least), and a card the hand gives up takes that card's place in the pile; cards given up
    beyond those go to the bottom of the draw pile, cards taken beyond them shorten it. A Wild
    Draw Four of that seat still awaiting its answer is judged on the edited hand (the hand it
    left is the hand she holds); a seat whose hand changes size loses its UNO flags (no window
    opens or stays open by an edit).
    """
    seat, deck = edit.seat, state.deck
    if seat >= state.seats:
        raise ScenarioError(f"--hand {seat}: this match has seats 0 to {state.seats - 1}")
    if state.phase not in (Phases.DRAFT, Phases.PLAY):
        raise ScenarioError(f"--hand {seat}: no round is in play here ({state.phase.value}); edit a hand in a round")
    held = list(state.hands[seat])
    drawn = state.pending.card if state.pending.kind is PendingKinds.DRAWN and state.pending.seat == seat else None
    if drawn is not None:
        if deck[drawn].code not in {card.code for card in edit.cards}:
            raise ScenarioError(
                f"--hand {seat}: seat {seat} is deciding on the card it drew ({deck[drawn].code}); the hand must keep it"
            )
        held.sort(key=lambda card_id: card_id != drawn)  # the drawn copy is the one kept
    wanted = Counter(card.code for card in edit.cards)
    for code, count in wanted.items():
        copies = [i for i, card in enumerate(deck) if card.code == code]
        free = [i for i in copies if i in held or i in state.draw_pile]
        if count > len(free):
            elsewhere = Counter(_place(state, i) for i in copies if i not in free)
            where = ", ".join(f"{n} in {place}" for place, n in sorted(elsewhere.items()))
            raise ScenarioError(
                f"--hand {seat}: asks for {count} {code} but only {len(free)} of the deck's {len(copies)} can be"
                f" had (from seat {seat}'s hand or the draw pile){'; ' + where if where else ''}"
            )
    pile: list[int | None] = list(state.draw_pile)
    hand: list[int] = []
    holes: list[int] = []
    for card in edit.cards:
        kept = next((i for i in held if deck[i].code == card.code), None)
        if kept is not None:
            held.remove(kept)
            hand.append(kept)
            continue
        depth = max(p for p, i in enumerate(pile) if i is not None and deck[i].code == card.code)
        taken = pile[depth]
        assert taken is not None
        hand.append(taken)
        pile[depth] = None
        holes.append(depth)
    given_up = held  # the old hand's cards that the edit does not keep, in id order
    for depth, card_id in zip(holes, given_up, strict=False):
        pile[depth] = card_id
    draw_pile = tuple(i for i in pile if i is not None) + tuple(given_up[len(holes) :])
    old = state.hands[seat]
    new = tuple(sorted(hand))
    changes: dict[str, Any] = {
        "hands": _with(state.hands, seat, new),
        "draw_pile": draw_pile,
    }
    if len(new) != len(old):
        changes["uno_said"] = _with(state.uno_said, seat, False)
        changes["uno_open"] = _with(state.uno_open, seat, False)
    if state.pending.kind is PendingKinds.WILD_DRAW_FOUR and state.wd4 is not None and state.wd4.player == seat:
        changes["wd4"] = dataclasses.replace(state.wd4, hand=new)
    edited = dataclasses.replace(state, **changes)
    check_deck(edited)
    record = {"seat": seat, "cards": [deck[i].code for i in new], "was": [deck[i].code for i in old]}
    return edited, record


def _with(values: tuple[Any, ...], seat: int, value: Any) -> tuple[Any, ...]:
    return (*values[:seat], value, *values[seat + 1 :])


def check_deck(state: MatchState) -> None:
    """Every card id of the deck exactly once across the hands and piles; else ScenarioError."""
    held = tuple(card_id for hand in state.hands for card_id in hand)
    seen = Counter(held + state.draw_pile + state.draft_pile + state.discard)
    twice = sorted(i for i, n in seen.items() if n > 1)
    missing = sorted(set(range(state.ruleset.deck_size)) - set(seen))
    if twice or missing:
        raise ScenarioError(f"the edited position is not one deck: card ids held twice {twice}, missing {missing}")


def run_from_replay(
    text: str,
    seq: int,
    commands: object = None,
    hands: Sequence[HandEdit] = (),
    source: str = "replay",
) -> dict[str, Any]:
    """The scenario answer for ``commands`` played from the position of replay ``text`` after
    event ``seq`` (hands edited first, in order), plus ``from``: where it started.

    ``setup`` is the replay's events 1 to ``seq`` (whole, as the engine wrote them), so setup and
    results together are the what-if match's log (less the edit, which ``from.hands`` records).
    """
    pairs = parse_commands([] if commands is None else commands)
    seats = [edit.seat for edit in hands]
    if len(set(seats)) != len(seats):
        raise ScenarioError("--hand: one edit per seat")
    header, events, seed = load_replay(text, source)
    check_start(events, seq)
    start = events[:seq]
    state = fold(start)
    records: list[dict[str, Any]] = []
    for edit in hands:
        state, record = edit_hand(state, edit)
        records.append(record)
    match = LocalMatch(dealer=Dealer(seed), state=state, events=list(start))
    answer = play_script(match, pairs)
    origin = {"file": source, "match": header.get("match"), "seq": seq, "event": start[-1].type, "hands": records}
    return {"from": origin, **answer}
