"""Stacked-deck scripts (docs/PROTOCOL.md ``unoduo scenario``): rules tests and dispute what-ifs.

A scenario fixes the top of each round's deck, optionally the first drafter, and lists
``[seat, command]`` pairs. A stacked deck stands for a round's first start only: a classic-2p
round that starts again after a wild starter is dealt from the seeded shuffle, as in play. Every command is answered (events or a refusal) and the script goes
on; the result ends with both seats' views and the audit view.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from engine.cards import parse_card
from engine.commands import parse_seat_command
from engine.errors import CardParseError, CommandRefused, ScenarioError, describe_invalid
from engine.match import LocalMatch
from engine.rulesets import RULESETS, Ruleset, RulesetError
from engine.shuffle import Dealer
from engine.views import AUDITOR

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
    first_drafter: int | None = None
    decks: list[list[str]] = []
    seed: str | None = None
    entropy: tuple[str, str] = ("", "")
    commands: list[tuple[Any, Any]] = []
    note: str | None = None
    expect: Any = None

    @field_validator("first_drafter", mode="before")
    @classmethod
    def _a_seat(cls, seat: object) -> object:
        if seat is not None and (seat not in (0, 1) or isinstance(seat, bool)):
            raise ValueError("must be 0 or 1")
        return seat

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
        return Ruleset.from_dict({**ruleset.to_dict(), **spec.rules, "name": spec.ruleset})
    except RulesetError as exc:
        raise ScenarioError(f"rules: {exc}") from None


def build_dealer(spec: ScenarioSpec, ruleset: Ruleset) -> Dealer:
    seed = DEFAULT_SEED if spec.seed is None else bytes.fromhex(spec.seed)
    stacked = {r + 1: stack_deck(ruleset, d, f"decks[{r}]") for r, d in enumerate(spec.decks)}
    return Dealer(seed, stacked=stacked, first_drafter=spec.first_drafter)


def run_scenario(raw: object) -> dict[str, Any]:
    """Run a parsed scenario object; raise ScenarioError if its shape is wrong."""
    spec = parse_spec(raw)
    ruleset = _ruleset(spec)
    dealer = build_dealer(spec, ruleset)
    match = LocalMatch.start(dealer.server_seed, ruleset, spec.entropy, dealer)
    results: list[dict[str, Any]] = []
    for seat, command in spec.commands:
        try:
            events = match.apply(parse_seat_command(seat, command))
        except CommandRefused as refusal:
            results.append({"ok": False, "error": refusal.to_dict()})
        else:
            results.append({"ok": True, "events": [e.to_dict() for e in events]})
    return {
        "setup": [e.to_dict() for e in match.events[: len(match.events) - _events_in(results)]],
        "results": results,
        "views": [match.view(0), match.view(1)],
        "audit": match.view(AUDITOR),
    }


def _events_in(results: list[dict[str, Any]]) -> int:
    return sum(len(r["events"]) for r in results if r["ok"])


def load_scenario(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{path} is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path} is not valid JSON: {exc}") from None
