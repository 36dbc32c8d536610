"""Build a replay file (FAIRNESS.md "Replay file"): a header line, then every event sealed.

Pure: the caller writes the text. ``at`` is not a clock reading here but a fixed base time plus
one millisecond per ``seq``, so the same match always gives a byte-identical file (a replay of a
self-play match is a function of its seed). A server's replay carries its real times instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from engine import ENGINE_VERSION
from engine.chain import seal
from engine.events import Event
from engine.shuffle import ZERO_HASH
from engine.verify import REPLAY_FORMAT, REPLAY_VERSION

BASE_TIME = datetime(2026, 1, 1, tzinfo=timezone.utc)
AT_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"  # the event store's format: ISO 8601 UTC, microseconds, Z


def stream_of(match_id: str) -> str:
    return f"match-{match_id}"


def at_of(seq: int, base: datetime = BASE_TIME) -> str:
    """The deterministic time stamp of event ``seq``: ``base`` plus ``seq`` milliseconds."""
    return (base + timedelta(milliseconds=seq)).strftime(AT_FORMAT)


def replay_header(match_id: str, ruleset: str, players: Sequence[str], engine_version: str) -> dict[str, Any]:
    return {
        "format": REPLAY_FORMAT,
        "version": REPLAY_VERSION,
        "match": match_id,
        "ruleset": ruleset,
        "players": list(players),
        "engine": engine_version,
    }


def sealed_envelopes(events: Iterable[Event], stream: str, base: datetime = BASE_TIME) -> list[dict[str, Any]]:
    """Every event as its hash-chained envelope, ``seq`` from 1."""
    out: list[dict[str, Any]] = []
    prev = ZERO_HASH
    for seq, event in enumerate(events, start=1):
        envelope = seal(stream, seq, event.type, event.data, at_of(seq, base), prev)
        out.append(envelope)
        prev = envelope["hash"]
    return out


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def replay_lines(
    match_id: str,
    ruleset: str,
    players: Sequence[str],
    events: Iterable[Event],
    engine_version: str | None = None,
) -> list[str]:
    """The lines of the replay file (without newlines): the header, then one envelope per event."""
    header = replay_header(match_id, ruleset, players, engine_version or ENGINE_VERSION)
    return [_line(header)] + [_line(env) for env in sealed_envelopes(events, stream_of(match_id))]


def replay_text(
    match_id: str,
    ruleset: str,
    players: Sequence[str],
    events: Iterable[Event],
    engine_version: str | None = None,
) -> str:
    """The whole file: :func:`replay_lines` joined by newlines, with a final newline."""
    return "\n".join(replay_lines(match_id, ruleset, players, events, engine_version)) + "\n"
