"""Who sits where, in words: the names a replay, an audit and the scrubber call the seats by.

A server's match records its seats' player names in its first event (``match_created``'s
``names``, public data on the hash chain, docs/EVENTS.md). An older replay, or a self-play one,
has none: its seats are then called by the header's ``players`` (ids, or ``bot:greedy``).

Where the two names could be confused (equal once case and compatibility forms are set aside:
two players called ``ann``, or greedy against greedy), each is followed by what tells them
apart: the player's id when the ids differ, otherwise the seat number.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["names_of", "seat_label", "seat_names"]


def _key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold().strip()


def names_of(first_event_data: Mapping[str, Any] | None) -> list[str] | None:
    """The two names ``match_created`` records, or None if it records none (an older log)."""
    names = (first_event_data or {}).get("names")
    if isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) and n for n in names):
        return [str(n) for n in names]
    return None


def _ids(header: Mapping[str, Any]) -> list[str]:
    players = header.get("players")
    ids = [str(p) for p in players] if isinstance(players, list) else []
    return [*ids, "", ""][:2]


def seat_names(header: Mapping[str, Any], lines: Sequence[Mapping[str, Any]]) -> list[str]:
    """The two seats' names as a reader should see them, from a replay's header and event lines
    (or envelopes): the recorded names, else the header's players, told apart where they clash."""
    ids = _ids(header)
    first = lines[0] if lines and lines[0].get("type") == "match_created" else None
    recorded = names_of(first.get("data") if first is not None else None)
    names = recorded or [ids[seat] or f"seat {seat}" for seat in (0, 1)]
    if _key(names[0]) != _key(names[1]):
        return names
    if recorded is not None and ids[0] and ids[1] and ids[0] != ids[1]:
        return [f"{names[seat]} ({ids[seat]})" for seat in (0, 1)]
    return [f"{names[seat]} (seat {seat})" for seat in (0, 1)]


def seat_label(names: Sequence[str], seat: int) -> str:
    """``seat 0 (ann)``: a seat number with the name beside it (just ``seat 0`` without one)."""
    name = names[seat] if 0 <= seat < len(names) else ""
    if not name or name == f"seat {seat}":
        return f"seat {seat}"
    if name.endswith(f"(seat {seat})"):  # the clash form: the number is said once
        return f"seat {seat} ({name[: -len(f' (seat {seat})')]})"
    return f"seat {seat} ({name})"
