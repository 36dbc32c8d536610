"""The UNO Duo rules engine: pure, event-sourced, exact to every ruling of docs/RULES.md.

``decide(state, command, dealer) -> events`` holds every rule; ``evolve(state, event)`` folds a
recorded fact; views say what each seat, a spectator or an auditor may see. This package
imports no web, database or UI library.
"""

from engine.cards import Card, Color, Rank, canonical_deck, format_card, parse_card, parse_color
from engine.commands import (
    CreateMatch,
    Forfeit,
    JoinSeat,
    SeatCommand,
    TimeOut,
    format_action,
    parse_action,
    parse_seat_command,
)
from engine.decide import decide
from engine.errors import (
    CardParseError,
    CommandRefused,
    ErrorCode,
    InvalidEventError,
    ScenarioError,
    UnoDuoError,
)
from engine.events import Event, EventType
from engine.evolve import evolve, fold
from engine.legal import legal_actions
from engine.match import LocalMatch
from engine.rulesets import CLASSIC, CLASSIC_2P, RULESETS, UNO_DUO, Ruleset, get_ruleset
from engine.shuffle import Dealer, commitment_of, shuffle_ids, shuffle_key
from engine.state import INITIAL_STATE, MatchState, PendingKind, Phase
from engine.views import AUDITOR, SPECTATOR, legal_commands, view

ENGINE_VERSION = "0.1.0"

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
