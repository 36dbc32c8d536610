"""The help of ``unoduo play``: every key of the table, the lobby and the tournament screen, over
whichever screen asked (``?``), that screen's own keys first; it scrolls in a short terminal
(↑ ↓ PgUp PgDn), any other key or a click closes it."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

HELP_CSS = """
#help-scroll { width: 78; max-width: 100%; height: auto; max-height: 100%; border: round $primary;
               background: $panel; }
#help-body { width: 100%; height: auto; padding: 0 1; }
HelpScreen { align: center middle; }
"""
SCROLL_KEYS = {"up": -1, "down": 1, "pageup": -10, "pagedown": 10}

TABLE_HELP = """[b]The table[/b]

  ← →      choose a card
  Enter    play it (in the draft: keep the card looked at)
  k        keep the card looked at (draft) · keep the drawn card
  p        pass it (draft) · keep the drawn card · do not dump
  d        draw (facing a volley: take the whole total)
  u        UNO: say it (with 2 cards: with your next play), or catch
  c  a     challenge · accept a Wild Draw Four played on you
  x        dump every card of the colour
  r y g b  name a colour (for a Wild, or a Wild starter)
  Esc      choose another card instead of naming a colour
  ↑ ↓      pick an event in the log (for a dispute)
  !        dispute the picked event (else the latest) with a note
  e        write the proof of your last challenge or caught UNO to a file
  Enter    once the match is over: back to the lobby (or the next table)
  s        once it is over: stay at this table
  ?        this help
  q        back to the lobby

Click a card to select it, click it again to play it; every action
has a button too. Only what the server lists as legal is offered."""

LOBBY_HELP = """[b]The lobby[/b]  (live: pairings, results and rulings show by themselves)
  Enter open · e enter/leave an open tournament · t tournament
  k check in to a tournament you entered, in its check-in window
  a auto-join on/off · g greedy bot · n random bot · o coach bot · r refresh · q quit
  c a classic table of 2-10: name who sits with you (bob, 2 greedy)
  i your own page: ratings, the rating chart, match history
  x x sign out: this device forgets its token (then sign in again)
  Tab the disputes box: ↑ ↓ read every ruling whole"""

TOURNAMENT_HELP = """[b]A tournament[/b]
  Enter watch a live pairing / replay a finished one
  o open a dispute (director) · Tab next table · r refresh · q back
  p the page of the player highlighted in the standings
  f every tie-break column / the compact standings · ? this help
  s the season table (a tournament in a season: its line under the title)
  b a knockout's bracket / its standings and schedule · m your match in view
  ← → ↑ ↓ PgUp PgDn Home End (or h j k l) scroll the bracket"""

PLAYER_HELP = """[b]A player's page[/b]
  f the chart's family (UNO Duo, classic) · t head-to-head / tournaments
  Enter watch / replay a match · open an opponent's page · q back"""

SECTIONS = {"table": TABLE_HELP, "lobby": LOBBY_HELP, "tournament": TOURNAMENT_HELP, "player": PLAYER_HELP}
CLOSING = "(↑ ↓ PgUp PgDn scroll · any other key closes)"


def help_text(first: str = "table") -> str:
    """Every screen's keys, the asking screen's (``first``) at the top."""
    order = [first, *(name for name in SECTIONS if name != first)]
    return "\n\n".join([*(SECTIONS[name] for name in order), CLOSING])


HELP = help_text()


class HelpScreen(ModalScreen[None]):
    def __init__(self, first: str = "table") -> None:
        super().__init__()
        self.first = first if first in SECTIONS else "table"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-scroll"):
            yield Static(help_text(self.first), id="help-body")

    def on_key(self, event: Any) -> None:
        event.stop()
        step = SCROLL_KEYS.get(event.key)
        if step is not None:  # a short terminal: the help scrolls
            self.query_one("#help-scroll", VerticalScroll).scroll_relative(y=step, animate=False)
            return
        self.dismiss()

    def on_click(self) -> None:
        self.dismiss()
