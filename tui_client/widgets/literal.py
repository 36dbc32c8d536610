"""Text shown as it is written: the one way the client hands words to a widget (issue 33.4).

Textual reads a ``str`` as markup almost everywhere it takes one: a ``Static``'s content, a
``DataTable`` cell, a border title or subtitle, a notification. A player's name such as
``robo [bot]``, ``[bold]ann[/bold]`` or ``[link=https://e.x]y[/link]`` then loses its brackets, changes
style or becomes a link. Every word that may hold something a player chose (names, notes,
rulings, tournament names, error messages quoting them) goes through here first:

- :func:`literal` makes a ``rich.text.Text`` of a ``str`` (a ``Text`` is drawn as it is; other
  values as their ``str``), so nothing in it is read as markup;
- :func:`literal_cells` does it to each cell of a table row;
- :func:`notify_literal` sends a notification whose words are not markup.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual.app import App
from textual.notifications import SeverityLevel
from textual.widget import Widget

__all__ = ["literal", "literal_cells", "notify_literal"]


def literal(value: object, style: str = "") -> Text:
    """``value`` as text drawn exactly as written: a ``Text`` as it is, anything else as its
    ``str`` (with ``style``), never read as markup."""
    if isinstance(value, Text):
        return value
    return Text(str(value), style=style)


def literal_cells(cells: Iterable[object]) -> tuple[Text, ...]:
    """A table row's cells, each :func:`literal` (a ``DataTable`` reads a ``str`` cell as markup)."""
    return tuple(literal(cell) for cell in cells)


def notify_literal(
    where: Widget | App[Any],
    message: str,
    *,
    title: str = "",
    severity: SeverityLevel = "information",
    timeout: float | None = None,
) -> None:
    """A notification whose words are shown as written (Textual's ``notify`` reads markup by default)."""
    where.notify(message, title=title, severity=severity, timeout=timeout, markup=False)
