"""The UNO Duo rules engine: pure, event-sourced, exact to every ruling of docs/RULES.md.

``decide(state, command, dealer) -> events`` holds every rule; ``evolve(state, event)`` folds a
recorded fact; views say what each seat, a spectator or an auditor may see. This package
imports no web, database or UI library.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.game.cards import Card, Color, Rank, canonical_deck, format_card, parse_card, parse_color
    from engine.game.commands import (
        CreateMatch,
        Forfeit,
        JoinSeat,
        SeatCommand,
        TimeOut,
        format_action,
        parse_action,
        parse_seat_command,
    )
    from engine.game.decide import decide
    from engine.game.errors import (
        CardParseError,
        CommandRefused,
        ErrorCode,
        InvalidEventError,
        ScenarioError,
        UnoDuoError,
    )
    from engine.game.events import Event, EventType
    from engine.game.evolve import evolve, fold
    from engine.game.legal import legal_actions
    from engine.game.rulesets import CLASSIC, CLASSIC_2P, RULESETS, UNO_DUO, Ruleset, get_ruleset
    from engine.game.shuffle import Dealer, commitment_of, shuffle_ids, shuffle_key
    from engine.game.state import INITIAL_STATE, MatchState, PendingKind, Phase
    from engine.play.match import LocalMatch
    from engine.protocol.views import AUDITOR, SPECTATOR, legal_commands, view

ENGINE_VERSION = "0.1.0"

# Speed: each name below is imported from its module when first used (PEP 562), so ``import
# engine.game.cards`` loads no more than it needs (measured: every module and pydantic were loaded, 0.3 s
# of CPU in the terminal client's start-up).
_MODULE_OF: dict[str, str] = {
    name: module
    for module, names in {
        "engine.game.cards": ("Card", "Color", "Rank", "canonical_deck", "format_card", "parse_card", "parse_color"),
        "engine.game.commands": (
            "CreateMatch",
            "Forfeit",
            "JoinSeat",
            "SeatCommand",
            "TimeOut",
            "format_action",
            "parse_action",
            "parse_seat_command",
        ),
        "engine.game.decide": ("decide",),
        "engine.game.errors": (
            "CardParseError",
            "CommandRefused",
            "ErrorCode",
            "InvalidEventError",
            "ScenarioError",
            "UnoDuoError",
        ),
        "engine.game.events": ("Event", "EventType"),
        "engine.game.evolve": ("evolve", "fold"),
        "engine.game.legal": ("legal_actions",),
        "engine.play.match": ("LocalMatch",),
        "engine.game.rulesets": ("CLASSIC", "CLASSIC_2P", "RULESETS", "UNO_DUO", "Ruleset", "get_ruleset"),
        "engine.game.shuffle": ("Dealer", "commitment_of", "shuffle_ids", "shuffle_key"),
        "engine.game.state": ("INITIAL_STATE", "MatchState", "PendingKind", "Phase"),
        "engine.protocol.views": ("AUDITOR", "SPECTATOR", "legal_commands", "view"),
    }.items()
    for name in names
}


if not TYPE_CHECKING:  # (mypy reads the names above; an unknown name stays an error to it)

    def __getattr__(name: str) -> object:
        module = _MODULE_OF.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})


__all__ = [
    "AUDITOR",
    "CLASSIC",
    "CLASSIC_2P",
    "ENGINE_VERSION",
    "INITIAL_STATE",
    "RULESETS",
    "SPECTATOR",
    "UNO_DUO",
    "Card",
    "CardParseError",
    "Color",
    "CommandRefused",
    "CreateMatch",
    "Dealer",
    "ErrorCode",
    "Event",
    "EventType",
    "Forfeit",
    "InvalidEventError",
    "JoinSeat",
    "LocalMatch",
    "MatchState",
    "PendingKind",
    "Phase",
    "Rank",
    "Ruleset",
    "ScenarioError",
    "SeatCommand",
    "TimeOut",
    "UnoDuoError",
    "canonical_deck",
    "commitment_of",
    "decide",
    "evolve",
    "fold",
    "format_action",
    "format_card",
    "get_ruleset",
    "legal_actions",
    "legal_commands",
    "parse_action",
    "parse_card",
    "parse_color",
    "parse_seat_command",
    "shuffle_ids",
    "shuffle_key",
    "view",
]
