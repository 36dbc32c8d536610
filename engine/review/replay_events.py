"""A replay file's whole events, for a review: the header and the events with every sealed field opened.

The server reviews the replay it wrote itself (:func:`replay_events`, no need to verify it);
``unoduo review --replay`` reviews only a file that verifies (:func:`verified_replay_events`).
"""

from __future__ import annotations

from typing import Any

from engine.fairness.audit_report import full_events
from engine.fairness.verify import verify_replay
from engine.game.errors import ReplayUnreadable
from engine.game.events import Event
from engine.record.replay import parse_replay


def replay_events(text: str) -> tuple[dict[str, Any], list[Event]]:
    header, lines = parse_replay(text)
    return header, full_events(lines)


def verified_replay_events(text: str) -> tuple[dict[str, Any], list[Event]]:
    """:func:`replay_events` of a replay that passes ``engine.fairness.verify``; else ReplayUnreadable
    naming the first failed check (a review is made only of a true record)."""
    report = verify_replay(text)
    if not report.ok:
        at = f"line {report.line}: " if report.line is not None else ""
        raise ReplayUnreadable(f"the replay does not verify ({at}{report.failure}); a review needs a true record")
    return replay_events(text)
