"""A season in rows and words (``GET /api/seasons/{id}``, docs/TOURNAMENTS.md "Seasons"): what
``unoduo season show`` prints and the terminal client's season table shows. No Textual, no I/O.

- :func:`season_lines`: the name and status, the settings, the divisions, the events;
- :func:`event_rows`: the season's tournaments by number, each finished or in play;
- :func:`standing_cells`: a division's table (or the whole one), the events counted by number;
- :func:`move_lines`: who went up and who went down at the end;
- :func:`player_season_words`: one player's place in the season, for the tournament screen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from tui_client.models.tournament_model import cut_name, ordinal, points_words

STANDING_COLUMNS: Final = ("#", "player", "Ev", "Pts", "W", "best", "counted")
EVENT_COLUMNS: Final = ("#", "tournament", "id", "status")
LEGEND: Final = (
    "Ev events played · Pts counted points · W event wins · best best place · counted the events that count, by "
    "number · ties: points, wins, best place, later events, then the season's lot (= shared rank)"
)
NAME_WIDTH: Final = 20


def _rows(season: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [r for r in season.get("standings") or [] if isinstance(r, Mapping)]


def event_numbers(season: Mapping[str, Any]) -> dict[str, int]:
    """Each tournament's number in the season (1 = the first added)."""
    return {str(t.get("id")): n for n, t in enumerate(season.get("tournaments") or [], start=1)}


def season_title(season: Mapping[str, Any]) -> str:
    """``Winter · open · 2 of 3 events finished``: the name, the status and how far it is."""
    events = [t for t in season.get("tournaments") or [] if isinstance(t, Mapping)]
    done = sum(1 for t in events if not t.get("in_play"))
    finished = f"{done} of {len(events)} event{'' if len(events) == 1 else 's'} finished"
    return " · ".join((str(season.get("name", "")), str(season.get("status", "")), finished))


def season_rules(season: Mapping[str, Any]) -> str:
    """``the best 3 events count · points 25/18/…``."""
    return f"{_best_of_words(season.get('best_of'))} · points {points_words(season.get('points_by_place') or [])}"


def division_words(season: Mapping[str, Any]) -> str:
    """``2 divisions · at the end 2 go up, 2 go down`` ("" without divisions)."""
    divisions = season.get("divisions") or []
    if not divisions:
        return ""
    return (
        f"{len(divisions)} divisions · at the end {season.get('promote', 0)} go up, {season.get('relegate', 0)} go down"
    )


def _best_of_words(best_of: object) -> str:
    if not isinstance(best_of, int):
        return "every event counts"
    return "the best event counts" if best_of == 1 else f"the best {best_of} events count"


def event_rows(season: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    """``(number, name, id, status)``: ``finished``, else ``in play`` (running or not started)."""
    out: list[tuple[str, str, str, str]] = []
    for number, t in enumerate(season.get("tournaments") or [], start=1):
        status = "finished" if not t.get("in_play") else f"in play ({t.get('status')})"
        out.append((str(number), str(t.get("name", "")), str(t.get("id", "")), status))
    return out


def divisions_of(season: Mapping[str, Any]) -> list[str | None]:
    """The divisions the table is split into, best first ([None] without divisions)."""
    names = [str(d.get("name")) for d in season.get("divisions") or [] if isinstance(d, Mapping)]
    return list(names) if names else [None]


def standing_cells(season: Mapping[str, Any], division: str | None = None) -> list[tuple[str, ...]]:
    """One division's rows (all of them without divisions), as :data:`STANDING_COLUMNS`; a
    shared rank is shown with ``=``."""
    numbers = event_numbers(season)
    rows = [r for r in _rows(season) if r.get("division") == division]
    ranks = [r.get("rank") for r in rows]
    out: list[tuple[str, ...]] = []
    for row in rows:
        shared = ranks.count(row.get("rank")) > 1
        counted = " ".join(str(numbers.get(str(t), "?")) for t in row.get("counted") or [])
        best = row.get("best_place")
        out.append(
            (
                f"{row.get('rank')}{'=' if shared else ''}",
                cut_name(str(row.get("name", "")), NAME_WIDTH),
                str(row.get("events", 0)),
                str(row.get("points", 0)),
                str(row.get("wins", 0)),
                ordinal(best) if isinstance(best, int) else "—",
                counted or "—",
            )
        )
    return out


def move_lines(season: Mapping[str, Any]) -> list[str]:
    """``bob: up, from Division 2 to Division 1``, one per move of the finish."""
    return [
        f"{m.get('name')}: {m.get('direction')}, from {m.get('source')} to {m.get('target')}"
        for m in season.get("moves") or []
        if isinstance(m, Mapping)
    ]


def player_row(season: Mapping[str, Any], player_id: str | None) -> Mapping[str, Any] | None:
    if player_id is None:
        return None
    return next((r for r in _rows(season) if r.get("player") == player_id), None)


def player_season_words(season: Mapping[str, Any], player_id: str | None) -> str:
    """The tournament screen's season line: ``Season Winter · you: 2nd of 6, 43 pts`` (the
    division named when there are divisions); the season alone for a spectator or a newcomer."""
    head = f"Season {season.get('name', '')}"
    row = player_row(season, player_id)
    if row is None:
        return head
    division = row.get("division")
    field = [r for r in _rows(season) if r.get("division") == division]
    shared = sum(1 for r in field if r.get("rank") == row.get("rank")) > 1
    place = f"{'=' if shared else ''}{ordinal(int(row.get('rank', 0)))} of {len(field)}"
    where = f" in {division}" if division else ""
    return f"{head} · you: {place}{where}, {row.get('points', 0)} pts"


def heading_lines(season: Mapping[str, Any]) -> list[str]:
    """The name and status, the settings, the divisions (the season screen's top)."""
    return [season_title(season), season_rules(season), *filter(None, [division_words(season)])]


def season_lines(season: Mapping[str, Any]) -> Sequence[str]:
    """The heading and the events, as lines (``unoduo season show``'s top)."""
    events = [f"{n:>2}. {name} ({tid}): {status}" for n, name, tid, status in event_rows(season)]
    return [*heading_lines(season), *events]
