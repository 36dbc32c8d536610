"""The table's widgets and lines. Each draws a :class:`~tui_client.models.play_model.PlayModel` and
nothing else; cards are coloured as in the scrubber (``tui_client.widgets.cards``). :class:`ActionButton`
is the lobby's and the table's button (it never takes the focus)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button

from engine.game.cards import Color, parse_card
from engine.game.errors import CardParseError
from engine.game.rulesets import Scoring
from tui_client.models.play_model import LogLine, PlayModel
from tui_client.models.seating import (
    SeatRow,
    around,
    direction_of,
    direction_words,
    is_table,
    next_seat,
    seat_count,
    seat_rows,
)
from tui_client.widgets.cards import BACK_STYLE, CARD_STYLES, COLOUR_WORD_STYLES, backs, card_text, coloured, hand_text

# A card that cannot be played now: its colour on a dark ground, no background of its own.
DIM_STYLES: dict[Color | None, str] = {
    Color.RED: "#9a4545 on #1c1c1c",
    Color.YELLOW: "#8f8137 on #1c1c1c",
    Color.GREEN: "#3f7a45 on #1c1c1c",
    Color.BLUE: "#4a6296 on #1c1c1c",
    None: "#707070 on #1c1c1c",
}
SELECTED = "bold #f9c80e"
GOOD, BAD, WARN = "bold #4cbb55", "bold #ff5252", "bold #f9c80e"
GAP = 1  # columns between two cards


class ActionButton(Button, can_focus=False):
    """A button that never takes the focus: the screen's keys stay the screen's (Enter plays)."""


def _color_of(code: str) -> Color | None:
    try:
        return parse_card(code).color
    except CardParseError:
        return None


def chip_style(code: str, playable: bool) -> str:
    color = _color_of(code)
    return CARD_STYLES[color] if playable else DIM_STYLES[color]


@dataclass(frozen=True)
class Chip:
    index: int
    row: int  # the row of cards (each row is two lines: the cards, the marks under them)
    x0: int
    x1: int  # exclusive


def hand_layout(codes: list[str], width: int) -> list[Chip]:
    """Where each card of the hand goes: ``" R5 "`` chips, wrapped at ``width``."""
    chips: list[Chip] = []
    row = x = 0
    width = max(8, width)
    for index, code in enumerate(codes):
        size = len(code) + 2
        if x and x + size > width:
            row, x = row + 1, 0
        chips.append(Chip(index, row, x, x + size))
        x += size + GAP
    return chips


class HandView(Widget):
    """The player's hand: every card in its colour; when it is the player's decision, the cards
    the view's ``legal`` list lets them play are bright and the rest dimmed; ``━`` marks the
    selected card. Clicking a card selects it; clicking the selected card plays it."""

    DEFAULT_CSS = "HandView { height: auto; min-height: 2; padding: 0 1; }"

    class Picked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, model: PlayModel, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.chips: list[Chip] = []

    def render(self) -> Text:
        m = self.model
        hand = m.hand
        if m.watching:
            return Text("(watching: no hand of yours)", style="dim")
        if not hand:
            return Text("(no cards)\n", style="dim")
        width = max(8, self.content_size.width or 80)
        self.chips = hand_layout(hand, width)
        deciding = m.choosing_card
        playable = m.playable
        rows = self.chips[-1].row + 1
        lines = [(Text(), Text()) for _ in range(rows)]
        for chip in self.chips:
            code = hand[chip.index]
            top, under = lines[chip.row]
            pad = chip.x0 - top.cell_len
            top.append(" " * pad)
            under.append(" " * (chip.x0 - under.cell_len))
            top.append(f" {code} ", style=chip_style(code, playable=not deciding or code in playable))
            size = chip.x1 - chip.x0
            if chip.index == m.selected:
                under.append("━" * size, style=SELECTED)
            elif deciding and code in playable:
                under.append(" " * (size // 2) + "·", style=GOOD)
        out = Text()
        for number, (top, under) in enumerate(lines):
            if number:
                out.append("\n")
            out.append_text(top)
            out.append("\n")
            out.append_text(under)
        return out

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for chip in self.chips:
            if chip.row == offset.y // 2 and chip.x0 <= offset.x < chip.x1:
                self.post_message(self.Picked(chip.index))
                return


def prefix_width(last_seq: int) -> int:
    """The columns of the log's ``#seq`` column: the widest number shown, ``#`` and a space."""
    return max(3, len(str(last_seq))) + 2


class PlayLog(Widget):
    """The event log, newest last, in plain words; lines wrap, the oldest scroll off the top."""

    DEFAULT_CSS = "PlayLog { height: 1fr; min-height: 3; border: round $primary; padding: 0 1; }"
    STYLES: ClassVar[dict[str, str]] = {"mine": "", "note": "dim italic", "refusal": WARN, "problem": BAD}

    def __init__(self, model: PlayModel, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.border_title = "events"

    def shown(self, height: int) -> list[LogLine]:
        """The log's lines a window of ``height`` lines would hold before wrapping: the newest,
        or, while an event is picked that is not among them, the lines up to it."""
        log = self.model.log
        shown = log[-max(1, height) :]
        picked = self.model.picked
        if picked is not None and not any(line.seq == picked for line in shown):
            # The event picked to dispute scrolled off: show the lines up to it instead.
            at = max((i for i, line in enumerate(log) if line.seq <= picked), default=0)
            shown = log[max(0, at + 1 - max(1, height)) : at + 1]
        return shown

    def line_text(self, line: LogLine, width: int) -> Text:
        """``#1114 random-1 drew a card``: the number in a column of ``width``, never running into
        the words; the picked event's number reversed."""
        prefix = Text(f"#{line.seq}".ljust(width) if line.seq else " " * width, style="dim")
        if self.model.picked is not None and line.seq == self.model.picked:
            prefix.stylize("reverse bold")
        body = coloured(line.text) if line.style in ("", "mine") else Text(line.text)
        style = self.STYLES.get(line.style, "")
        if style:
            body.stylize(style)
        if line.style == "mine":
            prefix.stylize("bold")
        return Text.assemble(prefix, body)

    def lines(self, height: int) -> list[Text]:
        shown = self.shown(height)
        width = prefix_width(max((line.seq for line in shown), default=0))
        return [self.line_text(line, width) for line in shown]

    def render(self) -> Text:
        """The lines wrapped to the width, the newest at the bottom; while an event is picked its
        first line is always on screen, however long the lines after it wrap (issue 33.5: ``!
        dispute #597`` above a log of #599-#616)."""
        width = max(10, self.content_size.width)
        height = max(1, self.content_size.height)
        rows: list[Text] = []
        picked_row: int | None = None
        picked = self.model.picked
        for line, text in zip(self.shown(height), self.lines(height), strict=True):
            if picked is not None and line.seq == picked and picked_row is None:
                picked_row = len(rows)
            rows.extend(text.wrap(self.app.console, width))
        end = len(rows) if picked_row is None else min(len(rows), picked_row + height)
        return Text("\n").join(rows[max(0, end - height) : end])


# ---------------------------------------------------------------- one-line texts


def is_big_table(m: PlayModel) -> bool:
    """Is this a table that says its seats (``classic``), or one of more than two names? Such a
    table is drawn with the opponents panel; a two-seat ``uno-duo`` or ``classic-2p`` as before."""
    return is_table(m.view) or (m.view is None and len(m.names) > 2)


def title_text(m: PlayModel) -> Text:
    names = m.names
    out = Text()
    out.append("unoduo ", style="bold")
    seats = seat_count(m.view) if m.view is not None else max(2, len(names))
    if m.watching:
        where = f"a table of {seats}" if seats > 2 else f"{m.name(0)} vs {m.name(1)}"
        out.append(f"watching {where}", style="bold")
    else:
        assert m.seat is not None
        others = f"at a table of {seats}" if seats > 2 else f"vs {m.name(around(2, m.seat)[0])}"
        out.append(f"you ({m.name(m.seat)}, seat {m.seat}) {others}", style="bold")
    if seats > 2 and m.view is not None:
        out.append(f" · {round_words(m.view)}", style="bold")
    clock = m.round_clock()
    if clock is not None:  # a timed tournament round (RULES.md D26)
        out.append(f" · {clock}", style=WARN if "time" in clock else "bold")
    ruleset = (m.view or {}).get("ruleset")
    out.append(f" · {m.match}" + (f" · {ruleset}" if ruleset else ""), style="dim")
    return out


def check_text(m: PlayModel) -> Text:
    if not m.check.ok:
        return Text(m.check.summary(), style=f"{BAD} reverse")
    return Text(m.check.summary(), style=GOOD)


def opponent_text(m: PlayModel) -> Text:
    """The other seat (both seats for a spectator): name, cards face down, UNO."""
    v = m.view or {}
    counts = v.get("hand_counts") or [0, 0]
    said = v.get("uno") or [False, False]
    seats = around(2, m.seat)
    out = Text()
    hands = v.get("hands")
    for seat in seats:
        if out:
            out.append("\n")
        turn = (v.get("pending") or {}).get("seat") == seat
        out.append("▶ " if turn else "  ", style=WARN)
        out.append(f"{m.name(seat):<14} ", style="bold")
        if isinstance(hands, list) and len(hands) == 2:
            out.append_text(hand_text([str(c) for c in hands[seat]]))  # the match is over: hands are shown
        else:
            out.append_text(backs(int(counts[seat])))
        if said[seat]:
            out.append("  UNO!", style=BAD)
    return out


# ---------------------------------------------------------------- a table of more than two

SEAT_GAP = "  "  # between two columns of the opponents panel
MIN_NAME = 4  # a name is cut to no fewer columns than this (with "…")
DEALER_STYLE = "bold #4dd0e1"


def count_words(row: SeatRow, short: bool = False) -> str:
    """``7 cards`` (``7c`` where room is short), or ``left`` for a seat that left."""
    if row.departed:
        return "left"
    if short:
        return f"{row.count}c"
    return f"{row.count} card{'s' if row.count != 1 else ''}"


def flag_words(row: SeatRow) -> list[tuple[str, str]]:
    """The marks after a seat's count: UNO said, the dealer."""
    flags = []
    if row.uno and not row.departed:
        flags.append(("UNO!", BAD))
    if row.dealer:
        flags.append(("dealer", DEALER_STYLE))
    return flags


@dataclass(frozen=True)
class SeatGrid:
    """How the opponents panel lays its lines out: ``columns`` side by side, names cut to
    ``name`` columns, the score with or without ``pts``, the count as ``7 cards`` or ``7c``
    (``short``), the marks (``flags`` columns) last."""

    columns: int
    rows: int
    name: int
    count: int
    score: int
    flags: int
    units: bool
    short: bool = False

    @property
    def cell(self) -> int:
        return 2 + self.name + 1 + self.count + 1 + self.score + (1 + self.flags if self.flags else 0)


SPARE_LINES = 2  # how many lines past its room the panel may take to keep every name whole


def seat_grid(rows: list[SeatRow], width: int, max_rows: int) -> SeatGrid:
    """The layout of ``rows`` in ``width`` columns: one line per seat, in as many columns as it
    takes to stay within ``max_rows`` lines (and as the width allows). Room is won first by
    dropping ``pts``, then by writing ``7c`` for ``7 cards``, then by one column fewer (up to
    :data:`SPARE_LINES` lines past ``max_rows``); only then is a name cut with ``…`` (never
    below :data:`MIN_NAME`): a name stays whole whoever deals."""
    flags = max((sum(len(w) + 1 for w, _ in flag_words(r)) - 1 for r in rows), default=0)
    flags = max(0, flags)
    name = max((len(r.name) for r in rows), default=0)
    points = max((len(str(r.score)) for r in rows), default=1)

    def layouts(columns: int) -> list[SeatGrid]:
        lines = -(-len(rows) // columns)
        return [
            SeatGrid(
                columns,
                lines,
                name,
                max((len(count_words(r, short)) for r in rows), default=0),
                points + (4 if units else 0),
                flags,
                units,
                short,
            )
            for units, short in ((True, False), (False, False), (False, True))
        ]

    wanted = max(1, -(-len(rows) // max(1, max_rows)))
    for columns in range(wanted, 0, -1):
        room = (width - len(SEAT_GAP) * (columns - 1)) // columns
        for grid in layouts(columns):
            if grid.cell <= room:
                return grid
        tightest = layouts(columns)[-1]
        fewer = -(-len(rows) // (columns - 1)) if columns > 1 else None
        if fewer is None or fewer > max_rows + SPARE_LINES:
            cut = name + room - tightest.cell
            if cut >= min(name, MIN_NAME):
                return replace(tightest, name=cut)
    return SeatGrid(
        1, len(rows), max(MIN_NAME, min(name, width - 24)), layouts(1)[-1].count, points, flags, False, True
    )


def _cut(name: str, room: int) -> str:
    return name if len(name) <= room else name[: max(1, room - 1)] + "…"


def seat_cell(row: SeatRow, grid: SeatGrid) -> Text:
    """``▶ bob      1 card   61 pts UNO! dealer``."""
    out = Text()
    out.append("▶ " if row.turn else "  ", style=WARN)
    name_style = "bold reverse" if row.turn else "dim" if row.departed else "bold"
    name = _cut(row.name, grid.name)
    out.append(name, style=name_style)
    out.append(" " * (grid.name - len(name)) + " ")
    out.append(count_words(row, grid.short).ljust(grid.count), style="dim" if row.departed else BACK_STYLE)
    out.append(" ")
    out.append(f"{row.score}{' pts' if grid.units else ''}".rjust(grid.score), style="dim" if row.departed else "")
    for word, style in flag_words(row):
        out.append(" ")
        out.append(word, style=style)
    return out


def seats_text(rows: list[SeatRow], width: int, max_rows: int) -> Text:
    """The opponents panel: one line per seat, clockwise from the player's left, read down each
    column: whose turn (``▶``), the name, the cards held (or ``left``), UNO!, the dealer, the score."""
    grid = seat_grid(rows, width, max_rows)
    out = Text()
    for line in range(grid.rows):
        if line:
            out.append("\n")
        for column in range(grid.columns):
            index = column * grid.rows + line
            if index >= len(rows):
                break
            if column:
                out.append(SEAT_GAP)
            cell = seat_cell(rows[index], grid)
            cell.pad_right(grid.cell - cell.cell_len)
            out.append_text(cell)
        out.rstrip()
    return out


def opponents_text(m: PlayModel, width: int = 80, max_rows: int = 10) -> Text:
    """The seats at the table other than the player's (every seat for a spectator): the
    two-seat line as it always was, or the opponents panel of a bigger table."""
    if not is_big_table(m):
        return opponent_text(m)
    return seats_text(seat_rows(m.view, m.names, m.seat), width, max_rows)


def turn_words(m: PlayModel) -> str:
    """``↻ clockwise · bob, then cyd``: the direction, the seat to move and the one after it."""
    v = m.view or {}
    words = direction_words(direction_of(v))
    turn = (v.get("pending") or {}).get("seat")
    if isinstance(turn, int):
        after = next_seat(v, turn)
        words += f" · {m.voice.name(turn)}"
        if after is not None and after != turn:
            words += f", then {m.voice.name(after)}"
    return words


def top_card_text(v: Mapping[str, Any]) -> Text:
    """The top card, the colour in force and the draw pile's count: every table's first line."""
    out = Text("  top ")
    top = v.get("top")
    out.append_text(card_text(str(top)) if top else Text("–", style="dim"))
    color = v.get("color")
    if color:
        out.append(" · colour ")
        out.append(str(color), style=COLOUR_WORD_STYLES.get(str(color), ""))
    out.append(f" · draw pile {v.get('draw_pile', '–')}")
    return out


def round_limit(v: Mapping[str, Any]) -> int:
    """The ruleset's ``round_limit`` (docs/RULES.md "A round limit"), 0 when there is none."""
    rules = v.get("rules")
    limit = rules.get("round_limit") if isinstance(rules, Mapping) else None
    return limit if isinstance(limit, int) and limit > 0 else 0


def round_words(v: Mapping[str, Any]) -> str:
    """``round 3``, ``round 3 of 4`` under a round limit, ``round 5 (tied after 4)`` past it (the
    best total was shared when the last round ended: one more round at a time)."""
    number = v.get("round", "–")
    limit = round_limit(v)
    if not limit or not isinstance(number, int):
        return f"round {number}"
    return f"round {number} of {limit}" if number <= limit else f"round {number} (tied after {limit})"


def goal_words(v: Mapping[str, Any]) -> str:
    """What ends the match: ``target 200``, or under a round limit ``first to 500 or after round
    4`` (where the winner of a round scores) / ``target 200 or after round 4`` (where reaching it
    loses): a round limit decides as often as the target (issue 33.7)."""
    target = v.get("target", "–")
    limit = round_limit(v)
    if not limit:
        return f"target {target}"
    rules = v.get("rules") or {}
    first = "first to" if rules.get("scoring") == Scoring.WINNER_SCORES else "target"
    return f"{first} {target} or after round {limit}"


def big_table_text(m: PlayModel) -> Text:
    """A table of more than two: the top card, colour and pile, the target; the player's own
    score (the others' are on their lines), the direction and who plays now and next. The
    round is on the title line."""
    v = m.view or {}
    out = top_card_text(v)
    out.append(f" · {goal_words(v)}", style="dim")
    out.append("\n  ")
    scores = v.get("scores") or []
    if m.seat is not None and 0 <= m.seat < len(scores):
        out.append(f"you {scores[m.seat]} pts", style="bold")
        if v.get("dealer") == m.seat:
            out.append(" dealer", style=DEALER_STYLE)
        out.append(" · ")
    out.append_text(coloured(turn_words(m)))
    return out


def table_text(m: PlayModel) -> Text:
    """The top card and colour in force, the piles, the round, both scores and the target, a volley."""
    if is_big_table(m):
        return big_table_text(m)
    v = m.view or {}
    out = top_card_text(v)
    draft = v.get("draft_pile") or []
    if draft:
        out.append(" · draft pile ")
        out.append_text(hand_text([str(c) for c in draft[-8:]]))
        if len(draft) > 8:
            out.append(f" (+{len(draft) - 8})", style="dim")
    out.append("\n  ")
    scores = v.get("scores") or [0, 0]
    out.append(round_words(v), style="bold")
    out.append(" · scores ")
    for seat in (0, 1):
        out.append(f"{m.voice.name(seat)} {scores[seat]}", style="bold")
        out.append(" · " if seat == 0 else "")
    out.append(f" · {goal_words(v)}", style="dim")
    pending = v.get("pending") or {}
    if pending.get("kind") == "volley":
        out.append(f" · volley {pending.get('total')}", style=WARN)
    return out


def prompt_text(m: PlayModel, seconds: float | None) -> Text:
    """``▶ ⏱ 42 s  your turn: …``: the clock first, so a narrow terminal never cuts it off."""
    out = Text()
    mine = m.my_decision
    out.append("▶ " if mine else "  ", style=WARN)
    if seconds is not None:
        style = BAD if seconds < 10 else "bold #8ab4f8"
        out.append(f"⏱ {int(seconds + 0.999)} s", style=style)
        out.append("  ")
    words = coloured(m.prompt())
    if mine:
        words.stylize("bold")
    out.append_text(words)
    return out


def status_text(m: PlayModel) -> Text:
    if not m.check.ok:
        return Text(f" {m.check.summary()} ", style=f"{BAD} reverse")
    style = {"refusal": WARN, "note": "italic"}.get(m.status_style, "")
    out = Text(m.status, style=style)
    return out
