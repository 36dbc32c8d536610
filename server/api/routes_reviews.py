"""``GET /api/matches/{id}/review?seat=N``: a finished match's Game Review for one seat (issue 37).

Finished matches only (409 ``match_live`` while it is played); a duplicate round's only once its
round is revealed (409 ``not_now``); the same read gate as the replay (403 ``withheld``). The
answer is the review's JSON (``engine.review.report.review_dict``), cached per match, seat and
settings. A first review of a long match takes up to a minute (docs/REVIEW.md).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from engine.game.rulesets import MAX_SEATS
from engine.review.review import MAX_SAMPLES, ReviewSettings
from server.api.routes_matches import BEARER_OPTIONAL, MatchId
from server.deps import CallerDep, ReviewsDep
from server.errors import error_responses
from server.schemas_reviews import GameReview

router = APIRouter(prefix="/api/matches", tags=["matches"])


@router.get(
    "/{match_id}/review",
    response_model=GameReview,
    responses=error_responses(400, 401, 403, 404, 409, 503),
    openapi_extra=BEARER_OPTIONAL,
)
def match_review(
    match_id: MatchId,
    caller: CallerDep,
    reviews: ReviewsDep,
    seat: Annotated[int, Query(ge=0, lt=MAX_SEATS, description="the seat to review")] = 0,
    samples: Annotated[
        int | None, Query(ge=1, le=MAX_SAMPLES, description="determinizations per decision (default 64)")
    ] = None,
) -> GameReview:
    """Every decision of the seat with a choice: each option's expected match points (mean and
    standard error), the loss of the choice against the best, its band (inaccuracy 0.05,
    mistake 0.10, blunder 0.20, only above two standard errors); accuracy, average loss,
    agreement with the best option, and each hand's luck. Blocking: it runs in a worker thread."""
    settings = ReviewSettings() if samples is None else ReviewSettings(samples=samples)
    return GameReview.model_validate(reviews.review(match_id, seat, caller, settings))
