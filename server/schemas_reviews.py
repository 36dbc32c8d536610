"""The Game Review's answer (``GET /api/matches/{id}/review``, issue 37; docs/REVIEW.md)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ReviewOption(BaseModel):
    option: dict[str, Any] = Field(description="a legal command at the moment (docs/PROTOCOL.md shape)")
    mean: float = Field(description="its expected match points (0 to 1)")
    stderr: float = Field(description="the standard error of that mean")


class ReviewDecision(BaseModel):
    seq: int = Field(description="the command's event number in the replay")
    round: int
    kind: str = Field(
        description="the pending decision (draft, turn, drawn, volley, wild_draw_four, dump, color) or uno"
    )
    chosen: dict[str, Any]
    best: dict[str, Any] = Field(description="the option with the highest mean")
    coach: dict[str, Any] = Field(
        description="the coach's choice in the same playouts (the top level's criterion: the hand's point margin)"
    )
    loss: float = Field(description="best mean minus the chosen option's mean, in expected match points")
    loss_stderr: float = Field(description="standard error of the loss, from the paired samples")
    band: str | None = Field(description="inaccuracy, mistake, blunder, or null (below 0.05, or inside the noise)")
    options: list[ReviewOption]


class ReviewHand(BaseModel):
    round: int
    before: float = Field(description="expected match points as the hand began")
    deal: float = Field(description="expected match points at its end from the deal, every seat playing simply")
    deal_stderr: float
    luck: float = Field(description="deal minus before: what the deal was worth to the seat")
    after: float = Field(description="expected match points once the hand was scored")
    points: int = Field(description="the seat's score change in the hand")


class GameReview(BaseModel):
    """One seat's review of a finished match: the figures are estimates with error bars, not findings."""

    match: str | None
    seat: int
    player: str | None
    unit: str
    settings: dict[str, int] = Field(description="samples (determinizations per decision) and the review's version")
    bands: dict[str, float] = Field(description="each band's lowest loss")
    noise_sigmas: float = Field(description="a loss is banded only above this many standard errors")
    reviewed: int = Field(description="decisions with a choice")
    forced: int = Field(description="decisions with one legal option (not reviewed)")
    accuracy: float | None = Field(
        description="mean of each reviewed decision's accuracy, 0 to 100, by lichess's formula on its loss"
    )
    average_loss: float | None
    agreement: float | None = Field(description="share of reviewed decisions where the choice was the coach's")
    counts: dict[str, int]
    decisions: list[ReviewDecision]
    hands: list[ReviewHand]


class ReviewFiguresPublic(BaseModel):
    """Game Reviews summed over a player's matches (decision-weighted): estimates, not findings."""

    matches: int = Field(description="matches reviewed so far (the rest are queued and fill in)")
    of_matches: int = Field(description="the finished matches these were taken from")
    decisions: int = Field(description="decisions with a choice among them")
    accuracy: float | None = Field(description="mean accuracy of those decisions (0 to 100, lichess's formula)")
    average_loss: float | None = Field(description="mean loss a decision, in expected match points")
    agreement: float | None = Field(description="share of decisions where the choice was the coach's")
