"""The replay file (docs/FAIRNESS.md "Replay file"), version 2: its one definition.

Line 1 is a header; every further line is one event's envelope with an ``open`` object that
holds the value of each of its sealed fields (values only: with the seed revealed in the last
event, anyone recomputes the salts). Writing (:func:`replay_lines`, :func:`replay_line`) and
reading (:func:`parse_replay`) live here; ``engine.fairness.verify`` checks what is read.

Pure: the caller writes the text. For a self-play match ``at`` is not a clock reading but a
fixed base time plus one millisecond per ``seq``, so the same match always gives a
byte-identical file (a replay of a self-play match is a function of its seed). A server's
replay carries its real times instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from engine import ENGINE_VERSION
from engine.game.errors import ReplayUnreadable
from engine.game.events import Event, EventType
from engine.record.chain import ZERO_HASH
from engine.record.jsonfmt import AT_FORMAT, compact
from engine.record.sealing import Opening, SealedEvent, seal_event

REPLAY_FORMAT = "unoduo-replay"
REPLAY_VERSION = 2

BASE_TIME = datetime(2026, 1, 1, tzinfo=UTC)


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


def revealed_seed(events: Sequence[Event]) -> bytes:
    """The server seed a finished match's last event reveals; a live match has none to give."""
    if not events or events[-1].type != EventType.SEED_REVEALED:
        raise ReplayUnreadable("a replay is made only of a finished match (its last event reveals the seed)")
    return bytes.fromhex(events[-1].data["server_seed"])


def sealed_log(
    events: Iterable[Event], stream: str, server_seed: bytes, base: datetime = BASE_TIME
) -> list[SealedEvent]:
    """Every event sealed onto the chain, ``seq`` from 1, with deterministic times."""
    out: list[SealedEvent] = []
    prev = ZERO_HASH
    for seq, event in enumerate(events, start=1):
        sealed = seal_event(stream, seq, event.type, event.data, at_of(seq, base), prev, server_seed)
        out.append(sealed)
        prev = sealed.envelope["hash"]
    return out


def replay_line(envelope: Mapping[str, Any], openings: Mapping[str, Opening]) -> str:
    """One event's line: its envelope and, in ``open``, the value of every sealed field."""
    return compact({**envelope, "open": {name: o["value"] for name, o in openings.items()}})


def header_line(
    match_id: str,
    ruleset: str,
    players: Sequence[str],
    engine_version: str | None = None,
    deal_key: bytes | None = None,
) -> str:
    """The header; ``deal_key`` (a duplicate round's, once revealed) goes in as hex: not hashed,
    it is checked against the chain (``engine.game.duplicate.link_problem``)."""
    header = replay_header(match_id, ruleset, players, engine_version or ENGINE_VERSION)
    if deal_key is not None:
        header["deal_key"] = deal_key.hex()
    return compact(header)


def replay_lines(
    match_id: str,
    ruleset: str,
    players: Sequence[str],
    events: Sequence[Event],
    engine_version: str | None = None,
) -> list[str]:
    """The lines of a finished match's replay file (without newlines): header, then one per event."""
    seed = revealed_seed(events)
    sealed = sealed_log(events, stream_of(match_id), seed)
    return [header_line(match_id, ruleset, players, engine_version)] + [
        replay_line(s.envelope, s.openings) for s in sealed
    ]


def replay_text(
    match_id: str,
    ruleset: str,
    players: Sequence[str],
    events: Sequence[Event],
    engine_version: str | None = None,
) -> str:
    """The whole file: :func:`replay_lines` joined by newlines, with a final newline."""
    return "\n".join(replay_lines(match_id, ruleset, players, events, engine_version)) + "\n"


def parse_replay(text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, event lines) of a replay file of this version; ReplayUnreadable names what is wrong."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ReplayUnreadable("the file is empty")
    parsed: list[Any] = []
    for number, line in enumerate(lines, start=1):
        try:
            parsed.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ReplayUnreadable(f"line {number} is not JSON: {exc.msg}") from None
        if not isinstance(parsed[-1], dict):
            raise ReplayUnreadable(f"line {number} is not a JSON object")
    header = parsed[0]
    if header.get("format") != REPLAY_FORMAT:
        raise ReplayUnreadable(f"line 1 is not a '{REPLAY_FORMAT}' header")
    version = header.get("version")
    if version != REPLAY_VERSION:
        raise ReplayUnreadable(
            f"this is a version {version!r} replay; this engine reads version {REPLAY_VERSION} only"
            " (version 2 seals hidden fields: re-export the match from its server)"
        )
    return header, parsed[1:]
