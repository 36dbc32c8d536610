"""The player screen's headless core: ``GET /api/players/{id}`` (docs/API.md) in rows and words
(docs/TUI.md "The player screen"). No Textual, no I/O; ``unoduo player show`` prints the same.

- :func:`ratings`: a rating per family (``UNO Duo 1523 ± 87 · 14 games``; a provisional one
  marked as lichess does, ``1500?``);
- :func:`chart_series` and :func:`chart_rows`: the rating over the rated matches of a family, as
  a braille line chart with its y-axis; :func:`sparkline` the same in one line of blocks;
- :func:`history_rows`: the match history, newest first: date, opponent(s) by name (a bot
  marked ``[bot]``), result or place, score, rating change (``+12``, ``−8``), tournament and round;
- :func:`head_to_head_rows`, :func:`tournament_rows`;
- :func:`page_lines`: all of it as text, for the command line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

FAMILIES: tuple[str, ...] = ("uno-duo", "classic")
FAMILY_WORDS: dict[str, str] = {"uno-duo": "UNO Duo", "classic": "classic"}
KIND_WORDS: dict[str, str] = {"human": "player", "bot": "house bot", "bot_account": "bot account"}
BOT_KINDS = ("bot", "bot_account")
BOT_MARK = "[bot]"
NEWCOMER = (1500.0, 350.0)  # what a family without a rating shows (the server's newcomer)
MINUS = "\u2212"  # a real minus sign: −8

SHOWN_OPPONENTS = 2  # a table's row names this many of the other seats, then "+N"
OPPONENT_WIDTH = 22
EVENT_WIDTH = 18

HISTORY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("date", "date"),
    ("opponent", "opponent"),
    ("result", "result"),
    ("score", "score"),
    ("change", "±"),
    ("event", "event"),
)
HEAD_TO_HEAD_COLUMNS: tuple[tuple[str, str], ...] = (
    ("opponent", "opponent"),
    ("played", "P"),
    ("wld", "W–L–D"),
)
TOURNAMENT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("name", "tournament"),
    ("status", "status"),
    ("rank", "place"),
)

BRAILLE_BASE = 0x2800
# The dot of a braille cell at (column 0-1, row 0-3, from the top).
BRAILLE_DOTS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))
SPARKS = "▁▂▃▄▅▆▇█"


def _float(value: object, default: float) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, an ellipsis marking a cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def family_words(family: str) -> str:
    return FAMILY_WORDS.get(family, family)


def who(seat: object, width: int | None = None) -> str:
    """A seat's player by name, a bot (house bot or bot account) marked: ``greedy-1 [bot]``; in at
    most ``width`` characters the name is cut, never the mark (``greed… [bot]``)."""
    if not isinstance(seat, Mapping):
        return "(empty seat)" if width is None else cut("(empty seat)", width)
    name = str(seat.get("name") or seat.get("id") or "?")
    mark = f" {BOT_MARK}" if seat.get("kind") in BOT_KINDS else ""
    if width is not None:
        name = cut(name, max(3, width - len(mark)))
    return name + mark


def title_words(page: Mapping[str, Any]) -> str:
    """``ann · player · p_1a2b``; ``greedy-1 · house bot · bot:greedy``."""
    kind = str(page.get("kind") or "")
    return " · ".join(
        part
        for part in (str(page.get("name") or page.get("id") or "?"), KIND_WORDS.get(kind, kind), page.get("id"))
        if part
    )


# ---------------------------------------------------------------- ratings


@dataclass(frozen=True)
class Rating:
    family: str
    rating: float
    deviation: float
    provisional: bool
    games: int

    @property
    def short(self) -> str:
        """``1523``, or ``1500?`` while provisional (as lichess shows it)."""
        return f"{round(self.rating)}{'?' if self.provisional else ''}"

    @property
    def text(self) -> str:
        """``1523 ± 87``, ``1500? ± 350``."""
        return f"{self.short} ± {round(self.deviation)}"

    @property
    def details(self) -> str:
        """``14 games``, ``provisional · 0 games``."""
        return f"provisional · {self.games_words}" if self.provisional else self.games_words

    @property
    def games_words(self) -> str:
        return f"{self.games} game{'' if self.games == 1 else 's'}"

    @property
    def line(self) -> str:
        """``UNO Duo 1523 ± 87 · 14 games``."""
        return f"{family_words(self.family)} {self.text} · {self.details}"


def rating_of(page: Mapping[str, Any], family: str) -> Rating:
    """The player's rating in ``family``; a newcomer's (1500 ± 350, provisional) if the page has none."""
    found = (page.get("ratings") or {}).get(family)
    if not isinstance(found, Mapping):
        return Rating(family, NEWCOMER[0], NEWCOMER[1], True, 0)
    return Rating(
        family,
        _float(found.get("rating"), NEWCOMER[0]),
        _float(found.get("deviation"), NEWCOMER[1]),
        bool(found.get("provisional", True)),
        _int(found.get("games")) or 0,
    )


def ratings(page: Mapping[str, Any]) -> list[Rating]:
    """One rating per family, in :data:`FAMILIES` order (then any other the server gives)."""
    given = [f for f in (page.get("ratings") or {}) if isinstance(f, str) and f not in FAMILIES]
    return [rating_of(page, family) for family in (*FAMILIES, *given)]


def default_family(page: Mapping[str, Any]) -> str:
    """The family the chart opens on: the one with the most rated games; on a tie the family of
    the latest match; else UNO Duo."""
    games = {r.family: r.games for r in ratings(page)}
    best = max(games.values(), default=0)
    tied = [f for f, n in games.items() if n == best]
    if len(tied) == 1:
        return tied[0]
    for item in page.get("history") or []:
        if isinstance(item, Mapping) and item.get("family") in tied:
            return str(item["family"])
    return FAMILIES[0]


def next_family(page: Mapping[str, Any], family: str) -> str:
    """The family after ``family`` (the chart's ``f`` key), round again after the last."""
    families = [r.family for r in ratings(page)]
    if family not in families:
        return families[0]
    return families[(families.index(family) + 1) % len(families)]


# ---------------------------------------------------------------- the chart


@dataclass(frozen=True)
class ChartSeries:
    """A family's rating after each rated match, oldest first."""

    family: str
    values: tuple[float, ...]
    ats: tuple[str, ...]  # each point's date (``2026-12-02``; "" if the server gave none)

    @property
    def low(self) -> float:
        return min(self.values)

    @property
    def high(self) -> float:
        return max(self.values)

    @property
    def current(self) -> float:
        return self.values[-1]

    @property
    def summary(self) -> str:
        """``now 1523 · 1480–1561 · 14 matches`` (the last, the lowest and highest, how many
        rated matches); ``no rated classic match yet``."""
        if not self.values:
            return f"no rated {family_words(self.family)} match yet"
        n = len(self.values)
        return f"now {round(self.current)} · {round(self.low)}–{round(self.high)} · {n} match{'' if n == 1 else 'es'}"

    @property
    def span(self) -> str:
        """``2026-11-30 … 2026-12-02``: the first point's date and the last's."""
        dates = [a for a in self.ats if a]
        if not dates:
            return ""
        return dates[0] if dates[0] == dates[-1] else f"{dates[0]} … {dates[-1]}"


def date_of(at: object) -> str:
    """An ISO time's date (``2026-12-02``); "" for none or one that is not a time."""
    if not isinstance(at, str) or not at:
        return ""
    try:
        return datetime.fromisoformat(at.replace("Z", "+00:00")).strftime("%Y-%m-%d")
    except ValueError:
        return ""


def chart_series(page: Mapping[str, Any], family: str) -> ChartSeries:
    points = [
        p for p in ((page.get("rating_history") or {}).get(family) or []) if isinstance(p, Mapping) and "rating" in p
    ]
    return ChartSeries(
        family, tuple(_float(p.get("rating"), NEWCOMER[0]) for p in points), tuple(date_of(p.get("at")) for p in points)
    )


def _scale(low: float, high: float) -> tuple[float, float]:
    """The y-axis's bounds: the values' own, widened to at least 20 points so that a flat series
    is a line in the middle rather than a line on the floor."""
    if high - low < 20:
        middle = (low + high) / 2
        return middle - 10, middle + 10
    return low, high


def _resample(values: Sequence[float], n: int) -> list[float]:
    """``values`` as at most ``n`` points: each point the mean of its share of the values."""
    if len(values) <= n:
        return list(values)
    out = []
    for i in range(n):
        start, end = i * len(values) // n, (i + 1) * len(values) // n
        share = values[start : max(end, start + 1)]
        out.append(sum(share) / len(share))
    return out


def _line(x0: int, y0: int, x1: int, y1: int) -> Iterable[tuple[int, int]]:
    """The dots of a straight line from (x0, y0) to (x1, y1), both ends included (Bresenham)."""
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x1 > x0 else -1), (1 if y1 > y0 else -1)
    err = dx + dy
    while True:
        yield x0, y0
        if (x0, y0) == (x1, y1):
            return
        twice = 2 * err
        if twice >= dy:
            err += dy
            x0 += sx
        if twice <= dx:
            err += dx
            y0 += sy


def braille_chart(values: Sequence[float], width: int, height: int, low: float, high: float) -> list[str]:
    """``values`` as a line in ``height`` rows of ``width`` braille cells (each 2 dots wide, 4
    high), ``low`` on the bottom dot row and ``high`` on the top one; the points spread over the
    width, at most two per cell column (more are averaged), consecutive points joined."""
    if width <= 0 or height <= 0:
        return []
    cells = [[0] * width for _ in range(height)]
    points = _resample(values, 2 * width)
    dots_x, dots_y = 2 * width, 4 * height
    span = (high - low) or 1.0

    def y_of(value: float) -> int:
        return min(dots_y - 1, max(0, round((high - value) / span * (dots_y - 1))))

    if len(points) == 1:
        xs = [0, dots_x - 1]  # one rating: a level line across the chart
        points = [points[0], points[0]]
    else:
        xs = [round(i * (dots_x - 1) / (len(points) - 1)) for i in range(len(points))]
    previous: tuple[int, int] | None = None
    for x, value in zip(xs, points, strict=True):
        here = (x, y_of(value))
        for dx, dy in _line(*(previous or here), *here):
            cells[dy // 4][dx // 2] |= BRAILLE_DOTS[dy % 4][dx % 2]
        previous = here
    return ["".join(chr(BRAILLE_BASE + c) if c else " " for c in row) for row in cells]


def axis_labels(low: float, high: float, height: int) -> list[str]:
    """The y-axis: ``high`` on the first row, ``low`` on the last, the middle between (for
    charts of five rows or more); the other rows blank. Right-aligned to one width."""
    labels = [""] * height
    if height <= 0:
        return labels
    labels[0] = str(round(high))
    if height > 1:
        labels[-1] = str(round(low))
    if height >= 5:
        labels[(height - 1) // 2] = str(round((low + high) / 2))
    wide = max(len(label) for label in labels)
    return [label.rjust(wide) for label in labels]


def chart_rows(series: ChartSeries, width: int, height: int) -> list[tuple[str, str]]:
    """The chart in ``width`` × ``height`` characters: per row the y-axis label (with its ``┤``
    or ``│``) and the plot. Nothing to draw: no rows."""
    if not series.values or height <= 0:
        return []
    low, high = _scale(series.low, series.high)
    labels = axis_labels(low, high, height)
    room = max(1, width - len(labels[0]) - 1)
    plot = braille_chart(series.values, room, height, low, high)
    return [(f"{label}{'┤' if label.strip() else '│'}", line) for label, line in zip(labels, plot, strict=True)]


def sparkline(values: Sequence[float], width: int) -> str:
    """``values`` in one line of at most ``width`` blocks (``▁▂▃▅▇``), low to high."""
    points = _resample(values, max(1, width))
    if not points:
        return ""
    low, high = min(points), max(points)
    if high - low < 1e-9:
        return SPARKS[len(SPARKS) // 2 - 1] * len(points)
    top = len(SPARKS) - 1
    return "".join(SPARKS[round((v - low) / (high - low) * top)] for v in points)


# ---------------------------------------------------------------- history


def change_words(change: object) -> str:
    """A rating change: ``+12``, ``−8`` (a minus sign), ``±0``; "" when the match was not rated."""
    if not isinstance(change, int | float) or isinstance(change, bool):
        return ""
    n = round(change)
    if n == 0:
        return "±0"
    return f"+{n}" if n > 0 else f"{MINUS}{-n}"


def result_words(item: Mapping[str, Any]) -> str:
    """``won``, ``lost``, ``drawn``; a table's ``2nd of 4``; else the status (``live``, ``waiting``,
    ``annulled``)."""
    status = str(item.get("status") or "")
    if status != "finished":
        return status or "–"
    result = item.get("result")
    if result in ("won", "lost", "drawn"):
        return str(result)
    place = _int(item.get("place"))
    if place is not None:
        return f"{ordinal(place)} of {len(item.get('seats') or [])}"
    return "–"


def _seat(item: Mapping[str, Any]) -> int:
    return _int(item.get("seat")) or 0


def opponents(item: Mapping[str, Any]) -> list[Any]:
    """The other seats of a history item, clockwise from the player's left."""
    seats = list(item.get("seats") or [])
    mine = _seat(item)
    return [seats[(mine + k) % len(seats)] for k in range(1, len(seats))] if seats else []


def opponent_words(item: Mapping[str, Any], width: int | None = None) -> str:
    """``bob``, ``greedy-1 [bot]``; at a table ``bob, cyd +2``. In at most ``width`` characters
    (a lone opponent's bot mark kept)."""
    others = opponents(item)
    if len(others) == 1:
        return who(others[0], width)
    names = [who(seat) for seat in others]
    if len(names) > SHOWN_OPPONENTS + 1:
        names = [*names[:SHOWN_OPPONENTS], f"+{len(names) - SHOWN_OPPONENTS}"]
        words = ", ".join(names[:-1]) + " " + names[-1]
    else:
        words = ", ".join(names) if names else "–"
    return words if width is None else cut(words, width)


def score_words(item: Mapping[str, Any]) -> str:
    """The player's score first: ``41–87``; at a table the player's own total (``41``)."""
    scores = [s for s in (item.get("scores") or []) if isinstance(s, int)]
    mine = _seat(item)
    if item.get("status") == "waiting":
        return ""
    if mine >= len(scores):
        return ""
    if len(scores) == 2:
        return f"{scores[mine]}–{scores[1 - mine]}"
    return str(scores[mine])


def event_words(item: Mapping[str, Any]) -> str:
    """``Spring Cup r3`` for a tournament's match, ``casual`` otherwise."""
    if not item.get("tournament"):
        return "casual"
    name = str(item.get("tournament_name") or item.get("tournament"))
    rnd = _int(item.get("round"))
    return f"{name} r{rnd}" if rnd is not None else name


@dataclass(frozen=True)
class HistoryRow:
    match: str
    status: str
    seat: int
    names: tuple[str, ...]  # one per seat, as the table screen names them
    cells: tuple[str, ...]  # in HISTORY_COLUMNS order

    @property
    def key(self) -> str:
        return self.match

    @property
    def change(self) -> str:
        return self.cells[4]


def history_row(
    item: Mapping[str, Any], widths: tuple[int, int] = (OPPONENT_WIDTH, EVENT_WIDTH), short: bool = False
) -> HistoryRow:
    """One match's row; ``widths``: the opponent and event cells' at most; ``short``: the date
    without its year (``12-02``), for a narrow terminal."""
    seats = list(item.get("seats") or [])
    names = tuple(str(s.get("name") or s.get("id")) if isinstance(s, Mapping) else "(empty seat)" for s in seats)
    date = date_of(item.get("at"))
    cells = (
        (date[5:] if short else date) or "–",
        opponent_words(item, widths[0]),
        result_words(item),
        score_words(item),
        change_words(item.get("rating_change")) or ("–" if item.get("unrated") else ""),
        cut(event_words(item), widths[1]),
    )
    return HistoryRow(str(item.get("match")), str(item.get("status") or ""), _seat(item), names, cells)


def history_rows(
    items: object, widths: tuple[int, int] = (OPPONENT_WIDTH, EVENT_WIDTH), short: bool = False
) -> list[HistoryRow]:
    """A history (newest first, as the server gives it) in rows; the same match twice only once."""
    rows: list[HistoryRow] = []
    seen: set[str] = set()
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping) and item.get("match") and str(item["match"]) not in seen:
            seen.add(str(item["match"]))
            rows.append(history_row(item, widths, short))
    return rows


# ---------------------------------------------------------------- head-to-head, tournaments


@dataclass(frozen=True)
class HeadToHeadRow:
    opponent: str  # the opponent's id
    cells: tuple[str, ...]  # in HEAD_TO_HEAD_COLUMNS order

    @property
    def key(self) -> str:
        return self.opponent


def head_to_head_rows(page: Mapping[str, Any], width: int = 16) -> list[HeadToHeadRow]:
    """``bob  5  3–2–0``: each opponent (most played first), games played, won–lost–drawn."""
    rows = []
    for entry in page.get("head_to_head") or []:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("opponent"), Mapping):
            continue
        opponent = entry["opponent"]
        won, lost, drawn = (_int(entry.get(k)) or 0 for k in ("won", "lost", "drawn"))
        cells = (who(opponent, width), str(_int(entry.get("played")) or 0), f"{won}–{lost}–{drawn}")
        rows.append(HeadToHeadRow(str(opponent.get("id") or opponent.get("name")), cells))
    return rows


@dataclass(frozen=True)
class TournamentRow:
    tournament: str
    cells: tuple[str, ...]  # in TOURNAMENT_COLUMNS order


SHORT_STATUS = {"created": "open", "running": "live", "finished": "done"}


def tournament_rows(page: Mapping[str, Any], width: int = 20, short: bool = False) -> list[TournamentRow]:
    """``Spring Cup  finished  2nd of 5``: the tournaments the player is in, as the server lists
    them; ``short``: the status in a word of four (``live``, ``done``, ``open``), for a narrow panel."""
    rows = []
    for t in page.get("tournaments") or []:
        if not isinstance(t, Mapping):
            continue
        rank, players = _int(t.get("rank")), _int(t.get("players"))
        place = ordinal(rank) if rank is not None else "–"
        if rank is not None and players:
            place += f" of {players}"
        name = cut(str(t.get("name") or t.get("id")), width)
        status = str(t.get("status") or "")
        rows.append(
            TournamentRow(str(t.get("id")), (name, SHORT_STATUS.get(status, status) if short else status, place))
        )
    return rows


# ---------------------------------------------------------------- as text (unoduo player show)


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], width: int, indent: int = 2) -> list[str]:
    """Columns two spaces apart, each as wide as its widest cell; too wide for ``width``, the
    widest column is cut (an ellipsis) until the table fits."""
    if not rows:
        return []
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    while indent + sum(widths) + 2 * (len(widths) - 1) > width and max(widths) > 4:
        widths[widths.index(max(widths))] -= 1
    lines = []
    for row in [header, *rows]:
        cells = [cut(str(c), w).ljust(w) for c, w in zip(row, widths, strict=True)]
        lines.append((" " * indent + "  ".join(cells)).rstrip())
    return lines


def versus_lines(versus: Mapping[str, Any], width: int = 80) -> list[str]:
    """``GET /api/players/{id}/versus/{other}`` as text: the record, then the matches."""
    player, opponent = versus.get("player") or {}, versus.get("opponent") or {}
    won, lost, drawn = (_int(versus.get(k)) or 0 for k in ("won", "lost", "drawn"))
    played = _int(versus.get("played")) or 0
    lines = [f"{who(player)} vs {who(opponent)}: {played} played, {won} won, {lost} lost, {drawn} drawn"]
    rows = history_rows(versus.get("matches"))
    lines += text_table([label for _k, label in HISTORY_COLUMNS], [r.cells for r in rows], width)
    return lines


def review_words(page: Mapping[str, Any]) -> str | None:
    """The page's Game Review figures in one line (docs/REVIEW.md), or None before any is reviewed."""
    review = page.get("review")
    if not isinstance(review, Mapping) or not review.get("matches") or review.get("accuracy") is None:
        return None
    agreement = review.get("agreement")
    best = "" if agreement is None else f" · the coach's choice {100 * float(agreement):.0f}%"
    return (
        f"Game Review: accuracy {float(review['accuracy']):.0f}% · average loss {float(review['average_loss']):.3f}"
        f"{best} ({review['matches']} of the last {review['of_matches']} matches)"
    )


def page_lines(page: Mapping[str, Any], width: int = 80, matches: int = 10) -> list[str]:
    """The player's page as text in ``width`` columns: who, the ratings, each family's rating as a
    sparkline, the last ``matches`` matches, head-to-head and tournaments."""
    kind = str(page.get("kind") or "")
    lines = [f"{page.get('name')}  ({page.get('id')}, {kind})"]
    if "ratings" not in page:  # a server without the player page: who, and nothing more
        return lines
    lines.append("")
    label = max(len(family_words(r.family)) for r in ratings(page))
    for rating in ratings(page):
        series = chart_series(page, rating.family)
        lines.append(f"{family_words(rating.family).ljust(label)}  {rating.text} · {rating.details}")
        if series.values:
            spark = sparkline(series.values, min(40, width - label - 4))
            lines.append(f"{'':{label}}  {spark}  {series.summary}"[:width].rstrip())
    reviewed = review_words(page)
    if reviewed:
        lines.append(reviewed[:width])
    rows = history_rows(page.get("history"))
    if rows:
        lines += ["", f"last matches (newest first, {min(matches, len(rows))} of {len(rows)})"]
        header = [label for _k, label in HISTORY_COLUMNS]
        lines += text_table(header, [r.cells for r in rows[:matches]], width)
    else:
        lines += ["", "no match yet"]
    h2h = head_to_head_rows(page, width=24)
    if h2h:
        lines += ["", "head-to-head (most played first)"]
        lines += text_table(["opponent", "played", "won–lost–drawn"], [r.cells for r in h2h], width)
    tours = tournament_rows(page, width=32)
    if tours:
        lines += ["", "tournaments"]
        lines += text_table([label for _k, label in TOURNAMENT_COLUMNS], [r.cells for r in tours], width)
    return lines
