"""The screens a replay opens from the tournament and player pages: the scrubber (opened at a
disputed event, in the director's or auditor's perspective, ``q`` going back) and the words of a
replay that failed verification."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from tui_client.apps.replay_app import ScrubberScreen
from tui_client.connection.api import ApiError
from tui_client.models.replay_model import ReplayModel
from tui_client.models.tournament_model import DisputeRow
from tui_client.screens.dispute_note import DisputeNoteScreen
from tui_client.screens.play_host import host_of
from tui_client.widgets.literal import notify_literal
from tui_client.widgets.replay_widgets import TableAudit


class MatchScrubber(ScrubberScreen):
    """The replay scrubber opened from the tournament screen: it opens at ``seq`` (a disputed
    event) in the audit perspective (both hands), and ``q`` goes back instead of quitting. For a
    dispute, the right side is the audit of the table at the cursor (``TableAudit``; a
    challenge's audit where there is one) and ``d`` goes back to the disputed event. A live
    match's is the director's: the events so far (``ReplayModel.from_live``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "back", "back"),
        Binding("escape", "back", "back", show=False),
        Binding("d", "to_dispute", "the disputed event"),
        Binding("exclamation_mark", "dispute", "dispute", key_display="!"),
    ]

    def __init__(self, model: ReplayModel, seq: int = 1, dispute: DisputeRow | None = None) -> None:
        audit = None
        if dispute is not None:
            note = f"dispute {dispute.id} · event #{dispute.seq} · {dispute.cells[4]}: {dispute.cells[5]}"
            audit = TableAudit(model, note, dispute.seq, id="at-body")
        super().__init__(model, seq, audit)
        self.dispute = dispute
        self.sent_disputes: list[dict[str, Any]] = []  # the disputes this player raised from here

    def action_to_dispute(self) -> None:
        if self.dispute is not None:
            self.goto(self.dispute.seq)

    # ------------------------------------------------------------ a player disputes an event

    def my_seat(self) -> int | None:
        """The seat this client's player held in the match (None: not a player of it)."""
        credentials = getattr(self.app, "credentials", None)
        players = self.model.header.get("players")
        if credentials is None or not isinstance(players, list) or credentials.player_id not in players:
            return None
        return players.index(credentials.player_id)

    def action_dispute(self) -> None:
        """``!``: dispute the event under the cursor, with a note (a player of the match only)."""
        if self.my_seat() is None:
            self.notify("only a player of this match, signed in, can dispute one of its events", timeout=4)
            return
        seq = self.cursor
        summary = self.model.describe(seq, self.viewer)

        def send(note: str | None) -> None:
            if note is None:
                self.notify(f"no dispute of #{seq}", timeout=2)
                return
            self.send_dispute(seq, note)

        self.app.push_screen(DisputeNoteScreen(seq, summary), send)

    @work(group="dispute")
    async def send_dispute(self, seq: int, note: str) -> None:
        match = str(self.model.header.get("match"))
        try:
            dispute = await host_of(self).api.open_dispute(match, seq, note)
        except ApiError as error:
            words = f"the dispute of #{seq} was refused: {error.words()}"  # it may quote a name
            notify_literal(self, words, severity="error", timeout=6)
            return
        self.sent_disputes.append(dispute)
        notify_literal(self, f"dispute {dispute.get('id')} of #{seq} sent to the director", timeout=4)

    def action_back(self) -> None:
        self.app.pop_screen()


class TextScreen(Screen[None]):
    """Words to read (an audit view, a replay that failed verification); ``q`` goes back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "back", "back"),
        Binding("escape", "back", "back", show=False),
    ]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_words = title
        self.body = body

    def compose(self) -> ComposeResult:
        yield Static(Text(self.title_words, style="bold"), id="tour-title")
        with VerticalScroll(id="text-body"):
            yield Static(Text(self.body), id="text")
        yield Footer()

    def action_back(self) -> None:
        self.app.pop_screen()
