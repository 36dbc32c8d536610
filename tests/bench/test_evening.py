"""``python -m bench.evening`` (docs/TOURNAMENTS.md "How long an evening takes"): the pace is
calibrated so that a round of UNO Duo to 60 (the matches' 90th percentile) takes the club's 8
minutes, and longer targets take longer."""

from __future__ import annotations

import re

from bench.evening import CLUB_MINUTES_AT_60, SETTINGS, report


def test_the_table_is_calibrated_on_the_clubs_match_to_60() -> None:
    text = report(matches=20, seed=1)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == len(SETTINGS)
    minutes = {row.split(" | ")[0][2:]: int(row.rstrip(" |").rsplit("| ", 1)[1]) for row in rows}
    assert minutes["UNO Duo to 60"] == CLUB_MINUTES_AT_60
    assert minutes["UNO Duo to 60"] < minutes["UNO Duo to 200 (default)"] < minutes["UNO Duo to 500"]
    assert re.search(r"pace \d+\.\d s a decision", text)
