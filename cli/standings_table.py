"""What ``unoduo tournament show`` prints, fitted to the terminal (docs/TOURNAMENTS.md).

Two standings tables from the same rows:

- **compact** (the default up to 100 columns, or whenever the full one would not fit): rank,
  name, played, won–lost, points for–against, and the tie-break that put the player above the
  next one, abbreviated (``SB 14``) with a legend under the table. It fits 80 columns with names
  of up to about 20 characters; a longer name folds, the numbers never do.
- **full** (``--wide``, or a terminal wide enough for all of it): every tie-break column.

A tournament of duplicate rounds adds ``SD`` to either, before "decided by": the same-deal
percentage (docs/TOURNAMENTS.md "Duplicate rounds"; ``—`` with nothing to compare).

"decided by" (the tie-break that put a player above the next) is never cut: its column does not wrap, the others give way first. Each round's
results are said winner first, with the rule of the tournament's ruleset once in the round's
caption (``bob wins 31–229`` · ``lowest total wins``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from cli.bracket_show import print_knockout
from engine.game.rulesets import RULESETS
from engine.game.score_words import rule_words, totals_words
from tui_client.models.bracket_model import is_knockout
from tui_client.models.tournament_model import (
    CHAIN_WORDS,
    NAME_WIDTH,
    chain_label,
    chain_of,
    cut_name,
    format_of,
    local_time_words,
    round_time_words,
    table_parts,
)

__all__ = [
    "ABBREVIATIONS",
    "COMPACT_UP_TO",
    "print_show",
    "result_words",
    "round_table",
    "standings_chain",
    "standings_compact",
    "standings_full",
    "table_lines",
]

COMPACT_UP_TO = 100  # columns: at most this many, the compact table by default
NONE = "—"
ABBREVIATIONS: dict[str, tuple[str, str]] = {  # tie-break → (short, words for the legend)
    "match_wins": ("MW", "match wins"),
    "head_to_head": ("H2H", "head to head"),
    "sonneborn_berger": ("SB", "Sonneborn–Berger"),
    "points_difference": ("PD", "points difference"),
    "points_conceded": ("PC", "points conceded"),
    "lot": ("lot", "the drawn lot"),
}
FULL_COUNTS = ("played", "won", "lost", "byes", "forfeits", "points_for", "points_against")


def duplicate(t: Mapping[str, Any]) -> bool:
    return bool(t.get("duplicate"))


def same_deal_text(row: Mapping[str, Any]) -> str:
    """The same-deal percentage, one decimal (``57.5``), or ``—`` with no comparison."""
    value = row.get("same_deal")
    return NONE if value is None else f"{float(value):.1f}"


def _short(name: str) -> str:
    return ABBREVIATIONS.get(name, (name.replace("_", " "), ""))[0]


def _player(row: Mapping[str, Any]) -> str:
    return str(row["name"]) + (" (withdrawn)" if row.get("withdrawn") else "")


def tiebreak_names(standings: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every tie-break the server sent, in its order (the chain's)."""
    return list(dict.fromkeys(key for row in standings for key in row["tiebreaks"]))


def _table(title: str | None, compact: bool) -> Table:
    if compact:
        return Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    return Table(title=title, title_justify="left", title_style="bold")


def decided_text(row: Mapping[str, Any]) -> str:
    """``SB 14``: the tie-break that decided this row against the next, with this row's value."""
    name = row.get("decided_by")
    if not name:
        return NONE
    value = (row.get("tiebreaks") or {}).get(name)
    return _short(str(name)) + ("" if value is None else f" {value}")


def standings_compact(t: Mapping[str, Any]) -> Table:
    rows: list[Mapping[str, Any]] = t["standings"]
    out = _table("Standings", compact=True)
    out.add_column("#", justify="right", no_wrap=True)
    out.add_column("player", overflow="fold", min_width=8)
    out.add_column("P", justify="right", no_wrap=True)
    out.add_column("W–L", justify="right", no_wrap=True)
    out.add_column("points for–against", justify="right", no_wrap=True)
    if duplicate(t):
        out.add_column("SD", justify="right", no_wrap=True)
    out.add_column("decided by", no_wrap=True)
    for row in rows:
        byes = f" +{row['byes']}b" if row.get("byes") else ""
        out.add_row(
            str(row["rank"]),
            Text(_player(row)),
            str(row["played"]),
            f"{row['won']}–{row['lost']}{byes}",
            f"{row['points_for']}–{row['points_against']}",
            *([same_deal_text(row)] if duplicate(t) else []),
            decided_text(row),
        )
    return out


def legend(t: Mapping[str, Any]) -> Text:
    """The compact table's key: its short column names and the tie-breaks its "decided by" names."""
    rows: list[Mapping[str, Any]] = t["standings"]
    used = [n for n in tiebreak_names(rows) if n in ABBREVIATIONS and any(r.get("decided_by") == n for r in rows)]
    parts = ["P played", "W–L won–lost" + (" (+Nb: N byes)" if any(r.get("byes") for r in rows) else "")]
    parts += [f"{ABBREVIATIONS[n][0]} {ABBREVIATIONS[n][1]}" for n in used]
    if duplicate(t):
        parts.append("SD same-deal % (50: the field's average on the same cards)")
    return Text(" · ".join(parts) + " · --wide: every tie-break column", style="dim")


def standings_full(t: Mapping[str, Any]) -> Table:
    rows: list[Mapping[str, Any]] = t["standings"]
    tiebreaks = tiebreak_names(rows)
    out = _table("Standings", compact=False)
    out.add_column("rank", justify="right", no_wrap=True)
    out.add_column("player", overflow="fold")
    for label in ("played", "won", "lost", "byes", "forfeits", "points for", "points against"):
        out.add_column(label, justify="right", overflow="fold")
    for name in tiebreaks:
        out.add_column(name.replace("_", " "), justify="right", overflow="fold")
    if duplicate(t):
        out.add_column("same deal", justify="right", no_wrap=True)
    out.add_column("decided by", no_wrap=True)
    for row in rows:
        out.add_row(
            str(row["rank"]),
            Text(_player(row)),
            *(str(row[key]) for key in FULL_COUNTS),
            *(NONE if row["tiebreaks"].get(n) is None else str(row["tiebreaks"][n]) for n in tiebreaks),
            *([same_deal_text(row)] if duplicate(t) else []),
            (str(row.get("decided_by") or "").replace("_", " ")) or NONE,
        )
    return out


def tournament_rule(t: Mapping[str, Any]) -> str:
    """How the tournament's matches are won, from its ruleset and rule overrides."""
    base = RULESETS.get(str(t.get("ruleset")))
    rules = {**(base.to_dict() if base is not None else {}), **(t.get("rules") or {})}
    return rule_words(rules)


def result_words(pairing: Mapping[str, Any], names: Mapping[str, str]) -> str | None:
    """A pairing's result winner first: ``bob wins 31–229``, ``bob wins by forfeit (join deadline)``."""
    result = pairing.get("result")
    if result is None:
        return None
    winner_id = result.get("winner")
    winner = names.get(winner_id, winner_id) if winner_id else None
    if result.get("forfeit"):
        reason = str(result.get("reason") or "").replace("_", " ")
        text = f"{winner} wins by forfeit ({reason})" if winner else f"double forfeit ({reason})"
    else:
        scores = list(result.get("scores") or [0, 0])
        seat = 0 if winner_id == pairing["white"]["id"] else 1
        text = f"{winner} wins {totals_words(scores, seat)}" if winner else f"no winner {scores[0]}–{scores[1]}"
    if pairing.get("annulled"):
        text += f"; replayed (annulled {', '.join(pairing['annulled'])})"
    return text


def round_title(round_: Mapping[str, Any]) -> str:
    """``Round 2 · pending · Tue 8 Dec 19:30`` (the start time in the local zone, when given); a
    timed round adds ``ends …`` while it runs, ``time called`` once called (RULES.md D26)."""
    start = local_time_words(round_.get("starts_at"))
    timed = round_time_words(round_)
    return f"Round {round_['number']} · {round_['status']}" + "".join(f" · {w}" for w in (start, timed) if w)


def round_table(round_: Mapping[str, Any], names: Mapping[str, str], rule: str, compact: bool) -> Table:
    out = _table(round_title(round_), compact)
    for label in ("board", "white", "black"):
        out.add_column(label, overflow="fold", justify="right" if label == "board" else "left")
    out.add_column("result (winner first)", overflow="fold")
    out.add_column("match", no_wrap=True)
    for p in round_["pairings"]:
        said = result_words(p, names)
        said = p["status"] if said is None else said if compact or not rule else f"{said} ({rule})"
        out.add_row(str(p["board"]), Text(p["white"]["name"]), Text(p["black"]["name"]), Text(said), p["match"])
    caption = [f"results winner first ({rule})" if rule else "results winner first"] if compact else []
    if round_.get("bye"):
        caption.append(f"bye: {names.get(round_['bye'], round_['bye'])}")
    if caption:
        out.caption = Text(" · ".join(caption))
        out.caption_justify = "left"
    return out


def wrapped(head: str, parts: Sequence[str], width: int) -> list[str]:
    """``head`` then ``parts`` joined by ", ", broken between parts (never inside one, unless a
    single part is wider than the room) into lines of at most ``width``, indented under the first;
    a part that starts with ``·`` follows the one before it without a comma."""
    indent = " " * min(len(head), max(0, width // 3))
    lines: list[str] = []
    line = head
    for index, part in enumerate(parts):
        last = index == len(parts) - 1 or parts[index + 1].startswith("·")
        piece = part + ("" if last else ",")
        start = line in (head, indent)
        candidate = line + piece if start else f"{line} {piece}"
        if len(candidate) <= width or start:
            line = candidate
        else:
            lines.append(line)
            line = indent + piece
    lines.append(line)
    out: list[str] = []
    for item in lines:  # a part wider than the room alone: cut at the width, nothing lost past it
        while len(item) > width:
            out.append(item[:width])
            item = indent + item[width:]
        out.append(item)
    return out


def table_lines(round_: Mapping[str, Any], names: Mapping[str, str], width: int) -> list[str]:
    """A tables round: ``table 1: ann 1st 512, bob 2nd 300, cyd 3rd 120, dan 4th 0`` per table
    (seat order, the first dealer first, until it is decided), wrapped to ``width``."""
    lines: list[str] = []
    for p in round_["pairings"]:
        parts = table_parts(p)
        result = p.get("result")
        if isinstance(result, Mapping) and result.get("forfeit"):
            parts.append(f"· forfeit ({str(result.get('reason') or '').replace('_', ' ')})")
        elif not isinstance(result, Mapping):
            parts.append(f"· {p['status']}" + (f" {p['match']}" if p.get("match") else ""))
        if p.get("annulled"):
            parts.append(f"· replayed (annulled {', '.join(p['annulled'])})")
        lines += wrapped(f"table {p['board']}: ", parts, width)
    if round_.get("bye"):
        lines.append(f"bye: {names.get(round_['bye'], round_['bye'])}")
    return lines


def print_round(out: Console, round_: Mapping[str, Any], t: Mapping[str, Any], rule: str, *, compact: bool) -> None:
    """One round, as its format shows it: a Swiss round not paired yet says so; a tables round
    is a line per table; a two-seat round is a table of pairings."""
    names = {p["id"]: p["name"] for p in t["players"]}
    if not round_.get("pairings"):
        said = "paired when it opens" if format_of(t) == "swiss" else "no pairings"
        out.print(Text(f"{round_title(round_)} · {said}", style="bold"))
        return
    if format_of(t) == "tables":
        out.print(Text(round_title(round_), style="bold"))
        for line in table_lines(round_, names, out.width):
            out.print(Text(line), overflow="ignore", crop=False)
        return
    out.print(round_table(round_, names, rule, compact=compact))


def standings_chain(t: Mapping[str, Any], *, wide: bool = False) -> Table:
    """A Swiss's or a tables tournament's standings: rank, name (cut at 20 with …), played, the
    chain's columns in order (lot left out), and the tie-break that put the row above the next.
    ``wide`` adds won–lost, byes, forfeits, points for–against and the lot.

    The numbers never give way: each of their columns is as wide as its widest cell; only a
    name is cut (with …) when the terminal is narrower still. Columns are two spaces apart so
    64 players with 20-character names fit 80 columns."""
    rows: list[Mapping[str, Any]] = t["standings"]
    chain = [n for n in chain_of(t) if wide or n != "lot"]
    labels = ["#", "player", "P"]
    if wide:
        labels += ["W–L", "byes", "forfeits", "points for–against"]
    labels += [chain_label(n) for n in chain] + (["SD"] if duplicate(t) else []) + ["by"]
    cells: list[list[str]] = []
    for row in rows:
        name = str(row["name"])
        player = name + (" (wd)" if row.get("withdrawn") else "") if wide else _cut(row)
        extra = [f"{row['won']}–{row['lost']}", str(row["byes"]), str(row["forfeits"]), _points(row)] if wide else []
        values = [row["tiebreaks"].get(n) for n in chain]
        numbers = [NONE if v is None else str(v) for v in values]
        same = [same_deal_text(row)] if duplicate(t) else []
        cells.append([str(row["rank"]), player, str(row["played"]), *extra, *numbers, *same, _decided_short(row)])
    out = Table(
        title="Standings",
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1, 0, 0),
        show_edge=False,
    )
    for index, label in enumerate(labels):
        width = max([len(label), *(len(row[index]) for row in cells)])
        if label == "player":
            out.add_column(
                label, no_wrap=True, overflow="ellipsis", min_width=6, max_width=None if wide else NAME_WIDTH
            )
        else:
            out.add_column(label, justify="left" if label == "by" else "right", no_wrap=True, min_width=width)
    for row_cells in cells:
        out.add_row(*(Text(c) for c in row_cells))
    return out


def _cut(row: Mapping[str, Any]) -> str:
    return cut_name(str(row["name"]), NAME_WIDTH, " (wd)" if row.get("withdrawn") else "")


def _points(row: Mapping[str, Any]) -> str:
    return f"{row['points_for']}–{row['points_against']}"


def _decided_short(row: Mapping[str, Any]) -> str:
    name = row.get("decided_by")
    if not name:
        return NONE
    value = (row.get("tiebreaks") or {}).get(name)
    return chain_label(str(name)) + ("" if value is None else f" {value}")


def chain_legend(t: Mapping[str, Any]) -> Text:
    """The chain table's key: every short column name in words, in the chain's order."""
    parts = ["P played"]
    parts += [f"{chain_label(n)} {CHAIN_WORDS[n][1]}" for n in chain_of(t) if n in CHAIN_WORDS and n != "lot"]
    if duplicate(t):
        parts.append("SD same-deal %")
    parts.append("by: the tie-break that puts the row above the next")
    if any(r.get("withdrawn") for r in t["standings"]):
        parts.append("(wd) withdrawn")
    return Text(" · ".join(parts), style="dim")


def fits(console: Console, table: Table) -> bool:
    return console.measure(table).maximum <= console.width


def print_show(out: Console, t: Mapping[str, Any], header: Sequence[str], *, wide: bool = False) -> None:
    """The tournament: ``header`` lines, the standings (compact or full; a Swiss's or a tables
    tournament's by its chain), each round's results."""
    for line in header:
        out.print(Text(line))
    rule = tournament_rule(t)
    if is_knockout(t):
        print_knockout(out, t, lambda round_: print_round(out, round_, t, rule, compact=not wide))
        return
    if format_of(t) != "round_robin":
        out.print(standings_chain(t, wide=wide))
        out.print(chain_legend(t))
        for round_ in t["rounds"]:
            print_round(out, round_, t, rule, compact=not wide)
        return
    full = standings_full(t)
    use_full = wide or (out.width > COMPACT_UP_TO and fits(out, full))
    if use_full:
        out.print(full)
    else:
        out.print(standings_compact(t))
        out.print(legend(t))
    for round_ in t["rounds"]:
        print_round(out, round_, t, rule, compact=not use_full)
