"""The tournament screen's headless core: ``GET /api/tournaments/{id}`` and ``GET /api/disputes``
in rows and words (docs/TUI.md "The tournament screen"). No Textual, no I/O.

- :func:`standing_rows`: the standings, one row per player, every column of the server's table
  (rank, player, played, won, lost, byes, forfeits, points for and against, each tie-break of
  the chain in its order, and "decided by" in words);
- :func:`schedule_rows`: the schedule by round, each pairing with its status and result, and
  the round's bye;
- :func:`dispute_rows`: the director's open disputes;
- :func:`tournament_lines`: the lobby's "your tournaments" lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from engine.game.rulesets import RULESETS
from engine.game.score_words import rule_words, totals_words
from engine.game.seat_names import BOT_ACCOUNT_LABEL, player_label

# The tie-break chain, in order (docs/TOURNAMENTS.md "The tie-break chain"), with the words the
# table shows for each.
TIEBREAKS: tuple[tuple[str, str], ...] = (
    ("match_wins", "wins"),
    ("head_to_head", "h2h"),
    ("sonneborn_berger", "SB"),
    ("points_difference", "pts diff"),
    ("points_conceded", "conceded"),
    ("lot", "lot"),
)
DECIDED_BY_WORDS: dict[str, str] = {
    "match_wins": "match wins",
    "head_to_head": "head-to-head",
    "sonneborn_berger": "Sonneborn–Berger",
    "points_difference": "points difference",
    "points_conceded": "points conceded",
    "lot": "lot",
    "withdrawal": "withdrawal",
    "score": "score",
    "buchholz": "Buchholz",
    "placement_points": "placement points",
    "match_points": "match points",
    "firsts": "firsts",
}
# (key, label) of every standings column, in the order shown.
STANDING_COLUMNS: tuple[tuple[str, str], ...] = (
    ("rank", "#"),
    ("player", "player"),
    ("played", "played"),
    ("won", "won"),
    ("lost", "lost"),
    ("byes", "byes"),
    ("forfeits", "forfeits"),
    ("points_for", "pts for"),
    ("points_against", "pts against"),
    *((f"tb:{name}", label) for name, label in TIEBREAKS),
    ("decided_by", "decided by"),
)
# The compact standings (up to COMPACT_UP_TO columns, or on request): the tie-break that decided
# each row abbreviated, with its value (the legend is in the table's border title).
COMPACT_UP_TO = 100
SHORT_TIEBREAKS: dict[str, str] = {
    "match_wins": "MW",
    "head_to_head": "H2H",
    "sonneborn_berger": "SB",
    "points_difference": "PD",
    "points_conceded": "PC",
    "lot": "lot",
    "withdrawal": "wd",
}
LEGEND_WORDS = {"points_difference": "points diff", "points_conceded": "conceded"}  # short, for 60 columns
COMPACT_STANDING_COLUMNS: tuple[tuple[str, str], ...] = (
    ("rank", "#"),
    ("player", "player"),
    ("played", "P"),
    ("won_lost", "W–L"),
    ("points", "pts for–agst"),
    ("decided_by", "decided by"),
)
SCHEDULE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("slot", "slot"),
    ("white", "white"),
    ("black", "black"),
    ("status", "status"),
    ("result", "result"),
)
# A tables tournament's schedule: a table's seats (seat order, the first dealer first; by place
# with each total once decided) in one wrapped cell.
TABLE_SCHEDULE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("slot", "slot"),
    ("table", "table (seat order; by place when decided)"),
    ("status", "status"),
)
DISPUTE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "dispute"),
    ("slot", "slot"),
    ("match", "match"),
    ("seq", "event"),
    ("by", "by"),
    ("note", "note"),
)


def decided_by_words(name: object) -> str:
    """``decided_by`` in words ("head-to-head", "Sonneborn–Berger", …); "" for the last row."""
    if not name:
        return ""
    return DECIDED_BY_WORDS.get(str(name), str(name).replace("_", " "))


def _int(value: object) -> str:
    """A count or score as shown; a Swiss's half point as 2.5 (docs/TOURNAMENTS.md "Half-point byes")."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value) if isinstance(value, int) else "–"


def standing_rows(tournament: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """One row per standing, the cells in :data:`STANDING_COLUMNS` order, as text."""
    rows = []
    for s in tournament.get("standings") or []:
        if not isinstance(s, Mapping):
            continue
        tiebreaks = s.get("tiebreaks") or {}
        name = str(s.get("name") or s.get("player"))
        if s.get("withdrawn"):
            name += " (withdrawn)"
        cells = [
            _int(s.get("rank")),
            name,
            *(
                _int(s.get(key))
                for key in ("played", "won", "lost", "byes", "forfeits", "points_for", "points_against")
            ),
            *(_int(tiebreaks.get(tb)) for tb, _label in TIEBREAKS),
            decided_by_words(s.get("decided_by")),
        ]
        rows.append(tuple(cells))
    return rows


def standing_keys(tournament: Mapping[str, Any]) -> list[str]:
    """Each standings row's key (the player's id), in the order of :func:`standing_rows`."""
    return [
        str(s.get("player") or s.get("name") or i)
        for i, s in enumerate(tournament.get("standings") or [])
        if isinstance(s, Mapping)
    ]


def compact_standing_rows(tournament: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The compact standings, cells in :data:`COMPACT_STANDING_COLUMNS` order: ``SB 14`` for the
    tie-break that put the row above the next."""
    rows: list[tuple[str, ...]] = []
    for s in tournament.get("standings") or []:
        if not isinstance(s, Mapping):
            continue
        name = str(s.get("name") or s.get("player")) + (" (withdrawn)" if s.get("withdrawn") else "")
        byes = f" +{s['byes']}b" if isinstance(s.get("byes"), int) and s["byes"] else ""
        decided = s.get("decided_by")
        value = (s.get("tiebreaks") or {}).get(decided) if decided else None
        short = SHORT_TIEBREAKS.get(str(decided), str(decided)) if decided else ""
        rows.append(
            (
                _int(s.get("rank")),
                name,
                _int(s.get("played")),
                f"{_int(s.get('won'))}–{_int(s.get('lost'))}{byes}",
                f"{_int(s.get('points_for'))}–{_int(s.get('points_against'))}",
                f"{short} {value}" if decided and isinstance(value, int) else short,
            )
        )
    return rows


def compact_legend(tournament: Mapping[str, Any]) -> str:
    """The abbreviations the compact table uses: ``MW match wins · SB Sonneborn–Berger``."""
    used = [str(s.get("decided_by")) for s in tournament.get("standings") or [] if isinstance(s, Mapping)]
    names = [name for name in DECIDED_BY_WORDS if name in used]
    return " · ".join(f"{SHORT_TIEBREAKS.get(n, n)} {LEGEND_WORDS.get(n, DECIDED_BY_WORDS[n])}" for n in names)


def tournament_rule(tournament: Mapping[str, Any]) -> str:
    """How the tournament's matches are won (``lowest total wins``), from its ruleset and rules."""
    base = RULESETS.get(str(tournament.get("ruleset")))
    rules = tournament.get("rules") if isinstance(tournament.get("rules"), Mapping) else {}
    return rule_words({**(base.to_dict() if base is not None else {}), **(rules or {})})


@dataclass(frozen=True)
class ScheduleRow:
    """A line of the schedule: a round's heading, one of its pairings, or its bye."""

    kind: str  # round, pairing, bye (a half-point bye too), note (a forbidden pair it had to pair)
    round: int
    cells: tuple[str, ...]  # in SCHEDULE_COLUMNS order
    match: str | None = None  # the pairing's match (the latest one)
    status: str = ""  # the pairing's: pending, live, decided, cancelled
    names: tuple[str, ...] = ("", "")  # one per seat (a table: 3-10)
    seats: tuple[str, ...] = ("", "")  # the players' ids, white (the first dealer) first
    parts: tuple[str, ...] = ()  # a table's seats in words (by place once decided), to wrap
    match_status: str = ""  # the match's own: waiting, live, finished, annulled ("" unknown)

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.round}:{self.cells[0]}"

    @property
    def watchable(self) -> bool:
        return self.kind == "pairing" and self.match is not None and self.status == "live"

    @property
    def finished(self) -> bool:
        return self.kind == "pairing" and self.match is not None and self.match_status == "finished"


def _name(player: object) -> str:
    if isinstance(player, Mapping):
        return player_label(str(player.get("name") or player.get("id")), player.get("kind"))
    return "?"


def with_labels(tournament: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``GET /api/tournaments/{id}`` as it is shown: each bot account's name followed by
    ``[bot]`` (``engine.game.seat_names.player_label``) wherever it is, the entrants, the standings, every
    pairing's and match's seats; ids and every other value as they were."""
    players = tournament.get("players") or []
    bots = {_id(p) for p in players if isinstance(p, Mapping) and p.get("kind") == "bot_account"}

    def shown(value: Any) -> Any:
        if isinstance(value, Mapping):
            out = {key: shown(item) for key, item in value.items()}
            whose = str(out.get("id", out.get("player")))  # a player, or a standings row
            if isinstance(out.get("name"), str) and (whose in bots or out.get("kind") == "bot_account"):
                out["name"] = player_label(out["name"], "bot_account")
            return out
        return [shown(item) for item in value] if isinstance(value, list) else value

    labelled: dict[str, Any] = shown(tournament)
    return labelled


def _id(player: object) -> str:
    return str(player.get("id")) if isinstance(player, Mapping) else ""


def result_words(pairing: Mapping[str, Any]) -> str:
    """A pairing's result: the winner's name, the totals (the winner's first), a forfeit's reason."""
    result = pairing.get("result")
    if not isinstance(result, Mapping):
        annulled = pairing.get("annulled") or []
        return f"(replayed: {len(annulled)} annulled)" if annulled else ""
    winner = result.get("winner")
    names = {
        _id(pairing.get("white")): _name(pairing.get("white")),
        _id(pairing.get("black")): _name(pairing.get("black")),
    }
    who = names.get(str(winner), str(winner)) if winner else "nobody"
    if result.get("forfeit"):
        return f"{who} wins by forfeit ({str(result.get('reason') or 'forfeit').replace('_', ' ')})"
    scores = list(result.get("scores") or [])
    seat = 1 if str(winner) == _id(pairing.get("black")) else 0
    return f"{who} wins {totals_words(scores, seat)}"  # the winner's total first


def _live_words(summary: Mapping[str, Any] | None) -> str:
    if summary is None:
        return ""
    status = summary.get("status")
    scores = summary.get("scores") or [0, 0]
    if status == "waiting":
        return "waiting for a seat to join"
    if status == "live":
        return f"live {scores[0]}–{scores[1]}"
    return ""


def round_heading_words(tournament: Mapping[str, Any], rnd: Mapping[str, Any]) -> tuple[str, str]:
    """What a round's heading says besides its number and status: its start in the local zone
    (``Tue 8 Dec 19:30``, "" for none), and for a Swiss round not paired yet ``not paired yet``;
    a timed round (RULES.md D26) says when it ends, ``ends Tue 8 Dec 19:45``, then ``time called``."""
    unpaired = not rnd.get("pairings") and format_of(tournament) == "swiss"
    return local_time_words(rnd.get("starts_at")), "not paired yet" if unpaired else round_time_words(rnd)


def round_time_words(rnd: Mapping[str, Any]) -> str:
    """A timed round's end: ``time called`` once called, ``ends <local time>`` while open; "" untimed."""
    if rnd.get("time_called"):
        return "time called"
    ends = local_time_words(rnd.get("deadline"))
    return f"ends {ends}" if ends and rnd.get("status") == "running" else ""


def node_name(node: object) -> str:
    """A knockout pairing's node as shown: ``L1-1``; a pool's ``pool-B`` as ``pool B``; "" for none."""
    return str(node).replace("pool-", "pool ") if node else ""


def slot_words(pairing: Mapping[str, Any]) -> str:
    """A pairing's slot (``2.1``), with a knockout's node after it (``2.1 L1-1``, ``1.3 pool B``)."""
    node = node_name(pairing.get("node"))
    return f"{pairing.get('slot')} {node}" if node else str(pairing.get("slot"))


def schedule_columns(tournament: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The schedule's columns: :data:`SCHEDULE_COLUMNS`, or a tables tournament's."""
    return TABLE_SCHEDULE_COLUMNS if is_table_tournament(tournament) else SCHEDULE_COLUMNS


def _table_row(number: int, p: Mapping[str, Any], summary: Mapping[str, Any] | None) -> ScheduleRow:
    """A table of a tables round: its slot, its seats (by place once decided), its status."""
    seats = seat_players(p)
    match = p.get("match")
    status = str(p.get("status") or "")
    parts = list(table_parts(p))
    result = p.get("result")
    if isinstance(result, Mapping) and result.get("forfeit"):
        parts.append(f"forfeit ({str(result.get('reason') or 'forfeit').replace('_', ' ')})")
    waiting = not isinstance(result, Mapping) and summary is not None and summary.get("status") == "waiting"
    return ScheduleRow(
        "pairing",
        number,
        (slot_words(p), ", ".join(parts), "waiting for seats" if waiting else status),
        match=str(match) if match else None,
        status=status,
        names=tuple(_name(x) for x in seats),
        seats=tuple(_id(x) for x in seats),
        match_status=str(summary.get("status")) if summary else "",
        parts=tuple(parts),
    )


def schedule_rows(tournament: Mapping[str, Any]) -> list[ScheduleRow]:
    """The schedule by round: a heading per round (its start time), its pairings (status,
    result) or a tables round's tables (seats, places), its bye. Cells in
    :func:`schedule_columns` order."""
    names = {_id(p): _name(p) for p in tournament.get("players") or []}
    tables = is_table_tournament(tournament)
    rows: list[ScheduleRow] = []
    for rnd in tournament.get("rounds") or []:
        if not isinstance(rnd, Mapping):
            continue
        number = int(rnd.get("number") or 0)
        pairings = [p for p in rnd.get("pairings") or [] if isinstance(p, Mapping)]
        start, unpaired = round_heading_words(tournament, rnd)
        status = str(rnd.get("status") or "")
        if tables:
            heading: tuple[str, ...] = (f"round {number}", f"starts {start}" if start else unpaired, status)
        else:
            heading = (f"round {number}", start, "", status, unpaired)
        rows.append(ScheduleRow("round", number, heading))
        summaries = {str(m.get("id")): m for m in rnd.get("matches") or [] if isinstance(m, Mapping)}
        for p in pairings:
            if tables:
                match = p.get("match")
                rows.append(_table_row(number, p, summaries.get(str(match)) if match else None))
                continue
            match = p.get("match")
            summary = summaries.get(str(match)) if match else None
            status = str(p.get("status") or "")
            result = result_words(p) or _live_words(summary)
            white, black = p.get("white"), p.get("black")
            rows.append(
                ScheduleRow(
                    "pairing",
                    number,
                    (slot_words(p), _name(white), _name(black), status, result),
                    match=str(match) if match else None,
                    status=status,
                    names=(_name(white), _name(black)),
                    seats=(_id(white), _id(black)),
                    match_status=str(summary.get("status")) if summary else "",
                )
            )
        bye = rnd.get("bye")
        if bye:
            who = names.get(str(bye), str(bye))
            cells = (f"{number} bye", who, "bye") if tables else (f"{number} bye", who, "", "bye", "")
            rows.append(ScheduleRow("bye", number, cells))
        if not tables:
            rows.extend(_half_bye_rows(tournament, number, names))
            if rnd.get("note"):  # the server's words are on the page; here, what it means in a cell
                rows.append(ScheduleRow("note", number, (f"{number} note", "forbidden pair", "unavoidable", "", "")))
    return rows


def _half_bye_rows(tournament: Mapping[str, Any], number: int, names: Mapping[str, str]) -> list[ScheduleRow]:
    """A Swiss round's half-point byes: asked for, or a late entrant's missed round where allowed
    (docs/TOURNAMENTS.md "Half-point byes")."""
    asked = list((tournament.get("half_byes") or {}).get(str(number)) or [])
    late = tournament.get("late_entries") or {}
    if tournament.get("late_entry_bye"):
        asked += [p for p, first in late.items() if isinstance(first, int) and number < first]
    return [ScheduleRow("bye", number, (f"{number} ½ bye", names.get(p, p), "", "½ bye", "")) for p in asked]


@dataclass(frozen=True)
class DisputeRow:
    id: str
    match: str
    seq: int
    audit_view: str
    cells: tuple[str, ...]  # in DISPUTE_COLUMNS order


def dispute_rows(
    disputes: Iterable[Mapping[str, Any]], tournament: Mapping[str, Any] | None = None
) -> list[DisputeRow]:
    """The open disputes (of ``tournament`` only, when given), oldest first."""
    names = {_id(p): _name(p) for p in (tournament or {}).get("players") or []}
    wanted = str(tournament.get("id")) if tournament else None
    rows = []
    for d in disputes:
        if not isinstance(d, Mapping) or d.get("status", "open") != "open":
            continue
        if wanted is not None and str(d.get("tournament")) != wanted:
            continue
        seq = d.get("seq")
        seq = seq if isinstance(seq, int) else 0
        player = str(d.get("player") or "")
        name = names.get(player, player)
        same = [pid for pid, other in names.items() if other.casefold() == name.casefold()]
        by = f"seat {d.get('seat')} ({name}{f', {player}' if len(same) > 1 else ''})"
        rows.append(
            DisputeRow(
                str(d.get("id")),
                str(d.get("match")),
                seq,
                str(d.get("audit_view") or ""),
                (str(d.get("id")), str(d.get("slot")), str(d.get("match")), f"#{seq}", by, str(d.get("note") or "")),
            )
        )
    return rows


def title_words(tournament: Mapping[str, Any]) -> str:
    """``Cup · running · round 2/5 · uno-duo to 30 · 5 players · 1 open dispute``; a Swiss's
    ``… · round 2/5 · Swiss · …``, a tables tournament's ``… · tables of 4 · points 3/2/1/0 · …``."""
    rounds = [r for r in tournament.get("rounds") or [] if isinstance(r, Mapping)]
    opened = sum(1 for r in rounds if r.get("status") in ("running", "finished"))
    rules = tournament.get("rules") or {}
    target = rules.get("target") if isinstance(rules, Mapping) else None
    ruleset = str(tournament.get("ruleset") or "")
    if target:
        ruleset += f" to {target}"
    limit = rules.get("round_limit") if isinstance(rules, Mapping) else None
    if isinstance(limit, int) and limit > 0:  # a round limit ends a match as often as the target
        ruleset += f" or after round {limit}" if target else f" · after round {limit}"
    fmt = format_of(tournament)
    parts = [
        str(tournament.get("name") or tournament.get("id")),
        str(tournament.get("status") or ""),
        f"round {opened}/{rounds_planned(tournament)}",
    ]
    if is_knockout(tournament):
        parts.append(knockout_words(tournament))
    elif fmt == "swiss":
        parts.append("Swiss")
    elif fmt == "tables":
        size = tournament.get("table_size")
        points = list(tournament.get("placement_points") or [])
        parts.append(f"tables of {size}" if size else "tables")
        if points:
            parts.append(f"points {points_words(points)}")
    parts += [ruleset, f"{len(tournament.get('players') or [])} players"]
    if tournament.get("double"):
        parts.append("double round-robin")
    disputes = tournament.get("open_disputes")
    if isinstance(disputes, int) and disputes:
        parts.append(f"{disputes} open dispute{'s' if disputes != 1 else ''}")
    if tournament.get("check_in_opens") and tournament.get("status") == "created":
        parts.append(f"{len(tournament.get('checked_in') or [])} checked in")
    gone = [_name(p) for p in tournament.get("not_checked_in") or []]
    if gone:
        parts.append(f"not checked in: {', '.join(gone)}")
    return " · ".join(p for p in parts if p)


def seat_in(row: ScheduleRow, player_id: str | None) -> int | None:
    """The seat ``player_id`` holds in a pairing (white 0, black 1), or None."""
    if player_id is None or player_id not in row.seats:
        return None
    return row.seats.index(player_id)


@dataclass(frozen=True)
class TournamentLine:
    tournament: str
    text: str

    @property
    def option_id(self) -> str:
        return f"tournament:{self.tournament}"


YOURS = {"created": "you are in", "running": "you play", "finished": "you played"}  # the player's own, by status


def tournament_lines(listed: Sequence[Mapping[str, Any]], mine: Iterable[str] = ()) -> list[TournamentLine]:
    """The lobby's tournament lines (``GET /api/tournaments``): running ones first, the
    player's own marked; ``t`` (or Enter) opens one."""
    own = set(mine)
    order = {"running": 0, "created": 1, "finished": 2}
    ranked = sorted(
        (t for t in listed if isinstance(t, Mapping) and t.get("id")),
        key=lambda t: (order.get(str(t.get("status")), 3), str(t.get("id")) not in own),
    )
    lines = []
    for t in ranked:
        tid = str(t.get("id"))
        you = f" · {YOURS.get(str(t.get('status')), 'you play')}" if tid in own else ""
        if t.get("you_missed_check_in"):
            you = " · you did not check in: withdrawn at the start"
        kind = {"swiss": " · Swiss", "tables": " · tables"}.get(str(t.get("format")), "")  # a round robin: as before
        rounds = f"{t.get('opened', 0)}/{t.get('rounds', 0)}" if t.get("status") != "finished" else t.get("rounds", 0)
        text = f"tour   {t.get('name') or tid}{kind} · {t.get('status')} · {rounds} rounds · {t.get('players', 0)} players{you}"
        lines.append(TournamentLine(tid, text))
    return lines


# ---------------------------------------------------------------- formats (issue 22): words shared with the CLI

FORMATS = ("round_robin", "swiss", "tables", "single_elimination", "double_elimination", "table_knockout", "pools")
# Each format's chain (the server's ``tiebreaks`` keys, in order) → (short column label, words).
CHAIN_WORDS: dict[str, tuple[str, str]] = {
    "score": ("Score", "score (wins + byes)"),
    "buchholz": ("Bch", "Buchholz"),
    "sonneborn_berger": ("SB", "Sonneborn–Berger"),
    "match_wins": ("W", "match wins"),
    "points_difference": ("PD", "points difference"),
    "points_conceded": ("PC", "points conceded"),
    "placement_points": ("Pts", "placement points"),
    "match_points": ("MP", "match points"),
    "firsts": ("1st", "firsts (tables won)"),
    "head_to_head": ("H2H", "head to head"),
    "lot": ("lot", "the drawn lot"),
}
CHAINS: dict[str, tuple[str, ...]] = {
    "round_robin": (
        "match_wins",
        "head_to_head",
        "sonneborn_berger",
        "points_difference",
        "points_conceded",
        "lot",
    ),
    "swiss": ("score", "buchholz", "sonneborn_berger", "match_wins", "points_difference", "points_conceded", "lot"),
    "tables": ("placement_points", "match_points", "firsts", "lot"),
}
NAME_WIDTH = 20  # a standings name is cut to this many characters (with …)


KNOCKOUTS: Final = ("single_elimination", "double_elimination", "table_knockout", "pools")


def is_knockout(tournament: Mapping[str, Any]) -> bool:
    """Whether the tournament is drawn as a bracket (its format, or a ``bracket`` it carries)."""
    return str(tournament.get("format")) in KNOCKOUTS or bool(tournament.get("bracket"))


def knockout_words(tournament: Mapping[str, Any]) -> str:
    """``double elimination``, ``table knockout · tables of 4 · top 2 go on``, ``pools of 4
    (round-robin) · top 2 into a single elimination``."""
    fmt = str(tournament.get("format") or "")
    advance = tournament.get("advance") or 2
    if fmt == "table_knockout":
        size = tournament.get("table_size")
        return " · ".join(["table knockout", *([f"tables of {size}"] if size else []), f"top {advance} go on"])
    if fmt == "pools":
        size = tournament.get("pool_size")
        kind = "Swiss" if tournament.get("pool_format") == "swiss" else "round-robin"
        into = str(tournament.get("bracket_format") or tournament.get("pool_bracket") or "")
        bracket = into.replace("_", " ") if into in KNOCKOUTS else "a bracket"
        pools = f"pools of {size}" if size else "pools"
        return f"{pools} ({kind}) · top {advance} into {'a ' + bracket if bracket != 'a bracket' else bracket}"
    return fmt.replace("_", " ") or "knockout"


def format_of(tournament: Mapping[str, Any]) -> str:
    """The tournament's format (``round_robin`` when the server does not say: an older server)."""
    value = str(tournament.get("format") or "round_robin")
    return value if value in FORMATS else "round_robin"


def rounds_planned(tournament: Mapping[str, Any]) -> int:
    """How many rounds it has: ``rounds_planned``, else the rounds listed."""
    planned = tournament.get("rounds_planned")
    listed = len([r for r in tournament.get("rounds") or [] if isinstance(r, Mapping)])
    return max(planned, listed) if isinstance(planned, int) else listed


def points_words(points: Sequence[object]) -> str:
    """``3/2/1/0``: the placement points for 1st, 2nd, …"""
    return "/".join(str(p) for p in points)


def format_words(tournament: Mapping[str, Any]) -> str:
    """``round-robin``, ``Swiss · 5 rounds``, ``tables of 4 · 5 rounds · points 3/2/1/0``,
    ``double elimination · 9 rounds at most``."""
    fmt = format_of(tournament)
    rounds = rounds_planned(tournament)
    plural = f"{rounds} round{'' if rounds == 1 else 's'}" if rounds else ""  # 0: not known yet
    if is_knockout(tournament):
        return f"{knockout_words(tournament)} · {plural} at most" if plural else knockout_words(tournament)
    if fmt == "swiss":
        return f"Swiss · {plural}" if plural else "Swiss"
    if fmt == "tables":
        size = tournament.get("table_size")
        points = list(tournament.get("placement_points") or [])
        words = [f"tables of {size}" if size else "tables", *([plural] if plural else [])]
        if points:
            words.append(f"points {points_words(points)}")
        return " · ".join(words)
    return "double round-robin" if tournament.get("double") else "round-robin"


def chain_of(tournament: Mapping[str, Any]) -> tuple[str, ...]:
    """The tie-break chain the server sent (the keys of its first row), else the format's."""
    for row in tournament.get("standings") or []:
        if isinstance(row, Mapping) and isinstance(row.get("tiebreaks"), Mapping) and row["tiebreaks"]:
            return tuple(str(k) for k in row["tiebreaks"])
    return CHAINS.get(format_of(tournament), ())  # a knockout's: none (the bracket decided)


def chain_label(name: str) -> str:
    return CHAIN_WORDS.get(name, (name.replace("_", " "), ""))[0]


def cut_name(name: str, width: int = NAME_WIDTH, suffix: str = "") -> str:
    """``name`` + ``suffix`` in at most ``width`` characters: the name cut with … when needed."""
    label = f" {BOT_ACCOUNT_LABEL}"
    if name.endswith(label):  # a bot account's label is never cut away
        name, suffix = name[: -len(label)], label + suffix
    room = width - len(suffix)
    if len(name) > room:
        name = name[: max(1, room - 1)] + "…"
    return name + suffix


def parse_iso(value: object) -> datetime | None:
    """An ISO-8601 time from the server (``…Z`` or with an offset), or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def local_time_words(value: object) -> str:
    """A server time in the local zone: ``Tue 8 Dec 19:30`` ("" for none)."""
    at = parse_iso(value)
    if at is None:
        return ""
    local = at.astimezone()
    return f"{local:%a} {local.day} {local:%b %H:%M}"


def ordinal(place: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` … ``10th``."""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def seat_players(pairing: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A pairing's seats in order: ``seats``, else white and black (an older server)."""
    seats = [p for p in pairing.get("seats") or [] if isinstance(p, Mapping)]
    if seats:
        return seats
    return [p for p in (pairing.get("white"), pairing.get("black")) if isinstance(p, Mapping)]


def table_parts(pairing: Mapping[str, Any]) -> list[str]:
    """A table's seats as words: decided, by place (``ann 1st 512``, seat order among equals);
    otherwise in seat order (the first dealer first)."""
    seats = seat_players(pairing)
    names = [str(p.get("name") or p.get("id")) for p in seats]
    result = pairing.get("result")
    if not isinstance(result, Mapping):
        return names
    places = list(result.get("places") or [])
    scores = list(result.get("scores") or [])
    if len(places) != len(names):
        winner = result.get("winner")
        return [f"{n} 1st" if p.get("id") == winner else n for n, p in zip(names, seats, strict=True)]
    order = sorted(range(len(names)), key=lambda i: (places[i], i))
    parts = []
    for i in order:
        score = f" {scores[i]}" if i < len(scores) and not result.get("forfeit") else ""
        parts.append(f"{names[i]} {ordinal(int(places[i]))}{score}")
    return parts


def is_table_tournament(tournament: Mapping[str, Any]) -> bool:
    """Classic at tables of 3-10: a tables tournament or a table knockout (a table a cell)."""
    return format_of(tournament) in ("tables", "table_knockout")


# ---------------------------------------------------------------- a Swiss's and a tables tournament's standings

CHAIN_LEGEND_WORDS: dict[str, str] = {  # short, for the border at 80 columns
    "score": "wins+byes",
    "buchholz": "Buchholz",
    "sonneborn_berger": "Sonneborn–Berger",
    "match_wins": "wins",
    "points_difference": "pts diff",
    "points_conceded": "conceded",
    "placement_points": "placement points",
    "match_points": "match points",
    "firsts": "tables won",
}
# A Swiss's or a tables tournament's full counts: won, lost and points against left out (a
# Swiss's W is its wins and PC its points against; a table's places are in Pts and 1st), so
# every column fits 120 with 20-character names.
FULL_COUNT_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    column for column in STANDING_COLUMNS[2:9] if column[0] not in ("won", "lost", "points_against")
)


SAME_DEAL_COLUMN: Final[tuple[str, str]] = ("same_deal", "SD")


def is_duplicate(tournament: Mapping[str, Any]) -> bool:
    """Duplicate rounds: every pairing of a round on the same cards, and a same-deal column."""
    return bool(tournament.get("duplicate"))


def same_deal_words(value: object) -> str:
    """The same-deal percentage, one decimal (``57.5``); ``–`` with nothing to compare."""
    return f"{float(value):.1f}" if isinstance(value, int | float) and not isinstance(value, bool) else "–"


def _with_same_deal(columns: tuple[tuple[str, str], ...], tournament: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """A duplicate tournament's columns: SD just before the last ("decided by")."""
    return (*columns[:-1], SAME_DEAL_COLUMN, columns[-1]) if is_duplicate(tournament) else columns


def standings_columns(tournament: Mapping[str, Any], full: bool) -> tuple[tuple[str, str], ...]:
    """The standings' columns for the tournament's format: a round robin's as before
    (:data:`STANDING_COLUMNS`, :data:`COMPACT_STANDING_COLUMNS`); a Swiss's or a tables
    tournament's rank, player, played, the chain's columns (Score Bch SB W PD PC; Pts MP 1st;
    the lot only in full) and the tie-break that decided the row, abbreviated with its value
    (``Bch 8``) in both (so the full table fits 120 columns); ``full`` adds the counts. A
    tournament of duplicate rounds has SD, the same-deal percentage, before the last column."""
    if format_of(tournament) == "round_robin":
        return _with_same_deal(STANDING_COLUMNS if full else COMPACT_STANDING_COLUMNS, tournament)
    chain = [n for n in chain_of(tournament) if full or n != "lot"]
    counts = FULL_COUNT_COLUMNS if full else (("played", "P"),)
    columns = (
        ("rank", "#"),
        ("player", "player"),
        *counts,
        *((f"tb:{n}", chain_label(n)) for n in chain),
        *((("decided_by", "by"),) if chain else ()),  # a knockout's: no chain, nothing decided by one
    )
    return _with_same_deal(columns, tournament)


def standings_cells(tournament: Mapping[str, Any], full: bool) -> list[tuple[str, ...]]:
    """The rows for :func:`standings_columns` (a round robin's: :func:`standing_rows` or
    :func:`compact_standing_rows`); a compact name is cut at 20 characters with …"""
    if format_of(tournament) == "round_robin":
        robin = standing_rows(tournament) if full else compact_standing_rows(tournament)
        if not is_duplicate(tournament):
            return robin
        same = [
            same_deal_words(s.get("same_deal")) for s in tournament.get("standings") or [] if isinstance(s, Mapping)
        ]
        return [(*row[:-1], sd, row[-1]) for row, sd in zip(robin, same, strict=True)]
    columns = standings_columns(tournament, full)
    rows: list[tuple[str, ...]] = []
    for s in tournament.get("standings") or []:
        if not isinstance(s, Mapping):
            continue
        tiebreaks = s.get("tiebreaks") or {}
        name = str(s.get("name") or s.get("player"))
        suffix = " (wd)" if s.get("withdrawn") else ""
        decided = s.get("decided_by")
        cells = []
        for key, _label in columns:
            if key == "player":
                cells.append(name + suffix if full else cut_name(name, NAME_WIDTH, suffix))
            elif key == "decided_by":
                value = tiebreaks.get(decided) if decided else None
                short = (
                    f"{chain_label(str(decided))} {_int(value)}" if decided and isinstance(value, (int, float)) else ""
                )
                cells.append(short or (chain_label(str(decided)) if decided else ""))
            elif key.startswith("tb:"):
                cells.append(_int(tiebreaks.get(key.removeprefix("tb:"))))
            elif key == "same_deal":
                cells.append(same_deal_words(s.get("same_deal")))
            else:
                cells.append(_int(s.get(key)))
        rows.append(tuple(cells))
    return rows


def standings_legend(tournament: Mapping[str, Any]) -> str:
    """The compact standings' key (for the border): a round robin's :func:`compact_legend`; a
    Swiss's ``Bch Buchholz · SB Sonneborn–Berger · W wins · PD pts diff · PC conceded`` (Score,
    wins + byes, left out: the border has room for 76 characters at 80 columns)."""
    same = ["SD same deal %"] if is_duplicate(tournament) else []
    if format_of(tournament) == "round_robin":
        return " · ".join([part for part in [compact_legend(tournament)] if part] + same)
    chain = [n for n in chain_of(tournament) if n in CHAIN_LEGEND_WORDS and n not in ("lot", "score")]
    return " · ".join([f"{chain_label(n)} {CHAIN_LEGEND_WORDS[n]}" for n in chain] + same)
