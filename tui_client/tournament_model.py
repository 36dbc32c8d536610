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
from typing import Any

from engine.rulesets import RULESETS
from engine.score_words import rule_words, totals_words

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

    kind: str  # round, pairing, bye
    round: int
    cells: tuple[str, ...]  # in SCHEDULE_COLUMNS order
    match: str | None = None  # the pairing's match (the latest one)
    status: str = ""  # the pairing's: pending, live, decided, cancelled
    names: tuple[str, str] = ("", "")
    seats: tuple[str, str] = ("", "")  # the players' ids, white first
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
        return str(player.get("name") or player.get("id"))
    return "?"


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


def schedule_rows(tournament: Mapping[str, Any]) -> list[ScheduleRow]:
    """The schedule by round: a heading per round, its pairings (status, result), its bye."""
    names = {_id(p): _name(p) for p in tournament.get("players") or []}
    rows: list[ScheduleRow] = []
    for rnd in tournament.get("rounds") or []:
        if not isinstance(rnd, Mapping):
            continue
        number = int(rnd.get("number") or 0)
        pairings = [p for p in rnd.get("pairings") or [] if isinstance(p, Mapping)]
        rows.append(ScheduleRow("round", number, (f"round {number}", "", "", str(rnd.get("status") or ""), "")))
        summaries = {str(m.get("id")): m for m in rnd.get("matches") or [] if isinstance(m, Mapping)}
        for p in pairings:
            match = p.get("match")
            summary = summaries.get(str(match)) if match else None
            status = str(p.get("status") or "")
            result = result_words(p) or _live_words(summary)
            white, black = p.get("white"), p.get("black")
            rows.append(
                ScheduleRow(
                    "pairing",
                    number,
                    (str(p.get("slot")), _name(white), _name(black), status, result),
                    match=str(match) if match else None,
                    status=status,
                    names=(_name(white), _name(black)),
                    seats=(_id(white), _id(black)),
                    match_status=str(summary.get("status")) if summary else "",
                )
            )
        bye = rnd.get("bye")
        if bye:
            rows.append(ScheduleRow("bye", number, (f"{number} bye", names.get(str(bye), str(bye)), "", "bye", "")))
    return rows


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
    """``Cup · running · round 2/5 · uno-duo to 30 · 5 players · 1 open dispute``."""
    rounds = [r for r in tournament.get("rounds") or [] if isinstance(r, Mapping)]
    opened = sum(1 for r in rounds if r.get("status") in ("running", "finished"))
    rules = tournament.get("rules") or {}
    target = rules.get("target") if isinstance(rules, Mapping) else None
    ruleset = str(tournament.get("ruleset") or "")
    if target:
        ruleset += f" to {target}"
    parts = [
        str(tournament.get("name") or tournament.get("id")),
        str(tournament.get("status") or ""),
        f"round {opened}/{len(rounds)}",
        ruleset,
        f"{len(tournament.get('players') or [])} players",
    ]
    if tournament.get("double"):
        parts.append("double round-robin")
    disputes = tournament.get("open_disputes")
    if isinstance(disputes, int) and disputes:
        parts.append(f"{disputes} open dispute{'s' if disputes != 1 else ''}")
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
        you = " · you play" if tid in own else ""
        text = (
            f"tour   {t.get('name') or tid} · {t.get('status')} · {t.get('opened', 0)}/{t.get('rounds', 0)} rounds"
            f" · {t.get('players', 0)} players{you}"
        )
        lines.append(TournamentLine(tid, text))
    return lines
