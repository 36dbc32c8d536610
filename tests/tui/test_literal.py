"""tui_client.widgets.literal: words a player chose are drawn as written, never read as markup."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

from tui_client.widgets.literal import literal, literal_cells, notify_literal

pytestmark = pytest.mark.anyio

MARKUP_NAMES = ("[bold]ann[/bold]", "[red]x", "[link=https://e.x]y[/link]", "bob [bot]")


async def test_literal_keeps_every_bracket() -> None:
    for name in MARKUP_NAMES:
        assert literal(name).plain == name and not literal(name).spans
    styled = Text("kept", style="bold")
    assert literal(styled) is styled
    assert literal(7).plain == "7" and [c.plain for c in literal_cells(["[red]x", 3])] == ["[red]x", "3"]


class Shows(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(literal(MARKUP_NAMES[0]), id="static")
        yield DataTable(id="table")


async def test_a_table_and_a_notification_draw_the_brackets() -> None:
    app = Shows()
    async with app.run_test() as pilot:
        table = app.query_one(DataTable)
        table.add_column("name")
        for name in MARKUP_NAMES:
            table.add_row(*literal_cells([name]))
        notify_literal(app, "bob [bot] says [red]x")
        await pilot.pause()
        drawn = [table.get_row_at(row)[0].plain for row in range(table.row_count)]
        assert drawn == list(MARKUP_NAMES)
        assert [n.message for n in app._notifications] == ["bob [bot] says [red]x"]
        assert all(not n.markup for n in app._notifications)
