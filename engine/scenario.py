"""Stacked-deck scripts (PROTOCOL.md ``unoduo scenario``): rules tests and dispute what-ifs.

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

from engine.cards import parse_card
from engine.errors import CardParseError
from engine.commands import parse_seat_command
from engine.errors import CommandRefused, ScenarioError
from engine.match import LocalMatch
from engine.rulesets import RULESETS, Ruleset
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
            raise ScenarioError(
                f"{where}[{position}]: the {ruleset.name} deck has no more {card.code} to stack"
            )
        top.append(ids.pop(0))
    taken = set(top)
    return tuple(top) + tuple(i for i in range(len(deck)) if i not in taken)


def _ruleset(spec: Mapping[str, Any]) -> Ruleset:
    name = spec.get("ruleset", "uno-duo")
    if not isinstance(name, str) or name not in RULESETS:
        raise ScenarioError(f"ruleset must be one of {', '.join(RULESETS)}, not {name!r}")
    ruleset = RULESETS[name]
    overrides = spec.get("rules")
    if overrides is None:
        return ruleset
    if not isinstance(overrides, Mapping):
        raise ScenarioError("rules must be an object of ruleset fields to override")
    try:
        return Ruleset.from_dict({**ruleset.to_dict(), **overrides, "name": name})
    except (ValueError, KeyError) as exc:
        raise ScenarioError(f"rules: {exc}") from None


def _seed(spec: Mapping[str, Any]) -> bytes:
    raw = spec.get("seed")
    if raw is None:
        return DEFAULT_SEED
    if not isinstance(raw, str):
        raise ScenarioError("seed must be a hex string")
    try:
        return bytes.fromhex(raw)
    except ValueError:
        raise ScenarioError(f"seed must be a hex string, not {raw!r}") from None


def build_dealer(spec: Mapping[str, Any], ruleset: Ruleset) -> Dealer:
    decks = spec.get("decks", [])
    if not isinstance(decks, list) or not all(isinstance(d, list) for d in decks):
        raise ScenarioError("decks must be a list of lists of card codes (one list per round)")
    first = spec.get("first_drafter")
    if first is not None and (first not in (0, 1) or isinstance(first, bool)):
        raise ScenarioError("first_drafter must be 0 or 1")
    stacked = {r + 1: stack_deck(ruleset, d, f"decks[{r}]") for r, d in enumerate(decks)}
    return Dealer(_seed(spec), stacked=stacked, first_drafter=first)


def _commands(spec: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    commands = spec.get("commands", [])
    if not isinstance(commands, list):
        raise ScenarioError("commands must be a list of [seat, command] pairs")
    out = []
    for index, item in enumerate(commands):
        if not isinstance(item, list) or len(item) != 2:
            raise ScenarioError(f"commands[{index}] must be a [seat, command] pair")
        out.append((item[0], item[1]))
    return out


def run_scenario(spec: object) -> dict[str, Any]:
    """Run a parsed scenario object; raise ScenarioError if its shape is wrong."""
    if not isinstance(spec, Mapping):
        raise ScenarioError("a scenario is a JSON object")
    unknown = set(spec) - {"ruleset", "rules", "first_drafter", "decks", "seed", "commands", "entropy", "note", "expect"}
    if unknown:
        raise ScenarioError(f"unknown scenario keys: {', '.join(sorted(unknown))}")
    ruleset = _ruleset(spec)
    dealer = build_dealer(spec, ruleset)
    entropy = spec.get("entropy", ["", ""])
    if not (isinstance(entropy, list) and len(entropy) == 2 and all(isinstance(e, str) for e in entropy)):
        raise ScenarioError("entropy must be a list of two strings")
    commands = _commands(spec)
    match = LocalMatch.start(dealer.server_seed, ruleset, (entropy[0], entropy[1]), dealer)
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
