"""What each viewer may see: a seat, a spectator, or an auditor (docs/PROTOCOL.md "View").

A seat's view and a seat's copy of an event never hold what that seat could not see at the
table: the opponent's hand, the draw pile's order, the card the opponent looks at in the
draft, a card the opponent just drew, or the deck seed before it is revealed.
"""

from __future__ import annotations

from typing import Any

from engine.game.cards import COLOR_ORDER
from engine.game.commands import ChooseColor, Play, format_action
from engine.game.legal import legal_actions
from engine.game.rulesets import ReverseRule
from engine.game.state import MatchState, PendingKind
from engine.record.sealing import AUDITOR, SPECTATOR, Viewer

__all__ = ["AUDITOR", "SPECTATOR", "Viewer", "legal_commands", "view"]


def _sees_all(viewer: Viewer) -> bool:
    return viewer == AUDITOR


def _sees_seat(viewer: Viewer, seat: object) -> bool:
    return viewer == AUDITOR or (isinstance(viewer, int) and viewer == seat)


# ---------------------------------------------------------------- legal commands


def legal_commands(state: MatchState, seat: int) -> list[dict[str, Any]]:
    """Exactly the commands ``seat`` may send now, as JSON (wilds and ``color`` without a colour)."""
    out: list[dict[str, Any]] = []
    for action in legal_actions(state, seat):
        if isinstance(action, ChooseColor) or (isinstance(action, Play) and action.card.is_wild):
            if action.color is not COLOR_ORDER[0]:
                continue  # one entry per wild (or for ``color``), without the colour
            if isinstance(action, ChooseColor):
                out.append({"type": "color"})
            else:
                out.append({"type": "play", "card": action.card.code})
            continue
        out.append(format_action(action))
    return out


# ---------------------------------------------------------------- views


def _pending_view(state: MatchState, viewer: Viewer) -> dict[str, Any]:
    pending = state.pending
    out: dict[str, Any] = {"kind": pending.kind.value, "seat": pending.seat}
    kind = pending.kind
    deck = state.deck
    if kind is PendingKind.VOLLEY:
        out["total"] = pending.total
    elif kind is PendingKind.DRAFT:
        out["step"] = state.draft_steps + 1
        out["card"] = deck[state.draw_pile[0]].code if _sees_seat(viewer, pending.seat) else None
    elif kind is PendingKind.DRAWN:
        assert pending.card is not None
        out["card"] = deck[pending.card].code if _sees_seat(viewer, pending.seat) else None
    elif kind is PendingKind.DUMP:
        out["color"] = state.color.value if state.color else None
        out["starter"] = pending.starter
    elif kind is PendingKind.COLOR:
        assert pending.card is not None
        out["starter"] = deck[pending.card].code
    elif kind is PendingKind.WILD_DRAW_FOUR:
        out["played_by"] = state.wd4.player if state.wd4 is not None else None
    return out


def _challenge_view(record: dict[str, Any] | None, viewer: Viewer) -> dict[str, Any] | None:
    if record is None:
        return None
    shown = _sees_seat(viewer, record["by"])
    evidence = {**record["evidence"], "matching": list(record["matching"]) if shown else None}
    return {
        "by": record["by"],
        "player": record["player"],
        "verdict": record["verdict"],
        "hand": list(record["hand"]) if shown else None,
        "evidence": evidence,
    }


def _entropies_view(state: MatchState, viewer: Viewer) -> list[str | None]:
    """A player's entropy stays theirs until the last event reveals both (docs/FAIRNESS.md)."""
    revealed = state.server_seed is not None
    return [e if revealed or _sees_seat(viewer, s) else None for s, e in enumerate(state.entropies)]


def view(state: MatchState, viewer: Viewer) -> dict[str, Any]:
    """The view of ``viewer``: 0 or 1 (a seat), ``"spectator"`` or ``"auditor"``."""
    deck = state.deck
    seat = viewer if isinstance(viewer, int) and 0 <= viewer < state.seats else None
    top = state.top
    out: dict[str, Any] = {
        "viewer": viewer,
        "version": state.version,
        "ruleset": state.ruleset.name,
        "rules": state.ruleset.to_dict(),
        "phase": state.phase.value,
        "round": state.round,
        "scores": list(state.scores),
        "target": state.ruleset.target,
        "player1": state.player1,
        "turn": state.pending.seat,
        "pending": _pending_view(state, viewer),
        "hand": [deck[i].code for i in state.hands[seat]] if seat is not None else None,
        "hand_counts": [len(hand) for hand in state.hands],
        "top": deck[top].code if top is not None else None,
        "color": state.color.value if state.color else None,
        "draw_pile": len(state.draw_pile),
        "draft_pile": [deck[i].code for i in state.draft_pile],
        "uno": list(state.uno_said),
        "legal": legal_commands(state, seat) if seat is not None else [],
        "commitment": state.commitment,
        "last_challenge": _challenge_view(state.last_challenge, viewer),
        "last_round": state.last_round,
        "winner": state.winner,
        "entropies": _entropies_view(state, viewer),
        "server_seed": state.server_seed,
        "timeouts": list(state.timeouts),
        "time_called": state.time_called,  # RULES.md D26: when a timed round's time ran out, or null
    }
    if state.ruleset.reverse is ReverseRule.DIRECTION:  # classic, a table of 2-10 (PROTOCOL.md)
        out["seats"] = state.seats
        out["dealer"] = state.player1
        out["direction"] = state.direction
        out["departed"] = list(state.departed)
    if _sees_all(viewer):
        out["hands"] = [[deck[i].code for i in hand] for hand in state.hands]
        out["draw_order"] = [deck[i].code for i in state.draw_pile]
    return out
