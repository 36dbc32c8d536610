"""A screen's minimum size, and the notice shown below it (docs/TUI.md "Below the minimum size").

A screen that cannot show what matters below some size mixes in :class:`MinimumSize` and says
its size in ``MIN_SIZE`` (its own ``on_mount`` and ``on_resize(event)``, if any, run as well:
Textual calls the handler of every class in the MRO)::

    class TournamentScreen(MinimumSize, Screen[None]):
        MIN_SIZE = (60, 20)

Whenever the terminal is smaller (on mount and on every resize), a :class:`TooSmallNotice`
covers the whole screen with ``make the terminal at least 60×20 (now 52×18)`` instead of
letting Textual silently squeeze panels to nothing; it goes away as soon as the terminal is big
enough again. The screen keeps running underneath (its workers, its refreshes), and its
``too_small`` property says whether the notice is up (the tests wait on it).

The notice is one widget on Textual's screen overlay (``overlay: screen``, ``position:
absolute`` at the screen's top-left corner) sized to the whole screen, so it works the same on any layout and
the screen's own CSS cannot push it aside.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.events import Resize
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static

NOTICE_ID = "too-small"
LAYER = "too-small"  # the top layer, added to the screen's layers


def notice_words(minimum: tuple[int, int], now: Size) -> str:
    """``make the terminal at least W×H (now w×h)``."""
    width, height = minimum
    return f"make the terminal at least {width}×{height} (now {now.width}×{now.height})"


def is_too_small(minimum: tuple[int, int], now: Size) -> bool:
    return now.width < minimum[0] or now.height < minimum[1]


class TooSmallNotice(Static):
    """The whole-screen notice; shown (class ``shown``) only while the terminal is too small."""

    DEFAULT_CSS = """
    TooSmallNotice {
        layer: too-small;
        dock: top;
        display: none;
        width: 100%;
        height: 100%;
        background: $background;
        color: $text;
        content-align: center middle;
        text-align: center;
        text-style: bold;
        padding: 0 1;
    }
    TooSmallNotice.shown { display: block; }
    """

    def __init__(self) -> None:
        super().__init__("", id=NOTICE_ID)


class MinimumSize:
    """Mix into a :class:`~textual.screen.Screen` (before it) to get the notice below ``MIN_SIZE``."""

    MIN_SIZE: ClassVar[tuple[int, int]] = (60, 20)

    def _notice(self) -> TooSmallNotice | None:
        screen = self._as_screen()
        found = screen.query(f"#{NOTICE_ID}")
        return found.first(TooSmallNotice) if found else None

    def _as_screen(self) -> Screen[object]:
        assert isinstance(self, Screen), "MinimumSize is a mixin for Textual screens"
        return self

    def minimum(self) -> tuple[int, int]:
        """The size below which the notice is up: ``MIN_SIZE``, unless the screen needs more
        for what it shows (the scrubber of a table of 10 needs more lines than one of 2)."""
        return self.MIN_SIZE

    @property
    def too_small(self) -> bool:
        """Whether the terminal is below :meth:`minimum` now (the notice is up)."""
        return is_too_small(self.minimum(), self._as_screen().size)

    # ``object``: a screen's own on_mount may be a plain method or a coroutine (Textual awaits it)
    def on_mount(self) -> object:
        screen = self._as_screen()
        layers = tuple(screen.styles.layers) or ("default",)
        if LAYER not in layers:
            screen.set_styles(f"layers: {' '.join((*layers, LAYER))};")
        if self._notice() is None:
            screen.mount(TooSmallNotice())
        screen.call_after_refresh(self.check_size)
        return None

    def on_resize(self, event: Resize) -> None:
        self.check_size(event.size)

    def check_size(self, size: Size | None = None) -> None:
        """Show or hide the notice for ``size`` (the screen's own size by default)."""
        notice = self._notice()
        if notice is None:
            return
        now = size if size is not None else self._as_screen().size
        small = is_too_small(self.minimum(), now)
        if small:
            notice.update(Text(notice_words(self.minimum(), now)))
        notice.set_class(small, "shown")
