"""How a match's socket frames its events (``?frames=``): one message per event, or per decision.

``event`` (the default): one message per event, ``{"type": "event", "event", "view"}``
(:meth:`FeedItem.text`). ``decision``: one message per decision, ``{"type": "decision",
"events": [...], "view"}``: every event one append produced (one command, one house-bot move,
one timeout, one join…), in seq order, each envelope with the ``open`` this viewer gets for it
in the ``event`` framing, and the view after the last one (``LiveMatch.runs`` groups them).
The openings are the same either way: an event's ``open`` is for the viewer as it is right
after that event, so the events after the match is over are opened to everyone.

Each decision's text is encoded once per kind of viewer and kept with its last event, so a
hundred spectators of a match cost one encoding per decision, as per event.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import orjson

from engine.protocol.views import Viewer
from server.services.live_match import ClosingItem, FeedItem


class Frames(StrEnum):
    """What one message of a match's socket holds."""

    EVENT = "event"
    DECISION = "decision"


def decision_message(items: list[FeedItem], base: Viewer) -> dict[str, Any]:
    """The events of one decision (``items``, in seq order) as ``base`` receives them, and the view after."""
    return {"type": "decision", "events": [item.envelope(base) for item in items], "view": items[-1].view(base)}


def decision_text(items: list[FeedItem], base: Viewer) -> str:
    """:func:`decision_message` as JSON text, encoded once for every viewer of the same kind."""
    first, last = items[0], items[-1]
    key = (first.seq, first.viewer(base), last.viewer(base))  # the viewer changes at most once: to auditor
    return last.frame(key, lambda: orjson.dumps(decision_message(items, base)).decode())


def run_text(run: list[FeedItem], base: Viewer, frames: Frames) -> str:
    """The message of one run of ``LiveMatch.runs``: one event's, one decision's, or the closing one."""
    if frames is Frames.EVENT or isinstance(run[0], ClosingItem):  # the closing message is never batched
        return run[0].text(base)
    return decision_text(run, base)
