"""Cards on the terminal: each code in its colour (red, yellow, green, blue; wilds bold white on
grey), read with the engine's own card parser; the other hand as card backs."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from rich.text import Text

from engine.game.cards import Color, parse_card
from engine.game.errors import CardParseError

CARD_STYLES: dict[Color | None, str] = {
    Color.RED: "bold #ffffff on #c62828",
    Color.YELLOW: "bold #000000 on #f9c80e",
    Color.GREEN: "bold #000000 on #3fae49",
    Color.BLUE: "bold #ffffff on #1e5bd6",
    None: "bold #ffffff on #4a4a4a",  # a wild: no colour of its own
}
COLOUR_WORD_STYLES = {
    "red": "bold #ef5350",
    "yellow": "bold #f9c80e",
    "green": "bold #4cbb55",
    "blue": "bold #5c8ff0",
}
HIGHLIGHT = "underline reverse"  # on a card that made a Wild Draw Four illegal
BACK_STYLE = "#8a8a8a"

_TOKEN = re.compile(r"[A-Za-z0-9+]+")


def card_style(code: str) -> str | None:
    """The style of a card code, or None if it is not a card (``engine.game.cards.parse_card``)."""
    if code != code.upper():
        return None
    try:
        card = parse_card(code)
    except CardParseError:
        return None
    return CARD_STYLES[card.color]


def card_text(code: str, highlight: bool = False) -> Text:
    style = card_style(code) or ""
    if highlight:
        return Text.assemble(("[", "bold"), (code, f"{style} {HIGHLIGHT}"), ("]", "bold"))
    return Text(code, style=style)


def hand_text(codes: Sequence[str], highlight: Collection[str] = ()) -> Text:
    """A hand, each card in its colour; the faces in ``highlight`` bracketed and underlined."""
    if not codes:
        return Text("(no cards)", style="dim")
    out = Text()
    for index, code in enumerate(codes):
        if index:
            out.append(" ")
        out.append_text(card_text(code, code in highlight))
    return out


def backs(count: int) -> Text:
    """The other hand, face down: one back per card, and the count."""
    return Text("▮" * count + f" {count} card{'s' if count != 1 else ''}", style=BACK_STYLE)


def coloured(line: str) -> Text:
    """A line of words with every card code in it (``R5``, ``W+4``) and colour word in colour."""
    out = Text()
    last = 0
    for match in _TOKEN.finditer(line):
        word = match.group(0)
        style = card_style(word) if any(ch.isdigit() or ch in "+SRW" for ch in word) else None
        style = style or COLOUR_WORD_STYLES.get(word)
        if style is None:
            continue
        out.append(line[last : match.start()])
        out.append(word, style=style)
        last = match.end()
    out.append(line[last:])
    return out
