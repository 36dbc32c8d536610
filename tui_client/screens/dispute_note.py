"""The note of a dispute, asked over whichever screen disputes an event (the table's ``!``, the
replay's dispute key): "dispute event #N: what happened", a line for the note, Enter to send it,
Esc to go back.

:class:`DisputeNoteScreen` returns the note (stripped, never empty) or None; sending it is the
caller's (``POST /api/matches/{id}/disputes {seq, note}``). The server takes at most
:data:`NOTE_LEN` printable characters; an empty note is refused here, in words, before it is sent.

The box sits at the top of the terminal, so the screen under it keeps its event log (with the
disputed event in it) in sight. A dispute stops no clock: the table passes ``clock``, the seconds
left for the player's own move (None when it is not their move), and the box shows them while
the note is written, in red with a bell once :data:`WARN_SECONDS` or fewer are left. Esc goes
back without sending and keeps what was written in :attr:`DisputeNoteScreen.draft`, so a player
can move first and finish the note after (docs/TUI.md "Disputing an event").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

NOTE_LEN = 500  # the server's limit on a dispute's note
WARN_SECONDS = 15  # from here on the clock line is a warning (and the terminal bell rings once)
HINT = "Enter: send to the director · Esc: back (note kept)"

DISPUTE_NOTE_CSS = """
DisputeNoteScreen { align: center top; }
#dispute-box { width: 76; max-width: 100%; height: auto; border: round $warning; padding: 0 1; background: $panel; }
#dispute-what { height: auto; }
#dispute-note { width: 100%; margin: 1 0 0 0; }
#dispute-clock { height: auto; }
#dispute-hint { height: auto; color: $text-muted; }
"""

SecondsLeft = Callable[[], float | None]  # the seconds left for the player's move (None: not their move)


def clock_text(seconds: float | None) -> Text:
    """The note's clock line: the seconds left for the player's move (a warning near the end)."""
    if seconds is None:
        return Text("not your move now: no clock of yours is running", style="dim")
    left = int(seconds + 0.999)
    if left <= WARN_SECONDS:
        return Text(f"⏱ {left} s left for your move! Esc: back, note kept", style="bold #ff5252")
    return Text(f"⏱ {left} s left for your move (it runs while you write)", style="bold #8ab4f8")


class DisputeNoteScreen(ModalScreen[str | None]):
    """Ask for the note of a dispute of event ``seq`` (``summary``: what it was, in words),
    starting from ``draft``; ``clock`` (if given) says the seconds left for the player's move."""

    DEFAULT_CSS = DISPUTE_NOTE_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "back", key_display="Esc")]

    def __init__(self, seq: int, summary: str, draft: str = "", clock: SecondsLeft | None = None) -> None:
        super().__init__()
        self.seq = seq
        self.summary = summary
        self.draft = draft  # what was written, kept when Esc goes back without sending
        self.clock = clock
        self.warned = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dispute-box"):
            yield Static(Text.assemble((f"dispute event #{self.seq}", "bold"), ": ", self.summary), id="dispute-what")
            yield Input(
                self.draft,
                placeholder="what went wrong, for the director",
                id="dispute-note",
                max_length=NOTE_LEN,
                compact=True,
            )
            yield Static(id="dispute-clock")
            yield Static(Text(HINT), id="dispute-hint")

    def on_mount(self) -> None:
        self.query_one("#dispute-note", Input).focus()
        self.query_one("#dispute-clock", Static).display = self.clock is not None
        if self.clock is not None:
            self.tick()
            self.set_interval(0.25, self.tick)

    def tick(self) -> None:
        assert self.clock is not None
        seconds = self.clock()
        self.query_one("#dispute-clock", Static).update(clock_text(seconds))
        low = seconds is not None and seconds <= WARN_SECONDS
        if low and not self.warned:
            self.app.bell()
        self.warned = low

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.stop()
        note = message.value.strip()
        if not note:
            self.query_one("#dispute-hint", Static).update(
                Text("a dispute needs a note: say what went wrong (Esc: do not dispute)", style="bold")
            )
            return
        self.draft = ""
        self.dismiss(note)

    def action_cancel(self) -> None:
        self.draft = self.query_one("#dispute-note", Input).value
        self.dismiss(None)
