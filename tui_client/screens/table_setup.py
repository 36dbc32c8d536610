"""Who sits at a classic table with you: the lobby's ``c`` asks, in one line.

A table of 2 to 10 seats (RULES.md "Classic UNO at tables of 2 to 10"): the player names the
other seats, in the order they sit clockwise from their left — people by name and house bots
as ``greedy``, ``random`` or any other house bot's name (``bot:greedy`` too), a bot written with a count
(``3 greedy``, ``greedy x3``) taking that many seats. :func:`parse_guests` reads the line into
the ``opponents`` of ``POST /api/matches`` or says, in words, what is wrong with it;
:class:`TableSetupScreen` returns that list, or None on Esc.
"""

from __future__ import annotations

import re
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from engine.bots import bot_names

MAX_GUESTS = 9  # a table seats at most 10 (RULES.md D18), the player included
BOTS = {name: f"bot:{name}" for name in bot_names()}  # every house bot of engine.bots
_COUNTED = (re.compile(r"^(\d+)\s*[x×]?\s*(\S+)$"), re.compile(r"^(\S+)\s*[x×]\s*(\d+)$"))


class GuestsError(ValueError):
    """The guests line cannot make a table; the message says why, for the player."""


def _bot_or_name(word: str) -> str:
    lowered = word.lower()
    if lowered in BOTS:
        return BOTS[lowered]
    if lowered.startswith("bot:"):
        if lowered not in BOTS.values():
            raise GuestsError(f"there is no house bot {word!r}: the house bots are {', '.join(BOTS)}")
        return lowered
    return word


def parse_guests(text: str) -> list[str]:
    """The other seats of the table, in order: names and ``bot:…`` entries (1 to 9 of them)."""
    guests: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        count, word = 1, part
        for pattern in _COUNTED:
            matched = pattern.match(part)
            if matched is None:
                continue
            first, second = matched.groups()
            number, word = (first, second) if first.isdigit() else (second, first)
            count = int(number)
            break
        entry = _bot_or_name(word)
        if count != 1 and not entry.startswith("bot:"):
            raise GuestsError(f"{part!r}: only a house bot can take several seats; a person sits once")
        if not 1 <= count <= MAX_GUESTS:
            raise GuestsError(f"{part!r}: a table seats 1 to {MAX_GUESTS} others")
        guests.extend([entry] * count)
    if not guests:
        raise GuestsError("name who sits with you: people by name, house bots as greedy or random")
    if len(guests) > MAX_GUESTS:
        raise GuestsError(f"{len(guests)} others is too many: a table seats at most {MAX_GUESTS + 1}, you included")
    people = [g.casefold() for g in guests if not g.startswith("bot:")]
    twice = sorted({p for p in people if people.count(p) > 1})
    if twice:
        raise GuestsError(f"{', '.join(twice)} named twice: a person takes one seat")
    return guests


TABLE_SETUP_CSS = """
TableSetupScreen { align: center middle; }
#table-box { width: 76; max-width: 100%; height: auto; border: round $accent; padding: 0 1; background: $panel; }
#table-what { height: auto; margin: 0 0 1 0; }
#table-guests { width: 100%; }
#table-hint { height: auto; color: $text-muted; }
"""


class TableSetupScreen(ModalScreen[list[str] | None]):
    """Ask who sits at a classic table with the player; dismissed with the opponents, or None."""

    DEFAULT_CSS = TABLE_SETUP_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel", key_display="Esc")]
    HINT = "Enter: make the table · Esc: not now"

    def compose(self) -> ComposeResult:
        with Vertical(id="table-box"):
            yield Static(
                Text.assemble(
                    ("a classic UNO table", "bold"),
                    " (2 to 10 seats, first to 500): who sits with you, clockwise from your left?"
                    " People by name, house bots as greedy or random; a count for several bots.",
                ),
                id="table-what",
            )
            yield Input(placeholder="e.g. bob, 2 greedy, random", id="table-guests", max_length=400)
            yield Static(self.HINT, id="table-hint")

    def on_mount(self) -> None:
        self.query_one("#table-guests", Input).focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.stop()
        try:
            guests = parse_guests(message.value)
        except GuestsError as error:
            self.query_one("#table-hint", Static).update(Text(f"{error} ({self.HINT})", style="bold"))
            return
        self.dismiss(guests)

    def action_cancel(self) -> None:
        self.dismiss(None)
