"""The API's answers that are not one table's public model (those are in ``server/store/models.py``).

A view is ``engine.views.view()``'s dict: :class:`MatchView` documents the keys docs/PROTOCOL.md
fixes and lets every other key through unchanged (a view may gain keys), rather than modelling
each nested shape.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from server.store.models import EventPublic, MatchSummaryPublic, PlayerPublic


def _absent_if_none(value: Any) -> bool:
    return value is None


class ServerInfo(BaseModel):
    """What this server is and where to read about it (``GET /`` and ``GET /api``)."""

    name: Literal["unoduo"] = "unoduo"
    version: str = Field(description="the server's (and engine's) version")
    docs: str = Field(default="/docs", description="interactive API docs")
    openapi: str = Field(default="/openapi.json", description="the OpenAPI document")
    api: str = Field(default="/api", description="where the API's paths start (docs/API.md)")


class PlayerWithToken(PlayerPublic):
    """A player just registered, with their token (shown this once: the server keeps its hash only)."""

    token: str = Field(description="send it as 'Authorization: Bearer TOKEN'")


class Me(PlayerPublic):
    """The caller, and every match they have a seat in, by match id."""

    matches: list[MatchSummaryPublic]


class Pending(BaseModel):
    """The decision the match waits for: ``kind``, and what that decision needs (e.g. ``total``)."""

    model_config = ConfigDict(extra="allow")

    kind: str = Field(description="draft, turn, drawn, volley, wild_draw_four, dump, color or none")


class MatchView(BaseModel):
    """What one viewer sees of a match (docs/PROTOCOL.md "View"): a seat's, a spectator's, or the audit view.

    Only an audit view (the director, or anyone once the match is over) has ``hands`` and
    ``draw_order``. A view may carry keys beyond those listed here.
    """

    model_config = ConfigDict(extra="allow")

    viewer: int | Literal["spectator", "auditor"] = Field(description="0 or 1 (a seat), spectator or auditor")
    version: int = Field(description="number of events folded so far")
    phase: str = Field(description="waiting, draft, play, round_over or match_over, …")
    round: int
    scores: list[int]
    target: int
    player1: int | None = Field(description="seat of this round's first drafter")
    turn: int | None = Field(description="seat whose decision it is, or null")
    pending: Pending
    hand: list[str] | None = Field(description="the viewer's own cards (codes); null for a spectator")
    hand_counts: list[int]
    top: str | None = Field(description="the top discard")
    color: str | None = Field(description="the active colour")
    draw_pile: int = Field(description="how many cards the draw pile holds")
    draft_pile: list[str]
    uno: list[bool] = Field(description="per seat: has said UNO on its current one-card hand")
    legal: list[dict[str, Any]] = Field(description="the commands this viewer may send now (docs/PROTOCOL.md)")
    commitment: str = Field(description="the deck-seed commitment (docs/FAIRNESS.md)")
    last_challenge: dict[str, Any] | None = Field(description="null or {by, hand, verdict, evidence}")
    hands: list[list[str]] | None = Field(
        default=None, exclude_if=_absent_if_none, description="audit view only: both hands"
    )
    draw_order: list[str] | None = Field(
        default=None, exclude_if=_absent_if_none, description="audit view only: the draw pile, top first"
    )


class MatchDetail(BaseModel):
    """A match as the caller may see it."""

    match: MatchSummaryPublic
    view: MatchView


class MatchOutcome(MatchDetail):
    """What a join or a command did: the match and view after it, and its events as the caller may see them.

    ``events`` are the command's events and the house bots' answers to it.
    """

    events: list[EventPublic]
