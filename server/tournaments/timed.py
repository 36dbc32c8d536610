"""Timed rounds (RULES.md D26, docs/TOURNAMENTS.md "Timed rounds"): what a round's wall-clock
limit is, and when it runs out. Pure: the fold's times in, moments out.

A tournament created with ``round_minutes`` gives each round that limit from the moment it opens
(its ``round_opened``). When it runs out, the service calls time in every match of the round
still being played (the engine's ``CallTime``) and records the call on the tournament
(``round_time_called``); the director may call it sooner.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Final

MAX_ROUND_MINUTES: Final = 600.0  # ten hours: longer than any club night


def round_minutes_problem(value: object) -> str | None:
    """Why ``value`` cannot be a round's limit in minutes (None: it can). A float is taken, so that
    a test (or a blitz night) may give a round seconds: 0.05 is three seconds."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"round_minutes must be a number of minutes, more than 0 and at most {MAX_ROUND_MINUTES:g}"
    if not math.isfinite(value) or not 0 < value <= MAX_ROUND_MINUTES:
        return f"round_minutes must be more than 0 and at most {MAX_ROUND_MINUTES:g}, not {value!r}"
    return None


def round_deadline(opened_at: datetime, minutes: float) -> datetime:
    """When a round opened at ``opened_at`` runs out of time."""
    return opened_at + timedelta(minutes=minutes)
