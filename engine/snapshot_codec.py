"""MatchState <-> a JSON-ready dict, so the store can cache match states as snapshots.

Pure and exact: ``decode_state(encode_state(s)) == s`` for every state the fold produces
(tuples, enums, the ruleset, ``Pending`` and ``WildDrawFourContext`` included). The free-form
records a state keeps from its events (``last_challenge``, ``last_round``) are JSON already.
A snapshot of another format, or a malformed one, raises ``ValueError``: the caller then folds
the match from its first event instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from engine.cards import Color
from engine.rulesets import Ruleset
from engine.state import MatchState, Pending, PendingKind, Phase, WildDrawFourContext

SNAPSHOT_FORMAT = 2  # 2: restarts and empty_draws (classic restart, D17)

T = TypeVar("T")


def _ids(value: tuple[int, ...]) -> list[int]:
    return list(value)


def _color(value: Color | None) -> str | None:
    return None if value is None else value.value


def _pending(p: Pending) -> dict[str, Any]:
    return {"kind": p.kind.value, "seat": p.seat, "total": p.total, "card": p.card, "starter": p.starter}


def _wd4(w: WildDrawFourContext | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {
        "player": w.player,
        "hand": list(w.hand),
        "top_before": w.top_before,
        "color_before": _color(w.color_before),
    }


def encode_state(state: MatchState) -> dict[str, Any]:
    """A JSON-ready dict holding every field of ``state``."""
    return {
        "format": SNAPSHOT_FORMAT,
        "version": state.version,
        "ruleset": state.ruleset.to_dict(),
        "commitment": state.commitment,
        "entropies": list(state.entropies),
        "phase": state.phase.value,
        "round": state.round,
        "player1": state.player1,
        "scores": list(state.scores),
        "cuts": state.cuts,
        "draw_pile": _ids(state.draw_pile),
        "draft_pile": _ids(state.draft_pile),
        "discard": _ids(state.discard),
        "hands": [_ids(state.hands[0]), _ids(state.hands[1])],
        "color": _color(state.color),
        "pending": _pending(state.pending),
        "uno_said": list(state.uno_said),
        "uno_open": list(state.uno_open),
        "wd4": _wd4(state.wd4),
        "last_challenge": state.last_challenge,
        "recycles": state.recycles,
        "restarts": state.restarts,
        "empty_draws": state.empty_draws,
        "draft_steps": state.draft_steps,
        "winner": state.winner,
        "last_round": state.last_round,
        "server_seed": state.server_seed,
    }


# ---------------------------------------------------------------- decoding, with checks


def _int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"snapshot field {name} must be an integer, not {value!r}")
    return value


def _opt(value: Any, name: str, read: Callable[[Any, str], T]) -> T | None:
    return None if value is None else read(value, name)


def _str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"snapshot field {name} must be a string, not {value!r}")
    return value


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"snapshot field {name} must be true or false, not {value!r}")
    return value


def _list(value: Any, name: str, size: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (size is not None and len(value) != size):
        wanted = "a list" if size is None else f"a list of {size}"
        raise ValueError(f"snapshot field {name} must be {wanted}, not {value!r}")
    return value


def _id_tuple(value: Any, name: str) -> tuple[int, ...]:
    return tuple(_int(v, name) for v in _list(value, name))


def _record(value: Any, name: str) -> dict[str, object] | None:
    if value is not None and not isinstance(value, dict):
        raise ValueError(f"snapshot field {name} must be an object or null, not {value!r}")
    return value


def _decode_color(value: Any, name: str) -> Color:
    return Color(_str(value, name))


def _decode_pending(value: Any) -> Pending:
    if not isinstance(value, dict):
        raise ValueError(f"snapshot field pending must be an object, not {value!r}")
    return Pending(
        kind=PendingKind(_str(value.get("kind"), "pending.kind")),
        seat=_opt(value.get("seat"), "pending.seat", _int),
        total=_int(value.get("total"), "pending.total"),
        card=_opt(value.get("card"), "pending.card", _int),
        starter=_bool(value.get("starter"), "pending.starter"),
    )


def _decode_wd4(value: Any) -> WildDrawFourContext | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"snapshot field wd4 must be an object or null, not {value!r}")
    return WildDrawFourContext(
        player=_int(value.get("player"), "wd4.player"),
        hand=_id_tuple(value.get("hand"), "wd4.hand"),
        top_before=_int(value.get("top_before"), "wd4.top_before"),
        color_before=_opt(value.get("color_before"), "wd4.color_before", _decode_color),
    )


def decode_state(data: Any) -> MatchState:
    """The MatchState that :func:`encode_state` wrote; ``ValueError`` for anything else."""
    if not isinstance(data, dict):
        raise ValueError("a snapshot must be a JSON object")
    if data.get("format") != SNAPSHOT_FORMAT:
        raise ValueError(f"snapshot format {data.get('format')!r} is not {SNAPSHOT_FORMAT}")
    expected = set(encode_state(MatchState()))
    if set(data) != expected:
        missing, extra = sorted(expected - set(data)), sorted(set(data) - expected)
        raise ValueError(f"snapshot fields differ: missing {missing}, unknown {extra}")
    try:
        ruleset = Ruleset.from_dict(data["ruleset"])
        entropies = _list(data["entropies"], "entropies", 2)
        scores = _list(data["scores"], "scores", 2)
        hands = _list(data["hands"], "hands", 2)
        said = _list(data["uno_said"], "uno_said", 2)
        open_ = _list(data["uno_open"], "uno_open", 2)
        return MatchState(
            version=_int(data["version"], "version"),
            ruleset=ruleset,
            commitment=_str(data["commitment"], "commitment"),
            entropies=(_opt(entropies[0], "entropies", _str), _opt(entropies[1], "entropies", _str)),
            phase=Phase(_str(data["phase"], "phase")),
            round=_int(data["round"], "round"),
            player1=_opt(data["player1"], "player1", _int),
            scores=(_int(scores[0], "scores"), _int(scores[1], "scores")),
            cuts=_int(data["cuts"], "cuts"),
            draw_pile=_id_tuple(data["draw_pile"], "draw_pile"),
            draft_pile=_id_tuple(data["draft_pile"], "draft_pile"),
            discard=_id_tuple(data["discard"], "discard"),
            hands=(_id_tuple(hands[0], "hands"), _id_tuple(hands[1], "hands")),
            color=_opt(data["color"], "color", _decode_color),
            pending=_decode_pending(data["pending"]),
            uno_said=(_bool(said[0], "uno_said"), _bool(said[1], "uno_said")),
            uno_open=(_bool(open_[0], "uno_open"), _bool(open_[1], "uno_open")),
            wd4=_decode_wd4(data["wd4"]),
            last_challenge=_record(data["last_challenge"], "last_challenge"),
            recycles=_int(data["recycles"], "recycles"),
            restarts=_int(data["restarts"], "restarts"),
            empty_draws=_int(data["empty_draws"], "empty_draws"),
            draft_steps=_int(data["draft_steps"], "draft_steps"),
            winner=_opt(data["winner"], "winner", _int),
            last_round=_record(data["last_round"], "last_round"),
            server_seed=_opt(data["server_seed"], "server_seed", _str),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed snapshot: {exc!r}") from exc
