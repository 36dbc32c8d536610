"""The note of a dispute, asked over whichever screen disputes an event (the table's ``!``, the
replay's dispute key): "dispute event #N: what happened", a line for the note, Enter to send it,
Esc to think again.

:class:`DisputeNoteScreen` returns the note (stripped, never empty) or None; sending it is the
caller's (``POST /api/matches/{id}/disputes {seq, note}``). The server takes at most
:data:`NOTE_LEN` printable characters; an empty note is refused here, in words, before it is sent.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

NOTE_LEN = 500  # the server's limit on a dispute's note

DISPUTE_NOTE_CSS = """
DisputeNoteScreen { align: center middle; }
#dispute-box { width: 76; max-width: 100%; height: auto; border: round $warning; padding: 0 1; background: $panel; }
#dispute-what { height: auto; margin: 0 0 1 0; }
#dispute-note { width: 100%; }
#dispute-hint { height: auto; color: $text-muted; }
"""


class DisputeNoteScreen(ModalScreen[str | None]):
    """Ask for the note of a dispute of event ``seq`` (``summary``: what it was, in words)."""

    DEFAULT_CSS = DISPUTE_NOTE_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel", key_display="Esc")]

    def __init__(self, seq: int, summary: str) -> None:
        super().__init__()
        self.seq = seq
        self.summary = summary

    def compose(self) -> ComposeResult:
        with Vertical(id="dispute-box"):
            yield Static(Text.assemble((f"dispute event #{self.seq}", "bold"), ": ", self.summary), id="dispute-what")
            yield Input(placeholder="what went wrong, for the director", id="dispute-note", max_length=NOTE_LEN)
            yield Static("Enter: send to the director · Esc: do not dispute", id="dispute-hint")

    def on_mount(self) -> None:
        self.query_one("#dispute-note", Input).focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.stop()
        note = message.value.strip()
        if not note:
            self.query_one("#dispute-hint", Static).update(
                Text("a dispute needs a note: say what went wrong (Esc: do not dispute)", style="bold")
            )
            return
        self.dismiss(note)

    def action_cancel(self) -> None:
        self.dismiss(None)
