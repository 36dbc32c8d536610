"""The scrubber's review pane (``r`` in ``unoduo replay``): a seat's Game Review at the cursor.

Headless: lines of text from a review's JSON (``engine.review.report.review_dict``) and the
cursor's event number. The pane shows the seat's decision at the cursor, or the last one before
it, with every option's expected match points; :func:`next_flagged` finds the next banded one.
"""

from __future__ import annotations

from typing import Any

from engine.review.report import option_words


def decision_at(review: dict[str, Any], seq: int) -> dict[str, Any] | None:
    """The seat's reviewed decision at event ``seq``, or the last one before it (None: none yet)."""
    found = None
    for decision in review["decisions"]:
        if decision["seq"] > seq:
            break
        found = decision
    return found


def next_flagged(review: dict[str, Any], seq: int) -> int | None:
    """The event number of the next banded decision after ``seq`` (wrapping round), or None."""
    flagged: list[int] = [int(d["seq"]) for d in review["decisions"] if d["band"]]
    if not flagged:
        return None
    return next((s for s in flagged if s > seq), flagged[0])


def pane_lines(review: dict[str, Any], seq: int) -> list[str]:
    accuracy = review.get("accuracy")
    counts = review["counts"]
    lines = [
        f"seat {review['seat']} · accuracy {'-' if accuracy is None else f'{accuracy:.0f}%'}"
        f" · {counts['blunder']} blunders {counts['mistake']} mistakes {counts['inaccuracy']} inaccuracies",
        f"expected match points, {review['settings']['samples']} samples · r: next flagged",
        "",
    ]
    decision = decision_at(review, seq)
    if decision is None:
        return [*lines, "no decision of this seat with a choice yet"]
    where = "at the cursor" if decision["seq"] == seq else f"#{decision['seq']}, before the cursor"
    band = decision["band"] or "no flag"
    lines += [
        f"decision {where} (hand {decision['round']}, {decision['kind']}):",
        f"chose {option_words(decision['chosen'])}: loss {decision['loss']:.3f} ± {decision['loss_stderr']:.3f} · {band}",
        "",
    ]
    for option in decision["options"]:
        mark = ">" if option["option"] == decision["chosen"] else " "
        lines.append(f"{mark} {option_words(option['option']):<18} {option['mean']:.3f} ± {option['stderr']:.3f}")
    return lines
