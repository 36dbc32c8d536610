"""The bracket pane of the tournament screen: :func:`tui_client.models.bracket_model.draw`'s
picture in a view that scrolls both ways (arrows, PgUp/PgDn, Home/End, the mouse), drawn a line
at a time (a 128-player double elimination is hundreds of lines and columns: only what shows is
rendered). The styles' colours are chosen here; the model says only what a cell means.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui_client.models.bracket_model import Drawing
from tui_client.widgets.literal import literal

__all__ = ["STYLES", "BracketView"]

# What each meaning looks like: the player's own path in yellow, live matches in green, results
# bold (winner) or dim (out), sources of seats still to be known dim and italic.
STYLES: dict[str, Style] = {
    "heading": Style(bold=True, underline=True),
    "round": Style(bold=True, color="cyan"),
    "box": Style(color="grey50"),
    "line": Style(color="grey50"),
    "mine": Style(bold=True, color="yellow"),
    "path": Style(bold=True, color="yellow"),
    "next": Style(color="yellow"),
    "live": Style(bold=True, color="green"),
    "winner": Style(bold=True),
    "out": Style(dim=True),
    "me": Style(bold=True, color="black", bgcolor="yellow"),
    "source": Style(dim=True, italic=True),
    "bye": Style(dim=True, italic=True),
    "place": Style(),
}


class BracketView(ScrollView, can_focus=True):
    """The bracket, scrolled with the keys of any scrolling view; ``m`` is the screen's (the
    player's own match)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "scroll_left", "left", show=False),
        Binding("l", "scroll_right", "right", show=False),
        Binding("k", "scroll_up", "up", show=False),
        Binding("j", "scroll_down", "down", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.drawing = Drawing([], [])
        self._rows: list[list[Segment]] = []

    def show(self, drawing: Drawing) -> None:
        """Draw ``drawing``, keeping the scroll position (a refresh must not jump)."""
        self.drawing = drawing
        self._rows = [self._segments(index, line) for index, line in enumerate(drawing.lines)]
        self.virtual_size = Size(drawing.width + 1, len(drawing.lines))
        self._say_where()
        self.refresh()

    def _segments(self, index: int, line: str) -> list[Segment]:
        spans = sorted((s for s in self.drawing.spans if s.row == index), key=lambda s: s.start)
        out: list[Segment] = []
        at = 0
        for span in spans:
            if span.start > at:
                out.append(Segment(line[at : span.start]))
            out.append(Segment(line[span.start : span.end], STYLES.get(span.style)))
            at = span.end
        if at < len(line):
            out.append(Segment(line[at:]))
        return out

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = y + scroll_y
        width = self.scrollable_content_region.width
        if row >= len(self._rows):
            return Strip.blank(width, self.rich_style)
        strip = Strip(self._rows[row]).crop_extend(scroll_x, scroll_x + width, self.rich_style)
        return strip.apply_style(self.rich_style)  # the view's background under every cell

    def watch_scroll_x(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_x(old_value, new_value)
        self._say_where()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._say_where()

    def _say_where(self) -> None:
        """The bottom border says which section and rounds are in view (their headings scroll away)."""
        x, y = self.scroll_offset
        self.border_subtitle = literal(self.drawing.where(y, x, self.scrollable_content_region.width))

    def scroll_to_node(self, node_id: str, animate: bool = False) -> bool:
        """Bring ``node_id``'s box into view (with the column before it, where it comes from)."""
        where = self.drawing.anchors.get(node_id)
        if where is None:
            return False
        row, col = where
        self.scroll_to(x=max(0, col - 25), y=max(0, row - 2), animate=animate)
        return True
