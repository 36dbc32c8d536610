"""Who sits where, in words: the names a replay, an audit and the scrubber call the seats by.

A server's match records its seats' player names in its first event (``match_created``'s
``names``, public data on the hash chain, docs/EVENTS.md). An older replay, or a self-play one,
has none: its seats are then called by the header's ``players`` (ids, or ``bot:greedy``).

A table has 2 to 10 seats (``match_created``'s ``seats``; a two-seat match may not record it).
Where names could be confused (equal once case and compatibility forms are set aside: two
players called ``ann``, or greedy against greedy), each of those is followed by what tells them
apart: the player's id when the ids of the seats that share the name all differ, otherwise the
seat number.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["BOT_ACCOUNT_LABEL", "names_of", "player_label", "seat_count", "seat_label", "seat_names"]

BOT_ACCOUNT_LABEL = "[bot]"  # follows a bot account's name wherever it is shown (docs/BOTS.md)


def player_label(name: str, kind: object) -> str:
    """A player's name as screens, replays and exports show it: a bot account's (kind
    ``bot_account``, someone's program) followed by ``[bot]``; any other name as it is (a house
    bot's name, ``greedy-1``, is one no person may take)."""
    if kind == "bot_account" and not name.endswith(BOT_ACCOUNT_LABEL):
        return f"{name} {BOT_ACCOUNT_LABEL}"
    return name


def _key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold().strip()


def names_of(first_event_data: Mapping[str, Any] | None) -> list[str] | None:
    """The names ``match_created`` records, one per seat, or None if it records none (an older
    log) or not one for every seat."""
    data = first_event_data or {}
    names = data.get("names")
    seats = data.get("seats", 2)
    if isinstance(names, list) and len(names) == seats >= 2 and all(isinstance(n, str) and n for n in names):
        return [str(n) for n in names]
    return None


def seat_count(header: Mapping[str, Any], first_event_data: Mapping[str, Any] | None) -> int:
    """How many seats the match has: ``match_created``'s ``seats``, else the header's players (at least 2)."""
    seats = (first_event_data or {}).get("seats")
    if isinstance(seats, int) and not isinstance(seats, bool) and seats >= 2:
        return seats
    players = header.get("players")
    return max(2, len(players) if isinstance(players, list) else 0)


def _ids(header: Mapping[str, Any], seats: int) -> list[str]:
    players = header.get("players")
    ids = [str(p) for p in players] if isinstance(players, list) else []
    return [*ids, *[""] * seats][:seats]


def seat_names(header: Mapping[str, Any], lines: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every seat's name as a reader should see them, from a replay's header and event lines
    (or envelopes): the recorded names, else the header's players, told apart where they clash."""
    first = lines[0] if lines and lines[0].get("type") == "match_created" else None
    data = first.get("data") if first is not None else None
    seats = seat_count(header, data)
    ids = _ids(header, seats)
    recorded = names_of(data)
    names = recorded or [ids[seat] or f"seat {seat}" for seat in range(seats)]
    sharing: dict[str, list[int]] = {}
    for seat, name in enumerate(names):
        sharing.setdefault(_key(name), []).append(seat)
    out = list(names)
    for group in sharing.values():
        if len(group) < 2:
            continue
        group_ids = [ids[seat] for seat in group]
        by_id = recorded is not None and all(group_ids) and len(set(group_ids)) == len(group)
        for seat in group:
            out[seat] = f"{names[seat]} ({ids[seat]})" if by_id else f"{names[seat]} (seat {seat})"
    return out


def seat_label(names: Sequence[str], seat: int) -> str:
    """``seat 0 (ann)``: a seat number with the name beside it (just ``seat 0`` without one)."""
    name = names[seat] if 0 <= seat < len(names) else ""
    if not name or name == f"seat {seat}":
        return f"seat {seat}"
    if name.endswith(f"(seat {seat})"):  # the clash form: the number is said once
        return f"seat {seat} ({name[: -len(f' (seat {seat})')]})"
    return f"seat {seat} ({name})"
