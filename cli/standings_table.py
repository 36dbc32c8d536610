"""What ``unoduo tournament show`` prints, fitted to the terminal (docs/TOURNAMENTS.md).

Two standings tables from the same rows:

- **compact** (the default up to 100 columns, or whenever the full one would not fit): rank,
  name, played, won–lost, points for–against, and the tie-break that put the player above the
  next one, abbreviated (``SB 14``) with a legend under the table. It fits 80 columns with names
  of up to about 20 characters; a longer name folds, the numbers never do.
- **full** (``--wide``, or a terminal wide enough for all of it): every tie-break column.

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

from engine.rulesets import RULESETS
from engine.score_words import rule_words, totals_words

__all__ = [
    "ABBREVIATIONS",
    "COMPACT_UP_TO",
    "print_show",
    "result_words",
    "round_table",
    "standings_compact",
    "standings_full",
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
    out.add_column("decided by", no_wrap=True)
    for row in rows:
        byes = f" +{row['byes']}b" if row.get("byes") else ""
        out.add_row(
            str(row["rank"]),
            Text(_player(row)),
            str(row["played"]),
            f"{row['won']}–{row['lost']}{byes}",
            f"{row['points_for']}–{row['points_against']}",
            decided_text(row),
        )
    return out


def legend(t: Mapping[str, Any]) -> Text:
    """The compact table's key: its short column names and the tie-breaks its "decided by" names."""
    rows: list[Mapping[str, Any]] = t["standings"]
    used = [n for n in tiebreak_names(rows) if n in ABBREVIATIONS and any(r.get("decided_by") == n for r in rows)]
    parts = ["P played", "W–L won–lost" + (" (+Nb: N byes)" if any(r.get("byes") for r in rows) else "")]
    parts += [f"{ABBREVIATIONS[n][0]} {ABBREVIATIONS[n][1]}" for n in used]
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
    out.add_column("decided by", no_wrap=True)
    for row in rows:
        out.add_row(
            str(row["rank"]),
            Text(_player(row)),
            *(str(row[key]) for key in FULL_COUNTS),
            *(NONE if row["tiebreaks"].get(n) is None else str(row["tiebreaks"][n]) for n in tiebreaks),
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


def round_table(round_: Mapping[str, Any], names: Mapping[str, str], rule: str, compact: bool) -> Table:
    out = _table(f"Round {round_['number']} · {round_['status']}", compact)
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


def fits(console: Console, table: Table) -> bool:
    return console.measure(table).maximum <= console.width


def print_show(out: Console, t: Mapping[str, Any], header: Sequence[str], *, wide: bool = False) -> None:
    """The tournament: ``header`` lines, the standings (compact or full), each round's results."""
    for line in header:
        out.print(Text(line))
    full = standings_full(t)
    use_full = wide or (out.width > COMPACT_UP_TO and fits(out, full))
    if use_full:
        out.print(full)
    else:
        out.print(standings_compact(t))
        out.print(legend(t))
    names = {p["id"]: p["name"] for p in t["players"]}
    rule = tournament_rule(t)
    for round_ in t["rounds"]:
        out.print(round_table(round_, names, rule, compact=not use_full))
