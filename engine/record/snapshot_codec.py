"""MatchState <-> a JSON-ready dict, so the store can cache match states as snapshots.

Pure and exact: ``decode_state(encode_state(s)) == s`` for every state the fold produces
(tuples, enums, the ruleset, ``Pending`` and ``WildDrawFourContext`` included). pydantic reads
the dataclasses' own field types, so a new field of the state is encoded without a line here.
A snapshot of another format, or a malformed one, raises ``ValueError`` (pydantic's
``ValidationError`` is one, and names the field): the caller then folds the match from its
first event instead.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from pydantic import TypeAdapter

from engine.game.state import MatchState

SNAPSHOT_FORMAT = 7  # 2: restarts and empty_draws (classic restart, D17); 3: timeouts; 4: scheduled_first_drafter; 5: seats, direction, departed
# 6: the ruleset's draw_two_at_once (RULES.md D25). A format-5 snapshot lacks it, and its default
# (on) would turn a classic match recorded before D25 to the new flow half-way: it is refused, and
# the match folded from its events, whose match_created reads as it was played (from_record).
# 7: time_called (RULES.md D26). A format-6 snapshot lacks it: refused, and the match folded.

_STATE = TypeAdapter(MatchState)
_FIELDS = frozenset(f.name for f in fields(MatchState))


def encode_state(state: MatchState) -> dict[str, Any]:
    """A JSON-ready dict holding every field of ``state``, and the format number."""
    encoded: dict[str, Any] = _STATE.dump_python(state, mode="json")
    return {"format": SNAPSHOT_FORMAT, **encoded}


def decode_state(data: Any) -> MatchState:
    """The MatchState that :func:`encode_state` wrote; ``ValueError`` for anything else."""
    if not isinstance(data, dict):
        raise ValueError("a snapshot must be a JSON object")
    if data.get("format") != SNAPSHOT_FORMAT:
        raise ValueError(f"snapshot format {data.get('format')!r} is not {SNAPSHOT_FORMAT}")
    stored = set(data) - {"format"}
    if stored != _FIELDS:  # every field, always: a default must never stand in for a lost one
        missing, extra = sorted(_FIELDS - stored), sorted(stored - _FIELDS)
        raise ValueError(f"snapshot fields differ: missing {missing}, unknown {extra}")
    # Strict, and as JSON (which is what a snapshot is): "7" is no number and 1 no boolean,
    # while arrays still become tuples and values enum members.
    return _STATE.validate_json(json.dumps({k: v for k, v in data.items() if k != "format"}), strict=True)
