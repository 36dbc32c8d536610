"""What ``unoduo tournament disputes`` and ``… rule`` print: each dispute in words, by names.

A dispute as the server gives it names players and matches by id (docs/API.md's dispute); the
director reads it by people and pairings. The tournament each dispute belongs to (read once per
tournament) gives the names, its pairing (round, board, white and black) and its name:

    t_3f…-d1 · open · Tuesday club, round 1 board 1: ann vs random-1
      event #28, disputed by ann (seat 0) at 19:53: "the bot saw my card"
      ruled: replay · "a fresh deal for both"
      the evidence: /api/matches/m_3f…_1_1?at=28 (the director's token),
      or o on it in `unoduo play --tournament t_3f…`

Lines fold at the terminal's width, never into columns of ids (the old table needed 200).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from rich.console import Group
from rich.text import Text

from engine.game.seat_names import player_label

Tournament = Mapping[str, Any]


def names_of(t: Tournament) -> dict[str, str]:
    """Every player id of the tournament → its name (entrants and every pairing's seats)."""
    names = {str(p["id"]): player_label(str(p["name"]), p.get("kind")) for p in t.get("players") or ()}
    for r in t.get("rounds") or ():
        for pairing in r.get("pairings") or ():
            for side in ("white", "black"):
                seat = pairing.get(side) or {}
                if "id" in seat:
                    names.setdefault(
                        str(seat["id"]), player_label(str(seat.get("name") or seat["id"]), seat.get("kind"))
                    )
    return names


def pairing_of(t: Tournament, slot: str) -> Mapping[str, Any] | None:
    for r in t.get("rounds") or ():
        for pairing in r.get("pairings") or ():
            if pairing.get("slot") == slot:
                found: Mapping[str, Any] = pairing
                return found
    return None


def ruling_words(d: Mapping[str, Any]) -> str | None:
    """``replay · "a fresh deal"``, ``award to seat 1 (D5) · "…"``; None while it is open."""
    if d.get("decision") is None:
        return None
    parts = [str(d["decision"])]
    if d.get("award_to") is not None:
        parts.append(f"to seat {d['award_to']}")
    if d.get("rule"):
        parts.append(f"({d['rule']})")
    words = " ".join(parts)
    return f'{words} · "{d["ruling_note"]}"' if d.get("ruling_note") else words


def clock_time(at: str | None) -> str:
    """``19:53`` of an ISO time (UTC, as the server records it); the text itself if it is not one."""
    if not at or "T" not in at:
        return at or "?"
    return at.split("T", 1)[1][:5] + " UTC"


def dispute_block(d: Mapping[str, Any], t: Tournament | None) -> Text:
    """One dispute as a few lines of words (plain text: a note's markup is never read)."""
    names = names_of(t) if t is not None else {}
    player = names.get(str(d.get("player")), str(d.get("player")))
    where = str(d.get("match"))
    if t is not None:
        pairing = pairing_of(t, str(d.get("slot")))
        if pairing is not None:
            white = names.get(str(pairing["white"]["id"]), str(pairing["white"]["id"]))
            black = names.get(str(pairing["black"]["id"]), str(pairing["black"]["id"]))
            r, _, board = str(d.get("slot")).partition(".")
            where = f"{t.get('name')}, round {r} board {board}: {white} vs {black}"
            if pairing.get("match") != d.get("match"):
                where += " (since replayed)"
    out = Text()
    out.append(str(d["id"]), style="bold")
    out.append(f" · {d.get('status')} · ", style="dim")
    out.append(where + "\n")
    out.append(f"  event #{d.get('seq')}, disputed by {player} (seat {d.get('seat')}) at {clock_time(d.get('at'))}: ")
    out.append(f'"{d.get("note")}"\n')
    ruling = ruling_words(d)
    out.append(
        "  ruled: " + ruling if ruling else "  waiting for the director's ruling", style="" if ruling else "italic"
    )
    tournament_id = d.get("tournament")
    out.append(
        f"\n  the evidence: {d.get('audit_view')} (the director's token),"
        f"\n  or o on it in `unoduo play --tournament {tournament_id}`",
        style="dim",
    )
    return out


def dispute_list(disputes: Iterable[Mapping[str, Any]], tournament: Callable[[str], Tournament | None]) -> Group:
    """Every dispute as :func:`dispute_block`, a blank line between; ``tournament(id)`` reads one
    tournament (each is read once here, however many disputes it has)."""
    read: dict[str, Tournament | None] = {}
    blocks: list[Text] = []
    for d in disputes:
        tid = str(d.get("tournament"))
        if tid not in read:
            read[tid] = tournament(tid)
        if blocks:
            blocks.append(Text(""))
        blocks.append(dispute_block(d, read[tid]))
    return Group(*blocks)
