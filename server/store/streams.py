"""Stream names: what lives where.

- ``match-<id>``: one match's engine events, exactly as the Decider emitted them.
- ``matches``: the server's registry of matches: ``match_registered`` and ``match_annulled``.
- ``players``: ``player_registered``; the token hash is in the players table only, never in an event.

The shapes of those events are the classes of ``server.store.server_events``.
- ``tournament-<id>``: one tournament's events (``server.tournaments.model``, docs/TOURNAMENTS.md).
"""

from __future__ import annotations

import re
from enum import StrEnum

MATCH_PREFIX = "match-"
MATCHES_STREAM = "matches"
PLAYERS_STREAM = "players"

STREAM_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@-]{0,199}")


class ServerEventType(StrEnum):
    """The server's own event types (engine events are ``engine.game.events.EventType``)."""

    MATCH_REGISTERED = "match_registered"
    MATCH_ANNULLED = "match_annulled"
    PLAYER_REGISTERED = "player_registered"


EVENT_TYPE_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")


def match_stream(match_id: str) -> str:
    return f"{MATCH_PREFIX}{match_id}"


def match_id_of(stream: str) -> str | None:
    """The match id of a ``match-<id>`` stream, else None."""
    if stream.startswith(MATCH_PREFIX) and len(stream) > len(MATCH_PREFIX):
        return stream[len(MATCH_PREFIX) :]
    return None


def is_valid_stream(stream: object) -> bool:
    return isinstance(stream, str) and STREAM_RE.fullmatch(stream) is not None


def is_valid_event_type(type_: object) -> bool:
    return isinstance(type_, str) and EVENT_TYPE_RE.fullmatch(type_) is not None
