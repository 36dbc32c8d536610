"""Build bot views for unit tests, and play matches in which bots see nothing but JSON views."""

from __future__ import annotations

import json
import random
from typing import Any

from engine import RULESETS, LocalMatch, Phase, Ruleset
from engine.bots import get_bot
from engine.protocol.views import view


def craft_view(**fields: Any) -> dict[str, Any]:
    """A seat-0 view with the keys the bots read; ``fields`` override them."""
    base: dict[str, Any] = {
        "viewer": 0,
        "ruleset": "uno-duo",
        "phase": "play",
        "turn": 0,
        "pending": {"kind": "turn", "seat": 0},
        "hand": [],
        "hand_counts": [0, 7],
        "top": "R3",
        "color": "red",
        "draw_pile": 40,
        "draft_pile": [],
        "uno": [False, False],
        "legal": [],
        "last_challenge": None,
    }
    base.update(fields)
    base["rules"] = RULESETS[base["ruleset"]].to_dict()  # the ruleset in force, as views carry it
    if "hand" in fields and "hand_counts" not in fields:
        base["hand_counts"] = [len(fields["hand"]), 7]
    return base


def table_view(hand_counts: list[int], viewer: int = 0, direction: int = 1, **fields: Any) -> dict[str, Any]:
    """A view at a ``classic`` table of ``len(hand_counts)`` seats, as ``engine.protocol.views.view`` adds
    its table keys (``seats``, ``dealer``, ``direction``, ``departed``)."""
    seats = len(hand_counts)
    pending = fields.pop("pending", {"kind": "turn", "seat": viewer})
    return craft_view(
        ruleset="classic",
        viewer=viewer,
        turn=pending["seat"],
        pending=pending,
        hand_counts=hand_counts,
        uno=[False] * seats,
        seats=seats,
        dealer=(viewer - direction) % seats,
        direction=direction,
        departed=[False] * seats,
        **fields,
    )


def json_view(state: Any, seat: int) -> dict[str, Any]:
    """The seat's view as plain JSON data: nothing in it can point back into the match state."""
    plain: dict[str, Any] = json.loads(json.dumps(view(state, seat)))
    return plain


def play_through_views(bots: tuple[str, str], ruleset: Ruleset, seed: int, max_actions: int = 200_000) -> LocalMatch:
    """A whole match; each bot is handed only its JSON view. Every command must be accepted."""
    players = (get_bot(bots[0]), get_bot(bots[1]))
    rng = random.Random(seed)
    match = LocalMatch.start(seed.to_bytes(32, "big"), ruleset, (f"e{seed}", ""))
    for _ in range(max_actions):
        state = match.state
        if state.phase is Phase.MATCH_OVER:
            return match
        seat = state.pending.seat
        assert seat is not None
        if (state.uno_open[0] or state.uno_open[1]) and rng.random() < 0.5:
            seat = 1 - seat  # the other seat races for the UNO window (D14)
        seen = json_view(state, seat)
        command = players[seat].choose(seen, random.Random(rng.random()))
        assert _listed(command, seen["legal"]), (command, seen["legal"])
        match.act(seat, command)  # raises CommandRefused if the engine does not accept it
    raise AssertionError("the match did not finish")


def _listed(command: dict[str, Any], legal: list[dict[str, Any]]) -> bool:
    """The command is one of ``legal`` once the fields a bot adds (colour, uno, dump order) are set aside."""

    def core(c: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in c.items() if k not in ("color", "uno")}
        if out.get("type") == "dump":
            out["cards"] = sorted(out["cards"])
        return out

    return core(command) in [core(c) for c in legal]
