"""The scrubber's widgets. Each one draws a :class:`~tui_client.models.replay_model.Frame` (or the
model's round scores) and nothing else: all facts come from the headless core."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Static

from engine.fairness.audit_report import format_challenge, format_table
from engine.game.score_words import rule_words
from engine.record.sealing import AUDITOR, Viewer
from tui_client.models.replay_model import ChallengeAt, Frame, MarkKind, ReplayModel, TimelineBar, perspective_name
from tui_client.models.seating import direction_of, direction_words, seat_rows
from tui_client.widgets.cards import COLOUR_WORD_STYLES, backs, card_text, coloured, hand_text

MARK_GLYPHS: dict[MarkKind | None, tuple[str, str]] = {
    None: ("·", "#6c6c6c"),
    MarkKind.CHALLENGE: ("X", "bold #ff5252"),
    MarkKind.VOLLEY: ("v", "#f9c80e"),
    MarkKind.UNO_CAUGHT: ("c", "bold #e040fb"),
    MarkKind.ROUND_END: ("│", "bold #4dd0e1"),
}
LEGEND = "X challenge  v volley  c UNO caught  │ round end"
SEAT_COLOURS = (
    "#5c8ff0",
    "#f9c80e",
    "#4cbb55",
    "#ef5350",
    "#e040fb",
    "#4dd0e1",
    "#ff9800",
    "#bdbdbd",
    "#8d6e63",
    "#aed581",
)


def _seat_label(model: ReplayModel, seat: int) -> str:
    return model.seat_label(seat)


class TitleBar(Widget):
    """One line: what is replayed, from whose perspective, and where the cursor is."""

    DEFAULT_CSS = "TitleBar { height: 1; background: $panel; }"

    def __init__(self, model: ReplayModel, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.frame: Frame | None = None

    def show(self, frame: Frame) -> None:
        self.frame = frame
        self.refresh()

    def render(self) -> Text:
        m, f = self.model, self.frame
        width = self.size.width
        verified = ("✓ verified", "bold #4cbb55") if m.ok else ("✗ NOT VERIFIED", "bold #ff5252")
        if m.live and m.ok:  # not over: the chain and the openings hold; the rest waits for the seed
            verified = ("live · chain ✓", "bold #f9c80e")
        right = Text()
        if f is not None:
            right.append("view ")
            right.append(perspective_name(f.viewer), style="bold reverse")
            right.append(f" (v) · round {f.round} · event {f.seq}/{f.total}", style="bold")
        match = str(m.header.get("match"))
        ruleset = f" · {m.header.get('ruleset')}"
        fixed = len("replay  · ") + len(verified[0]) + right.cell_len + 1
        if fixed + len(match) + len(ruleset) > width:
            ruleset = ""
        room = width - fixed - len(ruleset)
        if len(match) > room:
            match = match[: max(1, room - 1)] + "…"
        left = Text.assemble(("replay ", "bold"), match, ruleset, " · ", verified)
        gap = width - left.cell_len - right.cell_len
        return Text.assemble(left, " " * max(1, gap), right)


class Timeline(Widget):
    """The whole match as one bar: a column per few events, marks where something happened,
    ``▲`` under the cursor. Clicking a column jumps to its first event."""

    DEFAULT_CSS = "Timeline { height: 2; }"

    class Jump(Message):
        def __init__(self, seq: int) -> None:
            super().__init__()
            self.seq = seq

    def __init__(self, model: ReplayModel, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.cursor = 1

    def bar(self) -> TimelineBar:
        return TimelineBar(max(1, self.size.width), self.model.total, self.model.marks)

    def show(self, seq: int) -> None:
        self.cursor = seq
        self.refresh()

    def render(self) -> Text:
        bar = self.bar()
        here = bar.column(self.cursor)
        top = Text()
        for col, kind in enumerate(bar.cells()):
            glyph, style = MARK_GLYPHS[kind]
            top.append(glyph, style=f"{style} reverse" if col == here else style)
        width = bar.width
        under = [" "] * width
        start = width - len(LEGEND) if here < width // 2 else 0
        if start >= 0 and not start - 2 <= here <= start + len(LEGEND) + 1:
            under[start : start + len(LEGEND)] = list(LEGEND)
        under[here] = "▲"
        bottom = Text("".join(under), style="#8a8a8a")
        bottom.stylize("bold #ffffff", here, here + 1)
        return Text.assemble(top, "\n", bottom)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self.post_message(self.Jump(self.bar().seq_at(offset.x)))


class TablePanel(Static):
    """The table at the cursor as the perspective saw it (engine.protocol.views.view): the hand of a seat
    that is not the viewer is shown as card backs."""

    def __init__(self, model: ReplayModel, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.border_title = "table"

    def show(self, frame: Frame) -> None:
        self.border_title = f"table after #{frame.seq} · {frame.event_type}"
        self.update(self.text(frame))

    def text(self, frame: Frame) -> Text:
        v = frame.view
        if self.model.seats > 2:
            return self.table_text(frame)
        out = Text()
        for seat in (0, 1):
            turn = v.get("turn") == seat
            out.append("▶ " if turn else "  ", style="bold #f9c80e")
            out.append(_seat_label(self.model, seat), style="bold" if turn else "")
            count = v["hand_counts"][seat]
            out.append(f" · {count} card{'s' if count != 1 else ''}")
            if v["uno"][seat]:
                out.append(" · UNO", style="bold #ff5252")
            out.append("\n    ")
            hands = v.get("hands")
            if hands is not None:
                out.append_text(hand_text(hands[seat]))
            elif v.get("viewer") == seat and v.get("hand") is not None:
                out.append_text(hand_text(v["hand"]))
            else:
                out.append_text(backs(count))
            out.append("\n")
        out.append("  top ")
        out.append_text(card_text(v["top"]) if v.get("top") else Text("–"))
        if v.get("color"):
            out.append(" · colour ")
            out.append(v["color"], style=COLOUR_WORD_STYLES.get(v["color"], ""))
        out.append(f" · draw pile {v['draw_pile']}")
        if v.get("draft_pile"):
            out.append(" · draft ")
            out.append_text(hand_text(v["draft_pile"]))
        out.append("\n")
        scores = v["scores"]
        out.append(f"  scores {scores[0]} – {scores[1]} / {v['target']}\n", style="bold")
        out.append_text(self._decision(frame))
        return out

    def _decision(self, frame: Frame) -> Text:
        """Whose decision the match waits for, and (the perspective's own) what is legal now."""
        v = frame.view
        if frame.event_type != "awaiting" and v.get("winner") is None:
            # Mid-batch: the pending decision is the one just answered, not yet the next one.
            return Text("  (no decision open: mid-batch)", style="dim")
        out = self._waiting(v, v.get("pending") or {})
        legal = v.get("legal") or []
        if legal:
            out.append("\n  legal now: ", style="dim")
            out.append_text(coloured(", ".join(_command_words(c) for c in legal)))
        return out

    def table_text(self, frame: Frame) -> Text:
        """A table of more than two: a line per seat (whose turn, seat and name, cards or
        ``left``, score, UNO, dealer, and the hand where this perspective sees it, cut to the
        panel's width), then the top card, the direction and the decision open."""
        v = frame.view
        width = max(20, self.content_size.width or 36)
        out = Text()
        hands = v.get("hands")
        for row in seat_rows(v, self.model.players, None):
            line = Text()
            line.append("▶ " if row.turn else "  ", style="bold #f9c80e")
            line.append(f"{row.seat} {row.name}", style="bold" if row.turn else "dim" if row.departed else "")
            count = f"{row.count} card{'s' if row.count != 1 else ''}"
            line.append(" · left" if row.departed else f" · {count}", style="dim" if row.departed else "")
            line.append(f" · {row.score} pts")
            if row.uno and not row.departed:
                line.append(" UNO", style="bold #ff5252")
            if row.dealer:
                line.append(" dealer", style="bold #4dd0e1")
            if hands is not None and not row.departed:  # the auditor: every hand, cut to the line
                line.append("  ")
                line.append_text(hand_text(hands[row.seat]))
            line.truncate(width, overflow="ellipsis")
            out.append_text(line)
            out.append("\n")
            if hands is None and v.get("viewer") == row.seat and v.get("hand") is not None:
                out.append("    ")  # the perspective's own hand, whole, under its line
                out.append_text(hand_text(v["hand"]))
                out.append("\n")
        out.append("  top ")
        out.append_text(card_text(v["top"]) if v.get("top") else Text("–"))
        if v.get("color"):
            out.append(" ")
            out.append(v["color"], style=COLOUR_WORD_STYLES.get(v["color"], ""))
        out.append(f" · draw pile {v['draw_pile']}\n")
        out.append(f"  {direction_words(direction_of(v))}", style="bold")
        out.append(f" · target {v['target']}\n")
        out.append_text(self._decision(frame))
        return out

    def _waiting(self, v: dict[str, Any], pending: dict[str, Any]) -> Text:
        if v.get("winner") is not None:
            return Text(f"  match over: {self.model.result() or self.model.name(v['winner'])}", style="bold #4cbb55")
        seat = pending.get("seat")
        if seat is None:
            return Text(f"  {v.get('phase')}", style="dim")
        kind = pending.get("kind")
        words = {
            "draft": "keep or pass the card looked at",
            "turn": "play or draw",
            "drawn": "play or keep the drawn card",
            "volley": f"volley: play a Draw Two or draw {pending.get('total')}",
            "wild_draw_four": "accept or challenge the Wild Draw Four",
            "dump": "dump or play on",
            "color": "name the starter's colour",
        }.get(str(kind), str(kind))
        if pending.get("card"):
            words += f" ({pending['card']})"
        return coloured(f"  waiting for {self.model.name(seat)}: {words}")


def _command_words(command: dict[str, Any]) -> str:
    kind = str(command.get("type"))
    return " ".join([kind, *(str(command[k]) for k in ("card", "keep") if k in command)])


class EventLog(Widget):
    """The event under the cursor (last, marked ▶) and the ones before it, in words. Clicking a
    line jumps to that event."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "events"
        self.frame: Frame | None = None
        self.rows: list[int] = []  # the seq drawn on each row

    def show(self, frame: Frame) -> None:
        self.frame = frame
        self.refresh()

    def render(self) -> Text:
        if self.frame is None:
            return Text()
        width = max(10, self.content_size.width)
        height = max(1, self.content_size.height)
        lines = self.frame.log
        current = lines[-1]
        head = f"▶{current.seq:>4} "
        current_rows = max(1, -(-(len(head) + len(current.text)) // width))
        room = max(0, height - current_rows)
        earlier = lines[:-1][-room:] if room else []
        out = Text(no_wrap=False)
        self.rows = []
        for line in earlier:
            text = Text(f"{line.seq:>5} ", style="dim")
            text.append_text(coloured(line.text))
            text.truncate(width, overflow="ellipsis")
            out.append_text(text)
            out.append("\n")
            self.rows.append(line.seq)
        out.append(head, style="bold #f9c80e")
        body = coloured(current.text)
        body.stylize("bold")
        out.append_text(body)
        self.rows += [current.seq] * current_rows
        return out

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and 0 <= offset.y < len(self.rows):
            self.post_message(Timeline.Jump(self.rows[offset.y]))


class AuditPanel(Static):
    """At a Wild Draw Four challenge: what ``unoduo audit`` reports (engine.fairness.audit_report's
    ``format_challenge`` of ``challenges()``, and ``table_at`` the verdict), rendered: cards in
    colour, the cards that made the play illegal bracketed and underlined. In a seat's
    perspective, what that seat was not shown stays hidden."""

    def __init__(self, model: ReplayModel, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.border_title = "audit"
        self.body = Text()

    def show(self, at: ChallengeAt, viewer: Viewer) -> None:
        self.border_title = f"audit: challenge {at.number}/{len(self.model.challenges)} · seq {at.facts.resolved_seq}"
        self.body = self.text(at, viewer)
        self.update(self.body)

    def text(self, at: ChallengeAt, viewer: Viewer) -> Text:
        c = at.facts
        lines = format_challenge(c, self.model.names, at.number)
        facts = lines[: len(lines) - len(c.draws)]
        draws = lines[len(facts) :]
        by_label = {}
        for line in facts[1:]:
            label, _, value = line.strip().partition(":")
            by_label[label] = value.strip()
        good, bad = "bold #4cbb55", "bold #ff5252"
        out = Text()
        # The verdict first: on a small terminal it must be seen without scrolling.
        out.append("verdict: ", style="dim")
        out.append(by_label.pop("verdict", "").upper(), style=good if c.legal else bad)
        out.append("\n")
        for label in ("ILLEGAL", "LEGAL"):
            if label in by_label:
                value = by_label.pop(label)
                out.append(f"{label}: ", style=bad if label == "ILLEGAL" else good)
                if at.hand_shown or label == "LEGAL":
                    out.append_text(coloured(value))
                else:
                    out.append("the cards that made it so were shown to the challenger only", style="dim")
                out.append("\n")
        out.append("hand then: ", style="dim")
        by_label.pop("hand then", None)
        if at.hand_shown:
            out.append_text(hand_text(c.hand, highlight=c.matching))
            out.append(" (as the W+4 left it)", style="dim")
        else:
            out.append("shown to the challenger only", style="dim")
        out.append("\n")
        for label, value in by_label.items():
            out.append(f"{label}: ", style="dim")
            out.append_text(coloured(value))
            out.append("\n")
        for draw, line in zip(c.draws, draws, strict=True):
            words = line.strip()
            if at.draw_shown(draw.seat):
                out.append_text(coloured(words))
            else:
                out.append(words.rsplit(":", 1)[0] + ": ")
                out.append_text(backs(draw.count))
            out.append("\n")
        t = at.table
        out.append(f"hands at the verdict (table at seq {t.seq}):", style="dim")
        for seat in range(len(t.hands)):
            out.append(f"\n  {self.model.seat_label(seat)} ")
            if at.hands_shown[seat]:
                out.append_text(hand_text(t.hands[seat]))
            else:
                out.append_text(backs(len(t.hands[seat])))
        out.append("\n")
        out.append_text(coloured(facts[0]))
        if viewer != AUDITOR:
            out.append(f"\n(as {perspective_name(viewer)} saw it: v for audit)", style="dim italic")
        return out


class ScoreChart(Static):
    """Cumulative scores after each round, one bar per seat, up to the target; rounds after the
    cursor are dimmed."""

    def __init__(self, model: ReplayModel, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.border_title = "scores by round"

    def show(self, seq: int) -> None:
        self.update(self.text(seq, max(20, self.content_size.width or 40)))

    def text(self, seq: int, width: int) -> Text:
        m = self.model
        if m.seats > 2:
            return self.table_text(seq, width)
        target = m.target
        out = Text()
        out.append(f"target {target} ({rule_words(m.rules)}) · s0 {m.name(0)}, s1 {m.name(1)}\n", style="dim")
        if not m.round_scores:
            out.append("no round has ended", style="dim")
            return out
        top = max(target, *(max(r.scores) for r in m.round_scores))
        room = max(5, width - 14)
        colours = ("#5c8ff0", "#f9c80e")
        mark = min(room, round(target * room / top))
        for r in m.round_scores:
            done = r.seq <= seq
            for seat in (0, 1):
                score = r.scores[seat]
                length = round(score * room / top)
                label = f"r{r.round:<2}" if seat == 0 else "   "
                out.append(f"{label} s{seat} ", style="bold" if done else "dim")
                out.append("█" * length or "▏", style=colours[seat] if done else "#4a4a4a")
                shown = max(1, length)
                if shown < mark:
                    out.append(" " * (mark - shown) + "┊", style="#ff5252")
                    shown = mark + 1
                out.append(f" {score}\n", style="" if done else "dim")
        label = "▲ target" if 7 + mark + 8 <= width else "target ▲"
        out.append(" " * (7 + mark - (0 if label[0] == "▲" else 7)) + label, style="#ff5252")
        return out

    def table_text(self, seq: int, width: int) -> Text:
        """A table of more than two: every seat's total after the last round ended by the
        cursor (the next round's, greyed, before the first ends), one bar per seat."""
        m = self.model
        out = Text()
        out.append(f"target {m.target} ({rule_words(m.rules)})", style="dim")
        if not m.round_scores:
            out.append("\nno round has ended", style="dim")
            return out
        ended = [r for r in m.round_scores if r.seq <= seq]
        r = ended[-1] if ended else m.round_scores[0]
        out.append(f" · after round {r.round}" + ("" if ended else " (still to come)") + "\n", style="dim")
        label_width = max(len(f"s{seat} {m.name(seat)}") for seat in range(m.seats))
        label_width = min(label_width, 14)
        room = max(5, width - label_width - 6)
        top = max(m.target, *r.scores)
        mark = min(room, round(m.target * room / top))
        for seat, score in enumerate(r.scores):
            label = f"s{seat} {m.name(seat)}"
            label = label if len(label) <= label_width else label[: label_width - 1] + "…"
            out.append(f"{label:<{label_width}} ", style="bold" if ended else "dim")
            length = round(score * room / top)
            out.append("█" * length or "▏", style=SEAT_COLOURS[seat % len(SEAT_COLOURS)] if ended else "#4a4a4a")
            shown = max(1, length)
            if shown < mark:
                out.append(" " * (mark - shown) + "┊", style="#ff5252")
            out.append(f" {score}\n", style="" if ended else "dim")
        return out


class TableAudit(Static):
    """The whole table just after the cursor's event, as ``unoduo audit --at SEQ`` says it
    (engine.fairness.audit_report's ``format_table``): both hands, the draw pile top first, the discard,
    whose decision is open. Shown for a dispute (``note``: what was disputed, at which event)."""

    def __init__(self, model: ReplayModel, note: str = "", disputed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.note = note
        self.disputed = disputed
        self.border_title = "audit"

    def show(self, seq: int) -> None:
        self.update(self.text(seq))

    def text(self, seq: int) -> Text:
        table = self.model.table(seq)
        out = Text()
        if self.note:
            out.append(self.note, style="bold #ff5252")
            out.append("\n")
        if self.disputed is not None and seq != self.disputed:
            out.append(f"(the disputed event is #{self.disputed}: d goes back to it)\n", style="dim italic")
        lines = format_table(table, self.model.names)
        out.append(lines[0].strip() + "\n", style="bold")
        for line in lines[1:]:
            label, sep, value = line.strip().partition(": ")
            if sep and label.startswith("hand of"):
                out.append(f"{label}: ", style="dim")
                out.append_text(hand_text(value.split() if value != "(none)" else []))
            else:
                out.append_text(coloured(line.strip()))
            out.append("\n")
        return out


def row_key_at(table: DataTable[Any], row: int) -> str | None:
    """The key of the table's row ``row`` (None: no such row)."""
    if not 0 <= row < table.row_count:
        return None
    key = table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value
    return None if key is None else str(key)
