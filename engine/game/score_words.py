"""A match's result in words, winner first and with the rule that made it (docs/RULES.md D16).

``bob wins 31–229 (lowest total wins)`` under uno-duo, where the loser of each round scores
and reaching the target loses; ``ann wins 512–340 (first to 500 wins)`` under classic, where
the winner scores and reaching the target wins. A match ended by a forfeit says so instead of
the rule: its totals did not decide it. Without the ruleset, no rule is said (never a guess).
The one wording for ``unoduo audit``, the scrubber and the terminal client's narration (which
passes its own names: "you").

At a table of more than two (docs/RULES.md D23) the totals read winner first, then the others
highest first (``ann wins 512–340–120–120 (first to 500 wins)``), and :func:`places_words`
says who came where: ``1st ann 512; 2nd bob 340; 3rd cy and dee 120 (shared)``, a seat that
left by forfeit last (D23, the first to leave last of all).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ordinal", "places_words", "result_words", "rule_words", "totals_words"]

LOSER_SCORES = "loser_scores"


def rule_words(ruleset: Mapping[str, Any] | None) -> str:
    """How a match under ``ruleset`` (its dict) is won: ``lowest total wins`` or ``first to 500
    wins``, with ``; round limit 3`` where a round limit can end it (engine.game.rulesets, issue 22);
    "" when the ruleset (or its scoring) is not known, rather than a guess."""
    rules = ruleset or {}
    scoring = rules.get("scoring")
    if scoring is None:
        return ""
    words = "lowest total wins" if scoring == LOSER_SCORES else f"first to {rules.get('target')} wins"
    limit = rules.get("round_limit")
    return f"{words}; round limit {limit}" if limit else words


def totals_words(scores: Sequence[int], winner: int) -> str:
    """``31–229``: the winner's total first, then (at a table of more than two) the others',
    highest first."""
    if not 0 <= winner < len(scores) or len(scores) < 2:
        return "–".join(str(s) for s in scores)
    others = sorted((score for seat, score in enumerate(scores) if seat != winner), reverse=True)
    return "–".join(str(s) for s in [scores[winner], *others])


def ordinal(place: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` … ``11th``, ``12th``, ``13th`` … ``21st``."""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def places_words(
    names: Sequence[str], scores: Sequence[int], places: Sequence[int], departed: Sequence[bool] = ()
) -> str:
    """Every seat's place (``match_ended``'s ``places``, 1 = first), best first: ``1st ann 512;
    2nd bob 340; 3rd cy and dee 120 (shared); 5th eve 80 (left the table)``. Seats that share a
    place are said together, in seat order."""
    by_place: dict[int, list[int]] = {}
    for seat, place in enumerate(places):
        by_place.setdefault(place, []).append(seat)
    parts: list[str] = []
    for place in sorted(by_place):
        seats = by_place[place]
        who = " and ".join(
            [", ".join(names[s] for s in seats[:-1]), names[seats[-1]]] if len(seats) > 1 else [names[seats[0]]]
        )
        totals = sorted({scores[s] for s in seats})
        words = f"{ordinal(place)} {who} {', '.join(str(t) for t in totals)}"
        if len(seats) > 1:
            words += " (shared)"
        if any(s < len(departed) and departed[s] for s in seats):
            words += " (left the table)"
        parts.append(words)
    return "; ".join(parts)


def result_words(
    winner_name: str,
    scores: Sequence[int],
    winner: int,
    ruleset: Mapping[str, Any] | None,
    *,
    verb: str = "wins",
    forfeit: bool = False,
) -> str:
    """``bob wins 31–229 (lowest total wins)``; ``by forfeit`` in place of the rule after a forfeit.
    ``verb``: ``win`` for "you"."""
    why = "by forfeit" if forfeit else rule_words(ruleset)
    return f"{winner_name} {verb} {totals_words(scores, winner)}" + (f" ({why})" if why else "")
