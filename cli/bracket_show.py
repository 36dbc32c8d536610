"""What ``unoduo tournament show`` prints for a knockout (docs/TOURNAMENTS.md "Knockouts"): the
pools (if any) with each player's record and their rounds, then the bracket as text rounds in the
order they are played (``Winners' round 2``, ``Losers' round 1``, each match ``W2-1  alice 1 – 0
bob`` or ``W3-1  alice v (winner of W2-2)``), then the final places once it is over (ties
shared). Names are cut so that a line fits the terminal (80 columns and up); a table's seats
break between seats. The words are the terminal client's (``tui_client.models.bracket_model``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from engine.game.score_words import ordinal
from tui_client.models.bracket_model import names_of, pools_of, pools_title, round_lines

__all__ = ["print_knockout"]

INDENT = "  "


def places_table(t: Mapping[str, Any]) -> Table | None:
    """The final places: one row a place, the players who share it together (``3rd=``)."""
    names = names_of(t)
    by_place: dict[int, list[str]] = {}
    for entry in t.get("places") or []:
        if isinstance(entry, Mapping) and isinstance(entry.get("place"), int):
            by_place.setdefault(entry["place"], []).append(str(entry.get("player")))
    if not by_place:
        return None
    out = Table(title="Final places", title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    out.add_column("place", justify="right", no_wrap=True)
    out.add_column("player", overflow="fold")
    for place in sorted(by_place):
        who = by_place[place]
        out.add_row(ordinal(place) + ("=" if len(who) > 1 else ""), Text(", ".join(names.get(p, p) for p in who)))
    return out


def pool_lines(t: Mapping[str, Any], width: int) -> list[str]:
    """``pool A: ivy 3–0 · ann 2–1 · …`` per pool (best record first), broken between players."""
    names = names_of(t)
    lines: list[str] = []
    for pool in pools_of(t):
        parts = [f"{names.get(p, p)} {'–'.join(str(n) for n in pool.records.get(p, (0, 0)))}" for p in pool.players]
        line = f"{INDENT}pool {pool.letter}: "
        for index, part in enumerate(parts):
            piece = part + (" ·" if index < len(parts) - 1 else "")
            if len(line) + len(piece) + 1 > width and line.strip():
                lines.append(line.rstrip())
                line = INDENT * 2
            line += piece + " "
        lines.append(line.rstrip())
    return lines


def print_knockout(out: Console, t: Mapping[str, Any], print_pool_round: Any) -> None:
    """The knockout after its header: pools and their rounds, the bracket's rounds, the places.
    ``print_pool_round(round)`` prints a pools round as any two-seat round."""
    width = max(40, out.width)
    if str(t.get("format")) == "pools":
        out.print(Text(pools_title(t), style="bold"))
        for line in pool_lines(t, width):
            out.print(Text(line), overflow="ignore", crop=False)
        for round_ in t.get("rounds") or []:
            pairings: Sequence[Mapping[str, Any]] = round_.get("pairings") or []
            if pairings and all(p.get("bracket") == "pool" for p in pairings):
                print_pool_round(round_)
    for heading, lines in round_lines(t, width - len(INDENT)):
        out.print(Text(heading, style="bold"))
        for line in lines:
            out.print(Text(INDENT + line), overflow="ignore", crop=False)
    places = places_table(t)
    if places is not None:
        out.print(places)
